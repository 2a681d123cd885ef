package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/lazystore"
	"github.com/baton-dev/baton/postgres"
	"github.com/baton-dev/baton/sqlite"
)

// openSQLite opens the SQLite database at path (migrating it), and keeps
// a .baton directory out of git.
func openSQLite(ctx context.Context, path string, clock baton.Clock) (*sqlite.Store, error) {
	s, err := sqlite.Open(ctx, path, sqlite.Options{Clock: clock})
	if err != nil {
		return nil, err
	}
	if dir := filepath.Dir(s.Path()); filepath.Base(dir) == ".baton" {
		// The database is local state, never something to commit.
		ignore := filepath.Join(dir, ".gitignore")
		if _, err := os.Stat(ignore); os.IsNotExist(err) {
			_ = os.WriteFile(ignore, []byte("*\n"), 0o644)
		}
	}
	return s, nil
}

// openStoreInBackground starts opening a SQLite database (and, on an
// empty one, creating the default project, as ensureProject does for
// every server) and makes a.store a store that waits for it: `baton mcp`
// answers initialize and tools/list while the database opens and checks
// its migrations, and calls that need it wait, or get the error that kept
// it from opening. What can be told without opening is told at once: a
// database that is not there. PostgreSQL opens as before (openStore):
// its servers are long-lived, and the bus of a replica listens from the
// start.
func (a *App) openStoreInBackground(ctx context.Context) error {
	loc := a.location()
	if a.store != nil || postgres.IsURL(loc.Path) {
		return nil
	}
	if !loc.Exists && !a.mayCreate {
		return loc.missing()
	}
	if loc.Path == "" {
		// sqlite.Open's own refusal, with its hint, now rather than on the
		// first call.
		_, err := sqlite.Open(ctx, loc.Path, sqlite.Options{})
		return err
	}
	abs, err := filepath.Abs(loc.Path)
	if err != nil {
		return err
	}
	// The opening outlives no command, but a cancelled command must not
	// leave a half-opened store: it finishes, and Close (App.Run) closes it.
	octx := context.WithoutCancel(ctx)
	a.store = lazystore.Open(baton.StoreInfo{Driver: "sqlite", Path: abs}, func() (baton.Store, error) {
		s, err := openSQLite(octx, loc.Path, a.Clock)
		if err == nil {
			err = a.ensureProject(octx, s)
		}
		if err != nil {
			if s != nil {
				_ = s.Close()
			}
			fmt.Fprintf(a.Stderr, "baton: the database %s did not open: %v\n", loc.Path, err)
			return nil, err
		}
		return s, nil
	})
	return nil
}
