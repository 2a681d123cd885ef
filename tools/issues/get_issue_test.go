package issues_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

func TestGetIssueDefaultsToBoundIssue(t *testing.T) {
	k := testkit.New(t)
	clock := withClock(k, time.Second)
	id := issue(k, map[string]any{"title": "Wire the dispatcher", "description": "Judges before workers.",
		"priority": 2, "labels": []string{"phase:research", "size:M"}})
	created := clock.Peek()
	other := issue(k, map[string]any{"title": "Another issue"})
	drive(k, id, "in_progress")

	w := bound(k, id).As("agent-bob")
	w.OK("add_finding", map[string]any{"category": "bug", "summary": "Race in worktree cleanup",
		"details": "rmSync fails on shared lock files", "files": []string{"server/workspace.ts"}})
	w.OK("add_learning", map[string]any{"pattern": pad(60), "learning_type": "gotcha", "applies_to": []string{"server/"}})
	w.OK("add_comment", map[string]any{"content": "Found the root cause"})
	k.OK("add_comment", map[string]any{"issue_id": other, "content": "not on the bound issue"})

	got := w.OK("get_issue", nil)
	want := map[string]any{
		"id": id, "identifier": id, "title": "Wire the dispatcher", "description": "Judges before workers.",
		"status": "in_progress", "priority": 2.0, "project": "colibri",
	}
	for f, v := range want {
		if got[f] != v {
			t.Errorf("%s = %#v, want %#v", f, got[f], v)
		}
	}
	equal(t, "labels", strs(t, got, "labels"), []string{"phase:research", "size:M"})
	equal(t, "depends_on", strs(t, got, "depends_on"), nil)
	equal(t, "subtasks", strs(t, got, "subtasks"), nil)
	if at := parseStamp(t, got["created_at"]); !at.Equal(created) {
		t.Errorf("created_at = %v, want %v", at, created)
	}

	fs := list(t, got, "findings")
	if len(fs) != 1 {
		t.Fatalf("findings = %v, want one", fs)
	}
	if f := fs[0]; f["category"] != "bug" || f["summary"] != "Race in worktree cleanup" ||
		f["details"] != "rmSync fails on shared lock files" || f["created_by"] != "agent-bob" {
		t.Errorf("finding = %v", f)
	}
	equal(t, "finding files", strs(t, fs[0], "files"), []string{"server/workspace.ts"})

	ls := list(t, got, "learnings")
	if len(ls) != 1 {
		t.Fatalf("learnings = %v, want one", ls)
	}
	if l := ls[0]; l["pattern"] != pad(60) || l["learning_type"] != "gotcha" || num(t, l["quality_score"]) != 50 ||
		l["verified"] != false || l["created_by"] != "agent-bob" {
		t.Errorf("learning = %v", l)
	}
	equal(t, "learning applies_to", strs(t, ls[0], "applies_to"), []string{"server/"})

	cs := list(t, got, "comments")
	if len(cs) != 1 || cs[0]["content"] != "Found the root cause" || cs[0]["created_by"] != "agent-bob" {
		t.Errorf("comments = %v, want only the bound issue's one comment", cs)
	}
}

func TestGetIssueNamesOtherIssues(t *testing.T) {
	k := testkit.New(t)
	a := issue(k, map[string]any{"title": "A"})
	b := issue(k, map[string]any{"title": "B", "depends_on": []string{a}})
	k.OK("add_finding", map[string]any{"issue_id": b, "category": "gap", "summary": "no tests"})
	w := bound(k, a)

	got := w.OK("get_issue", map[string]any{"issue_id": b})
	if got["id"] != b || got["title"] != "B" {
		t.Errorf("get_issue(%s) = %v/%v", b, got["id"], got["title"])
	}
	equal(t, "depends_on", strs(t, got, "depends_on"), []string{a})
	if n := len(list(t, got, "findings")); n != 1 {
		t.Errorf("findings of %s = %d, want 1", b, n)
	}
	// The bound issue is unchanged by reading another.
	if n := len(list(t, w.OK("get_issue", nil), "findings")); n != 0 {
		t.Errorf("findings of bound %s = %d, want 0", a, n)
	}

	e := fail(w, "get_issue", map[string]any{"issue_id": "COL-99"}, baton.ErrTaskNotFound)
	if e.Details["task_id"] != "COL-99" {
		t.Errorf("details = %v, want task_id COL-99", e.Details)
	}
	invalid(k, "get_issue", nil, "issue_id")
	invalid(k, "get_issue_status", nil, "issue_id")
	invalid(k, "get_issue", map[string]any{"issue_id": ""}, "issue_id")
}

func TestGetIssueStatus(t *testing.T) {
	k := testkit.New(t)
	withClock(k, time.Second)
	id := issueIn(k, "in_progress", map[string]any{"title": "Slim status", "priority": 1,
		"labels": []string{"phase:ready", "size:L"}})
	w := bound(k, id)
	for i := 1; i <= 7; i++ {
		w.OK("add_finding", map[string]any{"category": "test_result", "summary": fmt.Sprintf("finding %d", i),
			"details": "long details get_issue_status leaves out"})
	}
	end := time.Date(2026, 4, 9, 10, 0, 0, 0, time.UTC)
	for i, r := range []baton.Run{
		{Status: "failed", Error: "gate 1 failed", CostUSD: 0.10},
		{Status: "failed", Error: "gate 2 failed", CostUSD: 0.20},
		{Status: "failed", Error: "timeout", CostUSD: 0.30, DurationMS: 1500},
		{Status: "succeeded", CostUSD: 0.40, DurationMS: 2500},
	} {
		r.ItemID, r.EndedAt = id, end.Add(time.Duration(i)*time.Minute)
		run(k, &r)
	}
	// Another issue's run and findings do not show.
	other := issue(k, nil)
	k.OK("add_finding", map[string]any{"issue_id": other, "category": "bug", "summary": "elsewhere"})
	run(k, &baton.Run{ItemID: other, Status: "succeeded", EndedAt: end})

	got := w.OK("get_issue_status", nil)
	equal(t, "fields", keys(got), []string{"id", "identifier", "labels", "priority", "recentFindings", "recentRuns",
		"size", "status", "title", "updatedAt"})
	if got["id"] != id || got["status"] != "in_progress" || got["priority"] != 1.0 || got["size"] != "L" || got["title"] != "Slim status" {
		t.Errorf("status = %v", got)
	}
	equal(t, "labels", strs(t, got, "labels"), []string{"phase:ready", "size:L"})
	equal(t, "recentFindings", strs(t, got, "recentFindings"),
		[]string{"finding 7", "finding 6", "finding 5", "finding 4", "finding 3"})

	runs := list(t, got, "recentRuns")
	if len(runs) != 3 {
		t.Fatalf("recentRuns = %v, want the last 3", runs)
	}
	for i, want := range []struct {
		id, status, err string
		cost            float64
		duration        int
	}{
		{"R-4", "succeeded", "", 0.40, 2500},
		{"R-3", "failed", "timeout", 0.30, 1500},
		{"R-2", "failed", "gate 2 failed", 0.20, 0},
	} {
		r := runs[i]
		errText, _ := r["error"].(string)
		if r["id"] != want.id || r["status"] != want.status || errText != want.err || r["cost"] != want.cost ||
			num(t, r["duration_ms"]) != want.duration || r["agent"] != "agent-alice" {
			t.Errorf("recentRuns[%d] = %v, want %+v", i, r, want)
		}
	}
	if at := parseStamp(t, runs[0]["ended_at"]); !at.Equal(end.Add(3 * time.Minute)) {
		t.Errorf("ended_at = %v", at)
	}

	// With issue_id it reads another issue; an issue without findings or
	// runs has empty lists, not null.
	fresh := issue(k, map[string]any{"labels": []string{"x"}})
	got = w.OK("get_issue_status", map[string]any{"issue_id": fresh})
	equal(t, "recentFindings", strs(t, got, "recentFindings"), nil)
	if n := len(list(t, got, "recentRuns")); n != 0 || got["size"] != "" || got["status"] != "backlog" || got["priority"] != 3.0 {
		t.Errorf("fresh status = %v", got)
	}
	fail(w, "get_issue_status", map[string]any{"issue_id": "COL-99"}, baton.ErrTaskNotFound)
}

// Symphony's priorities 1-4 are Colibri's critical, high, normal, low, and
// a Symphony issue is a Colibri task: both vocabularies read one row.
func TestCrossVocabulary(t *testing.T) {
	names := map[int]string{1: "critical", 2: "high", 3: "normal", 4: "low"}
	t.Run("create_issue read by task_get", func(t *testing.T) {
		k := testkit.New(t)
		for p := 1; p <= 4; p++ {
			id := issue(k, map[string]any{"title": fmt.Sprintf("p%d", p), "priority": p, "labels": []string{"a", "b"},
				"description": "desc"})
			got := taskGet(k, id)
			if got["priority"] != names[p] || got["status"] != "backlog" || got["title"] != fmt.Sprintf("p%d", p) ||
				got["description"] != "desc" || got["project"] != "colibri" || got["created_by"] != "agent-alice" {
				t.Errorf("task_get(%s) = %v, want priority %s status backlog", id, got, names[p])
			}
			equal(t, "labels", strs(t, got, "labels"), []string{"a", "b", "phase:ready"})
		}
		// The default priority is 3, normal.
		if got := taskGet(k, issue(k, nil)); got["priority"] != "normal" {
			t.Errorf("default priority reads as %v, want normal", got["priority"])
		}
	})
	t.Run("task_create read by get_issue", func(t *testing.T) {
		k := testkit.New(t)
		for p := 1; p <= 4; p++ {
			id := k.OK("task_create", map[string]any{"title": "t", "project": "colibri", "priority": names[p],
				"labels": []string{"x"}})["task_id"].(string)
			got := getIssue(k, id)
			if num(t, got["priority"]) != p || got["status"] != "backlog" || got["id"] != id {
				t.Errorf("get_issue(%s) priority/status = %v/%v, want %d/backlog", id, got["priority"], got["status"], p)
			}
			if st := k.OK("get_issue_status", map[string]any{"issue_id": id}); num(t, st["priority"]) != p {
				t.Errorf("get_issue_status(%s) priority = %v, want %d", id, st["priority"], p)
			}
		}
		// The canonical scale's fifth step (backlog) has no Symphony number
		// of its own and reads as 4, low.
		ctx := t.Context()
		it := &baton.Item{Project: "colibri", Title: "backlog priority", Status: baton.StatusBacklog,
			Priority: baton.PriorityBacklog, CreatedBy: "agent-alice"}
		if err := k.Store.Update(ctx, func(tx baton.Tx) error { return tx.CreateItem(ctx, it) }); err != nil {
			t.Fatal(err)
		}
		if got := getIssue(k, it.ID); got["priority"] != 4.0 {
			t.Errorf("canonical backlog priority reads as %v, want 4", got["priority"])
		}
	})
	t.Run("status changes show in both", func(t *testing.T) {
		k := testkit.New(t)
		id := issueIn(k, "in_progress", nil)
		bound(k, id).OK("update_issue_status", map[string]any{"status": "review"})
		if got := taskGet(k, id)["status"]; got != "review" {
			t.Errorf("task_get status = %v, want review", got)
		}
	})
}

// A run still going has not ended: it has no end time to show, rather than
// the year 1.
func TestGetIssueStatusRunningRun(t *testing.T) {
	k := testkit.New(t)
	id := issueIn(k, "in_progress", nil)
	run(k, &baton.Run{ItemID: id, Status: "running"})
	r := list(t, k.OK("get_issue_status", map[string]any{"issue_id": id}), "recentRuns")[0]
	if r["status"] != "running" {
		t.Fatalf("run = %v", r)
	}
	if end, ok := r["ended_at"]; ok && end != "" {
		t.Errorf("ended_at of a running run = %v, want it absent", end)
	}
}

// TestGetIssueShowsFileReservations: get_issue lists the active file
// reservations taken for the issue (by whoever claimed it), oldest first,
// and none of another issue's, nor the ones that ended.
func TestGetIssueShowsFileReservations(t *testing.T) {
	k := testkit.New(t)
	withClock(k, 0)
	id := issueIn(k, "todo", nil)
	other := issueIn(k, "todo", nil)
	if got := list(t, getIssue(k, id), "file_reservations"); len(got) != 0 {
		t.Errorf("file_reservations before any = %v", got)
	}
	w := k.As("agent-bob")
	w.OK("claim_item", map[string]any{"item_id": id})
	w.OK("file_reservation_paths", map[string]any{"paths": []string{"src/**", "go.mod"}, "issue_id": id})
	w.OK("file_reservation_paths", map[string]any{"paths": []string{"docs/*.md"}, "exclusive": false, "issue_id": id})
	w.OK("release_file_reservations", map[string]any{"paths": []string{"go.mod"}})
	k.As("agent-carol").OK("claim_item", map[string]any{"item_id": other})
	k.As("agent-carol").OK("file_reservation_paths", map[string]any{"paths": []string{"web/**"}, "issue_id": other})

	got := list(t, getIssue(k, id), "file_reservations")
	if len(got) != 2 {
		t.Fatalf("file_reservations = %v, want src/** and docs/*.md", got)
	}
	want := []struct {
		pattern   string
		exclusive bool
	}{{"src/**", true}, {"docs/*.md", false}}
	for i, r := range got {
		if r["agent"] != "agent-bob" || r["path_pattern"] != want[i].pattern || r["exclusive"] != want[i].exclusive ||
			num(t, r["file_reservation_id"]) < 1 || !parseStamp(t, r["expires_at"]).Equal(epoch.Add(time.Hour)) {
			t.Errorf("file_reservations[%d] = %v, want bob's %s", i, r, want[i].pattern)
		}
	}
	w.OK("release_claim", map[string]any{"item_id": id})
	if got := list(t, getIssue(k, id), "file_reservations"); len(got) != 0 {
		t.Errorf("after the claim ended: file_reservations = %v", got)
	}
}
