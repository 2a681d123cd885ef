package importers_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/importers"
)

// TestTaskmasterFlat imports the older {"tasks": [...]} form: numeric
// ids, subtasks depending on siblings by number, a task depending on a
// subtask as "2.3", an unknown dependency, every status.
func TestTaskmasterFlat(t *testing.T) {
	eachBackend(t, func(t *testing.T, s baton.Store) {
		rep := apply(t, s, parse(t, importers.Taskmaster, "taskmaster_flat.json"), false)
		if rep.Created != 11 || rep.Comments != 0 {
			t.Fatalf("created %d, comments %d", rep.Created, rep.Comments)
		}
		id := ids(t, rep)
		type want struct {
			status   baton.Status
			priority baton.Priority
			parent   string
			deps     []string
		}
		for foreign, w := range map[string]want{
			"1":   {baton.StatusDone, 1, "", nil},
			"1.1": {baton.StatusDone, 1, "1", nil},
			"1.2": {baton.StatusDone, 1, "1", []string{"1.1"}},
			"2":   {baton.StatusBlocked, 1, "", []string{"1"}},
			"2.1": {baton.StatusInProgress, 1, "2", nil},
			"2.2": {baton.StatusTodo, 1, "2", []string{"2.1"}},
			"2.3": {baton.StatusTodo, 1, "2", []string{"2.1", "2.2"}},
			"3":   {baton.StatusTodo, 2, "", []string{"2.3"}},
			"4":   {baton.StatusBacklog, 3, "", []string{"2"}},
			"5":   {baton.StatusCancelled, 2, "", nil},
			"6":   {baton.StatusReview, 2, "", []string{"1"}},
		} {
			it := item(t, s, id[foreign])
			parent := ""
			if w.parent != "" {
				parent = id[w.parent]
			}
			wantDeps := []string{}
			for _, d := range w.deps {
				wantDeps = append(wantDeps, id[d])
			}
			slices.Sort(wantDeps)
			if it.Status != w.status || it.Priority != w.priority || it.ParentID != parent || it.Kind != baton.KindTask {
				t.Errorf("%s: status %s, P%d, parent %q, kind %s; want %s, P%d, parent %q", foreign, it.Status, it.Priority,
					it.ParentID, it.Kind, w.status, w.priority, parent)
			}
			if got := deps(t, s, it.ID); !slices.Equal(got, wantDeps) {
				t.Errorf("%s depends on %v, want %v", foreign, got, wantDeps)
			}
			if !slices.Equal(it.Labels, []string{"taskmaster:" + foreign}) {
				t.Errorf("%s labels %v", foreign, it.Labels)
			}
		}
		auth := item(t, s, id["2"])
		if auth.ResumeStatus != baton.StatusTodo || !strings.HasPrefix(auth.BlockedReason, "waiting on sub-tasks: [") ||
			!strings.Contains(auth.Description, "## Details\n\nbcrypt for hashes") ||
			!strings.Contains(auth.Description, "## Test strategy\n\nIntegration tests") {
			t.Errorf("task 2: resume %q, reason %q, description:\n%s", auth.ResumeStatus, auth.BlockedReason, auth.Description)
		}
		if done := item(t, s, id["1"]); done.Progress != 100 || done.ResumeStatus != "" {
			t.Errorf("a finished task is not blocked by its finished subtasks: %+v", done)
		}
		if !hasSkip(rep, importers.SkipDependency, "4", "9", func(r string) bool { return strings.Contains(r, "task 9 is not in the file") }) {
			t.Errorf("unknown dependency not reported: %+v", rep.Skipped)
		}
		if e := entry(t, rep, "6"); e.Priority != (importers.Mapped{From: "missing", To: "2"}) || e.Status != (importers.Mapped{From: "review", To: "review"}) {
			t.Errorf("report of task 6: %+v", e)
		}
		if e := entry(t, rep, "2.1"); e.Priority.From != "missing (the task's)" || e.Kind.From != "subtask" || e.Where != "tasks[1].subtasks[0]" {
			t.Errorf("report of subtask 2.1: %+v", e)
		}

		// Rate limiting waits for the login subtask.
		if r := readiness(t, s, id["3"]); r.Ready() || !slices.Equal(r.WaitingOn, []string{id["2.3"]}) {
			t.Fatalf("task 3: ready %v, waiting on %v", r.Ready(), r.WaitingOn)
		}
		// As with create_subtask, the parent returns to todo when its last
		// subtask is done.
		for _, sub := range []string{"2.1", "2.2", "2.3"} {
			finish(t, s, id[sub])
		}
		if it := item(t, s, id["2"]); it.Status != baton.StatusTodo || it.ResumeStatus != "" {
			t.Errorf("task 2 after its subtasks: %s, resume %q", it.Status, it.ResumeStatus)
		}
		if r := readiness(t, s, id["3"]); !r.Ready() {
			t.Errorf("task 3 is not ready once 2.3 is done: %+v", r)
		}
	})
}

// TestTaskmasterTagged imports the tagged form: string ids (tm-core) in
// master, numeric ones in another tag, per-tag provenance labels, a
// dependency in one tag resolved in that tag.
func TestTaskmasterTagged(t *testing.T) {
	eachBackend(t, func(t *testing.T, s baton.Store) {
		rep := apply(t, s, parse(t, importers.Taskmaster, "taskmaster_tagged.json"), false)
		if rep.Created != 8 {
			t.Fatalf("created %d", rep.Created)
		}
		id := ids(t, rep)
		for _, f := range []string{"1", "2", "2.1", "2.2", "3", "feature-payments/1", "feature-payments/1.1", "feature-payments/2"} {
			if id[f] == "" {
				t.Fatalf("no item for %s: %v", f, id)
			}
		}
		scaffold := item(t, s, id["1"])
		if scaffold.Priority != baton.PriorityCritical || !scaffold.CreatedAt.Equal(ms(t, "2025-09-01T10:00:00.000Z")) ||
			!scaffold.UpdatedAt.Equal(ms(t, "2025-09-02T18:30:00.000Z")) ||
			!slices.Equal(scaffold.Labels, []string{"taskmaster-tag:master", "taskmaster:1"}) {
			t.Errorf("task 1: P%d, created %v, updated %v, labels %v", scaffold.Priority, scaffold.CreatedAt, scaffold.UpdatedAt, scaffold.Labels)
		}
		if search := item(t, s, id["2"]); !slices.Equal(search.Labels, []string{"search", "taskmaster-tag:master", "taskmaster:2"}) ||
			search.Status != baton.StatusBlocked {
			t.Errorf("task 2: %s, labels %v", search.Status, search.Labels)
		}
		if got := deps(t, s, id["3"]); !slices.Equal(got, []string{id["2.2"]}) {
			t.Errorf("master 3 depends on %v", got)
		}
		stripe := item(t, s, id["feature-payments/1"])
		if stripe.Status != baton.StatusInProgress || stripe.ResumeStatus != "" ||
			!slices.Contains(stripe.Labels, "taskmaster:feature-payments/1") || !slices.Contains(stripe.Labels, "taskmaster-tag:feature-payments") ||
			!strings.Contains(stripe.Description, "## Acceptance criteria\n\n- A test payment succeeds\n- Webhooks are verified") {
			t.Errorf("stripe (its only subtask is done, so it is not held): %+v", stripe)
		}
		refunds := item(t, s, id["feature-payments/2"])
		want := []string{id["feature-payments/1"], id["feature-payments/1.1"]}
		slices.Sort(want)
		if got := deps(t, s, refunds.ID); !slices.Equal(got, want) || refunds.BlockedReason != "blocked in Taskmaster" {
			t.Errorf("refunds depends on %v (want %v, the feature tag's task 1, not master's), reason %q", got, want, refunds.BlockedReason)
		}
		if e := entry(t, rep, "feature-payments/2"); e.Where != "feature-payments.tasks[1]" {
			t.Errorf("where: %q", e.Where)
		}
	})
}

// TestDependencyCycleSkipped: a dependency that would close a cycle is
// left out and reported; the rest is imported.
func TestDependencyCycleSkipped(t *testing.T) {
	const file = `{"tasks": [
		{"id": 1, "title": "A", "status": "pending", "dependencies": [2]},
		{"id": 2, "title": "B", "status": "pending", "dependencies": [1]},
		{"id": 3, "title": "C", "status": "pending", "dependencies": [3]}]}`
	eachBackend(t, func(t *testing.T, s baton.Store) {
		p, err := importers.Taskmaster(strings.NewReader(file))
		if err != nil {
			t.Fatal(err)
		}
		rep := apply(t, s, p, false)
		if rep.Created != 3 || rep.Dependencies != 1 {
			t.Fatalf("created %d, deps %d", rep.Created, rep.Dependencies)
		}
		if !hasSkip(rep, importers.SkipDependency, "2", "1", func(r string) bool { return strings.Contains(r, "cycle") }) {
			t.Errorf("the cycle is not reported: %+v", rep.Skipped)
		}
		if !hasSkip(rep, importers.SkipDependency, "3", "3", func(r string) bool { return strings.Contains(r, "itself") }) {
			t.Errorf("the self-dependency is not reported: %+v", rep.Skipped)
		}
		id := ids(t, rep)
		if got := deps(t, s, id["1"]); !slices.Equal(got, []string{id["2"]}) {
			t.Errorf("1 depends on %v", got)
		}
	})
}

// TestLongText: a title over 256 characters is clipped with the full
// title in the description; a description over 8000 characters continues
// in comments, losing nothing; a long comment is split; labels beyond 20
// or over 64 characters are left out and reported.
func TestLongText(t *testing.T) {
	longTitle := strings.Repeat("Very long title ", 20)
	var desc strings.Builder
	for i := 0; desc.Len() < 19000; i++ {
		desc.WriteString("Paragraph " + strings.Repeat("x", i%50) + " of the specification.\n")
	}
	comment := strings.Repeat("A long review comment. ", 2000) // 46000 characters
	labels := []string{strings.Repeat("l", 65)}
	for i := 0; i < 24; i++ {
		labels = append(labels, "label-"+string(rune('a'+i)))
	}
	line := jsonLine(t, map[string]any{"id": "big-1", "title": longTitle, "description": desc.String(), "status": "open", "priority": 2,
		"issue_type": "task", "labels": labels, "comments": []map[string]any{{"id": 1, "author": "bob", "text": comment, "created_at": "2025-01-01T00:00:00Z"}}})
	p, err := importers.Beads(strings.NewReader(line))
	if err != nil {
		t.Fatal(err)
	}
	eachBackend(t, func(t *testing.T, s baton.Store) {
		rep := apply(t, s, p, false)
		it := item(t, s, rep.Items[0].ID)
		if n := len([]rune(it.Title)); n != importers.MaxTitle || !strings.HasSuffix(it.Title, "…") {
			t.Errorf("title of %d characters: %q", n, it.Title)
		}
		if n := len([]rune(it.Description)); n > importers.MaxDescription || !strings.HasPrefix(it.Description, "Full title: "+strings.TrimSpace(longTitle)) {
			t.Errorf("description of %d characters starts %q", n, it.Description[:80])
		}
		cs := comments(t, s, it.ID)
		var cont []string
		var review int
		for _, c := range cs {
			if len([]rune(c.Body)) > importers.MaxComment {
				t.Errorf("a comment of %d characters", len([]rune(c.Body)))
			}
			if strings.HasPrefix(c.Body, "Imported description, continued") {
				_, body, _ := strings.Cut(c.Body, ":\n\n")
				cont = append(cont, body)
			} else if c.CreatedBy == "bob" {
				review++
			}
		}
		if len(cont) == 0 || review != 3 {
			t.Fatalf("%d continuation comments, %d parts of the review comment", len(cont), review)
		}
		// Nothing of the description is lost: head and continuations hold
		// every line of it, in order.
		head := strings.TrimSuffix(it.Description, "\n\n[continued in the comments: the imported text is longer than 8000 characters]")
		got := strings.Join(append([]string{head}, cont...), "\n")
		want := "Full title: " + strings.TrimSpace(longTitle) + "\n\n" + strings.TrimSpace(desc.String())
		if strings.Join(strings.Fields(got), " ") != strings.Join(strings.Fields(want), " ") {
			t.Errorf("the description and its continuations do not hold the imported text")
		}
		if len(it.Labels) != importers.MaxLabels || it.Labels[len(it.Labels)-1] != "beads:big-1" || slices.Contains(it.Labels, labels[0]) {
			t.Errorf("%d labels: %v", len(it.Labels), it.Labels)
		}
		n := 0
		for _, sk := range rep.Skipped {
			if sk.Kind == importers.SkipLabel {
				n++
			}
		}
		if n != 6 { // the long one, and 5 beyond the 19 room leaves
			t.Errorf("%d labels reported skipped: %+v", n, rep.Skipped)
		}
	})
}

func TestParse(t *testing.T) {
	if _, err := importers.Parse("jira", strings.NewReader("")); baton.ErrorCode(err) != baton.ErrInvalidInput {
		t.Errorf("unknown source: %v", err)
	}
	p, err := importers.Parse(importers.SourceTaskmaster, strings.NewReader(`{"tasks": [{"id": 1, "title": "T"}]}`))
	if err != nil || p.Source != importers.SourceTaskmaster || len(p.Items) != 1 {
		t.Errorf("taskmaster through Parse: %v, %+v", err, p)
	}
	p, err = importers.Parse(importers.SourceBeads, strings.NewReader(`{"id": "x-1", "title": "T"}`))
	if err != nil || p.Source != importers.SourceBeads || len(p.Items) != 1 || p.Items[0].Status != baton.StatusTodo {
		t.Errorf("beads through Parse: %v, %+v", err, p)
	}
	// A hand-made plan that breaks the rules is refused before anything
	// is written.
	p.Items[0].Parent = "nowhere"
	if _, err := importers.Apply(context.Background(), nil, project, p, importers.ApplyOptions{}); baton.ErrorCode(err) != baton.ErrInvalidInput {
		t.Errorf("bad plan: %v", err)
	}
}
