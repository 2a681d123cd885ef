package worktree_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/worktree"
)

// repoKit is a kit with a project "repo" (prefix REP) rooted in a fresh git
// repository, and its issue REP-1 with a worktree, and REP-2 without one.
func repoKit(t *testing.T) (k *testkit.Kit, repo string, wt *worktree.Worktree) {
	t.Helper()
	repo = newRepo(t, "main")
	k = testkit.New(t)
	ctx := context.Background()
	err := k.Store.Update(ctx, func(tx baton.Tx) error {
		if err := tx.CreateProject(ctx, &baton.Project{Slug: "repo", Prefix: "REP", Root: repo}); err != nil {
			return err
		}
		for _, title := range []string{"with a worktree", "without one"} {
			if err := tx.CreateItem(ctx, &baton.Item{Project: "repo", Title: title, Status: baton.StatusTodo, Kind: baton.KindTask,
				Priority: baton.PriorityNormal}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	wt, err = worktree.Create(ctx, worktree.Options{Repo: repo, Issue: "REP-1", Project: "repo"})
	if err != nil {
		t.Fatal(err)
	}
	return k, repo, wt
}

// call is a tool call as the kit's principal would make it.
func call(k *testkit.Kit, p baton.Principal, cwd string) *tool.Call {
	return &tool.Call{Principal: p, Env: &tool.Env{Store: k.Store, Registry: k.Registry, WorkDir: cwd}}
}

func TestRequireChecksSessionsTiedToAWorktree(t *testing.T) {
	k, repo, wt := repoKit(t)
	ctx := context.Background()
	agent := func(src baton.Source, issue, worktreePath string) baton.Principal {
		return baton.Principal{Agent: "agent-w", Profile: "worker", Source: src, IssueID: issue, WorktreePath: worktreePath}
	}
	for _, tc := range []struct {
		name    string
		p       baton.Principal
		cwd     string
		checked bool   // Require checked, and the check passed
		fails   string // a part of the error message; "" for success
	}{
		{"bound worktree, in it", agent(baton.SourceStdio, "REP-1", wt.Path), wt.Path, true, ""},
		{"bound worktree, elsewhere", agent(baton.SourceStdio, "REP-1", wt.Path), repo, false, "Worktree marker file not found at " + repo},
		{"marker in the folder, right issue", agent(baton.SourceStdio, "REP-1", ""), wt.Path, true, ""},
		{"marker in the folder, another issue", agent(baton.SourceStdio, "REP-2", ""), wt.Path, false, "This worktree belongs to REP-1, but your issue is REP-2"},
		{"marker in the folder, no bound issue", agent(baton.SourceHTTP, "", ""), wt.Path, true, ""},
		// A local agent bound to an issue with a worktree must work in it.
		{"issue has a worktree, agent outside", agent(baton.SourceStdio, "REP-1", ""), repo,
			false, "Recovery: run `cd " + wt.Path + "` to return to your worktree."},
		{"issue has a worktree, test source outside", agent(baton.SourceTest, "REP-1", ""), repo, false, "not found"},
		// Not tied to any worktree: not checked.
		{"issue without a worktree", agent(baton.SourceStdio, "REP-2", ""), repo, false, ""},
		{"no bound issue", agent(baton.SourceStdio, "", ""), repo, false, ""},
		{"operator at the CLI", baton.Principal{Agent: "user", Source: baton.SourceCLI, IssueID: "REP-1"}, repo, false, ""},
		{"agent over HTTP", agent(baton.SourceHTTP, "REP-1", ""), repo, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := worktree.Require(ctx, call(k, tc.p, tc.cwd))
			if tc.fails != "" {
				e := baton.AsError(err)
				if err == nil || e.Code != baton.ErrConflict || e.Type != "workspace_invalid" || !strings.Contains(e.Message, tc.fails) {
					t.Fatalf("Require = %+v, %v; want workspace_invalid saying %q", v, err, tc.fails)
				}
				if v != nil {
					t.Errorf("a failed check returned %+v", v)
				}
				return
			}
			if err != nil {
				t.Fatalf("Require: %v", err)
			}
			if tc.checked != (v != nil) {
				t.Fatalf("Require = %+v, want checked=%v", v, tc.checked)
			}
			if v != nil && (v.Path != wt.Path || v.Issue != "REP-1" || v.Branch != "symphony/REP-1") {
				t.Errorf("verified = %+v", v)
			}
		})
	}
}

func TestRequireInsideTheCallsTransaction(t *testing.T) {
	k, repo, wt := repoKit(t)
	ctx := context.Background()
	p := baton.Principal{Agent: "agent-w", Source: baton.SourceStdio, IssueID: "REP-1"}
	err := k.Store.Update(ctx, func(tx baton.Tx) error {
		c := call(k, p, repo)
		c.Tx = tx
		_, err := worktree.Require(ctx, c)
		return err
	})
	if !strings.Contains(baton.AsError(err).Message, "cd "+wt.Path) {
		t.Fatalf("Require in a transaction = %v, want the worktree found through it", err)
	}
}

// TestPoint7RemoteAgentsGetNoServerPaths: a failed workspace check of an
// agent over HTTP (or the dashboard) says the server cannot see its
// working directory, with no server path in the message or details; a
// local agent still gets the paths and the way back.
func TestPoint7RemoteAgentsGetNoServerPaths(t *testing.T) {
	k, repo, wt := repoKit(t)
	ctx := context.Background()
	for _, src := range []baton.Source{baton.SourceHTTP, baton.SourceWeb} {
		p := baton.Principal{Agent: "agent-w", Profile: "worker", Source: src, IssueID: "REP-1", WorktreePath: wt.Path}
		_, err := worktree.Verify(ctx, call(k, p, repo))
		e := baton.AsError(err)
		if err == nil || e.Type != "workspace_invalid" || !strings.Contains(e.Message, "cannot see your working directory") {
			t.Fatalf("%s: %v", src, err)
		}
		all := e.Message + e.Hint + fmt.Sprint(e.Details)
		if strings.Contains(all, repo) || strings.Contains(all, wt.Path) {
			t.Errorf("%s: the error quotes a server path: %q %v", src, e.Message, e.Details)
		}
	}
	p := baton.Principal{Agent: "agent-w", Profile: "worker", Source: baton.SourceStdio, IssueID: "REP-1", WorktreePath: wt.Path}
	if _, err := worktree.Verify(ctx, call(k, p, repo)); err == nil || !strings.Contains(err.Error(), "cd "+wt.Path) {
		t.Errorf("local agent: %v, want the way back to its worktree", err)
	}
}
