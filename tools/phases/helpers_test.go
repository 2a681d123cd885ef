package phases_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/gittest"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/orchestrator"
	"github.com/baton-dev/baton/phases"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/worktree"
)

// The phase tools are tested on a real git repository: the project "sym"
// (prefix SYM) is rooted in it and every issue has a real worktree with
// its marker, where agents write their artifacts.

// needGit skips a test on a machine without git.
func needGit(t testing.TB) { gittest.Need(t, "the phase tools' tests run on real repositories") }

// git runs git in dir (gittest.Git).
func git(t testing.TB, dir string, args ...string) string { return gittest.Git(t, dir, args...) }

// write writes a file under dir (gittest.Write).
func write(t testing.TB, dir, name, body string) { gittest.Write(t, dir, name, body) }

var (
	research = "# Research\n\n## Problem Statement\n\nClaims time out under load because the pool is too small.\n\n" +
		"## Recommendation\n\nRaise the pool size and add a queue in front of it.\n"
	design = "# Design\n\n## Design\n\nA bounded queue in front of the pool, sized from the config.\n\n" +
		"## Risks\n\nA full queue rejects work; callers retry with backoff.\n\n## Recommendation\n\nShip behind a flag.\n"
)

type fixture struct {
	t    *testing.T
	k    *testkit.Kit
	repo string
	ctx  context.Context
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	needGit(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(dir, "repo")
	if err := os.Mkdir(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "init", "-q", "-b", "main")
	write(t, repo, "README.md", "# repo\n")
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", "initial")
	k := testkit.New(t)
	ctx := context.Background()
	if err := k.Store.Update(ctx, func(tx baton.Tx) error {
		return tx.CreateProject(ctx, &baton.Project{Slug: "sym", Prefix: "SYM", Root: repo})
	}); err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, k: k, repo: repo, ctx: ctx}
}

// issue creates an issue in phase p with its worktree.
func (f *fixture) issue(p baton.Phase) (id, dir string) {
	f.t.Helper()
	it := &baton.Item{Project: "sym", Title: "slow claims", Status: baton.StatusInProgress, Labels: []string{p.Label()}, CreatedBy: "user"}
	if err := f.k.Store.Update(f.ctx, func(tx baton.Tx) error { return tx.CreateItem(f.ctx, it) }); err != nil {
		f.t.Fatal(err)
	}
	wt, err := worktree.Create(f.ctx, worktree.Options{Repo: f.repo, Issue: it.ID, Project: "sym"})
	if err != nil {
		f.t.Fatal(err)
	}
	return it.ID, wt.Path
}

// agent is a session of profile bound to issue id, working in dir.
func (f *fixture) agent(name, profile, id, dir string) *testkit.Kit {
	k := f.k.As(name)
	k.Principal.Profile, k.Principal.IssueID = profile, id
	e := f.k.Env
	k.Env = &tool.Env{Store: e.Store, Registry: e.Registry, DataDir: e.DataDir, Server: e.Server, Clock: e.Clock, WorkDir: dir}
	return k.On(f.t)
}

// artifact writes body as phase p's artifact of id in dir and returns the
// claim's arguments for it.
func (f *fixture) artifact(dir, id string, p baton.Phase, body string) map[string]any {
	f.t.Helper()
	spec, err := phases.Builtin(p)
	if err != nil {
		f.t.Fatal(err)
	}
	rel := spec.Artifact(id)
	write(f.t, dir, rel, body)
	return map[string]any{"completed_phase": string(p), "contract_version": spec.Version, "artifact_path": rel,
		"artifact_hash": phases.Hash([]byte(body)), "summary": "the " + string(p) + " is done",
		"recommended_next_phase": string(spec.NextPhase), "project_path": dir}
}

func (f *fixture) tick() *orchestrator.TickReport {
	f.t.Helper()
	r, err := (&orchestrator.Phases{Store: f.k.Store, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}).Once(f.ctx)
	if err != nil || len(r.Errors) > 0 || len(r.Skipped) > 0 {
		f.t.Fatalf("tick: %v, errors %v, skipped %v", err, r.Errors, r.Skipped)
	}
	return r
}

func (f *fixture) findings(id string) []*baton.Finding {
	f.t.Helper()
	var out []*baton.Finding
	if err := f.k.Store.View(f.ctx, func(tx baton.Tx) (err error) { out, err = tx.Findings(f.ctx, id, 0); return err }); err != nil {
		f.t.Fatal(err)
	}
	return out
}

func (f *fixture) item(id string) *baton.Item {
	f.t.Helper()
	var it *baton.Item
	if err := f.k.Store.View(f.ctx, func(tx baton.Tx) (err error) { it, err = tx.Item(f.ctx, id); return err }); err != nil {
		f.t.Fatal(err)
	}
	return it
}

// with returns a copy of args with kv applied; a nil value deletes the key.
func with(args map[string]any, kv ...any) map[string]any {
	out := map[string]any{}
	for k, v := range args {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(out, kv[i].(string))
		} else {
			out[kv[i].(string)] = kv[i+1]
		}
	}
	return out
}
