package issues_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// TestPoint9MoveIssueRollsBackFiles: a move whose file copy fails part way
// rolls back whole: the issue keeps its id, project and labels, the target's
// numbering is untouched, and not one copied file (nor the staging folder)
// is left in the target repository. The error names no server path.
func TestPoint9MoveIssueRollsBackFiles(t *testing.T) {
	for _, tc := range []struct {
		name string
		// prepare builds the target repository and returns what the
		// failed call must leave in its docs/tickets (besides nothing).
		prepare func(t *testing.T, k *testkit.Kit, dstRoot, id string) []string
		code    string
	}{
		{
			// The first file copies, the second cannot be written: its
			// path is too long in the (deeper) target repository only.
			name: "copy fails part way",
			prepare: func(t *testing.T, k *testkit.Kit, dstRoot, id string) []string {
				deep := filepath.Join(strings.Repeat("c", 240), strings.Repeat("d", 240), strings.Repeat("e", 240), "z.md")
				artifacts(k, id, map[string]string{"a-first.md": "# copied first", deep: "# cannot be copied"})
				return nil
			},
			code: baton.ErrInternal,
		},
		{
			// Something already sits where the new ticket folder would go:
			// it is neither merged into nor overwritten.
			name: "destination exists",
			prepare: func(t *testing.T, k *testkit.Kit, dstRoot, id string) []string {
				artifacts(k, id, map[string]string{"research.md": "# R"})
				theirs := filepath.Join(dstRoot, "docs", "tickets", "OTH-1")
				if err := os.MkdirAll(theirs, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(theirs, "research.md"), []byte("someone else's"), 0o644); err != nil {
					t.Fatal(err)
				}
				return []string{"OTH-1"}
			},
			code: baton.ErrConflict,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := testkit.New(t)
			// The target repository lies deep enough that a path under it
			// passes the system's limit where the same path under the
			// source does not.
			dstRoot := t.TempDir()
			for range 14 {
				dstRoot = filepath.Join(dstRoot, strings.Repeat("r", 240))
			}
			if err := os.MkdirAll(dstRoot, 0o755); err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if err := k.Store.Update(ctx, func(tx baton.Tx) error {
				return tx.CreateProject(ctx, &baton.Project{Slug: "other", Prefix: "OTH", Root: dstRoot})
			}); err != nil {
				t.Fatal(err)
			}
			id := issueIn(k, "in_progress", map[string]any{"project": "colibri", "labels": []string{"phase:research"}})
			want := tc.prepare(t, k, dstRoot, id)
			before := getIssue(k, id)

			e := fail(k, "move_issue", map[string]any{"issue_id": id, "target_project_id": "other", "reason": "routing"}, tc.code)
			for _, s := range []string{e.Message, e.Hint, fmtDetails(e)} {
				if strings.Contains(s, dstRoot) || strings.Contains(s, k.Env.WorkDir) {
					t.Errorf("the error shows a server path: %s", s)
				}
			}

			after := getIssue(k, id)
			for _, f := range []string{"id", "project", "status", "labels", "comments"} {
				if strings.Join(strs2(after[f]), ",") != strings.Join(strs2(before[f]), ",") {
					t.Errorf("%s changed: %v -> %v", f, before[f], after[f])
				}
			}
			entries, err := os.ReadDir(filepath.Join(dstRoot, "docs", "tickets"))
			if err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			var left []string
			for _, d := range entries {
				left = append(left, d.Name())
			}
			if strings.Join(left, ",") != strings.Join(want, ",") {
				t.Errorf("target docs/tickets holds %v, want %v: the failed move left files behind", left, want)
			}
			if tc.code == baton.ErrConflict {
				b, _ := os.ReadFile(filepath.Join(dstRoot, "docs", "tickets", "OTH-1", "research.md"))
				if string(b) != "someone else's" {
					t.Errorf("the existing file was overwritten: %q", b)
				}
				if e.Type != "path_conflict" || e.Details["path"] != "docs/tickets/OTH-1" {
					t.Errorf("conflict = %+v", e)
				}
			}
			// The source artifacts are still there, and the target's
			// numbering is untouched.
			if _, err := os.Stat(filepath.Join(k.Env.WorkDir, "docs", "tickets", id)); err != nil {
				t.Errorf("source artifacts: %v", err)
			}
			if got := issue(k, map[string]any{"project": "other"}); got != "OTH-1" {
				t.Errorf("next issue in other = %s, want OTH-1", got)
			}
		})
	}
}

func fmtDetails(e apiError) string {
	var b strings.Builder
	for k, v := range e.Details {
		b.WriteString(k + "=")
		if s, ok := v.(string); ok {
			b.WriteString(s)
		}
		b.WriteString(";")
	}
	return b.String()
}
