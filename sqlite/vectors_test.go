package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/sqlite"
)

// TestVectorSearchSeesOtherProcesses: a store that searched (and so holds
// the vectors in memory) sees a document another process, another store on
// the same file, writes afterwards.
func TestVectorSearchSeesOtherProcesses(t *testing.T) {
	ctx := context.Background()
	a, b := openTwice(t)
	space := baton.DocSpace{Scope: baton.ScopeGlobal}
	put := func(s *sqlite.Store, p string, v []float32) {
		t.Helper()
		if err := s.Update(ctx, func(tx baton.Tx) error {
			d := &baton.Document{DocKey: baton.DocKey{DocSpace: space, Path: p}, Content: "text", UpdatedBy: "x"}
			if err := tx.PutDocument(ctx, d); err != nil {
				return err
			}
			cs := []*baton.Chunk{{Ordinal: 0, Text: "text", End: 4}}
			if err := tx.ReplaceChunks(ctx, d.DocKey, d.Version, cs); err != nil {
				return err
			}
			return tx.PutVectors(ctx, []baton.ChunkVector{{ChunkID: cs[0].ID, Model: "m", Vector: v}})
		}); err != nil {
			t.Fatal(err)
		}
	}
	top := func() string {
		t.Helper()
		var hs []baton.VectorHit
		if err := a.View(ctx, func(tx baton.Tx) (err error) {
			hs, err = tx.SearchVectors(ctx, baton.VectorFilter{Spaces: []baton.DocSpace{space}, Model: "m"}, []float32{1, 0}, 1)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if len(hs) == 0 {
			return ""
		}
		return hs[0].Key.Path
	}
	put(a, "old.md", []float32{0, 1})
	if got := top(); got != "old.md" {
		t.Fatalf("top = %q", got)
	}
	put(b, "new.md", []float32{1, 0})
	if got := top(); got != "new.md" {
		t.Errorf("after another process's write, top = %q, want new.md", got)
	}
}

// openTwice opens two stores on one new file, as two processes would.
func openTwice(t *testing.T) (*sqlite.Store, *sqlite.Store) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "baton.db")
	open := func() *sqlite.Store {
		s, err := sqlite.Open(context.Background(), path, sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	return open(), open()
}
