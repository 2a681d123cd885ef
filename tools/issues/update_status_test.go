package issues_test

import (
	"slices"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

func TestUpdateIssueStatusFromInProgress(t *testing.T) {
	k := testkit.New(t)
	for _, tc := range []struct {
		to, reason    string
		blockedReason string // as task_get shows it afterwards
	}{
		{"review", "Implementation complete, all tests pass", ""},
		{"todo", "Giving up: the API it needs does not exist yet", ""},
		{"blocked", "Need a human to provision the database credentials", "Need a human to provision the database credentials"},
		// Without a reason a blocked issue still says why.
		{"blocked", "", "needs human input"},
		{"review", "", ""},
	} {
		t.Run(tc.to+"/"+tc.reason, func(t *testing.T) {
			k := on(k, t)
			id := issueIn(k, "in_progress", nil)
			args := map[string]any{"status": tc.to}
			if tc.reason != "" {
				args["reason"] = tc.reason
			}
			out := bound(k, id).As("agent-bob").OK("update_issue_status", args)
			if out["issue_id"] != id || out["status"] != tc.to || out["previous_status"] != "in_progress" {
				t.Errorf("output = %v", out)
			}
			got := taskGet(k, id)
			if got["status"] != tc.to || got["updated_by"] != "agent-bob" {
				t.Errorf("task_get status/updated_by = %v/%v", got["status"], got["updated_by"])
			}
			if br, _ := got["blocked_reason"].(string); br != tc.blockedReason {
				t.Errorf("blocked_reason = %q, want %q", br, tc.blockedReason)
			}
			cs := list(t, getIssue(k, id), "comments")
			if tc.reason == "" {
				if len(cs) != 0 || out["comment_id"] != nil || out["reason"] != nil {
					t.Errorf("no reason given, but comments %v, output %v", cs, out)
				}
				return
			}
			// The reason is recorded as a comment by the caller.
			if len(cs) != 1 {
				t.Fatalf("comments = %v, want the reason", cs)
			}
			want := "Status in_progress → " + tc.to + ": " + tc.reason
			if cs[0]["content"] != want || cs[0]["created_by"] != "agent-bob" || cs[0]["id"] != out["comment_id"] {
				t.Errorf("comment = %v, want %q by agent-bob (output %v)", cs[0], want, out)
			}
			if out["reason"] != tc.reason {
				t.Errorf("output reason = %v", out["reason"])
			}
		})
	}
}

// update_issue_status accepts only review, todo and blocked, and only along
// the state machine; a refused change records nothing.
func TestUpdateIssueStatusRefusals(t *testing.T) {
	k := testkit.New(t)
	allowed := map[string][]string{
		"backlog":     {"todo"},
		"todo":        {"blocked"},
		"in_progress": {"review", "todo", "blocked"},
		"blocked":     {"todo"},
		"review":      {"blocked"},
		"done":        {},
		"cancelled":   {},
	}
	for from, ok := range allowed {
		for _, to := range []string{"review", "todo", "blocked"} {
			t.Run(from+"_to_"+to, func(t *testing.T) {
				k := on(k, t)
				id := issueIn(k, from, nil)
				args := map[string]any{"issue_id": id, "status": to, "reason": "because"}
				if slices.Contains(ok, to) {
					k.OK("update_issue_status", args)
					if got := status0(k, id); got != to {
						t.Errorf("status = %s, want %s", got, to)
					}
					return
				}
				e := fail(k, "update_issue_status", args, baton.ErrInvalidTransition)
				if e.Details["from"] != from || e.Details["to"] != to || e.Details["task_id"] != id {
					t.Errorf("details = %v", e.Details)
				}
				if got := status0(k, id); got != from {
					t.Errorf("status after refusal = %s, want %s", got, from)
				}
				if cs := list(t, getIssue(k, id), "comments"); len(cs) != 0 {
					t.Errorf("refused change left comments %v", cs)
				}
			})
		}
	}

	id := issueIn(k, "in_progress", nil)
	for _, status := range []string{"done", "in_progress", "cancelled", "backlog", "REVIEW", ""} {
		invalid(k, "update_issue_status", map[string]any{"issue_id": id, "status": status}, "status")
	}
	invalid(k, "update_issue_status", map[string]any{"issue_id": id, "status": "review", "reason": "   "}, "reason")
	invalid(k, "update_issue_status", map[string]any{"issue_id": id}, "status")
	fail(k, "update_issue_status", map[string]any{"issue_id": "COL-99", "status": "review"}, baton.ErrTaskNotFound)
	if got := status0(k, id); got != "in_progress" {
		t.Errorf("status after refused calls = %s", got)
	}
}
