package membot_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// Helpers of the write-tool tests; every name starts with w (the read
// tools' tests share the package).

// wFilesProject is the project whose root the file tests read.
const wFilesProject = "notes"

// wKit is a kit whose session writes colibri's knowledge.
func wKit(t *testing.T) *testkit.Kit {
	t.Helper()
	k := testkit.New(t)
	k.Principal.Project = testkit.Project
	return k
}

// wFileKit is a kit whose session writes the knowledge of a project with
// a directory (returned), on clock c when it is not nil.
func wFileKit(t *testing.T, c *testkit.Clock) (*testkit.Kit, string) {
	t.Helper()
	var k *testkit.Kit
	if c != nil {
		k = testkit.NewAt(t, c)
	} else {
		k = testkit.New(t)
	}
	root := t.TempDir()
	ctx := context.Background()
	if err := k.Store.Update(ctx, func(tx baton.Tx) error {
		return tx.CreateProject(ctx, &baton.Project{Slug: wFilesProject, Prefix: "NOTE", Root: root})
	}); err != nil {
		t.Fatal(err)
	}
	k.Principal.Project = wFilesProject
	return k, root
}

// wClock is a fake clock that stands still until advanced.
func wClock() *testkit.Clock {
	return testkit.NewClock(time.Date(2026, 5, 10, 17, 4, 11, 532e6, time.UTC), 0)
}

// wFile writes a file under dir.
func wFile(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// wData is the data object of a membot operation's success envelope.
func wData(t testing.TB, out map[string]any) map[string]any {
	t.Helper()
	if out["is_error"] != false {
		t.Fatalf("is_error = %v, want false: %v", out["is_error"], out)
	}
	d, ok := out["data"].(map[string]any)
	if !ok {
		t.Fatalf("no data object in %v", out)
	}
	return d
}

// wWrite writes content at path (over whatever is there) and returns the
// new version id.
func wWrite(k *testkit.Kit, path, content string) string {
	k.T.Helper()
	d := wData(k.T, k.OK("membot_write", map[string]any{"logical_path": path, "content": content, "on_conflict": "overwrite"}))
	return d["version_id"].(string)
}

// wSpace is the space the kit's session writes.
func wSpace(k *testkit.Kit) baton.DocSpace {
	return baton.DocSpace{Scope: baton.ScopeProject, Project: k.Principal.Project}
}

// wDoc is the current version at path in the kit's space, nil when none.
func wDoc(k *testkit.Kit, path string) *baton.Document {
	k.T.Helper()
	return wDocIn(k, wSpace(k), path)
}

// wDocIn is the current version at path in space s, nil when none.
func wDocIn(k *testkit.Kit, s baton.DocSpace, path string) *baton.Document {
	k.T.Helper()
	ctx := context.Background()
	var d *baton.Document
	if err := k.Store.View(ctx, func(tx baton.Tx) error {
		var err error
		d, err = tx.Document(ctx, baton.DocKey{DocSpace: s, Path: path}, "")
		if baton.ErrorCode(err) == baton.ErrNotFound {
			d, err = nil, nil
		}
		return err
	}); err != nil {
		k.T.Fatal(err)
	}
	return d
}

// wVersions lists the versions of path in the kit's space, newest first.
func wVersions(k *testkit.Kit, path string) []*baton.DocumentVersion {
	k.T.Helper()
	ctx := context.Background()
	var vs []*baton.DocumentVersion
	if err := k.Store.View(ctx, func(tx baton.Tx) error {
		var err error
		vs, err = tx.DocumentVersions(ctx, baton.DocKey{DocSpace: wSpace(k), Path: path})
		if baton.ErrorCode(err) == baton.ErrNotFound {
			vs, err = nil, nil
		}
		return err
	}); err != nil {
		k.T.Fatal(err)
	}
	return vs
}

// wRows counts every stored version, tombstones included, and every chunk:
// what a failed call must leave as it was.
func wRows(k *testkit.Kit) [2]int {
	k.T.Helper()
	return [2]int{k.Count("SELECT COUNT(*) FROM documents"), k.Count("SELECT COUNT(*) FROM document_chunks")}
}

// wFail calls a tool that must fail with code and error_type, as a client
// reads them from the envelope, with a hint; it returns the error.
func wFail(k *testkit.Kit, name string, args any, code, errorType string) *baton.Error {
	k.T.Helper()
	res := k.Call(name, args)
	if res.Err == nil {
		k.T.Fatalf("%s(%s): want %s, got success %s", name, testkit.Raw(k.T, args), code, res.Text)
	}
	var env struct {
		Error struct {
			Code      string `json:"code"`
			ErrorType string `json:"error_type"`
			Hint      string `json:"next_action_hint"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(res.Text), &env); err != nil {
		k.T.Fatalf("%s: error text is not JSON: %s", name, res.Text)
	}
	if env.Error.Code != code || env.Error.ErrorType != errorType {
		k.T.Fatalf("%s(%s): want %s/%s, got %s", name, testkit.Raw(k.T, args), code, errorType, res.Text)
	}
	if env.Error.Hint == "" {
		k.T.Fatalf("%s: error without next_action_hint: %s", name, res.Text)
	}
	return res.Err
}

// wUnchanged fails the test when a call changed the stored rows.
func wUnchanged(k *testkit.Kit, before [2]int) {
	k.T.Helper()
	if after := wRows(k); after != before {
		k.T.Fatalf("a failed call changed the store: (versions, chunks) %v -> %v", before, after)
	}
}

// wJSON is v as JSON.
func wJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
