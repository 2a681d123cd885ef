package tlog

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Witness keeps a copy of every checkpoint outside the database, where
// whoever can rewrite the database cannot follow: `baton audit verify
// --checkpoint` against it then catches a rewritten or truncated log.
// File is a file the notes are appended to (blank lines between them;
// Split reads it back). GitDir is a git repository (made when missing)
// whose file checkpoints gets each note appended and committed, and whose
// file checkpoint holds the latest, so its history is the witness too.
type Witness struct {
	File   string
	GitDir string
}

// Enabled reports whether the witness writes anywhere.
func (w Witness) Enabled() bool { return w.File != "" || w.GitDir != "" }

// Add appends cp to the witness file and commits it to the git witness,
// unless it is the last checkpoint each holds already.
func (w Witness) Add(ctx context.Context, cp *Checkpoint) error {
	if w.File != "" {
		if err := appendNote(w.File, cp.Note); err != nil {
			return fmt.Errorf("witness file %s: %w", w.File, err)
		}
	}
	if w.GitDir != "" {
		if err := w.commit(ctx, cp); err != nil {
			return fmt.Errorf("witness repository %s: %w", w.GitDir, err)
		}
	}
	return nil
}

func appendNote(path string, note []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	// A note the witness holds last already is not written again: giving
	// the witness the latest checkpoint is then safe to repeat (after a
	// write that failed, or an export of a log that has not grown).
	if n := int64(len(note)); fi.Size() >= n {
		tail := make([]byte, n)
		if _, err := f.ReadAt(tail, fi.Size()-n); err == nil && bytes.Equal(tail, note) {
			return f.Close()
		}
	}
	var b bytes.Buffer
	if fi.Size() > 0 {
		b.WriteByte('\n') // the blank line between two notes
	}
	b.Write(note)
	if _, err := f.Write(b.Bytes()); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// gitTimeout bounds each git command of a commit.
const gitTimeout = 30 * time.Second

func (w Witness) commit(ctx context.Context, cp *Checkpoint) error {
	if _, err := os.Stat(filepath.Join(w.GitDir, ".git")); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(w.GitDir, 0o755); err != nil {
			return err
		}
		if err := w.git(ctx, "init", "-q"); err != nil {
			return err
		}
	}
	if cur, err := os.ReadFile(filepath.Join(w.GitDir, "checkpoint")); err == nil && bytes.Equal(cur, cp.Note) {
		return nil // committed already
	}
	if err := appendNote(filepath.Join(w.GitDir, "checkpoints"), cp.Note); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(w.GitDir, "checkpoint"), cp.Note, 0o644); err != nil {
		return err
	}
	if err := w.git(ctx, "add", "checkpoint", "checkpoints"); err != nil {
		return err
	}
	msg := fmt.Sprintf("checkpoint %d %s", cp.Size, base64.StdEncoding.EncodeToString(cp.Root))
	return w.git(ctx, "-c", "user.name=baton", "-c", "user.email=baton@localhost", "-c", "commit.gpgsign=false",
		"commit", "-q", "--no-verify", "-m", msg)
}

func (w Witness) git(ctx context.Context, args ...string) error {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", w.GitDir}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("git %s: %v: %s", args[len(args)-1], err, bytes.TrimSpace(out))
	}
	return nil
}
