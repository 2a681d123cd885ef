package storetest

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/baton-dev/baton"
)

// vecDoc writes path with one chunk whose vector of model m is v.
func (e *env) vecDoc(key baton.DocKey, model string, v []float32) int64 {
	e.t.Helper()
	d := e.write(key, "text of "+key.Path, "x")
	cs := []*baton.Chunk{{Ordinal: 0, Text: d.Content, Start: 0, End: len(d.Content)}}
	e.update(func(tx baton.Tx) error {
		if err := tx.ReplaceChunks(e.ctx, key, d.Version, cs); err != nil {
			return err
		}
		return tx.PutVectors(e.ctx, []baton.ChunkVector{{ChunkID: cs[0].ID, Model: model, Vector: v}})
	})
	return cs[0].ID
}

// search runs SearchVectors in a read-only snapshot (the cached path) and
// in a write transaction (the database path), and fails unless both agree.
func (e *env) searchVectors(f baton.VectorFilter, q []float32, limit int) []baton.VectorHit {
	e.t.Helper()
	var viewed, updated []baton.VectorHit
	e.view(func(tx baton.Tx) (err error) {
		viewed, err = tx.SearchVectors(e.ctx, f, q, limit)
		return err
	})
	e.update(func(tx baton.Tx) (err error) {
		updated, err = tx.SearchVectors(e.ctx, f, q, limit)
		return err
	})
	if fmt.Sprint(viewed) != fmt.Sprint(updated) {
		e.t.Fatalf("a snapshot's search %v differs from a write transaction's %v", viewed, updated)
	}
	return viewed
}

func hitPaths(hs []baton.VectorHit) string {
	var out []string
	for _, h := range hs {
		out = append(out, fmt.Sprintf("%s:%.3f", h.Key.Path, h.Score))
	}
	return fmt.Sprint(out)
}

// testKnowledgeVectorSearch: exact cosine ranking over the current
// versions of the spaces asked, limited, by prefix, with history on
// request; a search sees every write committed before it (the in-memory
// vectors follow the database).
func testKnowledgeVectorSearch(t *testing.T, open func(t *testing.T) baton.Store) {
	e := knowledgeEnv(t, open)
	x := e.vecDoc(pkey("a/x.md"), "m", []float32{1, 0, 0})
	y := e.vecDoc(pkey("a/y.md"), "m", []float32{1, 1, 0})
	// ChunksByID fills in hits: text, place and source, unknown ids left out.
	e.view(func(tx baton.Tx) error {
		cs, err := tx.ChunksByID(e.ctx, []int64{y, x, 1 << 40})
		if err != nil {
			return err
		}
		if len(cs) != 2 {
			t.Fatalf("ChunksByID = %d chunks, want 2", len(cs))
		}
		for _, c := range cs {
			want := map[int64]string{x: "a/x.md", y: "a/y.md"}[c.ID]
			if c.Key.Path != want || c.Text != "text of "+want || c.Version == "" || c.End != len(c.Text) || c.Key.DocSpace != projSpace ||
				c.ContentType != "text/markdown" {
				t.Errorf("ChunksByID chunk %d = %+v", c.ID, c)
			}
		}
		return nil
	})
	e.vecDoc(pkey("b/z.md"), "m", []float32{0, 1, 0})
	e.vecDoc(baton.DocKey{DocSpace: globalSpace, Path: "g.md"}, "m", []float32{-1, 0, 0})
	e.vecDoc(pkey("wide.md"), "m", []float32{1, 0, 0, 0}) // another width: skipped
	e.vecDoc(pkey("other.md"), "m2", []float32{1, 0, 0})  // another model
	q := []float32{2, 0, 0}
	f := baton.VectorFilter{Spaces: []baton.DocSpace{projSpace}, Model: "m"}
	hs := e.searchVectors(f, q, 10)
	if got, want := hitPaths(hs), fmt.Sprint([]string{"a/x.md:1.000", "a/y.md:0.707", "b/z.md:0.000"}); got != want {
		t.Fatalf("ranking = %s, want %s", got, want)
	}
	if math.Abs(hs[1].Score-1/math.Sqrt2) > 1e-6 || hs[0].Version == "" || hs[0].Ordinal != 0 {
		t.Errorf("hit = %+v", hs[1])
	}
	if got := hitPaths(e.searchVectors(f, q, 2)); got != fmt.Sprint([]string{"a/x.md:1.000", "a/y.md:0.707"}) {
		t.Errorf("limit 2 = %s", got)
	}
	pf := f
	pf.PathPrefix = "b/"
	if got := hitPaths(e.searchVectors(pf, q, 10)); got != fmt.Sprint([]string{"b/z.md:0.000"}) {
		t.Errorf("prefix b/ = %s", got)
	}
	both := f
	both.Spaces = []baton.DocSpace{projSpace, globalSpace}
	if hs := e.searchVectors(both, q, 10); len(hs) != 4 || hs[3].Key.Path != "g.md" || math.Abs(hs[3].Score+1) > 1e-6 {
		t.Errorf("both spaces = %s", hitPaths(hs))
	}
	// A write between two searches is seen by the second.
	e.vecDoc(pkey("c/new.md"), "m", []float32{3, 0.1, 0})
	if hs := e.searchVectors(f, q, 1); len(hs) != 1 || hs[0].Key.Path != "a/x.md" {
		t.Errorf("after a write: %s", hitPaths(hs))
	}
	if hs := e.searchVectors(f, q, 4); len(hs) != 4 || hs[1].Key.Path != "c/new.md" {
		t.Errorf("the new document is not found: %s", hitPaths(hs))
	}
	// Rewriting and deleting hide the old vectors; history shows them.
	e.update(func(tx baton.Tx) error {
		_, err := tx.DeleteDocument(e.ctx, pkey("a/x.md"), "", "x")
		return err
	})
	if hs := e.searchVectors(f, q, 10); len(hs) != 3 || hs[0].Key.Path != "c/new.md" {
		t.Errorf("after deleting a/x.md: %s", hitPaths(hs))
	}
	hf := f
	hf.IncludeHistory = true
	if hs := e.searchVectors(hf, q, 10); len(hs) != 4 || hs[0].Key.Path != "a/x.md" {
		t.Errorf("with history: %s", hitPaths(hs))
	}
	// Pruning removes the deleted version's vectors from history too.
	e.update(func(tx baton.Tx) error {
		_, err := tx.PruneDocuments(e.ctx, []baton.DocSpace{projSpace}, time.Now().Add(time.Hour), false)
		return err
	})
	if hs := e.searchVectors(hf, q, 10); len(hs) != 3 {
		t.Errorf("with history after prune: %s", hitPaths(hs))
	}
	err := e.s.View(e.ctx, func(tx baton.Tx) error {
		_, err := tx.SearchVectors(e.ctx, baton.VectorFilter{Model: "m"}, q, 1)
		return err
	})
	wantCode(t, err, baton.ErrInvalidInput)
}

// testKnowledgeStatsRefresh: counts per space and prefix, refresh marks in
// place, and the versions a re-index must embed.
func testKnowledgeStatsRefresh(t *testing.T, open func(t *testing.T) baton.Store) {
	e := knowledgeEnv(t, open)
	now := time.Now().UTC()
	d := &baton.Document{DocKey: pkey("docs/a.md"), Content: "aaaa", ContentType: "text/markdown", UpdatedBy: "x",
		SourceType: baton.SourceLocal, SourcePath: "docs/a.md", Description: "A", RefreshFrequencySec: 60}
	e.update(func(tx baton.Tx) error { return tx.PutDocument(e.ctx, d) })
	e.write(pkey("docs/b.md"), "bb", "x")
	e.write(pkey("docs/b.md"), "bbb", "x")
	e.write(pkey("gone.md"), "g", "x")
	e.update(func(tx baton.Tx) error {
		_, err := tx.DeleteDocument(e.ctx, pkey("gone.md"), "", "x")
		return err
	})
	e.write(baton.DocKey{DocSpace: globalSpace, Path: "docs/g.md"}, "global", "x")
	stats := func(prefix string, due time.Time) *baton.KnowledgeStats {
		var st *baton.KnowledgeStats
		e.view(func(tx baton.Tx) (err error) {
			st, err = tx.KnowledgeStats(e.ctx, []baton.DocSpace{projSpace}, prefix, due)
			return err
		})
		return st
	}
	st := stats("", now)
	if st.CurrentFiles != 2 || st.TombstonedPaths != 1 || st.TotalVersions != 5 || st.DistinctPaths != 3 ||
		st.CurrentBytes != 7 || st.TotalVersionsBytes != 10 || st.BySourceType[baton.SourceLocal] != 1 ||
		st.BySourceType[baton.SourceInline] != 1 || st.ByMimeType["text/markdown"] != 2 ||
		st.RefreshScheduled != 1 || st.RefreshDue != 1 {
		t.Errorf("stats = %+v", st)
	}
	if st := stats("docs/b", now); st.CurrentFiles != 1 || st.TotalVersions != 2 {
		t.Errorf("stats under docs/b = %+v", st)
	}
	got, err := e.doc(pkey("docs/a.md"), "")
	if err != nil || got.SourceType != baton.SourceLocal || got.Description != "A" || got.RefreshFrequencySec != 60 ||
		!got.RefreshedAt.IsZero() {
		t.Fatalf("source fields = %+v, %v", got, err)
	}
	e.update(func(tx baton.Tx) error {
		return tx.MarkRefreshed(e.ctx, pkey("docs/a.md"), got.Version, "unchanged", now)
	})
	got, _ = e.doc(pkey("docs/a.md"), "")
	if got.LastRefreshStatus != "unchanged" || !got.RefreshedAt.Equal(now.Truncate(time.Millisecond)) || len(e.versions(pkey("docs/a.md"))) != 1 {
		t.Errorf("after MarkRefreshed: %+v", got)
	}
	if st := stats("", now.Add(30*time.Second)); st.RefreshDue != 0 || st.LastRefreshStatus["unchanged"] != 1 {
		t.Errorf("refreshed 30 s ago with a 60 s frequency: %+v", st)
	}
	if st := stats("", now.Add(61*time.Second)); st.RefreshDue != 1 {
		t.Errorf("refreshed 61 s ago with a 60 s frequency: due %d", st.RefreshDue)
	}
	// Every current version with content lacks vectors of model m; one
	// given them is no longer stale.
	stale := func() []string {
		var out []string
		e.view(func(tx baton.Tx) error {
			vs, err := tx.StaleVersions(e.ctx, "m", 100)
			for _, v := range vs {
				out = append(out, v.Key.Path)
			}
			return err
		})
		return out
	}
	if got := fmt.Sprint(stale()); got != "[docs/a.md docs/b.md docs/g.md]" {
		t.Errorf("stale = %s", got)
	}
	e.vecDoc(pkey("docs/b.md"), "m", []float32{1})
	if got := fmt.Sprint(stale()); got != "[docs/a.md docs/g.md]" {
		t.Errorf("stale after embedding docs/b.md = %s", got)
	}
}
