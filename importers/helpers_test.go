package importers_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/importers"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/sqlite"
)

const (
	project = "web"
	by      = "alice"
)

// backends are the stores the import runs on: SQLite on a temporary file
// always, PostgreSQL when BATON_TEST_POSTGRES_URL is set.
var backends = []struct {
	name string
	open func(t *testing.T) baton.Store
}{
	{"sqlite", func(t *testing.T) baton.Store {
		s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "baton.db"), sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}},
	{"postgres", func(t *testing.T) baton.Store {
		if os.Getenv("BATON_TEST_POSTGRES_URL") == "" {
			t.Skip("BATON_TEST_POSTGRES_URL is not set: not run on PostgreSQL")
		}
		return testkit.OpenPostgres(t, nil)
	}},
}

// eachBackend runs fn on a fresh store per backend, with project "web"
// (prefix WEB).
func eachBackend(t *testing.T, fn func(t *testing.T, s baton.Store)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			s := b.open(t)
			err := s.Update(context.Background(), func(tx baton.Tx) error {
				return tx.CreateProject(context.Background(), &baton.Project{Slug: project, Prefix: "WEB", Name: "Web shop"})
			})
			if err != nil {
				t.Fatal(err)
			}
			fn(t, s)
		})
	}
}

func open(t *testing.T, name string) *os.File {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func parse(t *testing.T, read func(io.Reader) (*importers.Plan, error), name string) *importers.Plan {
	t.Helper()
	p, err := read(open(t, name))
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	return p
}

func apply(t *testing.T, s baton.Store, p *importers.Plan, dry bool) *importers.Report {
	t.Helper()
	rep, err := importers.Apply(context.Background(), s, project, p, importers.ApplyOptions{DryRun: dry, By: by})
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	return rep
}

// ids maps each foreign id of the report to its baton id.
func ids(t *testing.T, rep *importers.Report) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, it := range rep.Items {
		if it.ID == "" {
			t.Fatalf("%s has no baton id in the report", it.ForeignID)
		}
		out[it.ForeignID] = it.ID
	}
	return out
}

func entry(t *testing.T, rep *importers.Report, foreign string) importers.ItemReport {
	t.Helper()
	for _, it := range rep.Items {
		if it.ForeignID == foreign {
			return it
		}
	}
	t.Fatalf("%s is not in the report", foreign)
	return importers.ItemReport{}
}

func view[T any](t *testing.T, s baton.Store, fn func(ctx context.Context, tx baton.Tx) (T, error)) T {
	t.Helper()
	var out T
	ctx := context.Background()
	if err := s.View(ctx, func(tx baton.Tx) error {
		var err error
		out, err = fn(ctx, tx)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func item(t *testing.T, s baton.Store, id string) *baton.Item {
	t.Helper()
	return view(t, s, func(ctx context.Context, tx baton.Tx) (*baton.Item, error) { return tx.Item(ctx, id) })
}

func deps(t *testing.T, s baton.Store, id string) []string {
	t.Helper()
	return view(t, s, func(ctx context.Context, tx baton.Tx) ([]string, error) { return tx.Dependencies(ctx, id) })
}

func comments(t *testing.T, s baton.Store, id string) []*baton.Comment {
	t.Helper()
	return view(t, s, func(ctx context.Context, tx baton.Tx) ([]*baton.Comment, error) { return tx.Comments(ctx, id) })
}

func total(t *testing.T, s baton.Store) int {
	t.Helper()
	return view(t, s, func(ctx context.Context, tx baton.Tx) (int, error) {
		page, err := tx.ListItems(ctx, baton.ItemFilter{Project: project})
		return page.Total, err
	})
}

func actions(t *testing.T, s baton.Store) []*baton.Action {
	t.Helper()
	return view(t, s, func(ctx context.Context, tx baton.Tx) ([]*baton.Action, error) { return tx.Actions(ctx, 0, 1000) })
}

func readiness(t *testing.T, s baton.Store, id string) baton.Readiness {
	t.Helper()
	rs := view(t, s, func(ctx context.Context, tx baton.Tx) ([]baton.Readiness, error) {
		return tx.ReadinessOf(ctx, []string{id})
	})
	if len(rs) != 1 {
		t.Fatalf("readiness of %s: %d answers", id, len(rs))
	}
	return rs[0]
}

// finish marks an item done, as a tool would.
func finish(t *testing.T, s baton.Store, id string) {
	t.Helper()
	ctx := context.Background()
	if err := s.Update(ctx, func(tx baton.Tx) error {
		it, err := tx.Item(ctx, id)
		if err != nil {
			return err
		}
		it.Status, it.Progress, it.UpdatedBy, it.UpdatedAt = baton.StatusDone, 100, by, time.Now()
		return tx.UpdateItem(ctx, it)
	}); err != nil {
		t.Fatal(err)
	}
}

func hasSkip(rep *importers.Report, kind, foreign, target string, reason func(string) bool) bool {
	return slices.ContainsFunc(rep.Skipped, func(s importers.Skip) bool {
		return s.Kind == kind && s.ForeignID == foreign && (target == "" || s.Target == target) && reason(s.Reason)
	})
}

func ms(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return v.Truncate(time.Millisecond).UTC()
}
