package storetest

import (
	"reflect"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
)

// The PR records group: what PRTx promises both stores keep alike.
var prCases = []testCase{
	{"CreateAndReadBack", testPRCreateAndRead},
	{"IDsCountUp", testPRIDs},
	{"UnknownItem", testPRUnknownItem},
	{"UnknownID", testPRUnknownID},
	{"ListFiltersNewestFirstWithoutDiff", testPRList},
	{"UpdateReviewAndGates", testPRUpdate},
	{"FollowsItemMove", testPRFollowsMove},
	{"TextOfAnyShape", testPRText},
}

func (e *env) createPR(p *baton.PR) *baton.PR {
	e.t.Helper()
	e.update(func(tx baton.Tx) error { return tx.CreatePR(e.ctx, p) })
	return p
}

func (e *env) pr(id string) *baton.PR {
	e.t.Helper()
	var p *baton.PR
	e.view(func(tx baton.Tx) (err error) { p, err = tx.PR(e.ctx, id); return err })
	return p
}

func (e *env) prs(f baton.PRFilter) []*baton.PR {
	e.t.Helper()
	var ps []*baton.PR
	e.view(func(tx baton.Tx) (err error) { ps, err = tx.PRs(e.ctx, f); return err })
	return ps
}

func samplePR(item string) *baton.PR {
	return &baton.PR{ItemID: item, BranchName: "symphony/" + item, BaseBranch: "main", BaseSHA: strings.Repeat("a", 40),
		HeadSHA: strings.Repeat("b", 40), Commits: 2, RepoDir: "/repo/.symphony-workspaces/" + item,
		Diff: "diff --git a/x.go b/x.go\n+x\n",
		Files: []baton.FileStat{{Path: "x.go", Status: "modified", Added: 1}, {Path: "b.png", Status: "added", Binary: true},
			{Path: "new.go", OldPath: "old.go", Status: "renamed", Added: 2, Removed: 3}},
		Gates: []baton.GateResult{{Command: "go test ./...", Label: "Tests", ExitCode: 1, Output: "FAIL", Required: true, Source: "reported"}},
		Risk: baton.RiskScore{Level: baton.RiskMedium, LinesChanged: 6, FilesChanged: 3, SensitiveFiles: []string{},
			Reasons: []string{"3 files changed"}, ConfigVersion: 2},
		CreatedBy: "agent-w", CreatedAt: at(1)}
}

func testPRCreateAndRead(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("sym", "SYM")
	it := e.create(newItem("sym", "work"))
	p := e.createPR(samplePR(it.ID))
	if p.ID != "PR-1" || p.Status != baton.PROpen || p.Project != "sym" || !p.UpdatedAt.Equal(at(1)) {
		t.Fatalf("CreatePR set id %q status %q project %q updated %v; want PR-1, open, sym, created time", p.ID, p.Status, p.Project, p.UpdatedAt)
	}
	got := e.pr(p.ID)
	want := samplePR(it.ID)
	want.ID, want.Project, want.Status, want.UpdatedAt = "PR-1", "sym", baton.PROpen, at(1)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("PR read back differs:\n got %+v\nwant %+v", got, want)
	}
}

func testPRIDs(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("sym", "SYM")
	a := e.create(newItem("sym", "a"))
	b := e.create(newItem("sym", "b"))
	var got []string
	for _, id := range []string{a.ID, b.ID, a.ID} {
		got = append(got, e.createPR(samplePR(id)).ID)
	}
	if strings.Join(got, ",") != "PR-1,PR-2,PR-3" {
		t.Fatalf("ids %v, want PR-1..PR-3 across items", got)
	}
}

func testPRUnknownItem(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("sym", "SYM")
	err := e.tryUpdate(func(tx baton.Tx) error { return tx.CreatePR(e.ctx, samplePR("SYM-99")) })
	wantCode(t, err, baton.ErrTaskNotFound)
	if n := len(e.prs(baton.PRFilter{})); n != 0 {
		t.Fatalf("%d PRs stored for an unknown item", n)
	}
}

func testPRUnknownID(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("sym", "SYM")
	var err error
	e.view(func(tx baton.Tx) error { _, err = tx.PR(e.ctx, "PR-7"); return nil })
	if be := wantCode(t, err, baton.ErrNotFound); be.Type != "pr_not_found" {
		t.Fatalf("type %q, want pr_not_found", be.Type)
	}
	err = e.tryUpdate(func(tx baton.Tx) error { return tx.UpdatePR(e.ctx, &baton.PR{ID: "PR-7", Status: baton.PRApproved}) })
	wantCode(t, err, baton.ErrNotFound)
}

func testPRList(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("sym", "SYM")
	e.project("api", "API")
	a := e.create(newItem("sym", "a"))
	b := e.create(newItem("api", "b"))
	p1 := e.createPR(samplePR(a.ID))
	e.createPR(samplePR(b.ID))
	e.createPR(samplePR(a.ID))
	e.update(func(tx baton.Tx) error {
		p1.Status = baton.PRRejected
		return tx.UpdatePR(e.ctx, p1)
	})
	cases := []struct {
		name string
		f    baton.PRFilter
		want string
	}{
		{"all", baton.PRFilter{}, "PR-3,PR-2,PR-1"},
		{"project", baton.PRFilter{Project: "sym"}, "PR-3,PR-1"},
		{"item", baton.PRFilter{ItemID: b.ID}, "PR-2"},
		{"status", baton.PRFilter{Statuses: []baton.PRStatus{baton.PRRejected}}, "PR-1"},
		{"statuses", baton.PRFilter{Statuses: []baton.PRStatus{baton.PROpen, baton.PRRejected}, Project: "sym"}, "PR-3,PR-1"},
		{"limit", baton.PRFilter{Limit: 1}, "PR-3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ps := e.prs(c.f)
			var ids []string
			for _, p := range ps {
				ids = append(ids, p.ID)
				if p.Diff != "" {
					t.Errorf("%s: a listed PR carries its diff", p.ID)
				}
				if len(p.Files) != 3 || p.Risk.Level != baton.RiskMedium {
					t.Errorf("%s: listed without its files or risk: %+v", p.ID, p)
				}
			}
			if got := strings.Join(ids, ","); got != c.want {
				t.Fatalf("PRs %q, want %q", got, c.want)
			}
		})
	}
}

func testPRUpdate(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("sym", "SYM")
	it := e.create(newItem("sym", "a"))
	p := e.createPR(samplePR(it.ID))
	p.Status, p.Reason, p.FixInstructions, p.ReviewedBy, p.ReviewedAt, p.UpdatedAt =
		baton.PRRejected, "no tests", "add tests", "judge-1", at(5), at(5)
	p.Gates = append(p.Gates, baton.GateResult{Command: "go vet", Label: "Vet", Source: "run", HeadSHA: "abc", DurationMS: 12, RanAt: "2026-01-01T00:00:00.000Z"})
	p.Diff, p.BranchName = "changed", "other" // not updatable: the snapshot is fixed
	e.update(func(tx baton.Tx) error { return tx.UpdatePR(e.ctx, p) })
	got := e.pr(p.ID)
	if got.Status != baton.PRRejected || got.Reason != "no tests" || got.FixInstructions != "add tests" ||
		got.ReviewedBy != "judge-1" || !got.ReviewedAt.Equal(at(5)) || !got.UpdatedAt.Equal(at(5)) {
		t.Fatalf("review not stored: %+v", got)
	}
	if len(got.Gates) != 2 || got.Gates[1].Label != "Vet" || got.Gates[1].HeadSHA != "abc" || got.Gates[1].DurationMS != 12 {
		t.Fatalf("gates not stored: %+v", got.Gates)
	}
	if got.Diff != samplePR(it.ID).Diff || got.BranchName != "symphony/"+it.ID {
		t.Fatalf("UpdatePR changed the snapshot: diff %q branch %q", got.Diff, got.BranchName)
	}
	if !e.pr(p.ID).CreatedAt.Equal(at(1)) {
		t.Fatal("UpdatePR changed created_at")
	}
}

func testPRFollowsMove(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("sym", "SYM")
	e.project("api", "API")
	it := e.create(newItem("sym", "a"))
	p := e.createPR(samplePR(it.ID))
	var moved *baton.Item
	e.update(func(tx baton.Tx) (err error) { moved, err = tx.MoveItem(e.ctx, it.ID, "api"); return err })
	got := e.pr(p.ID)
	if got.ItemID != moved.ID || got.Project != "api" {
		t.Fatalf("PR after the move: item %q project %q; want %q api", got.ItemID, got.Project, moved.ID)
	}
	if ps := e.prs(baton.PRFilter{ItemID: it.ID}); len(ps) != 1 {
		t.Fatalf("the old id finds %d PRs, want 1", len(ps))
	}
	if ps := e.prs(baton.PRFilter{Project: "sym"}); len(ps) != 0 {
		t.Fatalf("the old project still lists %d PRs", len(ps))
	}
}

// testPRText: diffs hold whatever files hold; the store keeps what it is
// given byte for byte (callers clean NUL and invalid UTF-8 before).
func testPRText(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("sym", "SYM")
	it := e.create(newItem("sym", "a"))
	p := samplePR(it.ID)
	p.Diff = strings.Repeat("+línea 'quoted' \"dq\" \\ back\t€\n", 40000) // ~1.3 MB
	p.Files[0].Path = "dir with space/ü.go"
	e.createPR(p)
	got := e.pr(p.ID)
	if got.Diff != p.Diff || got.Files[0].Path != "dir with space/ü.go" {
		t.Fatalf("text changed on the way through the store (diff %d bytes, want %d)", len(got.Diff), len(p.Diff))
	}
}
