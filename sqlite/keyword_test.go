package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/sqlite"
)

var kwSpace = baton.DocSpace{Scope: baton.ScopeGlobal}

// kwPut writes path with one chunk per text, in one transaction.
func kwPut(t *testing.T, s *sqlite.Store, path string, texts ...string) {
	t.Helper()
	ctx := context.Background()
	if err := s.Update(ctx, func(tx baton.Tx) error {
		d := &baton.Document{DocKey: baton.DocKey{DocSpace: kwSpace, Path: path}, Content: "content", UpdatedBy: "x"}
		if err := tx.PutDocument(ctx, d); err != nil {
			return err
		}
		var cs []*baton.Chunk
		for i, text := range texts {
			cs = append(cs, &baton.Chunk{Ordinal: i, Text: text, End: 1})
		}
		return tx.ReplaceChunks(ctx, d.DocKey, d.Version, cs)
	}); err != nil {
		t.Fatal(err)
	}
}

// kwFind runs a keyword search in a snapshot of s and returns the paths.
func kwFind(t *testing.T, s *sqlite.Store, text string) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	if err := s.View(ctx, func(tx baton.Tx) error {
		hs, err := tx.SearchChunks(ctx, baton.ChunkQuery{Spaces: []baton.DocSpace{kwSpace}, Text: text})
		for _, h := range hs {
			out = append(out, h.Chunk.Key.Path)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestKeywordSearchSeesOtherProcesses: a store whose keyword index is
// loaded sees what another store on the same file writes afterwards:
// new documents, deletions, and chunks replaced under the same ids.
func TestKeywordSearchSeesOtherProcesses(t *testing.T) {
	ctx := context.Background()
	a, b := openTwice(t)
	kwPut(t, a, "old.md", "quasar light")
	if got := kwFind(t, a, "quasar"); !slices.Equal(got, []string{"old.md"}) {
		t.Fatalf("quasar = %v", got)
	}
	kwPut(t, b, "new.md", "quasar quasar pulsar")
	if got := kwFind(t, a, "quasar"); !slices.Equal(got, []string{"new.md", "old.md"}) {
		t.Errorf("after another process's write, quasar = %v, want new.md first", got)
	}
	// b rewrites new.md's chunks in place: SQLite gives the replacements
	// the ids just freed.
	if err := b.Update(ctx, func(tx baton.Tx) error {
		key := baton.DocKey{DocSpace: kwSpace, Path: "new.md"}
		return tx.ReplaceChunks(ctx, key, "", []*baton.Chunk{{Ordinal: 0, Text: "magnetar", End: 1}})
	}); err != nil {
		t.Fatal(err)
	}
	if got := kwFind(t, a, "quasar pulsar"); !slices.Equal(got, []string{"old.md"}) {
		t.Errorf("after another process re-chunked new.md, quasar pulsar = %v, want old.md", got)
	}
	if got := kwFind(t, a, "magnetar"); !slices.Equal(got, []string{"new.md"}) {
		t.Errorf("magnetar = %v, want new.md", got)
	}
	if err := b.Update(ctx, func(tx baton.Tx) error {
		_, err := tx.DeleteDocument(ctx, baton.DocKey{DocSpace: kwSpace, Path: "old.md"}, "", "x")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := kwFind(t, a, "quasar magnetar"); !slices.Equal(got, []string{"new.md"}) {
		t.Errorf("after another process deleted old.md: %v", got)
	}
}

// TestKeywordSearchConcurrent: searches running while documents are
// written each see a consistent index (run with -race).
func TestKeywordSearchConcurrent(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "baton.db"))
	kwPut(t, s, "seed.md", "shared seed")
	const writes = 20
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	stop := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			ctx := context.Background()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err := s.View(ctx, func(tx baton.Tx) error {
					hs, err := tx.SearchChunks(ctx, baton.ChunkQuery{Spaces: []baton.DocSpace{kwSpace}, Text: "shared"})
					if err == nil && (len(hs) == 0 || len(hs) > writes+1) {
						err = fmt.Errorf("shared = %d hits", len(hs))
					}
					for _, h := range hs {
						if h.Chunk.ID == 0 || h.Chunk.Text == "" {
							err = fmt.Errorf("hit without its chunk: %+v", h)
						}
					}
					return err
				}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for i := range writes {
		kwPut(t, s, fmt.Sprintf("d%02d.md", i), fmt.Sprintf("shared word%d", i), "another chunk")
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := kwFind(t, s, "shared"); len(got) != writes+1 {
		t.Errorf("shared after the writes = %d hits, want %d", len(got), writes+1)
	}
}
