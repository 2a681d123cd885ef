package review_test

import (
	"context"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/tool"
)

// fx is a project whose root is a real git repository, one ready issue in
// it and that issue's worktree (testkit.IssueRepo).
type fx struct {
	*testkit.IssueRepo
	t *testing.T
	k *testkit.Kit
}

const project = "sym"

func setup(t *testing.T) *fx {
	t.Helper()
	k := testkit.New(t)
	return &fx{IssueRepo: k.NewIssueRepo(project), t: t, k: k}
}

// work commits a change in the issue's worktree: n lines in file.
func (f *fx) work(file string, n int) string {
	f.t.Helper()
	f.Write(f.Worktree, file, strings.Repeat("line\n", n))
	return f.Commit(f.Worktree, "work on "+file)
}

// as is a kit acting as agent with a profile, bound to the issue and
// working in dir (its own environment: the working directory is the
// agent's).
func (f *fx) as(agent, profile, dir string) *testkit.Kit {
	c := *f.k
	c.Principal = baton.Principal{Agent: agent, Profile: profile, AgentType: profile, IssueID: f.Issue, Source: baton.SourceTest}
	c.Env = &tool.Env{Store: f.k.Store, Registry: f.k.Registry, DataDir: f.k.Env.DataDir, WorkDir: dir, Server: f.k.Env.Server}
	return &c
}

// worker is agent-w in the issue's worktree, the session tied to it.
func (f *fx) worker() *testkit.Kit {
	k := f.as("agent-w", "worker", f.Worktree)
	k.Principal.WorktreePath = f.Worktree
	return k
}

// judge is agent-j, bound to the issue, in the main repository.
func (f *fx) judge() *testkit.Kit { return f.as("agent-j", "judge", f.Repo) }

func (f *fx) item() *baton.Item {
	f.t.Helper()
	var it *baton.Item
	ctx := context.Background()
	if err := f.k.Store.View(ctx, func(tx baton.Tx) (err error) { it, err = tx.Item(ctx, f.Issue); return err }); err != nil {
		f.t.Fatal(err)
	}
	return it
}

func (f *fx) prs() []*baton.PR {
	f.t.Helper()
	var ps []*baton.PR
	ctx := context.Background()
	if err := f.k.Store.View(ctx, func(tx baton.Tx) (err error) {
		ps, err = tx.PRs(ctx, baton.PRFilter{ItemID: f.Issue})
		return err
	}); err != nil {
		f.t.Fatal(err)
	}
	return ps
}

func (f *fx) pr(id string) *baton.PR {
	f.t.Helper()
	var p *baton.PR
	ctx := context.Background()
	if err := f.k.Store.View(ctx, func(tx baton.Tx) (err error) { p, err = tx.PR(ctx, id); return err }); err != nil {
		f.t.Fatal(err)
	}
	return p
}

// configure stores the project's settings as configure_project would.
func (f *fx) configure(apply func(c *baton.ProjectConfig)) {
	f.t.Helper()
	ctx := context.Background()
	if err := f.k.Store.Update(ctx, func(tx baton.Tx) error {
		c, err := tx.ProjectConfig(ctx, project)
		if err != nil {
			return err
		}
		apply(c)
		c.UpdatedBy = "user"
		return tx.PutProjectConfig(ctx, c)
	}); err != nil {
		f.t.Fatal(err)
	}
}

// claim has the worker claim the issue (todo -> in_progress).
func (f *fx) claim() {
	f.t.Helper()
	f.worker().OK("claim_item", map[string]any{"item_id": f.Issue})
}

// createArgs are create_pr's arguments for the issue's branch.
func (f *fx) createArgs(extra map[string]any) map[string]any {
	args := map[string]any{"diff": "diff --git a/x b/x", "branch_name": f.Branch, "base_branch": "main"}
	for k, v := range extra {
		args[k] = v
	}
	return args
}

// events lists the types of the project's events, oldest first.
func (f *fx) events() []string {
	f.t.Helper()
	rows, err := f.k.DB().Query(f.k.Rebind(`SELECT type FROM events WHERE project = ? ORDER BY seq`), project)
	if err != nil {
		f.t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			f.t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}
