package claims_test

import (
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// next calls claim_next as k with args and returns what it claimed, or ""
// when it reported nothing ready.
func next(k *testkit.Kit, args map[string]any) string {
	k.T.Helper()
	out := k.OK("claim_next", args)
	switch out["claimed"] {
	case true:
		return out["item_id"].(string)
	case false:
		return ""
	}
	k.T.Fatalf("claim_next: claimed = %v (%T), want a boolean: %v", out["claimed"], out["claimed"], out)
	return ""
}

func TestClaimNextOutput(t *testing.T) {
	k, clk := newKit(t)
	id := task(k, map[string]any{"title": "wire the claims", "priority": "high"})
	now := clk.Advance(time.Second)

	out := k.OK("claim_next", map[string]any{"ttl_seconds": 300})
	want := map[string]any{"claimed": true, "item_id": id, "title": "wire the claims", "priority": 1.0,
		"holder": "agent-alice", "token": 1.0, "status": "in_progress"}
	for key, v := range want {
		if out[key] != v {
			t.Errorf("claim_next %s = %v, want %v", key, out[key], v)
		}
	}
	sameTime(t, "claimed_at", out["claimed_at"], now)
	sameTime(t, "expires_at", out["expires_at"], now.Add(300*time.Second))
	if _, ok := out["message"]; ok {
		t.Errorf("a successful claim_next carries a message: %v", out)
	}
	if got := get(k, id); got["status"] != "in_progress" || got["assignee"] != "agent-alice" {
		t.Errorf("claimed task is %v assigned to %v", got["status"], got["assignee"])
	}
}

func TestClaimNextNothingReady(t *testing.T) {
	k, _ := newKit(t)
	out := k.OK("claim_next", nil)
	if out["claimed"] != false || !strings.HasPrefix(out["message"].(string), "no ready work") {
		t.Errorf("claim_next on an empty queue = %v, want claimed false and a message", out)
	}
	for _, key := range []string{"item_id", "holder", "token", "title", "priority", "status", "claimed_at", "expires_at"} {
		if _, ok := out[key]; ok {
			t.Errorf("claim_next with nothing ready sets %s: %v", key, out)
		}
	}
	// Backlog is not ready work.
	k.OK("task_create", map[string]any{"project": "colibri", "title": "not yet"})
	if got := next(k, nil); got != "" {
		t.Errorf("claim_next claimed backlog item %s", got)
	}
}

func TestClaimNextOrder(t *testing.T) {
	k, clk := newKit(t)
	// Created newest first, so insertion order cannot pass for age.
	low := k.StoreItem(&baton.Item{Priority: baton.PriorityLow, CreatedAt: epoch.Add(-1 * time.Hour)})
	normalNew := k.StoreItem(&baton.Item{Priority: baton.PriorityNormal, CreatedAt: epoch.Add(-2 * time.Hour)})
	normalOld := k.StoreItem(&baton.Item{Priority: baton.PriorityNormal, CreatedAt: epoch.Add(-3 * time.Hour)})
	critical := k.StoreItem(&baton.Item{Priority: baton.PriorityCritical, CreatedAt: epoch.Add(-1 * time.Minute)})
	backlog := k.StoreItem(&baton.Item{Priority: baton.PriorityBacklog, CreatedAt: epoch.Add(-9 * time.Hour)})
	clk.Advance(time.Second)

	want := []string{critical, normalOld, normalNew, low, backlog}
	for i, w := range want {
		agent := k.As("agent-" + string(rune('a'+i)))
		if got := next(agent, nil); got != w {
			t.Fatalf("claim_next #%d = %q, want %s (order %v)", i+1, got, w, want)
		}
	}
	if got := next(k, nil); got != "" {
		t.Errorf("claim_next after every item was claimed = %s", got)
	}
}

func TestClaimNextSkipsUnready(t *testing.T) {
	k, _ := newKit(t)
	dep := task(k, map[string]any{"title": "dependency", "priority": "low"})
	waiting := task(k, map[string]any{"title": "waits on dependency", "priority": "critical"})
	k.Depend(waiting, dep)
	parent := task(k, map[string]any{"title": "parent", "priority": "critical"})
	child := k.OK("task_create", map[string]any{"project": "colibri", "title": "open subtask", "parent_id": parent})["task_id"].(string)
	claimed := task(k, map[string]any{"title": "claimed", "priority": "critical"})
	claim(k.As("agent-carol"), claimed, 0)
	theirs := task(k, map[string]any{"title": "assigned to carol", "priority": "critical", "assignee": "agent-carol"})
	blocked := task(k, map[string]any{"title": "blocked", "priority": "critical"})
	update(k, blocked, map[string]any{"status": "blocked", "blocked_reason": "waiting for credentials"})

	bob := k.As("agent-bob")
	if got := next(bob, nil); got != dep {
		t.Fatalf("claim_next = %q, want the only ready item %s (skipping %s waiting, %s with subtask %s, %s claimed, %s assigned to carol, %s blocked)",
			got, dep, waiting, parent, child, claimed, theirs, blocked)
	}
	if got := next(bob, nil); got != "" {
		t.Fatalf("claim_next = %s, want nothing ready", got)
	}

	// Finishing the dependency readies what waited on it.
	for _, s := range []string{"review", "done"} {
		update(bob, dep, map[string]any{"status": s})
	}
	if got := next(bob, nil); got != waiting {
		t.Errorf("claim_next after the dependency is done = %q, want %s", got, waiting)
	}
	// Cancelling the subtask readies the parent.
	update(k, child, map[string]any{"status": "cancelled"})
	if got := next(bob, nil); got != parent {
		t.Errorf("claim_next after the subtask is cancelled = %q, want %s", got, parent)
	}
	// Carol's assignment is hers to claim.
	if got := next(k.As("agent-carol"), nil); got != theirs {
		t.Errorf("claim_next as the assignee = %q, want %s", got, theirs)
	}
}

// TestClaimNextPrefersOwnAssignments: work already assigned to the caller
// comes before unassigned work, even more urgent work (sqlite/claims.go).
func TestClaimNextPrefersOwnAssignments(t *testing.T) {
	k, _ := newKit(t)
	urgent := task(k, map[string]any{"priority": "critical"})
	mine := task(k, map[string]any{"priority": "low", "assignee": "agent-bob"})
	if got := next(k.As("agent-bob"), nil); got != mine {
		t.Errorf("claim_next as agent-bob = %q, want its own assignment %s before %s", got, mine, urgent)
	}
	if got := next(k.As("agent-bob"), nil); got != urgent {
		t.Errorf("claim_next as agent-bob = %q, want %s", got, urgent)
	}
}

func TestClaimNextFilters(t *testing.T) {
	k, _ := newKit(t)
	bug := k.StoreItem(&baton.Item{Kind: baton.KindBug, Priority: baton.PriorityLow})
	chore := k.StoreItem(&baton.Item{Kind: baton.KindChore, Priority: baton.PriorityLow, Labels: []string{"infra"}})
	plain := k.StoreItem(&baton.Item{Priority: baton.PriorityCritical})
	infraTask := k.StoreItem(&baton.Item{Priority: baton.PriorityHigh, Labels: []string{"infra", "ci"}})

	if got := next(k, map[string]any{"kind": "bug"}); got != bug {
		t.Errorf("kind bug: %q, want %s", got, bug)
	}
	if got := next(k, map[string]any{"kind": "bug"}); got != "" {
		t.Errorf("kind bug again: %q, want nothing", got)
	}
	if got := next(k, map[string]any{"label": "infra"}); got != infraTask {
		t.Errorf("label infra: %q, want %s", got, infraTask)
	}
	out := k.OK("claim_next", map[string]any{"label": "infra", "kind": "task"})
	if out["claimed"] != false || !strings.Contains(out["message"].(string), "infra") || !strings.Contains(out["message"].(string), "task") {
		t.Errorf("label infra kind task with none left: %v, want claimed false naming the filters", out)
	}
	if got := next(k, map[string]any{"label": "infra", "kind": "chore"}); got != chore {
		t.Errorf("label infra kind chore: %q, want %s", got, chore)
	}
	if got := next(k, map[string]any{"label": "nope"}); got != "" {
		t.Errorf("unknown label: %q", got)
	}
	if got := next(k, nil); got != plain {
		t.Errorf("no filter: %q, want %s", got, plain)
	}
}

func TestClaimNextProject(t *testing.T) {
	k, _ := newKit(t)
	id := task(k, nil)
	k.AddProject("other", "OTH")
	e := fail(k, "claim_next", nil, baton.ErrInvalidInput)
	if e.Details["field"] != "project" || !strings.Contains(e.Message, "project") {
		t.Errorf("claim_next with two projects and no default: %v %q", e.Details, e.Message)
	}
	fail(k, "claim_next", map[string]any{"project": "nope"}, baton.ErrProjectNotFound)
	if got := next(k, map[string]any{"project": "other"}); got != "" {
		t.Errorf("claim_next in the empty project claimed %s", got)
	}
	// The session's project is the default.
	s := k.As("agent-alice")
	s.Principal.Project = testkit.Project
	if got := next(s, nil); got != id {
		t.Errorf("claim_next with the session's project = %q, want %s", got, id)
	}
}
