package tlog_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/baton-dev/baton/tlog"
)

// TestWitnessEnabled shows a witness is enabled when it has a file or a
// git directory, and not when it has neither.
func TestWitnessEnabled(t *testing.T) {
	for _, c := range []struct {
		w    tlog.Witness
		want bool
	}{
		{tlog.Witness{}, false},
		{tlog.Witness{File: "f"}, true},
		{tlog.Witness{GitDir: "d"}, true},
		{tlog.Witness{File: "f", GitDir: "d"}, true},
	} {
		if got := c.w.Enabled(); got != c.want {
			t.Errorf("%+v.Enabled() = %v, want %v", c.w, got, c.want)
		}
	}
}

// TestWitnessFile shows the file witness (in a directory it makes) appends
// each note with one blank line between, that Split reads the notes back
// byte for byte in order, and that each still opens with the log's key.
func TestWitnessFile(t *testing.T) {
	s, _, vkey := testKey(t, "example.com/log/witness")
	path := filepath.Join(t.TempDir(), "a", "b", "checkpoints")
	w := tlog.Witness{File: path}
	var notes [][]byte
	for i, size := range []int{1, 2, 10} {
		cp := testCheckpoint(t, s, size)
		if err := w.Add(context.Background(), cp); err != nil {
			t.Fatalf("Add %d: %v", i, err)
		}
		notes = append(notes, cp.Note)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if want := bytes.Join(notes, []byte("\n")); !bytes.Equal(data, want) {
			t.Fatalf("after %d adds the file holds %q, want %q", i+1, data, want)
		}
		got, err := tlog.Split(data)
		if err != nil {
			t.Fatalf("Split: %v", err)
		}
		if len(got) != len(notes) {
			t.Fatalf("Split gave %d notes, want %d", len(got), len(notes))
		}
		for j := range notes {
			if !bytes.Equal(got[j], notes[j]) {
				t.Errorf("note %d = %q, want %q", j, got[j], notes[j])
			}
			cp, err := tlog.Open(got[j], vkey)
			if err != nil {
				t.Errorf("note %d does not open: %v", j, err)
			} else if want := []uint64{1, 2, 10}[j]; cp.Size != want {
				t.Errorf("note %d has size %d, want %d", j, cp.Size, want)
			}
		}
	}
}

// TestWitnessAddTwice shows Add is safe to repeat: the note the file
// (and the git witness) holds last is not written, or committed, again,
// while an earlier note given again after a newer one is.
func TestWitnessAddTwice(t *testing.T) {
	gitEnv(t)
	s, _, _ := testKey(t, "example.com/log/witness")
	dir := t.TempDir()
	w := tlog.Witness{File: filepath.Join(dir, "checkpoints"), GitDir: filepath.Join(dir, "repo")}
	one, two := testCheckpoint(t, s, 1), testCheckpoint(t, s, 2)
	for _, cp := range []*tlog.Checkpoint{one, one, two, two, one} {
		if err := w.Add(context.Background(), cp); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(w.File)
	if err != nil {
		t.Fatal(err)
	}
	if want := bytes.Join([][]byte{one.Note, two.Note, one.Note}, []byte("\n")); !bytes.Equal(data, want) {
		t.Fatalf("the file holds %q, want %q", data, want)
	}
	if n := commitCount(t, w.GitDir); n != 3 {
		t.Errorf("%d commits in the git witness, want 3", n)
	}
}

// TestWitnessFileError shows Add reports a file it cannot write, naming it.
func TestWitnessFileError(t *testing.T) {
	s, _, _ := testKey(t, "example.com/log/witness")
	blocker := filepath.Join(t.TempDir(), "plain")
	if err := os.WriteFile(blocker, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(blocker, "checkpoints")
	err := tlog.Witness{File: path}.Add(context.Background(), testCheckpoint(t, s, 1))
	if err == nil {
		t.Fatal("Add under a regular file did not fail")
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name %s", err, path)
	}
}

// gitEnv isolates git from the user's and the system's configuration and
// from any repository the test runs in, or skips without git.
func gitEnv(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH: the git witness cannot be tested")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(home))
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR",
		"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"} {
		t.Setenv(k, "") // restored after the test
		os.Unsetenv(k)
	}
}

// gitOut runs a read-only git command in dir and returns its output.
func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func commitCount(t *testing.T, dir string) int {
	t.Helper()
	n, err := strconv.Atoi(strings.TrimSpace(gitOut(t, dir, "rev-list", "--count", "HEAD")))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestWitnessGit shows the git witness makes a missing directory a
// repository, makes exactly one commit per Add with a message naming size
// and root, keeps the latest note in "checkpoint" and all of them in
// "checkpoints" (Split reads them back), leaves nothing uncommitted, and
// that the history keeps each earlier checkpoint.
func TestWitnessGit(t *testing.T) {
	gitEnv(t)
	s, _, vkey := testKey(t, "example.com/log/git")
	dir := filepath.Join(t.TempDir(), "missing", "witness")
	w := tlog.Witness{GitDir: dir}
	sizes := []int{1, 5, 6}
	var notes [][]byte
	for i, size := range sizes {
		cp := testCheckpoint(t, s, size)
		if err := w.Add(context.Background(), cp); err != nil {
			t.Fatalf("Add %d: %v", i, err)
		}
		notes = append(notes, cp.Note)
		if fi, err := os.Stat(filepath.Join(dir, ".git")); err != nil || !fi.IsDir() {
			t.Fatalf("%s is not a git repository: %v", dir, err)
		}
		if n := commitCount(t, dir); n != i+1 {
			t.Errorf("after %d adds: %d commits", i+1, n)
		}
		latest, err := os.ReadFile(filepath.Join(dir, "checkpoint"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(latest, cp.Note) {
			t.Errorf("checkpoint holds %q, want %q", latest, cp.Note)
		}
		all, err := os.ReadFile(filepath.Join(dir, "checkpoints"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := tlog.Split(all)
		if err != nil {
			t.Fatalf("Split checkpoints: %v", err)
		}
		if len(got) != len(notes) {
			t.Fatalf("checkpoints holds %d notes, want %d", len(got), len(notes))
		}
		for j := range notes {
			if !bytes.Equal(got[j], notes[j]) {
				t.Errorf("checkpoints note %d = %q, want %q", j, got[j], notes[j])
			}
		}
		if st := gitOut(t, dir, "status", "--porcelain"); strings.TrimSpace(st) != "" {
			t.Errorf("uncommitted changes after Add:\n%s", st)
		}
		if committed := gitOut(t, dir, "show", "HEAD:checkpoint"); committed != string(cp.Note) {
			t.Errorf("HEAD:checkpoint = %q, want %q", committed, cp.Note)
		}
		msg := strings.TrimSpace(gitOut(t, dir, "log", "-1", "--format=%s"))
		if want := fmt.Sprintf("checkpoint %d %s", size, base64.StdEncoding.EncodeToString(cp.Root)); msg != want {
			t.Errorf("commit message %q, want %q", msg, want)
		}
	}
	for i := range sizes {
		rev := fmt.Sprintf("HEAD~%d:checkpoint", len(sizes)-1-i)
		old := gitOut(t, dir, "show", rev)
		cp, err := tlog.Open([]byte(old), vkey)
		if err != nil {
			t.Fatalf("%s does not open: %v", rev, err)
		}
		if cp.Size != uint64(sizes[i]) {
			t.Errorf("%s has size %d, want %d", rev, cp.Size, sizes[i])
		}
	}
}

// TestWitnessGitExistingDir shows an existing empty directory becomes a
// repository, an existing repository is committed to without being
// re-initialised, and File and GitDir together both get every note.
func TestWitnessGitExistingDir(t *testing.T) {
	gitEnv(t)
	s, _, _ := testKey(t, "example.com/log/git2")
	base := t.TempDir()
	dir := filepath.Join(base, "repo")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	w := tlog.Witness{GitDir: dir, File: filepath.Join(base, "file")}
	cp1, cp2 := testCheckpoint(t, s, 3), testCheckpoint(t, s, 4)
	if err := w.Add(context.Background(), cp1); err != nil {
		t.Fatal(err)
	}
	first := strings.TrimSpace(gitOut(t, dir, "rev-parse", "HEAD"))
	if err := w.Add(context.Background(), cp2); err != nil {
		t.Fatal(err)
	}
	if n := commitCount(t, dir); n != 2 {
		t.Errorf("%d commits, want 2", n)
	}
	if parent := strings.TrimSpace(gitOut(t, dir, "rev-parse", "HEAD~1")); parent != first {
		t.Errorf("the second commit's parent is %s, want the first commit %s", parent, first)
	}
	data, err := os.ReadFile(w.File)
	if err != nil {
		t.Fatal(err)
	}
	if want := string(cp1.Note) + "\n" + string(cp2.Note); string(data) != want {
		t.Errorf("witness file holds %q, want %q", data, want)
	}
	all, err := os.ReadFile(filepath.Join(dir, "checkpoints"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(all, data) {
		t.Errorf("git checkpoints %q differs from the witness file %q", all, data)
	}
}

// TestWitnessGitError shows a git directory that cannot be made is
// reported, naming the directory.
func TestWitnessGitError(t *testing.T) {
	gitEnv(t)
	s, _, _ := testKey(t, "example.com/log/git3")
	blocker := filepath.Join(t.TempDir(), "plain")
	if err := os.WriteFile(blocker, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(blocker, "repo")
	err := tlog.Witness{GitDir: dir}.Add(context.Background(), testCheckpoint(t, s, 1))
	if err == nil {
		t.Fatal("Add with a git directory under a regular file did not fail")
	}
	if !strings.Contains(err.Error(), dir) {
		t.Errorf("error %q does not name %s", err, dir)
	}
}
