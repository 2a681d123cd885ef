package dispatch

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/baton-dev/baton"
)

// LockFile is where the lock of a project's dispatcher on this host is:
// in dir, named after the project and (hashed) the database, so two
// databases sharing a directory do not share locks.
func LockFile(dir, database, project string) string {
	sum := sha256.Sum256([]byte(database))
	return filepath.Join(dir, fmt.Sprintf("dispatch-%s-%s.lock", project, hex.EncodeToString(sum[:4])))
}

// Lock holds a dispatcher's lock file: one dispatcher per project per
// host. The operating system drops the lock when its process ends, however
// it ends, so a stale file never blocks the next dispatcher.
type Lock struct {
	f    *os.File
	path string
}

// Acquire takes the lock at path, or says which process holds it
// (ERR_CONFLICT, type dispatcher_running).
func Acquire(path, project string) (*Lock, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("making the lock's directory: %w", err)
	}
	// Not through a symlink: someone else's link would have the lock's
	// truncate and write land in a file of theirs choosing.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|noFollow, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening the dispatcher's lock file: %w", err)
	}
	if err := lockFile(f); err != nil {
		b, _ := os.ReadFile(path)
		f.Close()
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		return nil, baton.Errorf(baton.ErrConflict, "another dispatcher (pid %d) already runs for project %s on this host", pid, project).
			WithType("dispatcher_running").WithDetails("project", project, "pid", pid).
			WithHint("stop that one first (kill %d), or dispatch another project; dispatchers on other hosts may share a PostgreSQL database", pid)
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return &Lock{f: f, path: path}, nil
}

// Release gives the lock back. The file stays: removing it would let a
// process that opened it just before lock a file nobody else can find.
func (l *Lock) Release() {
	if l == nil || l.f == nil {
		return
	}
	_ = unlockFile(l.f)
	_ = l.f.Close()
	l.f = nil
}
