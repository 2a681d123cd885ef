package tool

import (
	"context"
	"testing"

	"github.com/baton-dev/baton"
)

// projectsTx counts the listings that reach the store.
type projectsTx struct {
	baton.Tx
	lists int
	all   []*baton.Project
}

func (t *projectsTx) Projects(context.Context) ([]*baton.Project, error) {
	t.lists++
	out := make([]*baton.Project, len(t.all))
	for i, p := range t.all {
		c := *p
		out[i] = &c
	}
	return out, nil
}

func (t *projectsTx) CreateProject(_ context.Context, p *baton.Project) error {
	t.all = append(t.all, p)
	return nil
}

func (t *projectsTx) SetProjectTools(_ context.Context, slug string, tools []string) error {
	for _, p := range t.all {
		if p.Slug == slug {
			p.Tools = tools
		}
	}
	return nil
}

// TestMemoListsProjectsOncePerCall: a call lists the projects from the
// store once (session.Project and eventProject both ask), each caller gets
// copies of its own, and a write of a project lists them again.
func TestMemoListsProjectsOncePerCall(t *testing.T) {
	ctx := context.Background()
	store := &projectsTx{all: []*baton.Project{{Slug: "alpha", Prefix: "ALP", Tools: []string{"a"}}}}
	m := &itemMemo{Tx: store}
	first, _ := m.Projects(ctx)
	first[0].Slug, first[0].Tools[0] = "changed", "changed"
	second, err := m.Projects(ctx)
	if err != nil || store.lists != 1 {
		t.Fatalf("two listings in one call reached the store %d times (%v), want once", store.lists, err)
	}
	if len(second) != 1 || second[0].Slug != "alpha" || second[0].Tools[0] != "a" {
		t.Errorf("a caller's change to its list reached the next caller: %+v", second[0])
	}
	if err := m.CreateProject(ctx, &baton.Project{Slug: "beta", Prefix: "BET"}); err != nil {
		t.Fatal(err)
	}
	if ps, _ := m.Projects(ctx); len(ps) != 2 || store.lists != 2 {
		t.Errorf("after CreateProject: %d projects from %d listings, want 2 from 2", len(ps), store.lists)
	}
	if err := m.SetProjectTools(ctx, "alpha", []string{"b"}); err != nil {
		t.Fatal(err)
	}
	if ps, _ := m.Projects(ctx); store.lists != 3 || ps[0].Tools[0] != "b" {
		t.Errorf("after SetProjectTools: %d listings, alpha's tools %v; want 3 and [b]", store.lists, ps[0].Tools)
	}
}
