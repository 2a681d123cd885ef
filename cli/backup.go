package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/postgres"
	"github.com/baton-dev/baton/sqlite"
	"github.com/spf13/cobra"
)

// pgDumpHint is what backup and restore say on PostgreSQL, whose own
// tools do it better than baton could.
const pgDumpHint = "on PostgreSQL use its own tools: pg_dump --format=custom --file=baton.dump URL to back up, " +
	"pg_restore --clean --dbname=URL baton.dump to restore (or baton export / baton import for a portable copy)"

// backupCmds are `baton backup` and `baton restore`.
func (a *App) backupCmds() []*cobra.Command {
	cmd := &cobra.Command{
		Use:   "backup FILE",
		Short: "Copy the SQLite database to FILE, consistently, while agents keep working",
		Long: "backup writes a consistent copy of the SQLite database to FILE (which must not exist) while servers and\n" +
			"agents keep writing: one read snapshot (VACUUM INTO), so the copy is the database as of one instant,\n" +
			"compacted. Progress is shown on a terminal for long runs. `baton restore FILE` puts it back.\n" +
			"On PostgreSQL use pg_dump: backup says how.",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			if loc := a.location(); postgres.IsURL(loc.Path) {
				return a.fail(baton.Errorf(baton.ErrInvalidInput, "baton backup copies SQLite databases; this one is PostgreSQL").
					WithHint("%s", pgDumpHint))
			}
			s, err := a.openStore(ctx)
			if err != nil {
				return a.fail(err)
			}
			st, ok := s.(*sqlite.Store)
			if !ok {
				return a.fail(baton.Errorf(baton.ErrInvalidInput, "baton backup copies SQLite databases").WithHint("%s", pgDumpHint))
			}
			dst, err := filepath.Abs(args[0])
			if err != nil {
				return a.fail(err)
			}
			p := a.startProgress("backing up " + st.Path())
			start := time.Now()
			var size int64
			err = st.Backup(ctx, dst, func(done, total int64) {
				size = done
				p.set(fmt.Sprintf("%s of about %s", mib(done), mib(total)))
			})
			p.finish()
			if err != nil {
				return a.fail(err)
			}
			if wantJSON(c) {
				return a.printJSON(map[string]any{"file": dst, "bytes": size, "database": st.Path(),
					"took_ms": time.Since(start).Milliseconds()})
			}
			fmt.Fprintf(a.Stdout, "backed up %s to %s (%s)\nrestore it with: baton restore %s\n", st.Path(), dst, mib(size), dst)
			return nil
		},
	}
	a.jsonFlag(cmd, `{"file", "bytes", "database", "took_ms"}.`)

	var check, keep bool
	restore := &cobra.Command{
		Use:   "restore FILE",
		Short: "Replace the SQLite database's contents with a backup",
		Long: "restore checks FILE is a whole baton database (integrity check, a schema this baton knows), keeps the\n" +
			"current database beside it as DB.before-restore-TIME (unless --keep=false), then writes the backup's pages\n" +
			"into the database under its own locks, so a process that has it open sees the old or the restored\n" +
			"database, never a mix. Stop the servers first all the same: their caches and open sessions belong to the\n" +
			"old contents. --check only checks FILE. On PostgreSQL use pg_restore: restore says how.",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			loc := a.location()
			if postgres.IsURL(loc.Path) {
				return a.fail(baton.Errorf(baton.ErrInvalidInput, "baton restore restores SQLite databases; this one is PostgreSQL").
					WithHint("%s", pgDumpHint))
			}
			src, err := filepath.Abs(args[0])
			if err != nil {
				return a.fail(err)
			}
			version, err := sqlite.CheckBackup(ctx, src)
			if err != nil {
				return a.fail(err)
			}
			out := map[string]any{"file": src, "schema_version": version, "database": loc.Path, "restored": false}
			if !check {
				if !loc.Exists {
					return a.fail(loc.missing())
				}
				if keep {
					// The current database, kept the same way a backup is made.
					s, err := a.openStore(ctx)
					if err != nil {
						return a.fail(err)
					}
					kept := loc.Path + ".before-restore-" + time.Now().UTC().Format("20060102T150405Z")
					if err := s.(*sqlite.Store).Backup(ctx, kept, nil); err != nil {
						return a.fail(err)
					}
					out["kept"] = kept
					a.closeStore()
				}
				if err := sqlite.Restore(ctx, loc.Path, src); err != nil {
					return a.fail(err)
				}
				// Open it once, so an older backup is migrated now.
				s, err := a.openStore(ctx)
				if err != nil {
					return a.fail(err)
				}
				out["restored"], out["database"] = true, s.Info(ctx).Path
			}
			if wantJSON(c) {
				return a.printJSON(out)
			}
			if check {
				fmt.Fprintf(a.Stdout, "%s is a whole baton database (schema %d): it can be restored\n", src, version)
				return nil
			}
			if k, ok := out["kept"].(string); ok {
				fmt.Fprintf(a.Stdout, "kept the database as it was in %s\n", k)
			}
			fmt.Fprintf(a.Stdout, "restored %s from %s\n", loc.Path, src)
			return nil
		},
	}
	restore.Flags().BoolVar(&check, "check", false, "only check FILE is a whole baton database this baton can restore")
	restore.Flags().BoolVar(&keep, "keep", true, "keep the current database beside it (DB.before-restore-TIME) before restoring")
	a.jsonFlag(restore, `{"file", "schema_version", "database", "restored", "kept"}.`)
	return []*cobra.Command{cmd, restore}
}

// closeStore closes the database this invocation opened, so the next
// openStore opens it afresh.
func (a *App) closeStore() {
	if a.store != nil {
		a.store.Close()
		a.store = nil
	}
}

// mib is n bytes for people.
func mib(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d KiB", (n+1023)>>10)
	}
	return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1<<20)), ".0") + " MiB"
}
