//go:build !linux

package bench

// dropCached does nothing here: a server's resident file pages are read
// from Linux's /proc only.
func dropCached(string) error { return nil }
