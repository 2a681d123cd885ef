package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/baton-dev/baton"
	msqlite "modernc.org/sqlite"
)

// progressEvery is how often Backup reports how far it is.
const progressEvery = 200 * time.Millisecond

// Backup writes a consistent copy of the database to dst while agents go
// on writing: VACUUM INTO reads one snapshot in a single read transaction
// (WAL lets the writer carry on beside it) and writes a compact database
// file, which dst must not be yet. progress, when set, is called every so
// often with the bytes written so far and the database's size (the copy is
// usually smaller: free pages are left out).
func (s *Store) Backup(ctx context.Context, dst string, progress func(done, total int64)) error {
	if _, err := os.Stat(dst); err == nil {
		return baton.Errorf(baton.ErrConflict, "%s exists already", dst).WithDetails("file", dst).
			WithHint("name a new file, or remove that one first")
	}
	var pages, size int64
	if err := s.r.QueryRowContext(ctx, `SELECT page_count, page_size FROM pragma_page_count(), pragma_page_size()`).Scan(&pages, &size); err != nil {
		return err
	}
	total := pages * size
	done := make(chan struct{})
	var reporter sync.WaitGroup
	if progress != nil {
		reporter.Add(1)
		go func() {
			defer reporter.Done()
			t := time.NewTicker(progressEvery)
			defer t.Stop()
			for {
				select {
				case <-done:
					return
				case <-t.C:
					if fi, err := os.Stat(dst); err == nil {
						progress(fi.Size(), total)
					}
				}
			}
		}()
	}
	// Its own connection: the readers are read-only, and the writer must
	// stay free for the agents.
	db, err := sql.Open("sqlite", "file:"+s.path+"?_pragma=busy_timeout(10000)")
	if err == nil {
		_, err = db.ExecContext(ctx, `VACUUM INTO ?`, dst)
		db.Close()
	}
	close(done)
	reporter.Wait() // progress is never called from two goroutines at once
	if err != nil {
		os.Remove(dst) // a partial copy is no backup
		return baton.Errorf(baton.ErrInternal, "backing up to %s: %v", dst, err).WithDetails("file", dst).
			WithHint("check the directory exists, is writable and has room")
	}
	if progress != nil {
		if fi, err := os.Stat(dst); err == nil {
			progress(fi.Size(), fi.Size())
		}
	}
	return nil
}

// CheckBackup opens the SQLite file at path read-only and checks it is a
// whole baton database this baton can open: its integrity check passes and
// its schema is not newer than this binary's. It returns the schema
// version.
func CheckBackup(ctx context.Context, path string) (int64, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, baton.Errorf(baton.ErrNotFound, "cannot read the backup %s: %v", path, errors.Unwrap(err)).WithDetails("file", path).
			WithHint("name the file `baton backup` wrote")
	}
	if !fi.Mode().IsRegular() {
		return 0, baton.Errorf(baton.ErrInvalidInput, "%s is not a file", path).WithDetails("file", path)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	notBaton := func(why string) error {
		return baton.Errorf(baton.ErrInvalidInput, "%s is not a baton database backup: %s", path, why).WithDetails("file", path).
			WithHint("name a file `baton backup` wrote")
	}
	var check string
	if err := db.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&check); err != nil {
		return 0, notBaton(err.Error())
	}
	if check != "ok" {
		return 0, notBaton("its integrity check fails: " + check)
	}
	var version int64
	if err := db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version_id), 0) FROM goose_db_version`).Scan(&version); err != nil {
		return 0, notBaton("it has no baton schema")
	}
	latest, err := latestMigration()
	if err != nil {
		return 0, err
	}
	if version > latest {
		return 0, baton.Errorf(baton.ErrInvalidInput, "%s was written by a newer baton (schema %d; this one knows %d)", path, version, latest).
			WithDetails("file", path).WithHint("restore it with that baton, or a newer one")
	}
	return version, nil
}

// Restore replaces the contents of the database at path with the backup
// at src, through SQLite's backup API: the pages are written under the
// database's own locks, so a process that has it open sees the old
// database or the restored one, never a mix. The backup is checked
// first (CheckBackup); the next Open migrates it if it is older.
func Restore(ctx context.Context, path, src string) error {
	if _, err := CheckBackup(ctx, src); err != nil {
		return err
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return baton.Errorf(baton.ErrNotFound, "there is no database at %s to restore into", path).WithDetails("file", path).
			WithHint("run baton init first, or copy the backup there yourself")
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		r, ok := dc.(interface {
			NewRestore(string) (*msqlite.Backup, error)
		})
		if !ok {
			return fmt.Errorf("the SQLite driver cannot restore")
		}
		b, err := r.NewRestore("file:" + src + "?mode=ro")
		if err != nil {
			return restoreError(src, err)
		}
		if _, err := b.Step(-1); err != nil {
			b.Finish()
			return restoreError(src, err)
		}
		return b.Finish()
	})
}

func restoreError(src string, err error) error {
	msg := err.Error()
	hint := "stop the baton servers using the database and try again"
	if !strings.Contains(msg, "busy") && !strings.Contains(msg, "locked") {
		hint = "check the backup file with `baton restore --check`"
	}
	return baton.Errorf(baton.ErrInternal, "restoring from %s: %s", src, msg).WithDetails("file", src).WithHint("%s", hint)
}
