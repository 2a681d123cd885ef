package review_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/worktree"
)

// fx is a project whose root is a real git repository, one ready issue in
// it and that issue's worktree, made as `baton worktree create` makes it.
type fx struct {
	t      *testing.T
	k      *testkit.Kit
	repo   string
	issue  string
	wt     string
	branch string
}

const project = "sym"

func setup(t *testing.T) *fx {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: PR records are built with the git binary")
	}
	k := testkit.New(t)
	f := &fx{t: t, k: k, repo: t.TempDir()}
	f.git(f.repo, "init", "--quiet", "--initial-branch=main")
	f.write(f.repo, "README.md", "# project\n")
	f.write(f.repo, "server/api.go", "package server\n\nfunc API() {}\n")
	f.commit(f.repo, "start")
	ctx := context.Background()
	if err := k.Store.Update(ctx, func(tx baton.Tx) error {
		return tx.CreateProject(ctx, &baton.Project{Slug: project, Prefix: "SYM", Root: f.repo})
	}); err != nil {
		t.Fatal(err)
	}
	f.issue = k.StoreItem(&baton.Item{Project: project, Title: "Add the feature", Labels: []string{baton.PhaseReady.Label()}})
	wt, err := worktree.Create(ctx, worktree.Options{Repo: f.repo, Issue: f.issue, Project: project})
	if err != nil {
		t.Fatal(err)
	}
	f.wt, f.branch = wt.Path, wt.Branch
	return f
}

// git runs git in dir with a fixed identity and no user configuration.
func (f *fx) git(dir string, args ...string) string {
	f.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=t@example.com", "-c", "user.name=T",
		"-c", "commit.gpgsign=false"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+f.repo)
	out, err := cmd.CombinedOutput()
	if err != nil {
		f.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func (f *fx) write(dir, name, content string) {
	f.t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fx) commit(dir, msg string) string {
	f.t.Helper()
	f.git(dir, "add", "-A")
	f.git(dir, "commit", "--quiet", "-m", msg)
	return f.git(dir, "rev-parse", "HEAD")
}

// work commits a change in the issue's worktree: n lines in file.
func (f *fx) work(file string, n int) string {
	f.t.Helper()
	f.write(f.wt, file, strings.Repeat("line\n", n))
	return f.commit(f.wt, "work on "+file)
}

// as is a kit acting as agent with a profile, bound to the issue and
// working in dir (its own environment: the working directory is the
// agent's).
func (f *fx) as(agent, profile, dir string) *testkit.Kit {
	c := *f.k
	c.Principal = baton.Principal{Agent: agent, Profile: profile, AgentType: profile, IssueID: f.issue, Source: baton.SourceTest}
	c.Env = &tool.Env{Store: f.k.Store, Registry: f.k.Registry, DataDir: f.k.Env.DataDir, WorkDir: dir, Server: f.k.Env.Server}
	return &c
}

// worker is agent-w in the issue's worktree, the session tied to it.
func (f *fx) worker() *testkit.Kit {
	k := f.as("agent-w", "worker", f.wt)
	k.Principal.WorktreePath = f.wt
	return k
}

// judge is agent-j, bound to the issue, in the main repository.
func (f *fx) judge() *testkit.Kit { return f.as("agent-j", "judge", f.repo) }

func (f *fx) item() *baton.Item {
	f.t.Helper()
	var it *baton.Item
	ctx := context.Background()
	if err := f.k.Store.View(ctx, func(tx baton.Tx) (err error) { it, err = tx.Item(ctx, f.issue); return err }); err != nil {
		f.t.Fatal(err)
	}
	return it
}

func (f *fx) prs() []*baton.PR {
	f.t.Helper()
	var ps []*baton.PR
	ctx := context.Background()
	if err := f.k.Store.View(ctx, func(tx baton.Tx) (err error) {
		ps, err = tx.PRs(ctx, baton.PRFilter{ItemID: f.issue})
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
	f.worker().OK("claim_item", map[string]any{"item_id": f.issue})
}

// createArgs are create_pr's arguments for the issue's branch.
func (f *fx) createArgs(extra map[string]any) map[string]any {
	args := map[string]any{"diff": "diff --git a/x b/x", "branch_name": f.branch, "base_branch": "main"}
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
