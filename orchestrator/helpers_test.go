package orchestrator_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/gittest"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/orchestrator"
	"github.com/baton-dev/baton/phases"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/worktree"
)

// The pipeline tests run on a real git repository: the project "sym"
// (prefix SYM) is rooted in it, and each issue the fixture makes gets a
// real worktree with its marker, where the agents write their artifacts.

// needGit skips a test on a machine without git.
func needGit(t testing.TB) { gittest.Need(t, "the phase pipeline's tests run on real repositories") }

// git runs git in dir (gittest.Git).
func git(t testing.TB, dir string, args ...string) string { return gittest.Git(t, dir, args...) }

// write writes a file under dir (gittest.Write).
func write(t testing.TB, dir, name, body string) { gittest.Write(t, dir, name, body) }

// artifacts are documents that pass each pre-ready contract's checks.
var artifacts = map[baton.Phase]string{
	baton.PhaseResearch: "# Research\n\n## Problem Statement\n\nClaims time out under load because the pool is too small.\n\n" +
		"## Recommendation\n\nRaise the pool size and add a queue in front of it.\n",
	baton.PhaseArchitecture: "# Design\n\n## Design\n\nA bounded queue in front of the pool, sized from the config.\n\n" +
		"## Risks\n\nA full queue rejects work; callers retry with backoff.\n\n## Recommendation\n\nShip behind a flag.\n",
	baton.PhaseGrooming: "# Grooming\n\n## Plan\n\nQueue first, then the flag, then the rollout.\n\n" +
		"## Tasks\n\n- add the queue\n- add the flag\n- document the rollout\n",
}

var nextPhase = map[baton.Phase]baton.Phase{
	baton.PhaseResearch: baton.PhaseArchitecture, baton.PhaseArchitecture: baton.PhaseGrooming, baton.PhaseGrooming: baton.PhaseReady,
}

// quiet is the tick's log in tests: what it says is in its report.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// fixture is one project rooted in a git repository, with a tick.
type fixture struct {
	t    *testing.T
	k    *testkit.Kit
	repo string
	tick *orchestrator.Phases
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
	return &fixture{t: t, k: k, repo: repo, ctx: ctx, tick: &orchestrator.Phases{Store: k.Store, Log: quiet}}
}

// issue creates an issue in phase p (todo) with its worktree, and returns
// its id and worktree.
func (f *fixture) issue(p baton.Phase) (string, string) {
	f.t.Helper()
	it := &baton.Item{Project: "sym", Title: "slow claims", Status: baton.StatusTodo, Labels: []string{p.Label()}, CreatedBy: "user"}
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

// writeArtifact writes the phase's artifact of id into dir and returns its
// path and hash.
func (f *fixture) writeArtifact(dir, id string, p baton.Phase, body string) (string, string) {
	f.t.Helper()
	spec, err := phases.Builtin(p)
	if err != nil {
		f.t.Fatal(err)
	}
	rel := spec.Artifact(id)
	write(f.t, dir, rel, body)
	return rel, phases.Hash([]byte(body))
}

// claim writes the phase's standard artifact and completes the phase as a.
func (f *fixture) claim(a *testkit.Kit, id, dir string, p baton.Phase, extra map[string]any) (claimID, hash string) {
	f.t.Helper()
	rel, hash := f.writeArtifact(dir, id, p, artifacts[p])
	args := map[string]any{"completed_phase": string(p), "contract_version": 1, "artifact_path": rel, "artifact_hash": hash,
		"summary": "the " + string(p) + " is done", "recommended_next_phase": string(nextPhase[p]), "project_path": dir}
	for k, v := range extra {
		args[k] = v
	}
	return a.OK("complete_phase", args)["finding_id"].(string), hash
}

// once ticks and fails the test on an error.
func (f *fixture) once() *orchestrator.TickReport {
	f.t.Helper()
	r, err := f.tick.Once(f.ctx)
	if err != nil {
		f.t.Fatalf("tick: %v", err)
	}
	if len(r.Errors) > 0 || len(r.Skipped) > 0 {
		f.t.Fatalf("tick errors %v, projects skipped %v", r.Errors, r.Skipped)
	}
	return r
}

// outcomes are a report's transitions as "finding:outcome".
func outcomes(r *orchestrator.TickReport) []string {
	out := []string{}
	for _, t := range r.Transitions {
		out = append(out, t.FindingID+":"+t.Outcome)
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

func (f *fixture) comments(id string) []string {
	f.t.Helper()
	var out []string
	if err := f.k.Store.View(f.ctx, func(tx baton.Tx) error {
		cs, err := tx.Comments(f.ctx, id)
		for _, c := range cs {
			out = append(out, c.CreatedBy+": "+c.Body)
		}
		return err
	}); err != nil {
		f.t.Fatal(err)
	}
	return out
}

func (f *fixture) marks(id string) []*baton.PhaseMark {
	f.t.Helper()
	var out []*baton.PhaseMark
	if err := f.k.Store.View(f.ctx, func(tx baton.Tx) (err error) { out, err = tx.PhaseMarks(f.ctx, id); return err }); err != nil {
		f.t.Fatal(err)
	}
	return out
}

// events lists the project's events of the types starting with prefix, as
// "type subject".
func (f *fixture) events(prefix string) []string {
	f.t.Helper()
	var out []string
	if err := f.k.Store.View(f.ctx, func(tx baton.Tx) error {
		es, err := tx.Events(f.ctx, "sym", 0, 10000)
		for _, e := range es {
			if strings.HasPrefix(e.Type, prefix) {
				out = append(out, e.Type+" "+e.Subject)
			}
		}
		return err
	}); err != nil {
		f.t.Fatal(err)
	}
	return out
}

// actions counts the action log's entries by the orchestrator.
func (f *fixture) actions() int {
	return f.k.Count(`SELECT COUNT(*) FROM actions WHERE agent = ?`, orchestrator.Agent)
}

func (f *fixture) pending() []string {
	f.t.Helper()
	var out []string
	if err := f.k.Store.View(f.ctx, func(tx baton.Tx) error {
		fs, err := tx.PendingPhaseFindings(f.ctx, "sym")
		for _, x := range fs {
			out = append(out, x.ID)
		}
		return err
	}); err != nil {
		f.t.Fatal(err)
	}
	return out
}

// setLabels writes an issue's labels as a person would through the store.
func (f *fixture) setLabels(id string, labels ...string) {
	f.t.Helper()
	if err := f.k.Store.Update(f.ctx, func(tx baton.Tx) error {
		it, err := tx.Item(f.ctx, id)
		if err != nil {
			return err
		}
		it.Labels, it.UpdatedBy = labels, "user"
		return tx.UpdateItem(f.ctx, it)
	}); err != nil {
		f.t.Fatal(err)
	}
}

func hasLabel(it *baton.Item, l string) bool { return slices.Contains(it.Labels, l) }

func describe(it *baton.Item) string {
	return fmt.Sprintf("%s %s %v blocked=%q", it.ID, it.Status, it.Labels, it.BlockedReason)
}
