package vault_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/cli"
	"github.com/baton-dev/baton/tools"
)

// TestProfiles: Symphony's matrix. Every profile searches; worker and
// researcher update; only worker deletes.
func TestProfiles(t *testing.T) {
	f := setup(t)
	f.write(f.root, "docs/a.md", "# Alpha\n\nThe alpha service answers health checks on port 8080.\n")
	f.write(f.root, "docs/b.md", "# Beta\n\nThe beta service drains its queue before shutting down.\n")
	search := map[string]any{"query": "alpha service health checks"}
	for _, profile := range []string{"worker", "researcher", "judge", "scanner", "architect", "planner", "intake"} {
		k := f.as("agent-"+profile, profile)
		k.OK("search_knowledge", search)
		k.OK("vault_retrieve", search)
		canUpdate := profile == "worker" || profile == "researcher"
		if canUpdate {
			k.OK("vault_update", map[string]any{"path": "docs/a.md"})
		} else {
			e := k.FailEnvelope("vault_update", map[string]any{"path": "docs/a.md"}, baton.ErrPermissionDenied)
			if e.Hint == "" {
				t.Errorf("%s refused vault_update without a hint", profile)
			}
		}
		if profile != "worker" {
			k.Fail("vault_delete", map[string]any{"path": "docs/a.md"}, baton.ErrPermissionDenied)
		}
	}
	// What was refused did nothing: docs/a.md is still there for the
	// worker to delete, docs/b.md was never added.
	if f.doc(symSpace, "docs/a.md") == nil || f.doc(symSpace, "docs/b.md") != nil {
		t.Fatal("a refused call changed the knowledge")
	}
	judge := f.as("agent-judge", "judge")
	judge.Fail("vault_update", map[string]any{"path": "docs/b.md"}, baton.ErrPermissionDenied)
	if f.doc(symSpace, "docs/b.md") != nil {
		t.Fatal("the judge's refused update wrote docs/b.md")
	}
	researcher := f.as("agent-r", "researcher")
	researcher.OK("vault_update", map[string]any{"path": "docs/b.md"})
	researcher.Fail("vault_delete", map[string]any{"path": "docs/b.md"}, baton.ErrPermissionDenied)
	worker := f.as("agent-w", "worker")
	worker.OK("vault_delete", map[string]any{"path": "docs/b.md"})
	if d := f.versions("docs/b.md"); len(d) != 2 || !d[0].Deleted || d[1].CreatedBy != "agent-r" {
		t.Fatalf("docs/b.md history = %+v", d)
	}
	// The found results are the same whoever searches.
	rs := results(t, judge.OK("search_knowledge", search))
	if len(rs) == 0 || rs[0]["source"] != "docs/a.md" {
		t.Fatalf("the judge's search = %v", rs)
	}
}

// TestCLI: the generated commands take the path or query positionally,
// under the tool's name and the name without the toolset's prefix.
func TestCLI(t *testing.T) {
	dir := t.TempDir()
	f := &fx{t: t, root: dir}
	f.write(dir, "docs/retry.md", retryDoc)
	t.Chdir(dir)
	env := map[string]string{} // the database goes to dir/.baton, dir is the project's root
	run := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		app := &cli.App{Registry: tools.Registry(), Version: "test", Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
			Getenv: func(k string) string { return env[k] }}
		code := app.Run(context.Background(), args)
		return code, out.String() + errb.String()
	}
	if code, out := run("init", "--project", "sym", "--prefix", "SYM", "--no-instructions"); code != 0 {
		t.Fatalf("init: %d %s", code, out)
	}
	if code, out := run("vault", "update", "docs/retry.md"); code != 0 || !strings.Contains(out, "created docs/retry.md") {
		t.Fatalf("baton vault update: %d %s", code, out)
	}
	if code, out := run("vault", "vault_update", "docs/retry.md"); code != 0 || !strings.Contains(out, "unchanged docs/retry.md") {
		t.Fatalf("baton vault vault_update: %d %s", code, out)
	}
	if code, out := run("vault", "search_knowledge", "exponential backoff with jitter"); code != 0 || !strings.Contains(out, "1. docs/retry.md #0") {
		t.Fatalf("baton vault search_knowledge: %d %s", code, out)
	}
	if code, out := run("vault", "retrieve", "payment gateway retry", "--top-k", "1"); code != 0 || !strings.Contains(out, "Give up after the fifth attempt") {
		t.Fatalf("baton vault retrieve: %d %s", code, out)
	}
	if code, out := run("vault", "update", "../elsewhere.md"); code == 0 || !strings.Contains(out, "outside the project") || strings.Contains(out, dir) {
		t.Fatalf("baton vault update ../elsewhere.md: %d %s", code, out)
	}
	if code, out := run("vault", "delete", "docs/retry.md"); code != 0 || !strings.Contains(out, "deleted docs/retry.md") {
		t.Fatalf("baton vault delete: %d %s", code, out)
	}
	if code, out := run("vault", "search_knowledge", "exponential backoff with jitter"); code != 0 || strings.Contains(out, "docs/retry.md") {
		t.Fatalf("search after the delete: %d %s", code, out)
	}
}
