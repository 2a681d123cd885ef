package sqlite_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/sqlite"
)

// recNow is the fixed clock of the record tests, whole milliseconds so it
// survives the store's Unix-ms timestamps unchanged.
var recNow = time.Date(2025, 3, 4, 5, 6, 7, 8_000_000, time.UTC)

// recStore is a store with projects alpha (AL), beta (BE) and gamma (GA).
type recStore struct {
	t   *testing.T
	s   *sqlite.Store
	ctx context.Context
}

func newRecStore(t *testing.T) *recStore {
	t.Helper()
	path := filepath.Join(t.TempDir(), "baton.db")
	s, err := sqlite.Open(context.Background(), path, sqlite.Options{Clock: func() time.Time { return recNow }})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	r := &recStore{t: t, s: s, ctx: context.Background()}
	r.update(func(tx baton.Tx) error {
		for _, p := range []baton.Project{{Slug: "alpha", Prefix: "AL"}, {Slug: "beta", Prefix: "BE"}, {Slug: "gamma", Prefix: "GA"}} {
			if err := tx.CreateProject(r.ctx, &p); err != nil {
				return err
			}
		}
		return nil
	})
	return r
}

func (r *recStore) update(fn func(baton.Tx) error) {
	r.t.Helper()
	if err := r.s.Update(r.ctx, fn); err != nil {
		r.t.Fatalf("Update: %v", err)
	}
}

func (r *recStore) view(fn func(baton.Tx) error) {
	r.t.Helper()
	if err := r.s.View(r.ctx, fn); err != nil {
		r.t.Fatalf("View: %v", err)
	}
}

// tryUpdate runs fn in a write transaction and returns its error.
func (r *recStore) tryUpdate(fn func(baton.Tx) error) error { return r.s.Update(r.ctx, fn) }

// item creates a todo item in project and returns its id.
func (r *recStore) item(project, title string) string {
	r.t.Helper()
	it := &baton.Item{Project: project, Title: title, Status: baton.StatusTodo, CreatedBy: "tester"}
	r.update(func(tx baton.Tx) error { return tx.CreateItem(r.ctx, it) })
	return it.ID
}

// wantErr requires err to be a *baton.Error with code.
func wantErr(t *testing.T, err error, code string) *baton.Error {
	t.Helper()
	var e *baton.Error
	if !errors.As(err, &e) {
		t.Fatalf("error = %v, want a *baton.Error with code %s", err, code)
	}
	if e.Code != code {
		t.Fatalf("error code = %s (%v), want %s", e.Code, e, code)
	}
	return e
}

func findingIDs(fs []*baton.Finding) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, f.ID)
	}
	return out
}

func TestFindings(t *testing.T) {
	r := newRecStore(t)
	a, b := r.item("alpha", "a"), r.item("alpha", "b")
	explicit := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var added []*baton.Finding
	r.update(func(tx baton.Tx) error {
		for i, item := range []string{a, a, b, a} {
			f := &baton.Finding{ItemID: item, Category: "bug", Summary: fmt.Sprintf("s%d", i), CreatedBy: "w"}
			if i == 1 {
				f.Files, f.Details, f.CreatedAt = []string{"x.go", "y/z.go"}, "long details", explicit
			}
			if err := tx.AddFinding(r.ctx, f); err != nil {
				return err
			}
			added = append(added, f)
		}
		return nil
	})
	if got := findingIDs(added); !slices.Equal(got, []string{"F-1", "F-2", "F-3", "F-4"}) {
		t.Fatalf("assigned ids = %v, want F-1..F-4", got)
	}
	if added[0].Files == nil || !added[0].CreatedAt.Equal(recNow) {
		t.Errorf("defaults: files %v, created %v; want [] and %v", added[0].Files, added[0].CreatedAt, recNow)
	}
	r.view(func(tx baton.Tx) error {
		all, err := tx.Findings(r.ctx, a, 0)
		if err != nil {
			return err
		}
		if got := findingIDs(all); !slices.Equal(got, []string{"F-1", "F-2", "F-4"}) {
			t.Errorf("Findings(all) = %v, want oldest first [F-1 F-2 F-4]", got)
		}
		if f := all[0]; f.Files == nil || len(f.Files) != 0 || !f.CreatedAt.Equal(recNow) || f.Category != "bug" || f.CreatedBy != "w" {
			t.Errorf("F-1 read back as %+v", f)
		}
		if f := all[1]; !slices.Equal(f.Files, []string{"x.go", "y/z.go"}) || f.Details != "long details" || !f.CreatedAt.Equal(explicit) || f.ItemID != a {
			t.Errorf("F-2 read back as %+v", f)
		}
		for limit, want := range map[int][]string{1: {"F-4"}, 2: {"F-4", "F-2"}, 10: {"F-4", "F-2", "F-1"}, -1: {"F-1", "F-2", "F-4"}} {
			got, err := tx.Findings(r.ctx, a, limit)
			if err != nil {
				return err
			}
			if !slices.Equal(findingIDs(got), want) {
				t.Errorf("Findings(limit %d) = %v, want %v", limit, findingIDs(got), want)
			}
		}
		none, err := tx.Findings(r.ctx, "AL-999", 0)
		if err != nil || none == nil || len(none) != 0 {
			t.Errorf("Findings(unknown) = %v, %v; want an empty slice", none, err)
		}
		return nil
	})
	err := r.tryUpdate(func(tx baton.Tx) error {
		return tx.AddFinding(r.ctx, &baton.Finding{ItemID: "AL-999", Category: "bug", Summary: "s"})
	})
	wantErr(t, err, baton.ErrTaskNotFound)
}

func TestComments(t *testing.T) {
	r := newRecStore(t)
	a, b := r.item("alpha", "a"), r.item("beta", "b")
	var ids []string
	r.update(func(tx baton.Tx) error {
		for i, item := range []string{a, b, a} {
			c := &baton.Comment{ItemID: item, Body: fmt.Sprintf("body %d", i), CreatedBy: "w"}
			if err := tx.AddComment(r.ctx, c); err != nil {
				return err
			}
			ids = append(ids, c.ID)
			if !c.CreatedAt.Equal(recNow) {
				t.Errorf("CreatedAt = %v, want the clock's %v", c.CreatedAt, recNow)
			}
		}
		return nil
	})
	if !slices.Equal(ids, []string{"C-1", "C-2", "C-3"}) {
		t.Fatalf("ids = %v, want C-1..C-3", ids)
	}
	r.view(func(tx baton.Tx) error {
		cs, err := tx.Comments(r.ctx, a)
		if err != nil {
			return err
		}
		if len(cs) != 2 || cs[0].ID != "C-1" || cs[1].ID != "C-3" || cs[1].Body != "body 2" || cs[0].ItemID != a || cs[0].CreatedBy != "w" {
			t.Errorf("Comments(a) = %+v %+v, want C-1 then C-3", cs[0], cs[len(cs)-1])
		}
		none, err := tx.Comments(r.ctx, "AL-999")
		if err != nil || none == nil || len(none) != 0 {
			t.Errorf("Comments(unknown) = %v, %v; want an empty slice", none, err)
		}
		return nil
	})
	err := r.tryUpdate(func(tx baton.Tx) error {
		return tx.AddComment(r.ctx, &baton.Comment{ItemID: "AL-999", Body: "x"})
	})
	wantErr(t, err, baton.ErrTaskNotFound)
}

func event(typ, sub string, data string) baton.RunEvent {
	return baton.RunEvent{Type: typ, Subtype: sub, Data: json.RawMessage(data)}
}

func runIDs(rs []*baton.Run) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

func TestRuns(t *testing.T) {
	r := newRecStore(t)
	a, b := r.item("alpha", "a"), r.item("alpha", "b")
	started := time.Date(2025, 1, 1, 10, 0, 0, 0, time.UTC)
	first := &baton.Run{ItemID: a, Agent: "worker", Status: "succeeded", CostUSD: 0.25, DurationMS: 1500, NumTurns: 3,
		Model: "m1", StartedAt: started, EndedAt: started.Add(time.Minute), Error: ""}
	events := []baton.RunEvent{event("system", "init", `{"a":1}`), event("assistant", "text", `{"t":"hi"}`), {Type: "result", Subtype: "success"}}
	r.update(func(tx baton.Tx) error { return tx.CreateRun(r.ctx, first, events) })
	if first.ID != "R-1" || first.EventCount != 3 {
		t.Fatalf("run = %s with %d events, want R-1 with 3", first.ID, first.EventCount)
	}
	for i, e := range events {
		if e.Seq != i+1 || e.RunID != "R-1" || !e.CreatedAt.Equal(recNow) {
			t.Errorf("event %d numbered %s/%d at %v, want R-1/%d at the clock", i, e.RunID, e.Seq, e.CreatedAt, i+1)
		}
	}
	if string(events[2].Data) != "{}" {
		t.Errorf("empty data stored as %q, want {}", events[2].Data)
	}

	// A custom id is kept; the next automatic id skips one a custom id holds.
	custom := &baton.Run{ID: "R-3", ItemID: a, Agent: "judge", Status: "running"}
	r.update(func(tx baton.Tx) error { return tx.CreateRun(r.ctx, custom, nil) })
	if custom.ID != "R-3" || !custom.StartedAt.Equal(recNow) || custom.EventCount != 0 {
		t.Errorf("custom run = %+v, want R-3 started at the clock with no events", custom)
	}
	third := &baton.Run{ItemID: a, Agent: "worker", Status: "failed", Error: "boom"}
	other := &baton.Run{ItemID: b, Agent: "worker", Status: "succeeded"}
	r.update(func(tx baton.Tx) error {
		if err := tx.CreateRun(r.ctx, third, nil); err != nil {
			return err
		}
		return tx.CreateRun(r.ctx, other, nil)
	})
	if third.ID != "R-4" || other.ID != "R-5" {
		t.Errorf("automatic ids after custom R-3 = %s, %s; want R-4, R-5", third.ID, other.ID)
	}

	r.view(func(tx baton.Tx) error {
		all, err := tx.Runs(r.ctx, a, 0)
		if err != nil {
			return err
		}
		if got := runIDs(all); !slices.Equal(got, []string{"R-4", "R-3", "R-1"}) {
			t.Errorf("Runs(all) = %v, want newest first [R-4 R-3 R-1]", got)
		}
		latest, err := tx.Runs(r.ctx, a, 2)
		if err != nil {
			return err
		}
		if got := runIDs(latest); !slices.Equal(got, []string{"R-4", "R-3"}) {
			t.Errorf("Runs(limit 2) = %v, want [R-4 R-3]", got)
		}
		got, want := *all[2], *first
		if !got.StartedAt.Equal(want.StartedAt) || !got.EndedAt.Equal(want.EndedAt) {
			t.Errorf("R-1 times read back as %v..%v, want %v..%v", got.StartedAt, got.EndedAt, want.StartedAt, want.EndedAt)
		}
		got.StartedAt, got.EndedAt = want.StartedAt, want.EndedAt
		if got != want {
			t.Errorf("R-1 read back as %+v, want %+v", got, want)
		}
		if !all[1].EndedAt.IsZero() {
			t.Errorf("a running run's EndedAt = %v, want zero", all[1].EndedAt)
		}
		if all[0].Error != "boom" || all[0].Status != "failed" {
			t.Errorf("R-4 = %+v", all[0])
		}
		none, err := tx.Runs(r.ctx, "AL-999", 0)
		if err != nil || none == nil || len(none) != 0 {
			t.Errorf("Runs(unknown) = %v, %v; want an empty slice", none, err)
		}
		return nil
	})

	err := r.tryUpdate(func(tx baton.Tx) error {
		return tx.CreateRun(r.ctx, &baton.Run{ID: "R-1", ItemID: a, Agent: "w", Status: "running"}, nil)
	})
	if e := wantErr(t, err, baton.ErrConflict); e.Type != "duplicate" {
		t.Errorf("duplicate run id: type %q, want duplicate", e.Type)
	}
	err = r.tryUpdate(func(tx baton.Tx) error {
		return tx.CreateRun(r.ctx, &baton.Run{ItemID: "AL-999", Agent: "w", Status: "running"}, nil)
	})
	wantErr(t, err, baton.ErrTaskNotFound)
	err = r.tryUpdate(func(tx baton.Tx) error {
		return tx.CreateRun(r.ctx, &baton.Run{ItemID: a, Agent: "w", Status: "running"},
			[]baton.RunEvent{event("system", "init", `{}`), event("assistant", "text", `{not json`)})
	})
	if e := wantErr(t, err, baton.ErrInvalidInput); e.Details["field"] != "events[1].data" {
		t.Errorf("invalid event data: details %v, want field events[1].data", e.Details)
	}
}

func eventKeys(es []baton.RunEvent) []string {
	out := []string{}
	for _, e := range es {
		out = append(out, fmt.Sprintf("%s/%d", e.RunID, e.Seq))
	}
	return out
}

func TestRunEvents(t *testing.T) {
	r := newRecStore(t)
	a, b := r.item("alpha", "a"), r.item("alpha", "b")
	r.update(func(tx baton.Tx) error {
		// "zz" sorts after "R-2" by id but is created first: item order
		// must follow creation, not ids.
		runs := []struct {
			run    *baton.Run
			events []baton.RunEvent
		}{
			{&baton.Run{ID: "zz", ItemID: a, Agent: "w", Status: "succeeded"}, []baton.RunEvent{
				event("system", "init", `{"n":1}`), event("assistant", "thinking", `{"n":2}`),
				event("assistant", "tool_use", `{"n":3}`), event("result", "success", `{"n":4}`)}},
			{&baton.Run{ItemID: a, Agent: "w", Status: "failed"}, []baton.RunEvent{
				event("system", "init", `{"n":5}`), event("assistant", "text", `{"n":6}`), event("result", "error", `{"n":7}`)}},
			{&baton.Run{ItemID: b, Agent: "w", Status: "succeeded"}, []baton.RunEvent{event("system", "init", `{"n":8}`)}},
		}
		for _, x := range runs {
			if err := tx.CreateRun(r.ctx, x.run, x.events); err != nil {
				return err
			}
		}
		return nil
	})
	cases := []struct {
		name  string
		f     baton.RunEventFilter
		want  []string
		total int
	}{
		{"run", baton.RunEventFilter{RunID: "R-2"}, []string{"R-2/1", "R-2/2", "R-2/3"}, 3},
		{"item in run order", baton.RunEventFilter{ItemID: a}, []string{"zz/1", "zz/2", "zz/3", "zz/4", "R-2/1", "R-2/2", "R-2/3"}, 7},
		{"other item", baton.RunEventFilter{ItemID: b}, []string{"R-3/1"}, 1},
		{"type", baton.RunEventFilter{ItemID: a, Type: "assistant"}, []string{"zz/2", "zz/3", "R-2/2"}, 3},
		{"type and subtype", baton.RunEventFilter{ItemID: a, Type: "system", Subtype: "init"}, []string{"zz/1", "R-2/1"}, 2},
		{"subtype alone", baton.RunEventFilter{RunID: "zz", Subtype: "tool_use"}, []string{"zz/3"}, 1},
		{"run and item", baton.RunEventFilter{RunID: "R-2", ItemID: a}, []string{"R-2/1", "R-2/2", "R-2/3"}, 3},
		{"run of another item", baton.RunEventFilter{RunID: "R-2", ItemID: b}, []string{}, 0},
		{"limit", baton.RunEventFilter{ItemID: a, Limit: 3}, []string{"zz/1", "zz/2", "zz/3"}, 7},
		{"page two", baton.RunEventFilter{ItemID: a, Limit: 3, Offset: 3}, []string{"zz/4", "R-2/1", "R-2/2"}, 7},
		{"last page", baton.RunEventFilter{ItemID: a, Limit: 3, Offset: 6}, []string{"R-2/3"}, 7},
		{"offset without limit", baton.RunEventFilter{ItemID: a, Offset: 5}, []string{"R-2/2", "R-2/3"}, 7},
		{"past the end", baton.RunEventFilter{ItemID: a, Limit: 3, Offset: 50}, []string{}, 7},
		{"filtered page", baton.RunEventFilter{ItemID: a, Type: "assistant", Limit: 1, Offset: 1}, []string{"zz/3"}, 3},
		{"unknown run", baton.RunEventFilter{RunID: "R-99"}, []string{}, 0},
	}
	r.view(func(tx baton.Tx) error {
		for _, c := range cases {
			got, total, err := tx.RunEvents(r.ctx, c.f)
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
				continue
			}
			if got == nil || !slices.Equal(eventKeys(got), c.want) || total != c.total {
				t.Errorf("%s: got %v (total %d), want %v (total %d)", c.name, eventKeys(got), total, c.want, c.total)
			}
		}
		got, _, err := tx.RunEvents(r.ctx, baton.RunEventFilter{RunID: "zz", Type: "result"})
		if err != nil {
			return err
		}
		if len(got) != 1 || string(got[0].Data) != `{"n":4}` || got[0].Subtype != "success" || !got[0].CreatedAt.Equal(recNow) {
			t.Errorf("result event read back as %+v", got)
		}
		_, _, err = tx.RunEvents(r.ctx, baton.RunEventFilter{Type: "system"})
		if e := wantErr(t, err, baton.ErrInvalidInput); e.Details["field"] != "run_id" {
			t.Errorf("missing run_id: details %v, want field run_id", e.Details)
		}
		return nil
	})
}

func TestRecordTestHealth(t *testing.T) {
	r := newRecStore(t)
	a := r.item("alpha", "a")
	files, added, took := 2, 5, int64(1234)
	r.update(func(tx baton.Tx) error {
		if err := tx.RecordTestHealth(r.ctx, &baton.TestHealth{ItemID: a, Agent: "w", TestCount: 10}); err != nil {
			return err
		}
		return tx.RecordTestHealth(r.ctx, &baton.TestHealth{ItemID: a, Agent: "w", TestCount: 15,
			TestFilesChanged: &files, TestsAdded: &added, ExecutionTimeMS: &took})
	})
	db := rawDB(t, r.s.Path())
	rows, err := db.Query(`SELECT item_id, test_count, COALESCE(test_files_changed, -1), COALESCE(tests_added, -1),
		COALESCE(tests_removed, -1), COALESCE(execution_time_ms, -1), created_at FROM test_health ORDER BY rid`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var item string
		var count, changed, add, removed, exec, created int64
		if err := rows.Scan(&item, &count, &changed, &add, &removed, &exec, &created); err != nil {
			t.Fatal(err)
		}
		if created != recNow.UnixMilli() {
			t.Errorf("created_at = %d, want the clock", created)
		}
		got = append(got, fmt.Sprintf("%s %d %d %d %d %d", item, count, changed, add, removed, exec))
	}
	want := []string{a + " 10 -1 -1 -1 -1", a + " 15 2 5 -1 1234"}
	if !slices.Equal(got, want) {
		t.Errorf("test_health rows = %q, want %q", got, want)
	}
	err = r.tryUpdate(func(tx baton.Tx) error {
		return tx.RecordTestHealth(r.ctx, &baton.TestHealth{ItemID: "AL-999", Agent: "w", TestCount: 1})
	})
	wantErr(t, err, baton.ErrTaskNotFound)
}

func TestRecordCoverageUpserts(t *testing.T) {
	r := newRecStore(t)
	later := recNow.Add(time.Hour)
	r.update(func(tx baton.Tx) error {
		for _, c := range []*baton.Coverage{
			{Project: "alpha", FilePath: "a.go", Concept: "auth", Status: "has_issues", TicketID: "AL-1", Notes: "n1", Agent: "s1"},
			{Project: "alpha", FilePath: "a.go", Concept: "perf", Status: "covered", Agent: "s1"},
			{Project: "beta", FilePath: "a.go", Concept: "auth", Status: "covered", Agent: "s1"},
			{Project: "alpha", FilePath: "a.go", Concept: "auth", Status: "covered", Notes: "fixed", Agent: "s2", UpdatedAt: later},
		} {
			if err := tx.RecordCoverage(r.ctx, c); err != nil {
				return err
			}
		}
		return nil
	})
	db := rawDB(t, r.s.Path())
	rows, err := db.Query(`SELECT project, file_path, concept, status, ticket_id, notes, agent, updated_at FROM coverage
		ORDER BY project, file_path, concept`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var p, f, c, s, ticket, notes, agent string
		var at int64
		if err := rows.Scan(&p, &f, &c, &s, &ticket, &notes, &agent, &at); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s|%s|%s|%s|%s|%s|%s|%d", p, f, c, s, ticket, notes, agent, at))
	}
	now, lat := recNow.UnixMilli(), later.UnixMilli()
	want := []string{
		fmt.Sprintf("alpha|a.go|auth|covered||fixed|s2|%d", lat),
		fmt.Sprintf("alpha|a.go|perf|covered|||s1|%d", now),
		fmt.Sprintf("beta|a.go|auth|covered|||s1|%d", now),
	}
	if !slices.Equal(got, want) {
		t.Errorf("coverage rows:\n got %q\nwant %q", got, want)
	}
	err = r.tryUpdate(func(tx baton.Tx) error {
		return tx.RecordCoverage(r.ctx, &baton.Coverage{Project: "nope", FilePath: "a.go", Concept: "c", Status: "covered", Agent: "s"})
	})
	wantErr(t, err, baton.ErrProjectNotFound)
}

func (r *recStore) learn(l *baton.Learning) *baton.Learning {
	r.t.Helper()
	if l.CreatedBy == "" {
		l.CreatedBy = "w"
	}
	r.update(func(tx baton.Tx) error { return tx.AddLearning(r.ctx, l) })
	return l
}

func TestAddLearning(t *testing.T) {
	r := newRecStore(t)
	a, b := r.item("alpha", "a"), r.item("alpha", "b")
	first := r.learn(&baton.Learning{ItemID: a, Pattern: "Use WAL mode!", Context: "for concurrent readers",
		AppliesTo: []string{"sqlite/"}, Type: "gotcha", QualityScore: 50})
	if first.ID != "L-1" || first.Project != "alpha" || !first.CreatedAt.Equal(recNow) {
		t.Fatalf("first learning = %+v, want L-1 in alpha at the clock", first)
	}
	err := r.tryUpdate(func(tx baton.Tx) error {
		return tx.AddLearning(r.ctx, &baton.Learning{ItemID: a, Pattern: "use   wal mode", CreatedBy: "w"})
	})
	e := wantErr(t, err, baton.ErrConflict)
	if e.Type != "duplicate" || e.Details["field"] != "pattern" || e.Details["existing_id"] != "L-1" || e.Hint == "" {
		t.Errorf("duplicate error = %+v, want type duplicate, field pattern, existing_id L-1 and a hint", e)
	}
	// The same pattern on another item is that item's own learning.
	second := r.learn(&baton.Learning{ItemID: b, Pattern: "use   wal mode", QualityScore: 70, Verified: true})
	other := r.learn(&baton.Learning{ItemID: a, Project: "beta", Pattern: "Another pattern"})
	if second.ID != "L-2" || other.ID != "L-3" || other.Project != "beta" {
		t.Errorf("ids %s, %s (project %s); want L-2, L-3 in beta", second.ID, other.ID, other.Project)
	}
	err = r.tryUpdate(func(tx baton.Tx) error {
		return tx.AddLearning(r.ctx, &baton.Learning{ItemID: "AL-999", Pattern: "x y z", CreatedBy: "w"})
	})
	wantErr(t, err, baton.ErrTaskNotFound)
	err = r.tryUpdate(func(tx baton.Tx) error {
		return tx.AddLearning(r.ctx, &baton.Learning{ItemID: a, Project: "nope", Pattern: "x y z", CreatedBy: "w"})
	})
	wantErr(t, err, baton.ErrProjectNotFound)

	r.view(func(tx baton.Tx) error {
		ls, err := tx.Learnings(r.ctx, a)
		if err != nil {
			return err
		}
		if len(ls) != 2 || ls[0].ID != "L-1" || ls[1].ID != "L-3" {
			t.Fatalf("Learnings(a) = %d learnings, want L-1 then L-3", len(ls))
		}
		got := ls[0]
		if got.Pattern != "Use WAL mode!" || got.Context != "for concurrent readers" || !slices.Equal(got.AppliesTo, []string{"sqlite/"}) ||
			got.Type != "gotcha" || got.QualityScore != 50 || got.Verified || got.CreatedBy != "w" || got.ItemID != a ||
			!got.CreatedAt.Equal(recNow) {
			t.Errorf("L-1 read back as %+v", got)
		}
		if ls[1].AppliesTo == nil || len(ls[1].AppliesTo) != 0 {
			t.Errorf("L-3 applies_to = %#v, want an empty, non-nil slice", ls[1].AppliesTo)
		}
		lb, err := tx.Learnings(r.ctx, b)
		if err != nil {
			return err
		}
		if len(lb) != 1 || !lb[0].Verified || lb[0].QualityScore != 70 {
			t.Errorf("Learnings(b) = %+v, want verified L-2 scoring 70", lb)
		}
		none, err := tx.Learnings(r.ctx, "AL-999")
		if err != nil || none == nil || len(none) != 0 {
			t.Errorf("Learnings(unknown) = %v, %v; want an empty slice", none, err)
		}
		return nil
	})
}

func (r *recStore) search(q baton.LearningQuery) []baton.LearningHit {
	r.t.Helper()
	var hits []baton.LearningHit
	r.view(func(tx baton.Tx) error {
		var err error
		hits, err = tx.SearchLearnings(r.ctx, q)
		return err
	})
	if hits == nil {
		r.t.Fatalf("SearchLearnings(%+v) returned nil", q)
	}
	return hits
}

func hitIDs(hits []baton.LearningHit) []string {
	out := []string{}
	for _, h := range hits {
		out = append(out, h.Learning.ID)
	}
	return out
}

func sortedIDs(hits []baton.LearningHit) []string {
	ids := hitIDs(hits)
	slices.Sort(ids)
	return ids
}

// fillLearnings adds n unrelated learnings to item, so that search terms
// are rare in the index and BM25 gives them weight.
func (r *recStore) fillLearnings(item string, n int) {
	r.t.Helper()
	for i := range n {
		r.learn(&baton.Learning{ItemID: item, Pattern: fmt.Sprintf("filler note number %d about nothing", i), QualityScore: 50})
	}
}

func TestSearchLearningsMatching(t *testing.T) {
	r := newRecStore(t)
	a := r.item("alpha", "a")
	r.fillLearnings(r.item("beta", "filler"), 6)
	mig := r.learn(&baton.Learning{ItemID: a, Pattern: "Write each migration as one file", QualityScore: 50})
	runs := r.learn(&baton.Learning{ItemID: a, Pattern: "The scheduler runs jobs serially", QualityScore: 50})
	pg := r.learn(&baton.Learning{ItemID: a, Pattern: "Postgres needs an index here", QualityScore: 50})
	vac := r.learn(&baton.Learning{ItemID: a, Pattern: "Vacuum tables after bulk deletes", QualityScore: 50})
	both := r.learn(&baton.Learning{ItemID: a, Pattern: "Postgres vacuum blocks schema changes", QualityScore: 50})
	dir := r.learn(&baton.Learning{ItemID: a, Pattern: "Keep helpers small", AppliesTo: []string{"internal/frobnicator/"}, QualityScore: 50})

	alpha := func(text string) baton.LearningQuery { return baton.LearningQuery{Text: text, Project: "alpha"} }
	if got := hitIDs(r.search(alpha("migrat"))); !slices.Equal(got, []string{mig.ID}) {
		t.Errorf("prefix migrat = %v, want [%s]", got, mig.ID)
	}
	if got := hitIDs(r.search(alpha("MIGRATIONS"))); !slices.Equal(got, []string{mig.ID}) {
		t.Errorf("stemmed migrations = %v, want [%s]", got, mig.ID)
	}
	if got := hitIDs(r.search(alpha("running"))); !slices.Equal(got, []string{runs.ID}) {
		t.Errorf("stemmed running = %v, want [%s]", got, runs.ID)
	}
	hits := r.search(alpha("postgres, vacuum?"))
	if got := sortedIDs(hits); !slices.Equal(got, sortedIDs([]baton.LearningHit{{Learning: pg}, {Learning: vac}, {Learning: both}})) {
		t.Fatalf("OR recall = %v, want %s, %s and %s", hitIDs(hits), pg.ID, vac.ID, both.ID)
	}
	if hits[0].Learning.ID != both.ID || hits[0].BM25 != 1 {
		t.Errorf("OR recall: first = %s (bm25 %v), want %s matching both words with bm25 1", hits[0].Learning.ID, hits[0].BM25, both.ID)
	}
	if last := hits[len(hits)-1]; last.BM25 != 0 {
		t.Errorf("OR recall: last bm25 = %v, want 0 (worst candidate)", last.BM25)
	}
	hits = r.search(alpha("frobnicator"))
	if len(hits) != 1 || hits[0].Learning.ID != dir.ID || hits[0].MatchedField != "applies_to" || hits[0].FieldPriority != 0.3 {
		t.Errorf("applies_to match = %+v, want %s matched in applies_to with priority 0.3", hits, dir.ID)
	}
	if !slices.Equal(hits[0].Learning.AppliesTo, []string{"internal/frobnicator/"}) {
		t.Errorf("hit learning applies_to = %v", hits[0].Learning.AppliesTo)
	}
	for _, text := range []string{"", "  ", "nomatchword"} {
		if got := r.search(alpha(text)); len(got) != 0 {
			t.Errorf("search %q = %v, want none", text, hitIDs(got))
		}
	}
	// FTS5's operators are the query syntax (issue 12, point 16).
	if got := sortedIDs(r.search(alpha(`"migration" OR vacuum NOT bulk`))); !slices.Equal(got,
		sortedIDs([]baton.LearningHit{{Learning: mig}, {Learning: both}})) {
		t.Errorf("text with FTS5 syntax = %v, want %s and %s", got, mig.ID, both.ID)
	}
}

func TestSearchLearningsScopeAndQuality(t *testing.T) {
	r := newRecStore(t)
	items := map[string]string{"alpha": r.item("alpha", "a"), "beta": r.item("beta", "b"), "gamma": r.item("gamma", "g")}
	ids := map[string]string{}
	for _, p := range []string{"alpha", "beta", "gamma"} {
		ids[p] = r.learn(&baton.Learning{ItemID: items[p], Pattern: "cache invalidation in " + p, QualityScore: 50}).ID
	}
	cases := []struct {
		name string
		q    baton.LearningQuery
		want []string
	}{
		{"project", baton.LearningQuery{Text: "cache", Project: "alpha"}, []string{ids["alpha"]}},
		{"cross project excludes current", baton.LearningQuery{Text: "cache", Project: "alpha", CrossProject: true}, []string{ids["beta"], ids["gamma"]}},
		{"no project", baton.LearningQuery{Text: "cache"}, []string{ids["alpha"], ids["beta"], ids["gamma"]}},
		{"unknown project", baton.LearningQuery{Text: "cache", Project: "nope"}, []string{}},
	}
	for _, c := range cases {
		if got := sortedIDs(r.search(c.q)); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}

	a := items["alpha"]
	low := r.learn(&baton.Learning{ItemID: a, Pattern: "quality low unverified", QualityScore: 30})
	lowVerified := r.learn(&baton.Learning{ItemID: a, Pattern: "quality low verified", QualityScore: 10, Verified: true})
	edge := r.learn(&baton.Learning{ItemID: a, Pattern: "quality exactly at threshold", QualityScore: 60})
	high := r.learn(&baton.Learning{ItemID: a, Pattern: "quality high", QualityScore: 90})
	got := sortedIDs(r.search(baton.LearningQuery{Text: "quality", Project: "alpha", MinQualityScore: 60}))
	want := []string{lowVerified.ID, edge.ID, high.ID}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("min quality 60 = %v, want %v (not %s)", got, want, low.ID)
	}
	if got := r.search(baton.LearningQuery{Text: "quality", Project: "alpha"}); len(got) != 4 {
		t.Errorf("min quality 0 = %v, want all four", hitIDs(got))
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestSearchLearningsRanking(t *testing.T) {
	r := newRecStore(t)
	// Symmetric documents: the same words, swapped between pattern and
	// context, have the same length and term counts, so the same BM25.
	a := r.item("alpha", "a")
	inContext := r.learn(&baton.Learning{ItemID: a, Pattern: "general note", Context: "goroutine leak detection", QualityScore: 50})
	inPattern := r.learn(&baton.Learning{ItemID: a, Pattern: "goroutine leak detection", Context: "general note", QualityScore: 50})
	hits := r.search(baton.LearningQuery{Text: "goroutine leaks", Project: "alpha"})
	if got := hitIDs(hits); !slices.Equal(got, []string{inPattern.ID, inContext.ID}) {
		t.Fatalf("pattern vs context = %v, want the pattern match %s first", got, inPattern.ID)
	}
	p, c := hits[0], hits[1]
	if p.MatchedField != "pattern" || p.FieldPriority != 1 || c.MatchedField != "context" || c.FieldPriority != 0.6 {
		t.Errorf("fields: %s %v and %s %v, want pattern 1 and context 0.6", p.MatchedField, p.FieldPriority, c.MatchedField, c.FieldPriority)
	}
	if p.BM25 != 1 || c.BM25 != 1 {
		t.Errorf("bm25 of equally relevant hits = %v, %v; want 1 and 1", p.BM25, c.BM25)
	}
	if !near(p.Rank, 0.5+0.3+0.2*0.5) || !near(c.Rank, 0.5+0.3*0.6+0.2*0.5) {
		t.Errorf("ranks = %v, %v; want 0.9 and 0.78", p.Rank, c.Rank)
	}

	// Equal relevance and field: higher quality first; equal everything:
	// the older learning first. Created lowest quality first so that
	// creation order alone would give the wrong answer.
	b := r.item("beta", "b1")
	var made []*baton.Learning
	for i, q := range []int{20, 80, 50, 80} {
		item := b
		if i > 0 {
			item = r.item("beta", fmt.Sprint("b", i+1)) // one pattern per item, or it is a duplicate
		}
		made = append(made, r.learn(&baton.Learning{ItemID: item, Pattern: "flaky network test", QualityScore: q}))
	}
	hits = r.search(baton.LearningQuery{Text: "flaky", Project: "beta"})
	want := []string{made[1].ID, made[3].ID, made[2].ID, made[0].ID}
	if got := hitIDs(hits); !slices.Equal(got, want) {
		t.Errorf("quality order = %v, want %v", got, want)
	}
	if !near(hits[0].Rank, 0.5+0.3+0.2*0.8) || !near(hits[3].Rank, 0.5+0.3+0.2*0.2) {
		t.Errorf("ranks = %v .. %v, want 0.96 .. 0.84", hits[0].Rank, hits[3].Rank)
	}

	// Relevance against quality: a strong BM25 match with low quality
	// beats a weak one with top quality (0.5 of BM25 outweighs 0.2 of
	// quality), both in the pattern.
	g := r.item("gamma", "g")
	r.fillLearnings(g, 6)
	strong := r.learn(&baton.Learning{ItemID: g, Pattern: "deadlock deadlock mutex ordering", QualityScore: 0})
	weak := r.learn(&baton.Learning{ItemID: g, Pattern: "mutex contention under heavy load here", QualityScore: 100})
	hits = r.search(baton.LearningQuery{Text: "deadlock mutex", Project: "gamma"})
	if got := hitIDs(hits); !slices.Equal(got, []string{strong.ID, weak.ID}) {
		t.Errorf("relevance vs quality = %v, want %s then %s", got, strong.ID, weak.ID)
	}
	if hits[0].BM25 != 1 || hits[1].BM25 != 0 || !near(hits[0].Rank, 0.8) || !near(hits[1].Rank, 0.5) {
		t.Errorf("bm25 %v/%v rank %v/%v, want 1/0 and 0.8/0.5", hits[0].BM25, hits[1].BM25, hits[0].Rank, hits[1].Rank)
	}
}

func TestSearchLearningsLimit(t *testing.T) {
	r := newRecStore(t)
	a := r.item("alpha", "a")
	r.update(func(tx baton.Tx) error {
		for i := range 60 {
			l := &baton.Learning{ItemID: a, Pattern: fmt.Sprintf("retry budget %d", i), QualityScore: i, CreatedBy: "w"}
			if err := tx.AddLearning(r.ctx, l); err != nil {
				return err
			}
		}
		return nil
	})
	if got := r.search(baton.LearningQuery{Text: "retry", Project: "alpha"}); len(got) != 50 {
		t.Errorf("default limit: %d hits, want 50", len(got))
	}
	if got := r.search(baton.LearningQuery{Text: "retry", Project: "alpha", Limit: 100}); len(got) != 60 {
		t.Errorf("limit 100: %d hits, want all 60", len(got))
	}
	hits := r.search(baton.LearningQuery{Text: "retry", Project: "alpha", Limit: 3})
	// Equal text: quality decides, and the limit keeps the best.
	if got := hitIDs(hits); !slices.Equal(got, []string{"L-60", "L-59", "L-58"}) {
		t.Errorf("limit 3 = %v, want the three highest quality [L-60 L-59 L-58]", got)
	}
}
