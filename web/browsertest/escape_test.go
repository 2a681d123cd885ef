package browsertest

import (
	"strings"
	"testing"
	"time"
)

// payload would run script in a page that put agent text in as HTML:
// inline (on a page rendered with it) or through the image's error
// handler (also when a live refresh moves it into the page).
const payload = `<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">`

// TestAgentTextIsText: a message body and a question holding markup show
// as their text on the messages page and the front page, both when they
// arrive live and when the page is loaded with them, and run nothing.
func TestAgentTextIsText(t *testing.T) {
	fx := setup(t)
	bot := fx.newAgent(t, "agent-mallory")
	tb := fx.loggedInTab(t)

	check := func(where string) {
		t.Helper()
		// Give an injected image time to fail to load and fire onerror.
		time.Sleep(300 * time.Millisecond)
		if pwned := eval[string](tb, `String(window.__pwned)`); pwned != "undefined" {
			t.Errorf("%s: agent text ran as script: window.__pwned = %s", where, pwned)
		}
		if n := eval[int](tb, `document.querySelectorAll('#content script, #content img[src="x"], #content [onerror]').length`); n != 0 {
			t.Errorf("%s: agent text became %d elements", where, n)
		}
		if txt := tb.text("#content"); !strings.Contains(txt, payload) {
			t.Errorf("%s: the page does not show the markup as text", where)
		}
	}

	// The messages page, live, then loaded.
	tb.openLive("/messages")
	watchFor(tb, payload)
	start := time.Now()
	bot.call("send_message", map[string]any{"to": "user", "body": payload})
	seenWithin(tb, start, 2*time.Second, "the message")
	check("/messages (live)")
	tb.shot("messages-live")
	if st := tb.open("/messages"); st != 200 {
		t.Fatalf("GET /messages: %d", st)
	}
	check("/messages")
	tb.shot("messages")

	// The front page shows questions: the same markup as one.
	tb.openLive("/")
	watchFor(tb, payload)
	start = time.Now()
	bot.call("ask_owner", map[string]any{"question": payload, "timeout_seconds": 0})
	seenWithin(tb, start, 2*time.Second, "the question")
	check("/ (live)")
	tb.shot("needs-live")
	if st := tb.open("/"); st != 200 {
		t.Fatalf("GET /: %d", st)
	}
	check("/")
	tb.shot("needs")
}
