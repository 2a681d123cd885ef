// Package browsertest drives the operator's dashboard in a real headless
// Chromium: it builds baton, starts `baton serve`, lets agents act over
// MCP with their bearer tokens and checks what the browser shows and
// does (login, the board, live updates, answering a question, escaping,
// layout and keyboard reach). It holds only tests.
//
// The tests need a Chromium: chromium, chromium-browser or google-chrome
// in PATH, or BATON_CHROMIUM=path. Without one they skip; install it with
// `apt-get install -y chromium` (.ci/run does). go test never reaches the
// network. Set BATON_SCREENSHOTS=DIR to keep the screenshots each test
// takes of the pages it visits (DIR/TEST/NN-page.png); by default they go
// to the test's temporary directory.
package browsertest
