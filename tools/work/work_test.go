package work_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/tool"
)

// item creates a work item in status st (todo unless given) and returns
// its id.
func item(k *testkit.Kit, st baton.Status) string {
	return k.StoreItem(&baton.Item{Title: "Fix the flaky retry test", Status: st})
}

func bound(k *testkit.Kit, id string) *testkit.Kit {
	c := *k
	c.Principal.IssueID = id
	return &c
}

func get(k *testkit.Kit, id string) map[string]any {
	k.T.Helper()
	return k.OK("task_get", map[string]any{"task_id": id})
}

func comments(k *testkit.Kit, id string) []string {
	k.T.Helper()
	var out []string
	for _, c := range k.OK("get_issue", map[string]any{"issue_id": id})["comments"].([]any) {
		out = append(out, c.(map[string]any)["content"].(string))
	}
	return out
}

func claimOf(k *testkit.Kit, id string) *baton.Claim {
	k.T.Helper()
	var cl *baton.Claim
	ctx := context.Background()
	if err := k.Store.View(ctx, func(tx baton.Tx) error {
		var err error
		cl, err = tx.ClaimOf(ctx, id)
		return err
	}); err != nil {
		k.T.Fatal(err)
	}
	return cl
}

// TestPoint20TerminalTools: complete_task, fail_task and wait_task act on
// the session's bound item, end its run there (review, or blocked with the
// reason), record why, release the caller's claim, answer Botholomew's
// {message, is_error}, and are annotated terminal.
func TestPoint20TerminalTools(t *testing.T) {
	for _, tc := range []struct {
		tool, arg, text string
		status, reason  string
		message         string
	}{
		{"complete_task", "summary", "Retries now back off; 12 tests pass", "review", "", "Task completed: Retries now back off; 12 tests pass"},
		{"fail_task", "reason", "The CI runner has no network", "blocked", "failed: The CI runner has no network", "Task failed: The CI runner has no network"},
		{"wait_task", "reason", "Waiting for the API key from ops", "blocked", "Waiting for the API key from ops", "Task waiting: Waiting for the API key from ops"},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			k := testkit.New(t)
			id := item(k, baton.StatusTodo)
			w := bound(k, id).As("worker-1")
			if out := w.OK("claim_item", map[string]any{"item_id": id}); out["status"] != "in_progress" {
				t.Fatalf("claim = %v", out)
			}

			out := w.OK(tc.tool, map[string]any{tc.arg: tc.text})
			if out["message"] != tc.message || out["is_error"] != false || out["task_id"] != id || out["status"] != tc.status {
				t.Errorf("output = %v", out)
			}
			got := get(k, id)
			if got["status"] != tc.status {
				t.Errorf("status = %v, want %s", got["status"], tc.status)
			}
			if reason, _ := got["blocked_reason"].(string); reason != tc.reason {
				t.Errorf("blocked_reason = %q, want %q", reason, tc.reason)
			}
			if cs := comments(k, id); len(cs) != 1 || cs[0] != tc.message {
				t.Errorf("comments = %q, want the message", cs)
			}
			if cl := claimOf(k, id); cl != nil {
				t.Errorf("the claim was not released: %+v", cl)
			}

			// The run has ended: a second terminal call is refused and
			// changes nothing.
			for _, again := range []string{"complete_task", "fail_task", "wait_task"} {
				arg := "reason"
				if again == "complete_task" {
					arg = "summary"
				}
				if again == "complete_task" && tc.status == "blocked" {
					// A waiting or failed item may be completed by a later
					// run (blocked -> in_progress -> review): covered below.
					continue
				}
				res := w.Call(again, map[string]any{arg: "again"})
				if res.Err == nil || res.Err.Code != baton.ErrInvalidTransition {
					t.Errorf("second %s after %s: %s, want ERR_INVALID_TRANSITION", again, tc.tool, res.Text)
				}
			}
			if cs := comments(k, id); len(cs) != 1 {
				t.Errorf("a refused call left comments: %q", cs)
			}

			spec, _ := k.Registry.Get(tc.tool)
			if s := spec.Spec(); !s.Annotations.Terminal || s.Annotations.ReadOnly || s.Toolset != "work" {
				t.Errorf("spec = %+v", s.Annotations)
			}
			b, _ := json.Marshal(tool.MCPTool(spec.Spec()))
			if !strings.Contains(string(b), `"baton/terminal":true`) {
				t.Errorf("tools/list does not mark %s terminal: %s", tc.tool, b)
			}
		})
	}
}

// TestPoint20TerminalToolsEdges: without a bound item the tools say so;
// they step an unstarted or waiting item through in_progress to complete
// it; another agent's claim stops them; an old id of a moved item binds.
func TestPoint20TerminalToolsEdges(t *testing.T) {
	t.Run("no bound item", func(t *testing.T) {
		k := testkit.New(t)
		id := item(k, baton.StatusInProgress)
		for _, tc := range []struct{ name, arg string }{{"complete_task", "summary"}, {"fail_task", "reason"}, {"wait_task", "reason"}} {
			e := k.FailEnvelope(tc.name, map[string]any{tc.arg: "x"}, baton.ErrInvalidInput)
			if e.Type != "no_bound_item" || !strings.Contains(e.Message, "bound to none") || !strings.Contains(e.Hint, "--issue-id") {
				t.Errorf("%s: %+v", tc.name, e)
			}
		}
		if got := get(k, id); got["status"] != "in_progress" {
			t.Errorf("status = %v", got["status"])
		}
	})
	t.Run("complete an unstarted item", func(t *testing.T) {
		k := testkit.New(t)
		id := item(k, baton.StatusTodo)
		if out := bound(k, id).OK("complete_task", map[string]any{"summary": "done"}); out["status"] != "review" {
			t.Errorf("output = %v", out)
		}
		if got := get(k, id); got["status"] != "review" || got["progress"] != 100.0 {
			t.Errorf("item = %v", got)
		}
	})
	t.Run("complete after waiting", func(t *testing.T) {
		k := testkit.New(t)
		id := item(k, baton.StatusInProgress)
		w := bound(k, id)
		w.OK("wait_task", map[string]any{"reason": "key"})
		if out := w.OK("complete_task", map[string]any{"summary": "got the key, done"}); out["status"] != "review" {
			t.Errorf("output = %v", out)
		}
		if got := get(k, id); got["blocked_reason"] != nil {
			t.Errorf("blocked_reason kept: %v", got["blocked_reason"])
		}
	})
	t.Run("backlog cannot complete", func(t *testing.T) {
		k := testkit.New(t)
		id := item(k, baton.StatusBacklog)
		bound(k, id).Fail("complete_task", map[string]any{"summary": "x"}, baton.ErrInvalidTransition)
		bound(k, id).Fail("fail_task", map[string]any{"reason": "x"}, baton.ErrInvalidTransition)
	})
	t.Run("another agent's claim", func(t *testing.T) {
		k := testkit.New(t)
		id := item(k, baton.StatusTodo)
		k.As("worker-2").OK("claim_item", map[string]any{"item_id": id})
		bound(k, id).As("worker-1").Fail("complete_task", map[string]any{"summary": "x"}, baton.ErrClaimed)
		if got := get(k, id); got["status"] != "in_progress" {
			t.Errorf("status = %v", got["status"])
		}
		if cl := claimOf(k, id); cl == nil || cl.Holder != "worker-2" {
			t.Errorf("claim = %+v", cl)
		}
	})
	t.Run("bound to a moved item's old id", func(t *testing.T) {
		k := testkit.New(t)
		k.AddProject("other", "OTH")
		id := k.StoreItem(&baton.Item{Title: "t", Status: baton.StatusInProgress, Labels: []string{"cross-project"}})
		moved := k.OK("move_issue", map[string]any{"issue_id": id, "target_project_id": "other", "reason": "r"})["issue_id"]
		out := bound(k, id).OK("fail_task", map[string]any{"reason": "x"})
		if out["task_id"] != moved || out["status"] != "blocked" {
			t.Errorf("output = %v, want %v blocked", out, moved)
		}
	})
	t.Run("limits", func(t *testing.T) {
		k := testkit.New(t)
		w := bound(k, item(k, baton.StatusInProgress))
		for _, tc := range []struct {
			name string
			args map[string]any
		}{
			{"complete_task", map[string]any{}},
			{"complete_task", map[string]any{"summary": "  "}},
			{"complete_task", map[string]any{"summary": strings.Repeat("s", 8001)}},
			{"fail_task", map[string]any{"reason": strings.Repeat("r", 991)}},
			{"wait_task", map[string]any{"summary": "wrong field"}},
		} {
			w.Fail(tc.name, tc.args, baton.ErrInvalidInput)
		}
	})
}
