package storetest

import (
	"testing"
	"time"

	"github.com/baton-dev/baton"
)

// The probe get_issue reads an item's lists through: what ItemTx.ItemHolds
// promises both stores keep alike.
var itemHoldsCases = []testCase{
	{"EachList", testItemHoldsEachList},
}

func (e *env) holds(id string) baton.ItemHolds {
	e.t.Helper()
	var h baton.ItemHolds
	e.view(func(tx baton.Tx) (err error) { h, err = tx.ItemHolds(e.ctx, id); return err })
	return h
}

// testItemHoldsEachList: a new item holds nothing; each list reports once
// it holds something, and the others stay as they were; a released
// reservation no longer counts.
func testItemHoldsEachList(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("sym", "SYM")
	it := e.create(newItem("sym", "work"))
	other := e.create(newItem("sym", "other"))
	if h := e.holds(it.ID); h != (baton.ItemHolds{}) {
		t.Fatalf("a new item holds %+v, want nothing", h)
	}
	var want baton.ItemHolds
	var reservation int64
	steps := []struct {
		name string
		add  func(tx baton.Tx) error
		set  *bool
	}{
		{"a dependency", func(tx baton.Tx) error { return tx.AddDependency(e.ctx, it.ID, other.ID) }, &want.Dependencies},
		{"a subtask", func(tx baton.Tx) error {
			child := newItem("sym", "child")
			child.ParentID = it.ID
			return tx.CreateItem(e.ctx, child)
		}, &want.Children},
		{"a finding", func(tx baton.Tx) error {
			return tx.AddFinding(e.ctx, &baton.Finding{ItemID: it.ID, Category: "bug", Summary: "s", CreatedBy: "agent-a", CreatedAt: at(1)})
		}, &want.Findings},
		{"a learning", func(tx baton.Tx) error {
			return tx.AddLearning(e.ctx, &baton.Learning{ItemID: it.ID, Pattern: "p", QualityScore: 50, CreatedBy: "agent-a", CreatedAt: at(1)})
		}, &want.Learnings},
		{"a comment", func(tx baton.Tx) error {
			return tx.AddComment(e.ctx, &baton.Comment{ItemID: it.ID, Body: "c", CreatedBy: "agent-a", CreatedAt: at(1)})
		}, &want.Comments},
		{"a pull request", func(tx baton.Tx) error { return tx.CreatePR(e.ctx, samplePR(it.ID)) }, &want.PRs},
		{"a reservation", func(tx baton.Tx) error {
			r := &baton.FileReservation{Project: "sym", Agent: "agent-a", Pattern: "x/*.go", Exclusive: true, Item: it.ID,
				CreatedAt: at(1), ExpiresAt: at(1).Add(time.Hour)}
			err := tx.AddReservation(e.ctx, r)
			reservation = r.ID
			return err
		}, &want.Reservations},
	}
	for _, s := range steps {
		e.update(s.add)
		*s.set = true
		if h := e.holds(it.ID); h != want {
			t.Fatalf("after %s: holds %+v, want %+v", s.name, h, want)
		}
	}
	if h := e.holds(other.ID); h != (baton.ItemHolds{}) {
		t.Errorf("the item depended on holds %+v, want nothing (dependencies are the dependent's)", h)
	}
	e.update(func(tx baton.Tx) error {
		_, err := tx.ReleaseReservation(e.ctx, reservation, at(2), "agent-a")
		return err
	})
	want.Reservations = false
	if h := e.holds(it.ID); h != want {
		t.Errorf("after releasing the reservation: holds %+v, want %+v", h, want)
	}
}
