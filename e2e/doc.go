// Package e2e holds the end-to-end tests: they build the baton binary and
// drive it over real stdio and real HTTP, with raw JSON-RPC and with the
// go-sdk client, and compare every transport with the CLI.
package e2e
