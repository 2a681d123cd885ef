// Package storetest is the conformance suite of baton.Store. Every store
// backend (SQLite today, PostgreSQL later) must pass it unchanged, so it
// exercises only what the baton.Store and baton.Tx interfaces promise and
// never a backend's internals.
//
// A backend's test calls Run with a function that opens a fresh, empty store:
//
//	func TestStore(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) baton.Store {
//			s, err := mybackend.Open(...)
//			if err != nil {
//				t.Fatal(err)
//			}
//			t.Cleanup(func() { s.Close() })
//			return s
//		})
//	}
package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-dev/baton"
)

// Run runs the conformance suite against the store open returns, as named
// subtests of t. Every subtest calls open once for a store of its own, so
// open must return a new, empty, open store each time and release it with
// t.Cleanup. Some subtests close the store themselves, so Close must
// tolerate a second call.
//
// The subtests run in parallel (up to go test's -parallel), so open must
// be safe to call from several goroutines. They share nothing but open:
// the suite is mostly waiting on commits and, on PostgreSQL, round trips,
// which overlap.
func Run(t *testing.T, open func(t *testing.T) baton.Store) {
	t.Helper()
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			for _, c := range g.cases {
				t.Run(c.name, func(t *testing.T) {
					t.Parallel()
					c.fn(t, open)
				})
			}
		})
	}
}

type testCase struct {
	name string
	fn   func(t *testing.T, open func(t *testing.T) baton.Store)
}

var groups = []struct {
	name  string
	cases []testCase
}{
	{"Projects", []testCase{
		{"CreateAndGet", testProjectCreateAndGet},
		{"ListSortedBySlug", testProjectListSorted},
		{"Duplicate", testProjectDuplicate},
		{"UnknownSlug", testProjectUnknown},
		{"Invalid", testProjectInvalid},
	}},
	{"CreateItem", []testCase{
		{"AssignsIDAndSequencePerProject", testCreateAssignsIDAndSequence},
		{"CustomIDGetsSequence", testCreateCustomID},
		{"AssignedIDSkipsCustomOnes", testCreateSkipsTakenIDs},
		{"DuplicateID", testCreateDuplicateID},
		{"UnknownProject", testCreateUnknownProject},
		{"UnknownParent", testCreateUnknownParent},
		{"ParentInOtherProject", testCreateParentOtherProject},
		{"RoundTrip", testCreateRoundTrip},
		{"Labels", testCreateLabels},
		{"EstimateHours", testCreateEstimateHours},
		{"Timestamps", testCreateTimestamps},
		{"Defaults", testCreateDefaults},
	}},
	{"Item", []testCase{
		{"Unknown", testItemUnknown},
	}},
	{"UpdateItem", []testCase{
		{"ReplacesMutableFields", testUpdateReplaces},
		{"Labels", testUpdateLabels},
		{"ClearsOptionalFields", testUpdateClears},
		{"Unknown", testUpdateUnknown},
		{"ChecksParent", testUpdateChecksParent},
	}},
	{"ListItems", []testCase{
		{"Filters", testListFilters},
		{"Sort", testListSort},
		{"Pagination", testListPagination},
		{"StablePages", testListStablePages},
		{"EmptyResultIsNonNil", testListEmpty},
		{"ReturnsWholeItems", testListWholeItems},
	}},
	{"SearchSyntax", searchSyntaxCases},
	{"Search", []testCase{
		{"Queries", testSearchQueries},
		{"CombinesWithFilters", testSearchWithFilters},
		{"FollowsUpdates", testSearchFollowsUpdates},
	}},
	{"Children", []testCase{
		{"CreationOrder", testChildrenOrder},
		{"FollowReparenting", testChildrenReparent},
	}},
	{"Dependencies", []testCase{
		{"AddAndList", testDepsAddAndList},
		{"DuplicateIsIdempotent", testDepsDuplicate},
		{"UnknownIDs", testDepsUnknown},
		{"Cycles", testDepsCycles},
		{"DiamondIsNoCycle", testDepsDiamond},
	}},
	{"Queue", []testCase{
		{"Readiness", testQueueReadiness},
		{"FollowsProgress", testQueueFollowsProgress},
		{"Empty", testQueueEmpty},
		{"ReadinessOfSomeItems", testReadinessOf},
	}},
	{"Transactions", []testCase{
		{"ErrorRollsBack", testTxErrorRollsBack},
		{"PanicRollsBackAndStoreStaysUsable", testTxPanic},
		{"ReadsOwnWrites", testTxReadsOwnWrites},
		{"ViewRejectsWrites", testViewRejectsWrites},
		{"ViewReturnsFnError", testViewReturnsError},
		{"ViewSnapshot", testViewSnapshot},
	}},
	{"Concurrency", []testCase{
		{"ConcurrentCreates", testConcurrentCreates},
		{"ViewsBesideUpdates", testConcurrentViews},
	}},
	{"Info", []testCase{
		{"Open", testInfoOpen},
		{"Closed", testInfoClosed},
	}},
	{"Learnings", []testCase{
		{"RareWord", testLearningsRareWord},
		{"CommonWord", testLearningsCommonWord},
		{"Prefix", testLearningsPrefix},
		{"Stemmed", testLearningsStemmed},
		{"ColumnPriority", testLearningsColumnPriority},
		{"MinQuality", testLearningsMinQuality},
		{"ProjectFilter", testLearningsProjectFilter},
	}},
	{"Access", accessCases},
	{"Fencing", fencingCases},
	{"Claims", claimCases},
	{"ProjectConfig", projectConfigCases},
	{"Phases", phaseCases},
	{"PRs", prCases},
	{"ItemHolds", itemHoldsCases},
	{"PhaseMarks", phaseMarkCases},
	{"Knowledge", knowledgeCases},
	{"Actions", actionCases},
	{"Events", eventCases},
	{"Runs", runCases},
}

// base is the fixed clock of the suite; items that must sort get explicit
// CreatedAt/UpdatedAt values relative to it instead of sleeping.
var base = time.Date(2025, time.March, 14, 9, 26, 53, 0, time.UTC)

// at is base plus min minutes.
func at(min int) time.Time { return base.Add(time.Duration(min) * time.Minute) }

// queuedBehindAWrite runs calls as writes queued in this order behind a
// write that holds the writer until they all wait, so that a store with
// group commit runs them as one batch, and returns each call's error.
func (e *env) queuedBehindAWrite(calls ...func(tx baton.Tx) error) []error {
	e.t.Helper()
	release, holding := make(chan struct{}), make(chan struct{})
	held := sync.OnceFunc(func() { close(holding) }) // a store may run fn again
	var wg sync.WaitGroup
	var first error
	wg.Go(func() {
		first = e.s.Update(e.ctx, func(tx baton.Tx) error {
			held()
			<-release
			return nil
		})
	})
	<-holding
	errs := make([]error, len(calls))
	for i, call := range calls {
		wg.Go(func() { errs[i] = e.s.Update(e.ctx, call) })
		time.Sleep(100 * time.Millisecond) // queued in this order
	}
	close(release)
	wg.Wait()
	if first != nil {
		e.t.Fatalf("the write holding the writer: %v", first)
	}
	return errs
}

// env is one test's store with helpers that fail the test on error.
type env struct {
	t   *testing.T
	s   baton.Store
	ctx context.Context
}

func newEnv(t *testing.T, open func(t *testing.T) baton.Store) *env {
	t.Helper()
	s := open(t)
	if s == nil {
		t.Fatal("open returned a nil store")
	}
	return &env{t: t, s: s, ctx: context.Background()}
}

func (e *env) update(fn func(baton.Tx) error) {
	e.t.Helper()
	if err := e.s.Update(e.ctx, fn); err != nil {
		e.t.Fatalf("Update: %v", err)
	}
}

func (e *env) view(fn func(baton.Tx) error) {
	e.t.Helper()
	if err := e.s.View(e.ctx, fn); err != nil {
		e.t.Fatalf("View: %v", err)
	}
}

// project creates a project and returns it as stored.
func (e *env) project(slug, prefix string) *baton.Project {
	e.t.Helper()
	e.update(func(tx baton.Tx) error {
		return tx.CreateProject(e.ctx, &baton.Project{Slug: slug, Prefix: prefix, Name: strings.ToUpper(slug), CreatedAt: base})
	})
	var p *baton.Project
	e.view(func(tx baton.Tx) (err error) { p, err = tx.Project(e.ctx, slug); return err })
	return p
}

// create stores it in its own transaction and copies back what CreateItem
// assigned (ID, Sequence, defaults). fn works on a copy, so a backend that
// retries a transaction sees the caller's item unchanged each time.
func (e *env) create(it *baton.Item) *baton.Item {
	e.t.Helper()
	if err := e.tryCreate(it); err != nil {
		e.t.Fatalf("CreateItem(%q in %q): %v", it.Title, it.Project, err)
	}
	return it
}

func (e *env) tryCreate(it *baton.Item) error {
	var done baton.Item
	err := e.s.Update(e.ctx, func(tx baton.Tx) error {
		c := cloneItem(it)
		if err := tx.CreateItem(e.ctx, c); err != nil {
			return err
		}
		done = *c
		return nil
	})
	if err == nil {
		*it = done
	}
	return err
}

func (e *env) tryUpdate(fn func(baton.Tx) error) error { return e.s.Update(e.ctx, fn) }

// get reads one item, failing the test when it is missing.
func (e *env) get(id string) *baton.Item {
	e.t.Helper()
	var it *baton.Item
	e.view(func(tx baton.Tx) (err error) { it, err = tx.Item(e.ctx, id); return err })
	return it
}

// put replaces a stored item.
func (e *env) put(it *baton.Item) {
	e.t.Helper()
	e.update(func(tx baton.Tx) error { return tx.UpdateItem(e.ctx, cloneItem(it)) })
}

func (e *env) list(f baton.ItemFilter) baton.ItemPage {
	e.t.Helper()
	var page baton.ItemPage
	e.view(func(tx baton.Tx) (err error) { page, err = tx.ListItems(e.ctx, f); return err })
	return page
}

func (e *env) exists(id string) bool {
	e.t.Helper()
	var err error
	if verr := e.s.View(e.ctx, func(tx baton.Tx) error { _, err = tx.Item(e.ctx, id); return nil }); verr != nil {
		e.t.Fatalf("View: %v", verr)
	}
	if err == nil {
		return true
	}
	if baton.ErrorCode(err) != baton.ErrTaskNotFound {
		e.t.Fatalf("Item(%q): %v, want nil or %s", id, err, baton.ErrTaskNotFound)
	}
	return false
}

func (e *env) deps(id string) []string {
	e.t.Helper()
	var ids []string
	e.view(func(tx baton.Tx) (err error) { ids, err = tx.Dependencies(e.ctx, id); return err })
	return ids
}

func (e *env) children(id string) []string {
	e.t.Helper()
	var ids []string
	e.view(func(tx baton.Tx) (err error) { ids, err = tx.Children(e.ctx, id); return err })
	return ids
}

func (e *env) queue(project string) []baton.Readiness {
	e.t.Helper()
	var q []baton.Readiness
	e.view(func(tx baton.Tx) (err error) { q, err = tx.Queue(e.ctx, project); return err })
	return q
}

func cloneItem(it *baton.Item) *baton.Item {
	c := *it
	c.Labels = slices.Clone(it.Labels)
	if it.EstimateHours != nil {
		h := *it.EstimateHours
		c.EstimateHours = &h
	}
	return &c
}

// newItem is a valid todo item of normal priority in project.
func newItem(project, title string) *baton.Item {
	return &baton.Item{
		Project: project, Title: title, Kind: baton.KindTask, Status: baton.StatusTodo,
		Priority: baton.PriorityNormal, CreatedBy: "agent-alice",
	}
}

func hours(h float64) *float64 { return &h }

func ptr[T any](v T) *T { return &v }

// wantCode fails the test unless err is a *baton.Error with code.
func wantCode(t *testing.T, err error, code string) *baton.Error {
	t.Helper()
	var be *baton.Error
	if !errors.As(err, &be) {
		t.Fatalf("err = %v (%T), want a *baton.Error with code %s", err, err, code)
	}
	if be.Code != code {
		t.Fatalf("err code = %s (%v), want %s", be.Code, be, code)
	}
	return be
}

func ids(items []*baton.Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.ID
	}
	return out
}

func sorted(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	if c == nil {
		c = []string{}
	}
	return c
}

func eqStrings(a, b []string) bool { return slices.Equal(a, b) || (len(a) == 0 && len(b) == 0) }

// ms is t as a store keeps it: millisecond precision.
func ms(t time.Time) time.Time { return t.Truncate(time.Millisecond) }

// diffItem lists how got differs from want. Times compare as instants and
// must come back in UTC; nil and empty label lists are equal.
func diffItem(want, got *baton.Item) []string {
	var d []string
	eq := func(name string, w, g any) {
		if !reflect.DeepEqual(w, g) {
			d = append(d, fmt.Sprintf("%s = %#v, want %#v", name, g, w))
		}
	}
	eq("ID", want.ID, got.ID)
	eq("Project", want.Project, got.Project)
	eq("Sequence", want.Sequence, got.Sequence)
	eq("Title", want.Title, got.Title)
	eq("Description", want.Description, got.Description)
	eq("Kind", want.Kind, got.Kind)
	eq("Status", want.Status, got.Status)
	eq("Priority", want.Priority, got.Priority)
	if !eqStrings(want.Labels, got.Labels) {
		d = append(d, fmt.Sprintf("Labels = %q, want %q", got.Labels, want.Labels))
	}
	eq("Assignee", want.Assignee, got.Assignee)
	eq("ParentID", want.ParentID, got.ParentID)
	eq("Progress", want.Progress, got.Progress)
	switch {
	case want.EstimateHours == nil && got.EstimateHours != nil:
		d = append(d, fmt.Sprintf("EstimateHours = %v, want nil", *got.EstimateHours))
	case want.EstimateHours != nil && got.EstimateHours == nil:
		d = append(d, fmt.Sprintf("EstimateHours = nil, want %v", *want.EstimateHours))
	case want.EstimateHours != nil && *want.EstimateHours != *got.EstimateHours:
		d = append(d, fmt.Sprintf("EstimateHours = %v, want %v", *got.EstimateHours, *want.EstimateHours))
	}
	eq("BlockedReason", want.BlockedReason, got.BlockedReason)
	eq("CreatedBy", want.CreatedBy, got.CreatedBy)
	eq("UpdatedBy", want.UpdatedBy, got.UpdatedBy)
	for _, tc := range []struct {
		name      string
		want, got time.Time
	}{{"CreatedAt", want.CreatedAt, got.CreatedAt}, {"UpdatedAt", want.UpdatedAt, got.UpdatedAt}} {
		if !ms(tc.want).Equal(tc.got) {
			d = append(d, fmt.Sprintf("%s = %v, want %v", tc.name, tc.got, ms(tc.want)))
		}
		if tc.got.Location() != time.UTC {
			d = append(d, fmt.Sprintf("%s is in %v, want UTC", tc.name, tc.got.Location()))
		}
	}
	return d
}

func checkItem(t *testing.T, want, got *baton.Item) {
	t.Helper()
	if got == nil {
		t.Fatalf("item %s is nil", want.ID)
	}
	if d := diffItem(want, got); len(d) > 0 {
		t.Errorf("item %s differs:\n\t%s", want.ID, strings.Join(d, "\n\t"))
	}
}

// ---- Projects ----

func testProjectCreateAndGet(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	zone := time.FixedZone("UTC+5", 5*3600)
	created := time.Date(2025, 1, 2, 8, 4, 5, 123456789, zone)
	e.update(func(tx baton.Tx) error {
		if err := tx.CreateProject(e.ctx, &baton.Project{Slug: "colibri", Prefix: "COL", Name: "Colibri", CreatedAt: created}); err != nil {
			return err
		}
		return tx.CreateProject(e.ctx, &baton.Project{Slug: "symphony", Prefix: "SYM"})
	})
	var p, q *baton.Project
	e.view(func(tx baton.Tx) (err error) {
		if p, err = tx.Project(e.ctx, "colibri"); err != nil {
			return err
		}
		q, err = tx.Project(e.ctx, "symphony")
		return err
	})
	if p.Slug != "colibri" || p.Prefix != "COL" || p.Name != "Colibri" {
		t.Errorf("project = %+v, want colibri/COL/Colibri", p)
	}
	if !p.CreatedAt.Equal(ms(created)) || p.CreatedAt.Location() != time.UTC {
		t.Errorf("CreatedAt = %v, want %v in UTC", p.CreatedAt, ms(created).UTC())
	}
	if q.Slug != "symphony" || q.Prefix != "SYM" || q.Name != "" {
		t.Errorf("project = %+v, want symphony/SYM with no name", q)
	}
	if q.CreatedAt.IsZero() || q.CreatedAt.Location() != time.UTC {
		t.Errorf("a zero CreatedAt must be set to the time of creation in UTC; got %v", q.CreatedAt)
	}
}

func testProjectListSorted(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	var got []*baton.Project
	e.view(func(tx baton.Tx) (err error) { got, err = tx.Projects(e.ctx); return err })
	if len(got) != 0 {
		t.Fatalf("a new store lists %d projects, want none", len(got))
	}
	for _, p := range [][2]string{{"zeta", "Z"}, {"alpha", "A"}, {"mid-2", "M"}, {"mid_1", "MM"}} {
		e.project(p[0], p[1])
	}
	e.view(func(tx baton.Tx) (err error) { got, err = tx.Projects(e.ctx); return err })
	var slugs, prefixes []string
	for _, p := range got {
		slugs, prefixes = append(slugs, p.Slug), append(prefixes, p.Prefix)
	}
	if want := []string{"alpha", "mid-2", "mid_1", "zeta"}; !slices.Equal(slugs, want) {
		t.Errorf("Projects() slugs = %q, want %q", slugs, want)
	}
	if want := []string{"A", "M", "MM", "Z"}; !slices.Equal(prefixes, want) {
		t.Errorf("Projects() prefixes = %q, want %q", prefixes, want)
	}
}

func testProjectDuplicate(t *testing.T, open func(t *testing.T) baton.Store) {
	for _, tc := range []struct {
		name, slug, prefix string
	}{
		{"same slug", "colibri", "OTHER"},
		{"same prefix", "other", "COL"},
		{"same slug and prefix", "colibri", "COL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, open)
			e.project("colibri", "COL")
			err := e.tryUpdate(func(tx baton.Tx) error {
				return tx.CreateProject(e.ctx, &baton.Project{Slug: tc.slug, Prefix: tc.prefix})
			})
			be := wantCode(t, err, baton.ErrConflict)
			if be.Type != "duplicate" {
				t.Errorf("error type = %q, want duplicate", be.Type)
			}
			var ps []*baton.Project
			e.view(func(tx baton.Tx) (err error) { ps, err = tx.Projects(e.ctx); return err })
			if len(ps) != 1 || ps[0].Slug != "colibri" || ps[0].Prefix != "COL" {
				t.Errorf("projects after the conflict = %v, want only colibri/COL", ps)
			}
		})
	}
}

func testProjectUnknown(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("colibri", "COL")
	err := e.s.View(e.ctx, func(tx baton.Tx) error {
		_, err := tx.Project(e.ctx, "nope")
		return err
	})
	wantCode(t, err, baton.ErrProjectNotFound)
}

func testProjectInvalid(t *testing.T, open func(t *testing.T) baton.Store) {
	for _, tc := range []struct {
		name, slug, prefix string
	}{
		{"empty slug", "", "P"},
		{"uppercase slug", "Colibri", "P"},
		{"slug starting with a dash", "-colibri", "P"},
		{"slug with a space", "my project", "P"},
		{"slug of 64 characters", strings.Repeat("a", 64), "P"},
		{"empty prefix", "colibri", ""},
		{"prefix starting with a digit", "colibri", "1AB"},
		{"prefix with a dash", "colibri", "A-B"},
		{"prefix of 11 characters", "colibri", "ABCDEFGHIJK"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, open)
			err := e.tryUpdate(func(tx baton.Tx) error {
				return tx.CreateProject(e.ctx, &baton.Project{Slug: tc.slug, Prefix: tc.prefix})
			})
			wantCode(t, err, baton.ErrInvalidInput)
			var ps []*baton.Project
			e.view(func(tx baton.Tx) (err error) { ps, err = tx.Projects(e.ctx); return err })
			if len(ps) != 0 {
				t.Errorf("an invalid project was stored: %+v", ps[0])
			}
		})
	}
}

// ---- CreateItem ----

func testCreateAssignsIDAndSequence(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	e.project("beta", "BET")
	want := []struct {
		project, id string
		seq         int64
	}{
		{"alpha", "ALP-1", 1}, {"beta", "BET-1", 1}, {"alpha", "ALP-2", 2},
		{"alpha", "ALP-3", 3}, {"beta", "BET-2", 2},
	}
	for _, w := range want {
		it := e.create(newItem(w.project, "item"))
		if it.ID != w.id || it.Sequence != w.seq {
			t.Errorf("CreateItem in %s assigned %s/%d, want %s/%d", w.project, it.ID, it.Sequence, w.id, w.seq)
		}
	}
	for _, w := range want {
		got := e.get(w.id)
		if got.ID != w.id || got.Project != w.project || got.Sequence != w.seq {
			t.Errorf("Item(%s) = %s in %s seq %d, want %s in %s seq %d", w.id, got.ID, got.Project, got.Sequence, w.id, w.project, w.seq)
		}
	}
}

func testCreateCustomID(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	custom := newItem("alpha", "custom")
	custom.ID = "design-doc"
	e.create(custom)
	if custom.ID != "design-doc" || custom.Sequence != 1 {
		t.Errorf("custom item = %s seq %d, want design-doc seq 1", custom.ID, custom.Sequence)
	}
	if got := e.get("design-doc"); got.Sequence != 1 || got.Title != "custom" {
		t.Errorf("Item(design-doc) = seq %d %q, want seq 1 \"custom\"", got.Sequence, got.Title)
	}
	next := e.create(newItem("alpha", "next"))
	if next.ID != "ALP-2" || next.Sequence != 2 {
		t.Errorf("next item = %s seq %d, want ALP-2 seq 2", next.ID, next.Sequence)
	}
}

// testCreateSkipsTakenIDs: a custom id that looks like an assigned one
// does not make a later automatic create fail; the number is skipped.
func testCreateSkipsTakenIDs(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	squatter := newItem("alpha", "squatter")
	squatter.ID = "ALP-2"
	e.create(squatter) // sequence 1
	next := e.create(newItem("alpha", "next"))
	if next.ID != "ALP-3" || next.Sequence != 3 {
		t.Errorf("next item = %s seq %d, want ALP-3 seq 3 (ALP-2 is taken)", next.ID, next.Sequence)
	}
}

func testCreateDuplicateID(t *testing.T, open func(t *testing.T) baton.Store) {
	for _, tc := range []struct{ name, project, id string }{
		{"assigned id, same project", "alpha", "ALP-1"},
		{"assigned id, other project", "beta", "ALP-1"},
		{"custom id, same project", "alpha", "design-doc"},
		{"custom id, other project", "beta", "design-doc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, open)
			e.project("alpha", "ALP")
			e.project("beta", "BET")
			first := newItem("alpha", "first")
			if tc.id != "ALP-1" {
				first.ID = tc.id
			}
			e.create(first)
			dup := newItem(tc.project, "duplicate")
			dup.ID = tc.id
			be := wantCode(t, e.tryCreate(dup), baton.ErrConflict)
			if be.Type != "duplicate" {
				t.Errorf("error type = %q, want duplicate", be.Type)
			}
			if got := e.get(first.ID); got.Title != "first" || got.Project != "alpha" {
				t.Errorf("the original item changed: %q in %s", got.Title, got.Project)
			}
		})
	}
}

func testCreateUnknownProject(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	wantCode(t, e.tryCreate(newItem("nope", "lost")), baton.ErrProjectNotFound)
	if n := e.list(baton.ItemFilter{}).Total; n != 0 {
		t.Errorf("%d items stored after the failure, want 0", n)
	}
}

func testCreateUnknownParent(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	child := newItem("alpha", "orphan")
	child.ParentID = "ALP-99"
	wantCode(t, e.tryCreate(child), baton.ErrTaskNotFound)
	if n := e.list(baton.ItemFilter{}).Total; n != 0 {
		t.Errorf("%d items stored after the failure, want 0", n)
	}
}

// testUpdateChecksParent: UpdateItem applies the rules CreateItem does to
// a new parent: it exists, is not the item itself, and is in its project.
func testUpdateChecksParent(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	e.project("beta", "BET")
	it := e.create(newItem("alpha", "child"))
	other := e.create(newItem("beta", "elsewhere"))
	for _, tc := range []struct{ parent, code string }{
		{"ALP-99", baton.ErrTaskNotFound},
		{it.ID, baton.ErrInvalidInput},
		{other.ID, baton.ErrInvalidInput},
	} {
		changed := cloneItem(it)
		changed.ParentID = tc.parent
		wantCode(t, e.tryUpdate(func(tx baton.Tx) error { return tx.UpdateItem(e.ctx, changed) }), tc.code)
		if got := e.get(it.ID); got.ParentID != "" {
			t.Errorf("parent %s: stored parent = %q after the failure, want none", tc.parent, got.ParentID)
		}
	}
}

// testCreateParentOtherProject: a sub-task must live in its parent's
// project (docs/decisions.md).
func testCreateParentOtherProject(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	e.project("beta", "BET")
	parent := e.create(newItem("alpha", "parent"))
	child := newItem("beta", "stray child")
	child.ParentID = parent.ID
	be := wantCode(t, e.tryCreate(child), baton.ErrInvalidInput)
	if be.Details["field"] != "parent_id" {
		t.Errorf("Details[field] = %v, want parent_id", be.Details["field"])
	}
	if n := e.list(baton.ItemFilter{Project: "beta"}).Total; n != 0 {
		t.Errorf("%d items stored in beta after the failure, want 0", n)
	}
	if kids := e.children(parent.ID); len(kids) != 0 {
		t.Errorf("Children(%s) = %q, want none", parent.ID, kids)
	}
}

func testCreateRoundTrip(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	parent := e.create(newItem("alpha", "parent"))
	it := &baton.Item{
		Project: "alpha", Title: "Fix the login bug", Description: "Users cannot log in.\nSecond line — ünïcödé.",
		Kind: baton.KindBug, Status: baton.StatusBlocked, Priority: baton.PriorityHigh,
		Labels: []string{"backend", "auth"}, Assignee: "agent-bob", ParentID: parent.ID, Progress: 40,
		EstimateHours: hours(2.5), BlockedReason: "waiting for review", CreatedBy: "agent-alice", UpdatedBy: "agent-carol",
		CreatedAt: at(1), UpdatedAt: at(2),
	}
	want := cloneItem(it)
	want.ID, want.Sequence = "ALP-2", 2
	e.create(it)
	checkItem(t, want, it)
	checkItem(t, want, e.get("ALP-2"))
}

func testCreateLabels(t *testing.T, open func(t *testing.T) baton.Store) {
	for _, tc := range []struct {
		name     string
		in, want []string
	}{
		{"nil", nil, []string{}},
		{"empty", []string{}, []string{}},
		{"one", []string{"docs"}, []string{"docs"}},
		{"order kept", []string{"zeta", "alpha", "mid"}, []string{"zeta", "alpha", "mid"}},
		{"duplicates dropped", []string{"b", "a", "b", "c", "a"}, []string{"b", "a", "c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, open)
			e.project("alpha", "ALP")
			it := newItem("alpha", "labelled")
			it.Labels = tc.in
			e.create(it)
			if got := e.get(it.ID).Labels; !eqStrings(got, tc.want) {
				t.Errorf("Labels = %q, want %q", got, tc.want)
			}
		})
	}
}

func testCreateEstimateHours(t *testing.T, open func(t *testing.T) baton.Store) {
	for _, tc := range []struct {
		name string
		in   *float64
	}{
		{"nil", nil},
		{"zero", hours(0)},
		{"fraction", hours(2.75)},
		{"large", hours(1234.5)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, open)
			e.project("alpha", "ALP")
			it := newItem("alpha", "estimated")
			it.EstimateHours = tc.in
			e.create(it)
			got := e.get(it.ID).EstimateHours
			switch {
			case tc.in == nil && got != nil:
				t.Errorf("EstimateHours = %v, want nil", *got)
			case tc.in != nil && got == nil:
				t.Errorf("EstimateHours = nil, want %v", *tc.in)
			case tc.in != nil && *got != *tc.in:
				t.Errorf("EstimateHours = %v, want %v", *got, *tc.in)
			}
		})
	}
}

func testCreateTimestamps(t *testing.T, open func(t *testing.T) baton.Store) {
	zone := time.FixedZone("UTC-7", -7*3600)
	for _, tc := range []struct {
		name                 string
		created, updated     time.Time
		wantCreated, wantUpd time.Time
	}{
		{"UTC milliseconds", at(0).Add(123 * time.Millisecond), at(5).Add(456 * time.Millisecond),
			at(0).Add(123 * time.Millisecond), at(5).Add(456 * time.Millisecond)},
		{"sub-millisecond digits are dropped", at(0).Add(123456789), at(1).Add(999999999),
			at(0).Add(123 * time.Millisecond), at(1).Add(999 * time.Millisecond)},
		{"other zones come back in UTC", time.Date(2025, 6, 1, 1, 2, 3, 4_000_000, zone), time.Date(2025, 6, 1, 23, 0, 0, 0, zone),
			time.Date(2025, 6, 1, 8, 2, 3, 4_000_000, time.UTC), time.Date(2025, 6, 2, 6, 0, 0, 0, time.UTC)},
		{"zero UpdatedAt becomes CreatedAt", at(3).Add(7 * time.Millisecond), time.Time{},
			at(3).Add(7 * time.Millisecond), at(3).Add(7 * time.Millisecond)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, open)
			e.project("alpha", "ALP")
			it := newItem("alpha", "timed")
			it.CreatedAt, it.UpdatedAt = tc.created, tc.updated
			e.create(it)
			got := e.get(it.ID)
			if !got.CreatedAt.Equal(tc.wantCreated) || got.CreatedAt.Location() != time.UTC {
				t.Errorf("CreatedAt = %v, want %v", got.CreatedAt, tc.wantCreated)
			}
			if !got.UpdatedAt.Equal(tc.wantUpd) || got.UpdatedAt.Location() != time.UTC {
				t.Errorf("UpdatedAt = %v, want %v", got.UpdatedAt, tc.wantUpd)
			}
		})
	}
}

func testCreateDefaults(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	it := &baton.Item{Project: "alpha", Title: "bare", Status: baton.StatusTodo, Priority: baton.PriorityLow, CreatedBy: "agent-alice"}
	e.create(it)
	got := e.get(it.ID)
	if got.CreatedAt.IsZero() || got.CreatedAt.Location() != time.UTC {
		t.Errorf("a zero CreatedAt must become the creation time in UTC; got %v", got.CreatedAt)
	}
	if !got.UpdatedAt.Equal(got.CreatedAt) {
		t.Errorf("a zero UpdatedAt must equal CreatedAt; got %v and %v", got.UpdatedAt, got.CreatedAt)
	}
	if !ms(it.CreatedAt).Equal(got.CreatedAt) {
		t.Errorf("CreateItem set CreatedAt %v on its argument but stored %v", it.CreatedAt, got.CreatedAt)
	}
	if got.CreatedBy != "agent-alice" || got.UpdatedBy != "agent-alice" {
		t.Errorf("CreatedBy/UpdatedBy = %q/%q, want agent-alice twice (UpdatedBy defaults to CreatedBy)", got.CreatedBy, got.UpdatedBy)
	}
	if got.Kind != baton.KindTask {
		t.Errorf("Kind = %q, want the default %q", got.Kind, baton.KindTask)
	}
	if got.Assignee != "" || got.ParentID != "" || got.EstimateHours != nil || len(got.Labels) != 0 {
		t.Errorf("unset fields came back set: %+v", got)
	}
}

// ---- Item and UpdateItem ----

func testItemUnknown(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	e.create(newItem("alpha", "one"))
	for _, id := range []string{"ALP-2", "alp-1", "", "nope"} {
		err := e.s.View(e.ctx, func(tx baton.Tx) error {
			_, err := tx.Item(e.ctx, id)
			return err
		})
		wantCode(t, err, baton.ErrTaskNotFound)
	}
}

func testUpdateReplaces(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	parent := e.create(newItem("alpha", "parent"))
	orig := newItem("alpha", "Original")
	orig.Description, orig.Labels, orig.CreatedAt = "old text", []string{"a", "b"}, at(1)
	e.create(orig)

	it := e.get(orig.ID)
	it.Title, it.Description = "Renamed", "new text"
	it.Kind, it.Status, it.Priority = baton.KindFeature, baton.StatusInProgress, baton.PriorityCritical
	it.Labels = []string{"c", "a"}
	it.Assignee, it.ParentID, it.Progress = "agent-bob", parent.ID, 75
	it.EstimateHours, it.BlockedReason = hours(8), "none really"
	it.UpdatedBy, it.UpdatedAt = "agent-bob", at(30).Add(250*time.Millisecond)
	e.put(it)

	want := cloneItem(it)
	want.ID, want.Project, want.Sequence = orig.ID, "alpha", orig.Sequence
	want.CreatedBy, want.CreatedAt = "agent-alice", at(1)
	checkItem(t, want, e.get(orig.ID))
	if kids := e.children(parent.ID); !slices.Equal(kids, []string{orig.ID}) {
		t.Errorf("Children(%s) = %q after reparenting, want [%s]", parent.ID, kids, orig.ID)
	}
}

func testUpdateLabels(t *testing.T, open func(t *testing.T) baton.Store) {
	for _, tc := range []struct {
		name     string
		in, want []string
	}{
		{"to nil", nil, []string{}},
		{"to empty", []string{}, []string{}},
		{"replaced", []string{"x"}, []string{"x"}},
		{"reordered", []string{"c", "b", "a"}, []string{"c", "b", "a"}},
		{"duplicates dropped", []string{"c", "a", "c", "a"}, []string{"c", "a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, open)
			e.project("alpha", "ALP")
			it := newItem("alpha", "labelled")
			it.Labels = []string{"a", "b", "c"}
			e.create(it)
			it.Labels = tc.in
			e.put(it)
			if got := e.get(it.ID).Labels; !eqStrings(got, tc.want) {
				t.Errorf("Labels = %q, want %q", got, tc.want)
			}
			if n := e.list(baton.ItemFilter{Label: "b"}).Total; (n == 1) != slices.Contains(tc.want, "b") {
				t.Errorf("ListItems(label b) counts %d items, want it to follow the new labels %q", n, tc.want)
			}
		})
	}
}

func testUpdateClears(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	parent := e.create(newItem("alpha", "parent"))
	it := newItem("alpha", "full")
	it.Description, it.Assignee, it.ParentID = "text", "agent-bob", parent.ID
	it.EstimateHours, it.BlockedReason, it.Progress = hours(3), "reason", 10
	e.create(it)

	it = e.get(it.ID)
	it.Description, it.Assignee, it.ParentID, it.EstimateHours, it.BlockedReason, it.Progress = "", "", "", nil, "", 0
	e.put(it)
	got := e.get(it.ID)
	if got.Description != "" || got.Assignee != "" || got.ParentID != "" || got.EstimateHours != nil || got.BlockedReason != "" || got.Progress != 0 {
		t.Errorf("UpdateItem did not clear the optional fields: %+v", got)
	}
	if kids := e.children(parent.ID); len(kids) != 0 {
		t.Errorf("Children(%s) = %q after clearing the parent, want none", parent.ID, kids)
	}
}

func testUpdateUnknown(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	it := newItem("alpha", "ghost")
	it.ID = "ALP-1"
	err := e.tryUpdate(func(tx baton.Tx) error { return tx.UpdateItem(e.ctx, it) })
	wantCode(t, err, baton.ErrTaskNotFound)
	if e.exists("ALP-1") {
		t.Error("UpdateItem of an unknown id created it")
	}
}

// ---- ListItems ----

// listFixture stores seven items whose ids (A-1..A-5, B-1, B-2) follow
// creation order; created and updated are minutes after base.
//
//	id   status       prio assignee labels          progress created updated
//	A-1  todo         1    alice    backend,auth    0        1       40
//	A-2  in_progress  3    bob      docs            50       2       30
//	A-3  done         2    -        backend         100      3       10
//	A-4  blocked      0    -        -               20       4       50
//	A-5  todo         1    carol    auth,backend    50       5       20
//	B-1  todo         2    alice    auth            10       6       60
//	B-2  review       4    -        docs            0        7       25
func listFixture(t *testing.T, open func(t *testing.T) baton.Store) *env {
	t.Helper()
	e := newEnv(t, open)
	e.project("alpha", "A")
	e.project("beta", "B")
	for i, r := range []struct {
		project  string
		status   baton.Status
		prio     baton.Priority
		assignee string
		labels   []string
		progress int
		created  int
		updated  int
	}{
		{"alpha", baton.StatusTodo, 1, "alice", []string{"backend", "auth"}, 0, 1, 40},
		{"alpha", baton.StatusInProgress, 3, "bob", []string{"docs"}, 50, 2, 30},
		{"alpha", baton.StatusDone, 2, "", []string{"backend"}, 100, 3, 10},
		{"alpha", baton.StatusBlocked, 0, "", nil, 20, 4, 50},
		{"alpha", baton.StatusTodo, 1, "carol", []string{"auth", "backend"}, 50, 5, 20},
		{"beta", baton.StatusTodo, 2, "alice", []string{"auth"}, 10, 6, 60},
		{"beta", baton.StatusReview, 4, "", []string{"docs"}, 0, 7, 25},
	} {
		it := newItem(r.project, fmt.Sprintf("item %d", i))
		it.Status, it.Priority, it.Assignee, it.Labels, it.Progress = r.status, r.prio, r.assignee, r.labels, r.progress
		it.CreatedAt, it.UpdatedAt = at(r.created), at(r.updated)
		e.create(it)
	}
	return e
}

var allListed = []string{"A-1", "A-2", "A-3", "A-4", "A-5", "B-1", "B-2"}

func testListFilters(t *testing.T, open func(t *testing.T) baton.Store) {
	plus5 := time.FixedZone("UTC+5", 5*3600)
	for _, tc := range []struct {
		name string
		f    baton.ItemFilter
		want []string
	}{
		{"none", baton.ItemFilter{}, allListed},
		{"project alpha", baton.ItemFilter{Project: "alpha"}, []string{"A-1", "A-2", "A-3", "A-4", "A-5"}},
		{"project beta", baton.ItemFilter{Project: "beta"}, []string{"B-1", "B-2"}},
		{"unknown project", baton.ItemFilter{Project: "gamma"}, nil},
		{"one status", baton.ItemFilter{Statuses: []baton.Status{baton.StatusTodo}}, []string{"A-1", "A-5", "B-1"}},
		{"two statuses", baton.ItemFilter{Statuses: []baton.Status{baton.StatusBlocked, baton.StatusTodo}}, []string{"A-1", "A-4", "A-5", "B-1"}},
		{"status nobody has", baton.ItemFilter{Statuses: []baton.Status{baton.StatusCancelled}}, nil},
		{"priority critical (zero)", baton.ItemFilter{Priorities: []baton.Priority{baton.PriorityCritical}}, []string{"A-4"}},
		{"two priorities", baton.ItemFilter{Priorities: []baton.Priority{2, 1}}, []string{"A-1", "A-3", "A-5", "B-1"}},
		{"assignee", baton.ItemFilter{Assignee: ptr("alice")}, []string{"A-1", "B-1"}},
		{"unassigned", baton.ItemFilter{Assignee: ptr("")}, []string{"A-3", "A-4", "B-2"}},
		{"assignee nobody is", baton.ItemFilter{Assignee: ptr("dave")}, nil},
		{"label backend", baton.ItemFilter{Label: "backend"}, []string{"A-1", "A-3", "A-5"}},
		{"label auth", baton.ItemFilter{Label: "auth"}, []string{"A-1", "A-5", "B-1"}},
		{"label nobody has", baton.ItemFilter{Label: "frontend"}, nil},
		{"created after is exclusive", baton.ItemFilter{CreatedAfter: ptr(at(3))}, []string{"A-4", "A-5", "B-1", "B-2"}},
		{"created before is exclusive", baton.ItemFilter{CreatedBefore: ptr(at(3))}, []string{"A-1", "A-2"}},
		{"created between", baton.ItemFilter{CreatedAfter: ptr(at(2)), CreatedBefore: ptr(at(5))}, []string{"A-3", "A-4"}},
		{"created bounds in another zone", baton.ItemFilter{CreatedAfter: ptr(at(2).In(plus5)), CreatedBefore: ptr(at(5).In(plus5))}, []string{"A-3", "A-4"}},
		{"created after everything", baton.ItemFilter{CreatedAfter: ptr(at(7))}, nil},
		{"empty time window", baton.ItemFilter{CreatedAfter: ptr(at(3)), CreatedBefore: ptr(at(4))}, nil},
		{"project, status and label", baton.ItemFilter{Project: "alpha", Statuses: []baton.Status{baton.StatusTodo}, Label: "auth"}, []string{"A-1", "A-5"}},
		{"project and assignee", baton.ItemFilter{Project: "beta", Assignee: ptr("alice")}, []string{"B-1"}},
		{"unassigned in alpha before minute 4", baton.ItemFilter{Project: "alpha", Assignee: ptr(""), CreatedBefore: ptr(at(4))}, []string{"A-3"}},
		{"priority and status", baton.ItemFilter{Priorities: []baton.Priority{1}, Statuses: []baton.Status{baton.StatusTodo}, Label: "auth"}, []string{"A-1", "A-5"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := listFixture(t, open)
			f := tc.f
			f.Sort = baton.SortCreated
			page := e.list(f)
			if got := ids(page.Items); !eqStrings(got, tc.want) {
				t.Errorf("ListItems = %q, want %q", got, tc.want)
			}
			if page.Total != len(tc.want) {
				t.Errorf("Total = %d, want %d", page.Total, len(tc.want))
			}
			if page.Items == nil {
				t.Error("Items is nil, want a non-nil slice")
			}
		})
	}
}

func reversed(s []string) []string {
	c := slices.Clone(s)
	slices.Reverse(c)
	return c
}

// sortCases are the fixture's full orders per key, ascending. Priority
// sorts by urgency: ascending ends with critical (0); Descending starts
// with it. Ties follow creation order, and Descending reverses the whole
// order, ties included.
var sortCases = []struct {
	key baton.ItemSort
	asc []string
}{
	{baton.SortCreated, []string{"A-1", "A-2", "A-3", "A-4", "A-5", "B-1", "B-2"}},
	{baton.SortUpdated, []string{"A-3", "A-5", "B-2", "A-2", "A-1", "A-4", "B-1"}},
	{baton.SortPriority, []string{"B-2", "A-2", "A-3", "B-1", "A-1", "A-5", "A-4"}},
	{baton.SortProgress, []string{"A-1", "B-2", "B-1", "A-4", "A-2", "A-5", "A-3"}},
}

func testListSort(t *testing.T, open func(t *testing.T) baton.Store) {
	for _, tc := range sortCases {
		for _, desc := range []bool{false, true} {
			want, dir := tc.asc, "asc"
			if desc {
				want, dir = reversed(tc.asc), "desc"
			}
			t.Run(string(tc.key)+"/"+dir, func(t *testing.T) {
				e := listFixture(t, open)
				page := e.list(baton.ItemFilter{Sort: tc.key, Descending: desc})
				if got := ids(page.Items); !slices.Equal(got, want) {
					t.Errorf("ListItems(sort %s %s) = %q, want %q", tc.key, dir, got, want)
				}
			})
		}
	}
	t.Run("priority/desc puts critical first", func(t *testing.T) {
		e := listFixture(t, open)
		page := e.list(baton.ItemFilter{Sort: baton.SortPriority, Descending: true})
		var prios []baton.Priority
		for _, it := range page.Items {
			prios = append(prios, it.Priority)
		}
		if want := []baton.Priority{0, 1, 1, 2, 2, 3, 4}; !slices.Equal(prios, want) {
			t.Errorf("priorities = %v, want %v", prios, want)
		}
	})
}

func testListPagination(t *testing.T, open func(t *testing.T) baton.Store) {
	for _, tc := range []struct {
		name      string
		f         baton.ItemFilter
		want      []string
		wantTotal int
	}{
		{"first page", baton.ItemFilter{Limit: 3}, []string{"A-1", "A-2", "A-3"}, 7},
		{"second page", baton.ItemFilter{Limit: 3, Offset: 3}, []string{"A-4", "A-5", "B-1"}, 7},
		{"last partial page", baton.ItemFilter{Limit: 3, Offset: 6}, []string{"B-2"}, 7},
		{"past the end", baton.ItemFilter{Limit: 3, Offset: 7}, nil, 7},
		{"far past the end", baton.ItemFilter{Limit: 3, Offset: 100}, nil, 7},
		{"limit 0 means no limit", baton.ItemFilter{}, allListed, 7},
		{"offset without limit", baton.ItemFilter{Offset: 5}, []string{"B-1", "B-2"}, 7},
		{"limit larger than matches", baton.ItemFilter{Limit: 100}, allListed, 7},
		{"limit 1", baton.ItemFilter{Limit: 1, Offset: 1}, []string{"A-2"}, 7},
		{"filtered page", baton.ItemFilter{Project: "alpha", Limit: 2, Offset: 2}, []string{"A-3", "A-4"}, 5},
		{"filtered first page", baton.ItemFilter{Statuses: []baton.Status{baton.StatusTodo}, Limit: 1}, []string{"A-1"}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := listFixture(t, open)
			f := tc.f
			f.Sort = baton.SortCreated
			page := e.list(f)
			if got := ids(page.Items); !eqStrings(got, tc.want) {
				t.Errorf("ListItems = %q, want %q", got, tc.want)
			}
			if page.Total != tc.wantTotal {
				t.Errorf("Total = %d, want %d", page.Total, tc.wantTotal)
			}
			if page.Items == nil {
				t.Error("Items is nil, want a non-nil slice")
			}
		})
	}
}

// testListStablePages pages through every sort with ties (priority and
// progress have them) and checks the pages add up to the full list.
func testListStablePages(t *testing.T, open func(t *testing.T) baton.Store) {
	e := listFixture(t, open)
	// Equal keys everywhere: only the tie-break orders these.
	for i := range 6 {
		it := newItem("beta", fmt.Sprintf("tie %d", i))
		it.CreatedAt, it.UpdatedAt = at(10), at(10)
		e.create(it)
	}
	for _, tc := range sortCases {
		for _, desc := range []bool{false, true} {
			full := e.list(baton.ItemFilter{Sort: tc.key, Descending: desc})
			for _, size := range []int{1, 2, 3, 5} {
				var paged []string
				for off := 0; off < full.Total+size; off += size {
					page := e.list(baton.ItemFilter{Sort: tc.key, Descending: desc, Limit: size, Offset: off})
					if page.Total != full.Total {
						t.Errorf("sort %s desc=%v offset %d: Total = %d, want %d", tc.key, desc, off, page.Total, full.Total)
					}
					paged = append(paged, ids(page.Items)...)
				}
				if want := ids(full.Items); !slices.Equal(paged, want) {
					t.Errorf("sort %s desc=%v pages of %d = %q, want %q", tc.key, desc, size, paged, want)
				}
			}
		}
	}
	// The ties among themselves follow creation order ascending and its
	// reverse descending, for every key.
	ties := []string{"B-3", "B-4", "B-5", "B-6", "B-7", "B-8"}
	for _, tc := range sortCases {
		for _, desc := range []bool{false, true} {
			page := e.list(baton.ItemFilter{Sort: tc.key, Descending: desc, CreatedAfter: ptr(at(9))})
			want := ties
			if desc {
				want = reversed(ties)
			}
			if got := ids(page.Items); !slices.Equal(got, want) {
				t.Errorf("sort %s desc=%v orders equal items %q, want %q", tc.key, desc, got, want)
			}
		}
	}
}

func testListEmpty(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	for _, f := range []baton.ItemFilter{{}, {Project: "nope"}, {Search: "anything"}, {Limit: 5, Offset: 5}} {
		page := e.list(f)
		if page.Items == nil || len(page.Items) != 0 || page.Total != 0 {
			t.Errorf("ListItems(%+v) on an empty store = %#v, want a non-nil empty page with Total 0", f, page)
		}
	}
}

func testListWholeItems(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	parent := e.create(newItem("alpha", "parent"))
	it := &baton.Item{
		Project: "alpha", Title: "full", Description: "every field", Kind: baton.KindEpic,
		Status: baton.StatusReview, Priority: baton.PriorityLow, Labels: []string{"z", "a", "m"},
		Assignee: "agent-bob", ParentID: parent.ID, Progress: 90, EstimateHours: hours(1.5),
		BlockedReason: "", CreatedBy: "agent-alice", UpdatedBy: "agent-bob", CreatedAt: at(1), UpdatedAt: at(2),
	}
	e.create(it)
	page := e.list(baton.ItemFilter{Statuses: []baton.Status{baton.StatusReview}})
	if len(page.Items) != 1 {
		t.Fatalf("ListItems = %q, want [%s]", ids(page.Items), it.ID)
	}
	checkItem(t, it, page.Items[0])
}

// ---- Search ----

// searchFixture stores:
//
//	S-1 "Wiring the HTTP server" / "Connects the running pipeline to the router."
//	S-2 "Runs nightly backups"   / "Copies the database to cold storage."
//	S-3 "Database migration"     / "Move the schema; check the wiring of triggers."
//	S-4 "Unrelated chore"        / "Nothing to see here."
func searchFixture(t *testing.T, open func(t *testing.T) baton.Store) *env {
	t.Helper()
	e := newEnv(t, open)
	e.project("search", "S")
	for i, td := range [][2]string{
		{"Wiring the HTTP server", "Connects the running pipeline to the router."},
		{"Runs nightly backups", "Copies the database to cold storage."},
		{"Database migration", "Move the schema; check the wiring of triggers."},
		{"Unrelated chore", "Nothing to see here."},
	} {
		it := newItem("search", td[0])
		it.Description, it.CreatedAt = td[1], at(i)
		e.create(it)
	}
	return e
}

func testSearchQueries(t *testing.T, open func(t *testing.T) baton.Store) {
	for _, tc := range []struct {
		name, search string
		want         []string
	}{
		{"word in title", "server", []string{"S-1"}},
		{"word in description", "router", []string{"S-1"}},
		{"title or description", "database", []string{"S-2", "S-3"}},
		{"prefix", "wir", []string{"S-1", "S-3"}},
		{"one-letter prefix", "w", []string{"S-1", "S-3"}},
		{"whole word", "wiring", []string{"S-1", "S-3"}},
		{"prefix shorter than the stem", "ru", []string{"S-1", "S-2"}},
		{"prefix longer than the stem: wiri", "wiri", []string{"S-1", "S-3"}},
		{"prefix longer than the stem: runn", "runn", []string{"S-1"}},
		{"prefix longer than the stem: runnin", "runnin", []string{"S-1"}},
		{"prefix of a description word", "pipel", []string{"S-1"}},
		{"stemming: runs finds running", "runs", []string{"S-1", "S-2"}},
		{"stemming: running finds runs", "running", []string{"S-1", "S-2"}},
		{"stemming: migrations finds migration", "migrations", []string{"S-3"}},
		{"upper case", "WIRING", []string{"S-1", "S-3"}},
		{"mixed case", "DaTaBaSe", []string{"S-2", "S-3"}},
		{"every word must match", "wiring database", []string{"S-3"}},
		{"words across title and description", "database wiring", []string{"S-3"}},
		{"every prefix must match", "wir data", []string{"S-3"}},
		{"one word matches nothing", "wiring nightly", nil},
		{"extra whitespace", "  wiring \t server  ", []string{"S-1"}},
		{"no match", "kubernetes", nil},
		// Operators and malformed queries: see search.go (issue 12, point 16).
		{"OR is an operator", "wiring OR nightly", []string{"S-1", "S-2", "S-3"}},
		{"NOT excludes", "wiring NOT database", []string{"S-1"}},
		{"NEAR needs both words in one field", "NEAR(wiring database)", nil},
		{"a quoted word is that word", `"wiring"`, []string{"S-1", "S-3"}},
		{"single quotes are ignored", `'wiring'`, []string{"S-1", "S-3"}},
		{"star marks a prefix", "wir*", []string{"S-1", "S-3"}},
		{"trailing punctuation", "server!", []string{"S-1"}},
		{"parentheses", "(router)", []string{"S-1"}},
		{"column syntax is not special", "title:wiring", nil},
		{"lone dash is ignored", "wiring -", []string{"S-1", "S-3"}},
		{"leading dash is ignored", "-server", []string{"S-1"}},
		{"caret is ignored", "^server", []string{"S-1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := searchFixture(t, open)
			var page baton.ItemPage
			err := e.s.View(e.ctx, func(tx baton.Tx) (err error) {
				page, err = tx.ListItems(e.ctx, baton.ItemFilter{Search: tc.search, Sort: baton.SortCreated})
				return err
			})
			if err != nil {
				t.Fatalf("ListItems(search %q): %v", tc.search, err)
			}
			if got := ids(page.Items); !eqStrings(got, tc.want) {
				t.Errorf("search %q = %q, want %q", tc.search, got, tc.want)
			}
			if page.Total != len(tc.want) {
				t.Errorf("search %q: Total = %d, want %d", tc.search, page.Total, len(tc.want))
			}
			if page.Items == nil {
				t.Error("Items is nil, want a non-nil slice")
			}
		})
	}
}

func testSearchWithFilters(t *testing.T, open func(t *testing.T) baton.Store) {
	fixture := func(t *testing.T) *env {
		e := searchFixture(t, open)
		e.project("other", "O")
		other := newItem("other", "Wiring elsewhere")
		other.Status, other.CreatedAt = baton.StatusDone, at(10)
		e.create(other)
		s3 := e.get("S-3")
		s3.Status = baton.StatusInProgress
		e.put(s3)
		return e
	}
	for _, tc := range []struct {
		name      string
		f         baton.ItemFilter
		want      []string
		wantTotal int
	}{
		{"all projects", baton.ItemFilter{Search: "wiring"}, []string{"S-1", "S-3", "O-1"}, 3},
		{"one project", baton.ItemFilter{Search: "wiring", Project: "search"}, []string{"S-1", "S-3"}, 2},
		{"status", baton.ItemFilter{Search: "wiring", Statuses: []baton.Status{baton.StatusTodo}}, []string{"S-1"}, 1},
		{"paged", baton.ItemFilter{Search: "wiring", Limit: 1, Offset: 1}, []string{"S-3"}, 3},
		{"created after", baton.ItemFilter{Search: "wir", CreatedAfter: ptr(at(1))}, []string{"S-3", "O-1"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := fixture(t)
			f := tc.f
			f.Sort = baton.SortCreated
			page := e.list(f)
			if got := ids(page.Items); !slices.Equal(got, tc.want) {
				t.Errorf("ListItems = %q, want %q", got, tc.want)
			}
			if page.Total != tc.wantTotal {
				t.Errorf("Total = %d, want %d", page.Total, tc.wantTotal)
			}
		})
	}
}

func testSearchFollowsUpdates(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	it := newItem("alpha", "Alpha tree")
	it.Description = "bright leaves"
	e.create(it)
	e.create(newItem("alpha", "bystander"))
	search := func(q string) []string {
		t.Helper()
		return ids(e.list(baton.ItemFilter{Search: q}).Items)
	}
	if got := search("bright"); !slices.Equal(got, []string{"ALP-1"}) {
		t.Fatalf("search bright before the update = %q, want [ALP-1]", got)
	}
	it = e.get(it.ID)
	it.Title, it.Description = "Omega tree", "dark roots"
	e.put(it)
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"alpha", nil}, {"bright", nil}, {"leaves", nil},
		{"omega", []string{"ALP-1"}}, {"dark roots", []string{"ALP-1"}}, {"tree", []string{"ALP-1"}},
	} {
		if got := search(tc.q); !eqStrings(got, tc.want) {
			t.Errorf("search %q after the update = %q, want %q", tc.q, got, tc.want)
		}
	}
	// Changing other fields keeps the item findable.
	it = e.get(it.ID)
	it.Status, it.Progress = baton.StatusInProgress, 30
	e.put(it)
	if got := search("omega"); !slices.Equal(got, []string{"ALP-1"}) {
		t.Errorf("search omega after a status change = %q, want [ALP-1]", got)
	}
}

// ---- Children ----

func testChildrenOrder(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	parent := e.create(newItem("alpha", "parent"))
	other := e.create(newItem("alpha", "other parent"))
	// Custom ids so that creation order is not alphabetical order.
	var want []string
	for _, id := range []string{"c-zeta", "c-alpha", "c-mid"} {
		it := newItem("alpha", id)
		it.ID, it.ParentID = id, parent.ID
		e.create(it)
		want = append(want, id)
	}
	auto := newItem("alpha", "auto id")
	auto.ParentID = parent.ID
	e.create(auto)
	want = append(want, auto.ID)
	grandchild := newItem("alpha", "grandchild")
	grandchild.ParentID = "c-alpha"
	e.create(grandchild)
	cousin := newItem("alpha", "cousin")
	cousin.ParentID = other.ID
	e.create(cousin)

	if got := e.children(parent.ID); !slices.Equal(got, want) {
		t.Errorf("Children(%s) = %q, want %q", parent.ID, got, want)
	}
	if got := e.children("c-alpha"); !slices.Equal(got, []string{grandchild.ID}) {
		t.Errorf("Children(c-alpha) = %q, want [%s]", got, grandchild.ID)
	}
	if got := e.children("c-zeta"); len(got) != 0 {
		t.Errorf("Children of a childless item = %q, want none", got)
	}
	if got := e.get(grandchild.ID).ParentID; got != "c-alpha" {
		t.Errorf("ParentID = %q, want c-alpha", got)
	}
}

func testChildrenReparent(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	p1 := e.create(newItem("alpha", "p1"))
	p2 := e.create(newItem("alpha", "p2"))
	c := newItem("alpha", "child")
	c.ParentID = p1.ID
	e.create(c)
	c = e.get(c.ID)
	c.ParentID = p2.ID
	e.put(c)
	if got := e.children(p1.ID); len(got) != 0 {
		t.Errorf("Children(old parent) = %q, want none", got)
	}
	if got := e.children(p2.ID); !slices.Equal(got, []string{c.ID}) {
		t.Errorf("Children(new parent) = %q, want [%s]", got, c.ID)
	}
}

// ---- Dependencies ----

func testDepsAddAndList(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	e.project("beta", "BET")
	for range 3 {
		e.create(newItem("alpha", "x"))
	}
	e.create(newItem("beta", "y"))
	e.update(func(tx baton.Tx) error {
		for _, d := range [][2]string{{"ALP-1", "ALP-3"}, {"ALP-1", "ALP-2"}, {"ALP-1", "BET-1"}, {"ALP-2", "ALP-3"}} {
			if err := tx.AddDependency(e.ctx, d[0], d[1]); err != nil {
				return err
			}
		}
		return nil
	})
	for _, tc := range []struct {
		id   string
		want []string
	}{
		{"ALP-1", []string{"ALP-2", "ALP-3", "BET-1"}},
		{"ALP-2", []string{"ALP-3"}},
		{"ALP-3", nil},
		{"BET-1", nil},
	} {
		got := e.deps(tc.id)
		if !eqStrings(sorted(got), sorted(tc.want)) {
			t.Errorf("Dependencies(%s) = %q, want %q in any order", tc.id, got, tc.want)
		}
	}
	// The other way round, in byte order.
	for id, want := range map[string][]string{"ALP-3": {"ALP-1", "ALP-2"}, "BET-1": {"ALP-1"}, "ALP-1": nil} {
		var got []string
		e.view(func(tx baton.Tx) (err error) { got, err = tx.Dependents(e.ctx, id); return err })
		if !eqStrings(got, want) {
			t.Errorf("Dependents(%s) = %q, want %q", id, got, want)
		}
	}
}

func testDepsDuplicate(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	e.create(newItem("alpha", "a"))
	e.create(newItem("alpha", "b"))
	add := func(tx baton.Tx) error { return tx.AddDependency(e.ctx, "ALP-1", "ALP-2") }
	e.update(add)
	e.update(add)
	e.update(func(tx baton.Tx) error {
		if err := add(tx); err != nil {
			return err
		}
		return add(tx)
	})
	if got := e.deps("ALP-1"); !slices.Equal(got, []string{"ALP-2"}) {
		t.Errorf("Dependencies(ALP-1) = %q, want [ALP-2] once", got)
	}
}

func testDepsUnknown(t *testing.T, open func(t *testing.T) baton.Store) {
	for _, tc := range []struct{ name, id, dependsOn string }{
		{"unknown item", "ALP-9", "ALP-1"},
		{"unknown dependency", "ALP-1", "ALP-9"},
		{"both unknown", "ALP-8", "ALP-9"},
		{"unknown self", "ALP-9", "ALP-9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, open)
			e.project("alpha", "ALP")
			e.create(newItem("alpha", "a"))
			err := e.tryUpdate(func(tx baton.Tx) error { return tx.AddDependency(e.ctx, tc.id, tc.dependsOn) })
			wantCode(t, err, baton.ErrTaskNotFound)
			if got := e.deps("ALP-1"); len(got) != 0 {
				t.Errorf("Dependencies(ALP-1) = %q after the failure, want none", got)
			}
		})
	}
}

// asStrings reads a []string detail, whichever slice type a backend used.
func asStrings(v any) ([]string, bool) {
	switch v := v.(type) {
	case []string:
		return v, true
	case []any:
		out := make([]string, len(v))
		for i, x := range v {
			s, ok := x.(string)
			if !ok {
				return nil, false
			}
			out[i] = s
		}
		return out, true
	}
	return nil, false
}

func testDepsCycles(t *testing.T, open func(t *testing.T) baton.Store) {
	for _, tc := range []struct {
		name      string
		edges     [][2]string // added first, one transaction each
		id, on    string      // the edge that closes the cycle
		wantCycle []string
	}{
		{"self", nil, "a", "a", []string{"a", "a"}},
		{"two", [][2]string{{"a", "b"}}, "b", "a", []string{"b", "a", "b"}},
		{"three", [][2]string{{"a", "b"}, {"b", "c"}}, "c", "a", []string{"c", "a", "b", "c"}},
		{"four", [][2]string{{"a", "b"}, {"b", "c"}, {"c", "d"}}, "d", "a", []string{"d", "a", "b", "c", "d"}},
		{"through a branch", [][2]string{{"a", "b"}, {"a", "c"}, {"c", "d"}, {"b", "e"}}, "d", "a", []string{"d", "a", "c", "d"}},
		{"inner cycle of a longer chain", [][2]string{{"a", "b"}, {"b", "c"}, {"c", "d"}}, "c", "b", []string{"c", "b", "c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, open)
			e.project("alpha", "ALP")
			for _, id := range []string{"a", "b", "c", "d", "e"} {
				it := newItem("alpha", id)
				it.ID = id
				e.create(it)
			}
			for _, d := range tc.edges {
				e.update(func(tx baton.Tx) error { return tx.AddDependency(e.ctx, d[0], d[1]) })
			}
			before := e.deps(tc.id)
			err := e.tryUpdate(func(tx baton.Tx) error { return tx.AddDependency(e.ctx, tc.id, tc.on) })
			be := wantCode(t, err, baton.ErrCircularDependency)
			cycle, ok := asStrings(be.Details["cycle"])
			if !ok {
				t.Errorf("Details[cycle] = %#v, want the cycle as a list of ids", be.Details["cycle"])
			} else if !slices.Equal(cycle, tc.wantCycle) {
				t.Errorf("Details[cycle] = %q, want %q", cycle, tc.wantCycle)
			}
			if after := e.deps(tc.id); !eqStrings(sorted(after), sorted(before)) {
				t.Errorf("Dependencies(%s) = %q after the refused edge, want %q", tc.id, after, before)
			}
		})
	}
}

func testDepsDiamond(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	for _, id := range []string{"a", "b", "c", "d"} {
		it := newItem("alpha", id)
		it.ID = id
		e.create(it)
	}
	e.update(func(tx baton.Tx) error {
		for _, d := range [][2]string{{"a", "b"}, {"a", "c"}, {"b", "d"}, {"c", "d"}, {"a", "d"}} {
			if err := tx.AddDependency(e.ctx, d[0], d[1]); err != nil {
				return fmt.Errorf("%s -> %s: %w", d[0], d[1], err)
			}
		}
		return nil
	})
	if got := sorted(e.deps("a")); !slices.Equal(got, []string{"b", "c", "d"}) {
		t.Errorf("Dependencies(a) = %q, want [b c d]", got)
	}
}

// ---- Queue ----

// queueFixture builds project alpha:
//
//	id   status       prio created deps          parent
//	Q1   todo         2    1
//	Q2   todo         0    2       Q1, Q3
//	Q3   in_progress  1    6
//	Q4   blocked      1    3
//	Q5   todo         2    0       Q6, Q7
//	Q6   done         0    7
//	Q7   cancelled    0    8
//	Q8   backlog      0    9
//	Q9   review       0    10
//	Q10  todo         1    4
//	Q11  todo         3    5                     Q10
//	Q12  done         0    11                    Q10
//	Q13  cancelled    0    12                    Q10
//
// and project beta with one todo item, B1. Q1 is inserted before Q5 but is
// younger.
func queueFixture(t *testing.T, open func(t *testing.T) baton.Store) *env {
	t.Helper()
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	e.project("beta", "BET")
	for _, r := range []struct {
		id      string
		status  baton.Status
		prio    baton.Priority
		created int
		parent  string
	}{
		{"Q1", baton.StatusTodo, 2, 1, ""},
		{"Q3", baton.StatusInProgress, 1, 6, ""},
		{"Q2", baton.StatusTodo, 0, 2, ""},
		{"Q4", baton.StatusBlocked, 1, 3, ""},
		{"Q6", baton.StatusDone, 0, 7, ""},
		{"Q7", baton.StatusCancelled, 0, 8, ""},
		{"Q5", baton.StatusTodo, 2, 0, ""},
		{"Q8", baton.StatusBacklog, 0, 9, ""},
		{"Q9", baton.StatusReview, 0, 10, ""},
		{"Q10", baton.StatusTodo, 1, 4, ""},
		{"Q11", baton.StatusTodo, 3, 5, "Q10"},
		{"Q12", baton.StatusDone, 0, 11, "Q10"},
		{"Q13", baton.StatusCancelled, 0, 12, "Q10"},
	} {
		it := newItem("alpha", r.id)
		it.ID, it.Status, it.Priority, it.ParentID = r.id, r.status, r.prio, r.parent
		it.CreatedAt, it.UpdatedAt = at(r.created), at(r.created)
		if r.id == "Q2" {
			it.Labels = []string{"urgent", "api"}
		}
		e.create(it)
	}
	b := newItem("beta", "B1")
	b.ID, b.Priority, b.CreatedAt = "B1", baton.PriorityCritical, at(0)
	e.create(b)
	e.update(func(tx baton.Tx) error {
		for _, d := range [][2]string{{"Q2", "Q1"}, {"Q2", "Q3"}, {"Q5", "Q6"}, {"Q5", "Q7"}, {"B1", "Q1"}} {
			if err := tx.AddDependency(e.ctx, d[0], d[1]); err != nil {
				return err
			}
		}
		return nil
	})
	return e
}

type readiness struct {
	id        string
	unmet     int
	waitingOn []string
	open      []string
	ready     bool
}

func checkQueue(t *testing.T, got []baton.Readiness, want []readiness) {
	t.Helper()
	var gotIDs, wantIDs []string
	for _, r := range got {
		gotIDs = append(gotIDs, r.Item.ID)
	}
	for _, w := range want {
		wantIDs = append(wantIDs, w.id)
	}
	if !slices.Equal(gotIDs, wantIDs) {
		t.Fatalf("Queue = %q, want %q", gotIDs, wantIDs)
	}
	for i, w := range want {
		r := got[i]
		if r.DependenciesUnmet != w.unmet {
			t.Errorf("%s: DependenciesUnmet = %d, want %d", w.id, r.DependenciesUnmet, w.unmet)
		}
		if !eqStrings(sorted(r.WaitingOn), sorted(w.waitingOn)) {
			t.Errorf("%s: WaitingOn = %q, want %q in any order", w.id, r.WaitingOn, w.waitingOn)
		}
		if !eqStrings(sorted(r.OpenSubtasks), sorted(w.open)) {
			t.Errorf("%s: OpenSubtasks = %q, want %q in any order", w.id, r.OpenSubtasks, w.open)
		}
		if r.Ready() != w.ready {
			t.Errorf("%s: Ready() = %v, want %v", w.id, r.Ready(), w.ready)
		}
	}
}

func testQueueReadiness(t *testing.T, open func(t *testing.T) baton.Store) {
	e := queueFixture(t, open)
	q := e.queue("alpha")
	checkQueue(t, q, []readiness{
		{id: "Q2", unmet: 2, waitingOn: []string{"Q1", "Q3"}},
		{id: "Q4"}, // blocked: never ready, even with nothing unmet
		{id: "Q10", open: []string{"Q11"}},
		{id: "Q5", ready: true}, // its dependencies are done and cancelled
		{id: "Q1", ready: true},
		{id: "Q11", ready: true},
	})
	for _, r := range q {
		if r.Item.Project != "alpha" {
			t.Errorf("Queue(alpha) returned %s of project %s", r.Item.ID, r.Item.Project)
		}
		if r.Item.ID == "Q2" {
			if !slices.Equal(r.Item.Labels, []string{"urgent", "api"}) || r.Item.Priority != 0 || r.Item.Title != "Q2" {
				t.Errorf("Queue item Q2 = %+v, want the whole item with labels [urgent api]", r.Item)
			}
		}
	}
	// The beta item depends on an item of alpha.
	checkQueue(t, e.queue("beta"), []readiness{{id: "B1", unmet: 1, waitingOn: []string{"Q1"}}})
}

// ReadinessOf answers for the items named only, across projects, the
// same as the queue does for them; unknown ids are left out.
func testReadinessOf(t *testing.T, open func(t *testing.T) baton.Store) {
	e := queueFixture(t, open)
	var rs []baton.Readiness
	e.view(func(tx baton.Tx) (err error) {
		rs, err = tx.ReadinessOf(e.ctx, []string{"Q10", "B1", "no-such-item", "Q2"})
		return err
	})
	order := []string{"Q2", "Q10", "B1"}
	slices.SortFunc(rs, func(a, b baton.Readiness) int {
		return slices.Index(order, a.Item.ID) - slices.Index(order, b.Item.ID)
	})
	checkQueue(t, rs, []readiness{
		{id: "Q2", unmet: 2, waitingOn: []string{"Q1", "Q3"}},
		{id: "Q10", open: []string{"Q11"}},
		{id: "B1", unmet: 1, waitingOn: []string{"Q1"}},
	})
	e.view(func(tx baton.Tx) (err error) {
		rs, err = tx.ReadinessOf(e.ctx, nil)
		return err
	})
	if len(rs) != 0 {
		t.Fatalf("ReadinessOf(nil) = %d items", len(rs))
	}
}

func testQueueFollowsProgress(t *testing.T, open func(t *testing.T) baton.Store) {
	e := queueFixture(t, open)
	for _, ch := range []struct {
		id     string
		status baton.Status
	}{
		{"Q1", baton.StatusDone},      // leaves the queue, frees Q2 and B1 partly
		{"Q3", baton.StatusCancelled}, // frees Q2
		{"Q11", baton.StatusInProgress},
		{"Q4", baton.StatusTodo},
	} {
		it := e.get(ch.id)
		it.Status = ch.status
		e.put(it)
	}
	checkQueue(t, e.queue("alpha"), []readiness{
		{id: "Q2", ready: true},
		{id: "Q4", ready: true},
		{id: "Q10", open: []string{"Q11"}}, // in progress is still unfinished
		{id: "Q5", ready: true},
	})
	checkQueue(t, e.queue("beta"), []readiness{{id: "B1", ready: true}})
}

func testQueueEmpty(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	it := newItem("alpha", "done already")
	it.Status = baton.StatusDone
	e.create(it)
	if q := e.queue("alpha"); len(q) != 0 {
		t.Errorf("Queue with nothing to do has %d entries", len(q))
	}
	if q := e.queue("nope"); len(q) != 0 {
		t.Errorf("Queue of an unknown project has %d entries", len(q))
	}
}

// ---- Transactions ----

var errBoom = errors.New("boom")

func testTxErrorRollsBack(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	first := newItem("alpha", "first")
	first.Labels = []string{"keep"}
	e.create(first)
	err := e.tryUpdate(func(tx baton.Tx) error {
		if err := tx.CreateProject(e.ctx, &baton.Project{Slug: "beta", Prefix: "BET"}); err != nil {
			return err
		}
		it := newItem("alpha", "doomed")
		if err := tx.CreateItem(e.ctx, it); err != nil {
			return err
		}
		if it.ID != "ALP-2" || it.Sequence != 2 {
			return fmt.Errorf("inside the transaction the item is %s seq %d, want ALP-2 seq 2", it.ID, it.Sequence)
		}
		f, err := tx.Item(e.ctx, first.ID)
		if err != nil {
			return err
		}
		f.Title, f.Labels = "changed", []string{"lost"}
		if err := tx.UpdateItem(e.ctx, f); err != nil {
			return err
		}
		if err := tx.AddDependency(e.ctx, first.ID, it.ID); err != nil {
			return err
		}
		return fmt.Errorf("wrapped: %w", errBoom)
	})
	if !errors.Is(err, errBoom) {
		t.Fatalf("Update returned %v, want the error fn returned", err)
	}
	if e.exists("ALP-2") {
		t.Error("the item created in the failed transaction exists")
	}
	err = e.s.View(e.ctx, func(tx baton.Tx) error { _, err := tx.Project(e.ctx, "beta"); return err })
	wantCode(t, err, baton.ErrProjectNotFound)
	got := e.get(first.ID)
	if got.Title != "first" || !slices.Equal(got.Labels, []string{"keep"}) {
		t.Errorf("the update of the failed transaction survived: %q %q", got.Title, got.Labels)
	}
	if deps := e.deps(first.ID); len(deps) != 0 {
		t.Errorf("the dependency of the failed transaction survived: %q", deps)
	}
	next := e.create(newItem("alpha", "next"))
	if next.ID != "ALP-2" || next.Sequence != 2 {
		t.Errorf("after the rollback the next item is %s seq %d, want ALP-2 seq 2 (the sequence must not be consumed)", next.ID, next.Sequence)
	}
}

func testTxPanic(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	var recovered any
	func() {
		defer func() { recovered = recover() }()
		_ = e.s.Update(e.ctx, func(tx baton.Tx) error {
			if err := tx.CreateItem(e.ctx, newItem("alpha", "panicking")); err != nil {
				return err
			}
			panic("boom")
		})
	}()
	if recovered != "boom" {
		t.Fatalf("recovered %#v, want the panic to propagate with \"boom\"", recovered)
	}
	if e.exists("ALP-1") {
		t.Error("the item created before the panic exists")
	}
	// The store must be usable afterwards, for writes and reads alike.
	for i := range 3 {
		it := e.create(newItem("alpha", "after"))
		if want := fmt.Sprintf("ALP-%d", i+1); it.ID != want {
			t.Errorf("item %d after the panic = %s, want %s", i, it.ID, want)
		}
	}
	if n := e.list(baton.ItemFilter{}).Total; n != 3 {
		t.Errorf("Total = %d after the panic, want 3", n)
	}
	// A panic inside View leaves reads usable too.
	func() {
		defer func() { recovered = recover() }()
		_ = e.s.View(e.ctx, func(tx baton.Tx) error {
			if _, err := tx.Item(e.ctx, "ALP-1"); err != nil {
				return err
			}
			panic("view boom")
		})
	}()
	if recovered != "view boom" {
		t.Fatalf("recovered %#v, want the panic of View to propagate", recovered)
	}
	if n := e.list(baton.ItemFilter{}).Total; n != 3 {
		t.Errorf("Total = %d after the panic in View, want 3", n)
	}
}

func testTxReadsOwnWrites(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.update(func(tx baton.Tx) error {
		if err := tx.CreateProject(e.ctx, &baton.Project{Slug: "alpha", Prefix: "ALP"}); err != nil {
			return err
		}
		if _, err := tx.Project(e.ctx, "alpha"); err != nil {
			return fmt.Errorf("project created in this transaction: %w", err)
		}
		parent := newItem("alpha", "parent")
		if err := tx.CreateItem(e.ctx, parent); err != nil {
			return err
		}
		child := newItem("alpha", "child")
		child.ParentID, child.Labels = parent.ID, []string{"x"}
		if err := tx.CreateItem(e.ctx, child); err != nil {
			return err
		}
		if err := tx.AddDependency(e.ctx, parent.ID, child.ID); err != nil {
			return err
		}
		page, err := tx.ListItems(e.ctx, baton.ItemFilter{Label: "x"})
		if err != nil {
			return err
		}
		if got := ids(page.Items); !slices.Equal(got, []string{child.ID}) {
			return fmt.Errorf("ListItems inside the transaction = %q, want [%s]", got, child.ID)
		}
		kids, err := tx.Children(e.ctx, parent.ID)
		if err != nil {
			return err
		}
		if !slices.Equal(kids, []string{child.ID}) {
			return fmt.Errorf("Children inside the transaction = %q", kids)
		}
		q, err := tx.Queue(e.ctx, "alpha")
		if err != nil {
			return err
		}
		if len(q) != 2 || q[0].Item.ID != parent.ID || q[0].DependenciesUnmet != 1 {
			return fmt.Errorf("Queue inside the transaction = %+v", q)
		}
		return nil
	})
}

func testViewRejectsWrites(t *testing.T, open func(t *testing.T) baton.Store) {
	for _, tc := range []struct {
		name  string
		write func(ctx context.Context, tx baton.Tx) error
		check func(e *env) bool // reports whether the write took effect
	}{
		{"CreateProject", func(ctx context.Context, tx baton.Tx) error {
			return tx.CreateProject(ctx, &baton.Project{Slug: "beta", Prefix: "BET"})
		}, func(e *env) bool {
			err := e.s.View(e.ctx, func(tx baton.Tx) error { _, err := tx.Project(e.ctx, "beta"); return err })
			return err == nil
		}},
		{"CreateItem", func(ctx context.Context, tx baton.Tx) error {
			return tx.CreateItem(ctx, newItem("alpha", "sneaky"))
		}, func(e *env) bool { return e.exists("ALP-2") }},
		{"UpdateItem", func(ctx context.Context, tx baton.Tx) error {
			it, err := tx.Item(ctx, "ALP-1")
			if err != nil {
				return err
			}
			it.Title = "changed"
			return tx.UpdateItem(ctx, it)
		}, func(e *env) bool { return e.get("ALP-1").Title == "changed" }},
		{"AddDependency", func(ctx context.Context, tx baton.Tx) error {
			return tx.AddDependency(ctx, "ALP-1", "ALP-1x")
		}, func(e *env) bool { return len(e.deps("ALP-1")) > 0 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, open)
			e.project("alpha", "ALP")
			e.create(newItem("alpha", "one"))
			other := newItem("alpha", "two")
			other.ID = "ALP-1x"
			e.create(other)
			var writeErr error
			err := e.s.View(e.ctx, func(tx baton.Tx) error {
				writeErr = tc.write(e.ctx, tx)
				return writeErr
			})
			if writeErr == nil {
				t.Errorf("%s inside View succeeded, want an error", tc.name)
			}
			if err == nil {
				t.Errorf("View returned nil after fn returned %v", writeErr)
			}
			if tc.check(e) {
				t.Errorf("%s inside View took effect", tc.name)
			}
		})
	}
}

func testViewReturnsError(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	if err := e.s.View(e.ctx, func(baton.Tx) error { return errBoom }); !errors.Is(err, errBoom) {
		t.Errorf("View returned %v, want the error fn returned", err)
	}
	// A baton.Error keeps its code through View and Update.
	err := e.s.View(e.ctx, func(tx baton.Tx) error { _, err := tx.Item(e.ctx, "X-1"); return err })
	wantCode(t, err, baton.ErrTaskNotFound)
	err = e.tryUpdate(func(tx baton.Tx) error { _, err := tx.Item(e.ctx, "X-1"); return err })
	wantCode(t, err, baton.ErrTaskNotFound)
}

// testViewSnapshot commits a write while a View is open and checks that the
// View keeps reading the state it started with.
func testViewSnapshot(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	first := e.create(newItem("alpha", "first"))
	var wrote chan error
	err := e.s.View(e.ctx, func(tx baton.Tx) error {
		before, err := tx.ListItems(e.ctx, baton.ItemFilter{})
		if err != nil {
			return err
		}
		if before.Total != 1 {
			return fmt.Errorf("Total = %d before the write, want 1", before.Total)
		}
		wrote = make(chan error, 1)
		go func() {
			wrote <- e.s.Update(e.ctx, func(tx baton.Tx) error {
				if err := tx.CreateItem(e.ctx, newItem("alpha", "second")); err != nil {
					return err
				}
				it, err := tx.Item(e.ctx, first.ID)
				if err != nil {
					return err
				}
				it.Title = "renamed"
				return tx.UpdateItem(e.ctx, it)
			})
		}()
		// A backend may let the writer commit beside the reader (then the
		// reads below must not see it) or hold it until the View ends
		// (then they cannot). Both keep the snapshot.
		select {
		case err := <-wrote:
			if err != nil {
				return fmt.Errorf("the concurrent Update failed: %w", err)
			}
			wrote <- nil
		case <-time.After(2 * time.Second):
		}
		after, err := tx.ListItems(e.ctx, baton.ItemFilter{})
		if err != nil {
			return err
		}
		if after.Total != 1 || len(after.Items) != 1 {
			return fmt.Errorf("the View saw a write committed after it started: Total %d, items %q", after.Total, ids(after.Items))
		}
		it, err := tx.Item(e.ctx, first.ID)
		if err != nil {
			return err
		}
		if it.Title != "first" {
			return fmt.Errorf("the View saw the title change to %q", it.Title)
		}
		if _, err := tx.Item(e.ctx, "ALP-2"); baton.ErrorCode(err) != baton.ErrTaskNotFound {
			return fmt.Errorf("Item(ALP-2) inside the View = %v, want %s", err, baton.ErrTaskNotFound)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := <-wrote; err != nil {
		t.Fatalf("the concurrent Update failed: %v", err)
	}
	if n := e.list(baton.ItemFilter{}).Total; n != 2 {
		t.Errorf("a View after the write sees %d items, want 2", n)
	}
	if got := e.get(first.ID).Title; got != "renamed" {
		t.Errorf("a View after the write sees title %q, want renamed", got)
	}
}

// ---- Concurrency ----

func testConcurrentCreates(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	const n = 32
	var (
		wg    sync.WaitGroup
		start = make(chan struct{})
		errs  = make([]error, n)
		got   = make([]baton.Item, n)
	)
	for i := range n {
		wg.Go(func() {
			<-start
			errs[i] = e.s.Update(e.ctx, func(tx baton.Tx) error {
				it := newItem("alpha", fmt.Sprintf("worker %d", i))
				if err := tx.CreateItem(e.ctx, it); err != nil {
					return err
				}
				got[i] = *it
				return nil
			})
		})
	}
	close(start)
	wg.Wait()
	seen := map[string]bool{}
	var seqs []int64
	for i := range n {
		if errs[i] != nil {
			t.Errorf("worker %d: %v", i, errs[i])
			continue
		}
		if seen[got[i].ID] {
			t.Errorf("id %s assigned twice", got[i].ID)
		}
		seen[got[i].ID] = true
		if want := fmt.Sprintf("ALP-%d", got[i].Sequence); got[i].ID != want {
			t.Errorf("worker %d got id %s with sequence %d", i, got[i].ID, got[i].Sequence)
		}
		seqs = append(seqs, got[i].Sequence)
	}
	slices.Sort(seqs)
	for i, s := range seqs {
		if s != int64(i+1) {
			t.Fatalf("sequences = %v, want 1..%d", seqs, n)
		}
	}
	page := e.list(baton.ItemFilter{Project: "alpha"})
	if page.Total != n || len(page.Items) != n {
		t.Errorf("%d items stored (%d listed), want %d", page.Total, len(page.Items), n)
	}
	for _, it := range page.Items {
		if !seen[it.ID] {
			t.Errorf("stored item %s was not reported by any worker", it.ID)
		}
	}
}

// testConcurrentViews runs readers beside writers: every View sees a list
// that agrees with its own count, and no View sees fewer items than one
// that finished before it started.
func testConcurrentViews(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	const writers, perWriter, readers, reads = 4, 8, 4, 16
	var wg sync.WaitGroup
	errs := make(chan error, writers*perWriter+readers*reads)
	for w := range writers {
		wg.Go(func() {
			for i := range perWriter {
				errs <- e.s.Update(e.ctx, func(tx baton.Tx) error {
					it := newItem("alpha", fmt.Sprintf("w%d-%d", w, i))
					it.Labels = []string{"l1", "l2"}
					return tx.CreateItem(e.ctx, it)
				})
			}
		})
	}
	for range readers {
		wg.Go(func() {
			last := 0
			for range reads {
				errs <- e.s.View(e.ctx, func(tx baton.Tx) error {
					page, err := tx.ListItems(e.ctx, baton.ItemFilter{})
					if err != nil {
						return err
					}
					if len(page.Items) != page.Total {
						return fmt.Errorf("a View listed %d items but counted %d", len(page.Items), page.Total)
					}
					if page.Total < last {
						return fmt.Errorf("a View saw %d items after an earlier one saw %d", page.Total, last)
					}
					for _, it := range page.Items {
						if !slices.Equal(it.Labels, []string{"l1", "l2"}) {
							return fmt.Errorf("item %s has labels %q in a View", it.ID, it.Labels)
						}
					}
					last = page.Total
					return nil
				})
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if n := e.list(baton.ItemFilter{}).Total; n != writers*perWriter {
		t.Errorf("Total = %d, want %d", n, writers*perWriter)
	}
}

// ---- Info ----

func testInfoOpen(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	info := e.s.Info(e.ctx)
	if !info.Open {
		t.Error("Info.Open = false on an open store")
	}
	if info.SchemaVersion < 1 {
		t.Errorf("Info.SchemaVersion = %d, want >= 1", info.SchemaVersion)
	}
	if info.Driver == "" {
		t.Error("Info.Driver is empty")
	}
}

func testInfoClosed(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	if err := e.s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if info := e.s.Info(e.ctx); info.Open {
		t.Error("Info.Open = true after Close")
	}
	for _, tc := range []struct {
		name string
		run  func() error
	}{
		{"Update", func() error {
			return e.s.Update(e.ctx, func(tx baton.Tx) error { return tx.CreateItem(e.ctx, newItem("alpha", "late")) })
		}},
		{"View", func() error {
			return e.s.View(e.ctx, func(tx baton.Tx) error { _, err := tx.Projects(e.ctx); return err })
		}},
	} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s after Close panicked: %v", tc.name, r)
				}
			}()
			if err := tc.run(); err == nil {
				t.Errorf("%s after Close returned nil, want an error", tc.name)
			}
		}()
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("a second Close panicked: %v", r)
			}
		}()
		_ = e.s.Close()
	}()
}
