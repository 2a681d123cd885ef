package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBackupRestoreRoundTrip: baton backup writes a copy FILE, restore
// --check accepts it, and restore brings the database back to it, keeping
// the database it replaced beside it.
func TestBackupRestoreRoundTrip(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"BATON_DB": filepath.Join(dir, ".baton", "baton.db"), "BATON_AGENT": "alice"}
	if r := baton(t, env, "init", "--project", "colibri", "--prefix", "COL"); r.code != 0 {
		t.Fatalf("init: %s %s", r.stdout, r.stderr)
	}
	if r := baton(t, env, "tasks", "task_create", "--title", "kept"); r.code != 0 {
		t.Fatalf("task_create: %s", r.stderr)
	}
	file := filepath.Join(dir, "copy.db")
	r := baton(t, env, "backup", file, "--json")
	var out struct {
		File  string `json:"file"`
		Bytes int64  `json:"bytes"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &out) != nil || out.File != file || out.Bytes <= 0 {
		t.Fatalf("backup: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if r := baton(t, env, "backup", file); r.code == 0 || !strings.Contains(r.stderr, "exists already") {
		t.Errorf("a second backup to the same file: %d %s", r.code, r.stderr)
	}
	if r := baton(t, env, "tasks", "task_create", "--title", "lost"); r.code != 0 {
		t.Fatalf("task_create: %s", r.stderr)
	}
	if r := baton(t, env, "restore", "--check", file); r.code != 0 || !strings.Contains(r.stdout, "can be restored") {
		t.Fatalf("restore --check: %d %s %s", r.code, r.stdout, r.stderr)
	}
	r = baton(t, env, "restore", file, "--json")
	var res struct {
		Restored bool   `json:"restored"`
		Kept     string `json:"kept"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &res) != nil || !res.Restored {
		t.Fatalf("restore: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(res.Kept); err != nil {
		t.Errorf("the replaced database was not kept: %v", err)
	}
	list := baton(t, env, "tasks", "task_list", "--json")
	if !strings.Contains(list.stdout, `"kept"`) || strings.Contains(list.stdout, `"lost"`) {
		t.Errorf("after restore the tasks are %s", list.stdout)
	}
	junk := filepath.Join(dir, "junk.db")
	if err := os.WriteFile(junk, []byte("junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := baton(t, env, "restore", junk); r.code == 0 || !strings.Contains(r.stderr, "not a baton database backup") {
		t.Errorf("restoring junk: %d %s", r.code, r.stderr)
	}
}

// TestBackupOnPostgresSaysPgDump: on PostgreSQL, backup and restore say
// to use pg_dump and pg_restore, changing nothing.
func TestBackupOnPostgresSaysPgDump(t *testing.T) {
	env := map[string]string{"BATON_DB": "postgres://nobody@127.0.0.1:1/none?sslmode=disable"}
	for _, args := range [][]string{{"backup", filepath.Join(t.TempDir(), "x.db")}, {"restore", "x.db"}} {
		r := baton(t, env, args...)
		if r.code == 0 || !strings.Contains(r.stderr, "pg_dump") || !strings.Contains(r.stderr, "ERR_INVALID_INPUT") {
			t.Errorf("%v: %d %s", args, r.code, r.stderr)
		}
	}
}
