package sqlite

import (
	"context"
	"path/filepath"
	"testing"
)

// openTemp opens a new store in the test's temporary directory, closed
// when the test ends.
func openTemp(t testing.TB) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "baton.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
