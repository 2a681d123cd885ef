package testkit

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/worktree"
)

// IssueRepo is a project whose root is a real git repository, with one
// ready issue in it and that issue's worktree made as `baton worktree
// create` makes it: what PR records are built from.
type IssueRepo struct {
	T        testing.TB
	Repo     string // the repository (the project's root)
	Issue    string // the ready issue's id
	Worktree string // the issue's worktree
	Branch   string // the issue's branch
}

// NewIssueRepo makes an IssueRepo for a new project slug (prefix SYM) in
// k's store. It skips the test when git is not installed.
func (k *Kit) NewIssueRepo(slug string) *IssueRepo {
	t := k.T
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: PR records are built with the git binary")
	}
	r := &IssueRepo{T: t, Repo: t.TempDir()}
	r.Git(r.Repo, "init", "--quiet", "--initial-branch=main")
	r.Write(r.Repo, "README.md", "# project\n")
	r.Write(r.Repo, "server/api.go", "package server\n\nfunc API() {}\n")
	r.Commit(r.Repo, "start")
	ctx := context.Background()
	if err := k.Store.Update(ctx, func(tx baton.Tx) error {
		return tx.CreateProject(ctx, &baton.Project{Slug: slug, Prefix: "SYM", Root: r.Repo})
	}); err != nil {
		t.Fatal(err)
	}
	r.Issue = k.StoreItem(&baton.Item{Project: slug, Title: "Add the feature", Labels: []string{baton.PhaseReady.Label()}})
	wt, err := worktree.Create(ctx, worktree.Options{Repo: r.Repo, Issue: r.Issue, Project: slug})
	if err != nil {
		t.Fatal(err)
	}
	r.Worktree, r.Branch = wt.Path, wt.Branch
	return r
}

// Git runs git in dir with a fixed identity and no user configuration.
func (r *IssueRepo) Git(dir string, args ...string) string {
	r.T.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=t@example.com", "-c", "user.name=T",
		"-c", "commit.gpgsign=false"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+r.Repo)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.T.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// Write writes a file under dir, making its directories.
func (r *IssueRepo) Write(dir, name, content string) {
	r.T.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.T.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.T.Fatal(err)
	}
}

// Commit commits everything in dir and returns the commit's id.
func (r *IssueRepo) Commit(dir, msg string) string {
	r.T.Helper()
	r.Git(dir, "add", "-A")
	r.Git(dir, "commit", "--quiet", "-m", msg)
	return r.Git(dir, "rev-parse", "HEAD")
}
