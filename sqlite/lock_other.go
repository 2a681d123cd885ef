//go:build !unix

package sqlite

// lockFile is a no-op where flock is missing; SQLite's own locking still
// keeps the file consistent, only concurrent first starts may collide.
func lockFile(string) (func(), error) { return func() {}, nil }
