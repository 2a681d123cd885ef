package importers_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/importers"
)

// TestBeadsExport imports a bd export with an epic and its children,
// blocks and other links, labels, comments, closed, tombstoned, message
// and pinned beads and every priority, and checks each item the store
// holds, the report, and the one audit action.
func TestBeadsExport(t *testing.T) {
	eachBackend(t, func(t *testing.T, s baton.Store) {
		rep := apply(t, s, parse(t, importers.Beads, "beads_export.jsonl"), false)
		if !rep.Imported || rep.DryRun || rep.Created != 11 || rep.AlreadyImported != 0 || rep.Dependencies != 2 || rep.Comments != 3 {
			t.Fatalf("report: imported %v, created %d, already %d, deps %d, comments %d", rep.Imported, rep.Created,
				rep.AlreadyImported, rep.Dependencies, rep.Comments)
		}
		if got := total(t, s); got != 11 {
			t.Fatalf("the project holds %d items, want 11", got)
		}
		id := ids(t, rep)

		type want struct {
			kind     baton.Kind
			status   baton.Status
			priority baton.Priority
			parent   string
		}
		for foreign, w := range map[string]want{
			"web-a3f8":   {baton.KindEpic, baton.StatusTodo, 1, ""},
			"web-a3f8.1": {baton.KindTask, baton.StatusDone, 2, "web-a3f8"},
			"web-a3f8.2": {baton.KindFeature, baton.StatusInProgress, 1, "web-a3f8"},
			"web-a3f8.3": {baton.KindChore, baton.StatusTodo, 3, "web-a3f8"},
			"web-b71c":   {baton.KindBug, baton.StatusTodo, 0, ""},
			"web-c02d":   {baton.KindTask, baton.StatusBlocked, 2, ""},
			"web-c02d.1": {baton.KindTask, baton.StatusTodo, 2, "web-c02d"},
			"web-d4e5":   {baton.KindChore, baton.StatusBacklog, 4, ""},
			"web-g2h3":   {baton.KindTask, baton.StatusBlocked, 1, ""},
			"web-h4i5":   {baton.KindTask, baton.StatusBacklog, 3, ""},
			"web-j6k7":   {baton.KindTask, baton.StatusInProgress, 2, ""},
		} {
			it := item(t, s, id[foreign])
			parent := ""
			if w.parent != "" {
				parent = id[w.parent]
			}
			if it.Kind != w.kind || it.Status != w.status || it.Priority != w.priority || it.ParentID != parent || it.Project != project {
				t.Errorf("%s (%s): kind %s, status %s, P%d, parent %q; want %s, %s, P%d, parent %q", foreign, it.ID,
					it.Kind, it.Status, it.Priority, it.ParentID, w.kind, w.status, w.priority, parent)
			}
			if !slices.Contains(it.Labels, "beads:"+foreign) {
				t.Errorf("%s has labels %v, without its provenance label", foreign, it.Labels)
			}
			if !strings.HasPrefix(it.ID, "WEB-") {
				t.Errorf("%s got the id %s, not one of the project's", foreign, it.ID)
			}
		}

		epic := item(t, s, id["web-a3f8"])
		if epic.Assignee != "maria" || epic.CreatedBy != "maria" || !slices.Equal(epic.Labels, []string{"checkout", "frontend", "beads:web-a3f8"}) ||
			!epic.CreatedAt.Equal(ms(t, "2025-11-03T09:12:44.318201-08:00")) || !epic.UpdatedAt.Equal(ms(t, "2025-11-20T16:01:02.5-08:00")) {
			t.Errorf("epic: assignee %q, created by %q, labels %v, created %v, updated %v", epic.Assignee, epic.CreatedBy,
				epic.Labels, epic.CreatedAt, epic.UpdatedAt)
		}
		if !strings.HasPrefix(epic.Description, "Replace the three-step checkout with a single page.\n\n## Design\n\nOne React page") ||
			!strings.Contains(epic.Description, "## Acceptance criteria\n\n- Checkout completes in one page") {
			t.Errorf("epic description:\n%s", epic.Description)
		}
		closed := item(t, s, id["web-a3f8.1"])
		if closed.CloseReason != "Merged in #412" || closed.Progress != 100 || closed.CreatedBy != by {
			t.Errorf("closed bead: close reason %q, progress %d, created by %q", closed.CloseReason, closed.Progress, closed.CreatedBy)
		}
		route := item(t, s, id["web-a3f8.2"])
		if !slices.Contains(route.Labels, "beads-phase:2") || slices.Contains(route.Labels, "phase:2") || route.Phase() != baton.PhaseReady {
			t.Errorf("a phase:2 label of beads must not put the item in a pipeline phase: labels %v, phase %s", route.Labels, route.Phase())
		}
		if !strings.Contains(route.Description, "## Notes\n\nKeep the old route behind a flag") {
			t.Errorf("notes are not in the description:\n%s", route.Description)
		}
		// A task with an open child is blocked by it, as create_subtask
		// leaves a parent; the epic is not.
		parent := item(t, s, id["web-c02d"])
		if parent.ResumeStatus != baton.StatusTodo || parent.BlockedReason != "waiting on sub-tasks: ["+id["web-c02d.1"]+"]" {
			t.Errorf("parent with an open sub-task: resume %q, reason %q", parent.ResumeStatus, parent.BlockedReason)
		}
		if blocked := item(t, s, id["web-g2h3"]); blocked.BlockedReason != "blocked in beads" || blocked.ResumeStatus != "" {
			t.Errorf("blocked bead: reason %q, resume %q", blocked.BlockedReason, blocked.ResumeStatus)
		}
		if pinned := item(t, s, id["web-h4i5"]); !slices.Contains(pinned.Labels, "pinned") {
			t.Errorf("pinned bead labels %v", pinned.Labels)
		}
		hooked := item(t, s, id["web-j6k7"])
		if hooked.Assignee != "ops-agent" || hooked.EstimateHours == nil || *hooked.EstimateHours != 1.5 {
			t.Errorf("hooked bead: assignee %q, estimate %v", hooked.Assignee, hooked.EstimateHours)
		}
		deferred := item(t, s, id["web-d4e5"])
		if !strings.Contains(deferred.Description, "## Links\n\n- related web-b71c") ||
			!strings.Contains(deferred.Description, "External reference: gh-88") || !strings.Contains(deferred.Description, "Deferred until: 2026-03-01") {
			t.Errorf("deferred bead description:\n%s", deferred.Description)
		}

		// Dependencies: blocks only; links and unknown targets are not.
		for foreign, want := range map[string][]string{
			"web-a3f8.2": {id["web-a3f8.1"]},
			"web-a3f8.3": {id["web-a3f8.2"]},
			"web-b71c":   {},
			"web-d4e5":   {},
			"web-g2h3":   {},
			"web-a3f8.1": {},
		} {
			if got := deps(t, s, id[foreign]); !slices.Equal(got, want) {
				t.Errorf("%s depends on %v, want %v", foreign, got, want)
			}
		}
		// A blocked item is not ready until its blocker is done.
		r := readiness(t, s, id["web-a3f8.3"])
		if r.Ready() || !slices.Equal(r.WaitingOn, []string{id["web-a3f8.2"]}) {
			t.Fatalf("load test: ready %v, waiting on %v", r.Ready(), r.WaitingOn)
		}
		finish(t, s, id["web-a3f8.2"])
		if r := readiness(t, s, id["web-a3f8.3"]); !r.Ready() {
			t.Errorf("load test is not ready once the route is done: waiting on %v, subtasks %v", r.WaitingOn, r.OpenSubtasks)
		}

		cs := comments(t, s, id["web-a3f8.2"])
		if len(cs) != 2 || cs[0].CreatedBy != "maria" || cs[0].Body != "Please reuse the address component." ||
			!cs[0].CreatedAt.Equal(ms(t, "2025-11-06T10:00:00-08:00")) || cs[1].CreatedBy != "dev-agent-2" {
			t.Errorf("comments of the route: %+v", cs)
		}
		if cs := comments(t, s, id["web-a3f8.1"]); len(cs) != 1 || cs[0].CreatedBy != "dev-agent-1" {
			t.Errorf("comments of the closed bead: %+v", cs)
		}

		// The report says what was left out and why.
		for _, c := range []struct{ kind, foreign, target, reason string }{
			{importers.SkipItem, "web-e6f7", "", "tombstone"},
			{importers.SkipItem, "web-f001", "", "message"},
			{importers.SkipDependency, "web-b71c", "web-9999", "not in the file"},
			{importers.SkipDependency, "web-g2h3", "web-e6f7", "was not imported (a tombstone"},
			{importers.SkipDependency, "web-b71c", "web-a3f8.2", "discovered-from link holds nothing back"},
			{importers.SkipLabel, "web-a3f8.2", "phase:2", "imported as beads-phase:2"},
		} {
			if !hasSkip(rep, c.kind, c.foreign, c.target, func(r string) bool { return strings.Contains(r, c.reason) }) {
				t.Errorf("no %s skip of %s %s saying %q in %+v", c.kind, c.foreign, c.target, c.reason, rep.Skipped)
			}
		}
		e := entry(t, rep, "web-a3f8")
		if e.Status != (importers.Mapped{From: "open", To: "todo"}) || e.Kind != (importers.Mapped{From: "epic", To: "epic"}) ||
			e.Action != importers.ActionCreated || e.ID != id["web-a3f8"] || e.Where != "line 1" {
			t.Errorf("report entry of the epic: %+v", e)
		}
		if e := entry(t, rep, "web-c02d"); e.Status != (importers.Mapped{From: "open", To: "blocked"}) ||
			!slices.ContainsFunc(e.Notes, func(n string) bool { return strings.Contains(n, "blocked by its sub-tasks") }) {
			t.Errorf("the report does not say the parent was blocked by its sub-tasks: %+v", e)
		}
		if !slices.Contains(rep.Mappings, importers.Mapping{Field: "status", From: "open", To: "todo", Count: 5}) ||
			!slices.Contains(rep.Mappings, importers.Mapping{Field: "status", From: "hooked", To: "in_progress", Count: 1}) ||
			!slices.Contains(rep.Mappings, importers.Mapping{Field: "priority", From: "4", To: "4", Count: 1}) {
			t.Errorf("mappings: %+v", rep.Mappings)
		}

		// One action in the audit log for the whole import, and its event.
		acts := actions(t, s)
		if len(acts) != 1 || acts[0].Tool != importers.AuditTool || acts[0].Agent != by || acts[0].Subject != "" || acts[0].Source != "cli" {
			t.Fatalf("actions: %+v", acts)
		}
		evs := view(t, s, func(ctx context.Context, tx baton.Tx) ([]*baton.Event, error) { return tx.Events(ctx, project, 0, 100) })
		if len(evs) != 1 || evs[0].Type != importers.AuditEvent || !strings.Contains(string(evs[0].Data), `"created":11`) {
			t.Errorf("events: %+v", evs)
		}
	})
}

// TestBeadsLegacy reads an old .beads/issues.jsonl: content_hash and
// source_repo fields, no comments, a missing priority and a dependency
// without a type, a blank line, a child before its parent.
func TestBeadsLegacy(t *testing.T) {
	eachBackend(t, func(t *testing.T, s baton.Store) {
		p := parse(t, importers.Beads, "beads_legacy_issues.jsonl")
		if len(p.Items) != 4 || len(p.Comments) != 0 {
			t.Fatalf("plan: %d items, %d comments", len(p.Items), len(p.Comments))
		}
		rep := apply(t, s, p, false)
		id := ids(t, rep)
		child, epic := item(t, s, id["bd-0088"]), item(t, s, id["bd-44d0"])
		if child.ParentID != epic.ID || epic.Kind != baton.KindEpic || child.Status != baton.StatusDone || epic.Status != baton.StatusTodo {
			t.Errorf("child %+v, epic %+v", child, epic)
		}
		// The parent on the later line is created first.
		if epic.Sequence >= child.Sequence {
			t.Errorf("epic sequence %d, child %d: the parent must exist before its child", epic.Sequence, child.Sequence)
		}
		bug := item(t, s, id["bd-0134"])
		if bug.Priority != baton.PriorityCritical || bug.Status != baton.StatusInProgress || bug.Kind != baton.KindBug ||
			!strings.Contains(bug.Description, "## Notes\n\nFixed by using the normal import path.") {
			t.Errorf("bug: %+v", bug)
		}
		if e := entry(t, rep, "bd-0134"); e.Priority != (importers.Mapped{From: "missing", To: "0"}) || e.Where != "line 4" {
			t.Errorf("report of the bug: %+v", e)
		}
		if got := deps(t, s, id["bd-0134"]); !slices.Equal(got, []string{id["bd-0088"]}) {
			t.Errorf("an untyped dependency is a blocks one: bd-0134 depends on %v", got)
		}
		if got := deps(t, s, id["bd-07af"]); !slices.Equal(got, []string{id["bd-0134"]}) {
			t.Errorf("bd-07af depends on %v", got)
		}
		if r := readiness(t, s, id["bd-07af"]); r.Ready() || r.DependenciesUnmet != 1 {
			t.Errorf("bd-07af waits for an unfinished bug: ready %v, unmet %d", r.Ready(), r.DependenciesUnmet)
		}
	})
}

// TestReimportIsIdempotent: importing the same file again creates
// nothing and reports every item as already imported; a file with one
// more issue adds just that one, wired to the items already there.
func TestReimportIsIdempotent(t *testing.T) {
	eachBackend(t, func(t *testing.T, s baton.Store) {
		p := parse(t, importers.Beads, "beads_export.jsonl")
		first := apply(t, s, p, false)
		before, acts := total(t, s), len(actions(t, s))
		again := apply(t, s, parse(t, importers.Beads, "beads_export.jsonl"), false)
		if again.Created != 0 || again.AlreadyImported != 11 || again.Dependencies != 0 || again.Comments != 0 {
			t.Fatalf("re-import: created %d, already %d, deps %d, comments %d", again.Created, again.AlreadyImported, again.Dependencies, again.Comments)
		}
		for _, it := range again.Items {
			if it.Action != importers.ActionAlreadyImported {
				t.Errorf("%s: action %q on re-import", it.ForeignID, it.Action)
			}
		}
		if got, want := ids(t, again), ids(t, first); len(got) != len(want) || !sameMap(got, want) {
			t.Errorf("re-import ids %v, first %v", got, want)
		}
		if total(t, s) != before || len(actions(t, s)) != acts {
			t.Errorf("re-import wrote: %d items (was %d), %d actions (was %d)", total(t, s), before, len(actions(t, s)), acts)
		}
		if cs := comments(t, s, first.Items[2].ID); len(cs) != 2 {
			t.Errorf("re-import added comments: %d", len(cs))
		}
	})
	eachBackend(t, func(t *testing.T, s baton.Store) {
		full := parse(t, importers.Beads, "beads_legacy_issues.jsonl")
		lines, err := readLines("testdata/beads_legacy_issues.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		part, err := importers.Beads(strings.NewReader(strings.Join(lines[:len(lines)-1], "\n")))
		if err != nil {
			t.Fatal(err)
		}
		first := apply(t, s, part, false)
		if first.Created != 3 {
			t.Fatalf("first part: %d created", first.Created)
		}
		rep := apply(t, s, full, false)
		if rep.Created != 1 || rep.AlreadyImported != 3 || rep.Dependencies != 1 {
			t.Fatalf("second import: created %d, already %d, deps %d", rep.Created, rep.AlreadyImported, rep.Dependencies)
		}
		id := ids(t, rep)
		if got := deps(t, s, id["bd-07af"]); !slices.Equal(got, []string{ids(t, first)["bd-0134"]}) {
			t.Errorf("the new issue depends on %v", got)
		}
		if len(actions(t, s)) != 2 {
			t.Errorf("%d actions for two imports that wrote", len(actions(t, s)))
		}
	})
}

// TestDryRunWritesNothing: a dry run's report is the real import's, baton
// ids included, and the store is as it was: no items, no action, the
// project's sequence untouched.
func TestDryRunWritesNothing(t *testing.T) {
	eachBackend(t, func(t *testing.T, s baton.Store) {
		p := parse(t, importers.Beads, "beads_export.jsonl")
		dry := apply(t, s, p, true)
		if !dry.DryRun || dry.Imported || dry.Created != 11 || dry.Dependencies != 2 || dry.Comments != 3 {
			t.Fatalf("dry run report: %+v", dry)
		}
		if n := total(t, s); n != 0 {
			t.Fatalf("a dry run left %d items", n)
		}
		if a := actions(t, s); len(a) != 0 {
			t.Fatalf("a dry run left %d actions", len(a))
		}
		real := apply(t, s, p, false)
		if !sameMap(ids(t, dry), ids(t, real)) || dry.Created != real.Created || len(dry.Skipped) != len(real.Skipped) {
			t.Errorf("dry run ids %v, real %v", ids(t, dry), ids(t, real))
		}
		if !strings.Contains(dry.Text(), "would create 11 items") || !strings.Contains(real.Text(), "created 11 items") ||
			!strings.Contains(real.Text(), "web-a3f8 -> "+real.Items[0].ID) {
			t.Errorf("report texts:\n%s\n%s", dry.Text(), real.Text())
		}
		// The plan is not changed by applying it.
		if p.Report.Imported || p.Report.Items[0].ID != "" {
			t.Errorf("Apply changed the plan's report: %+v", p.Report.Items[0])
		}
	})
}

// TestApplyRollsBack: a failure part-way through writes nothing.
func TestApplyRollsBack(t *testing.T) {
	eachBackend(t, func(t *testing.T, s baton.Store) {
		p := parse(t, importers.Beads, "beads_export.jsonl")
		// The store refuses an item in two pipeline phases: the last item.
		last := p.Items[len(p.Items)-1]
		last.Labels = append(last.Labels, "phase:research", "phase:ready")
		_, err := importers.Apply(context.Background(), s, project, p, importers.ApplyOptions{By: by})
		if baton.ErrorCode(err) != baton.ErrInvalidInput || !strings.Contains(err.Error(), "web-j6k7") {
			t.Fatalf("apply: %v", err)
		}
		if n, a := total(t, s), len(actions(t, s)); n != 0 || a != 0 {
			t.Errorf("a failed import left %d items and %d actions", n, a)
		}
		_, err = importers.Apply(context.Background(), s, "nope", parse(t, importers.Beads, "beads_export.jsonl"), importers.ApplyOptions{})
		if baton.ErrorCode(err) != baton.ErrProjectNotFound {
			t.Errorf("unknown project: %v", err)
		}
	})
}

func sameMap(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
