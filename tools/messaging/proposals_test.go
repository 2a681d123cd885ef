package messaging_test

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

func TestCreateProposal(t *testing.T) {
	for _, typ := range []string{"product", "engineering"} {
		t.Run(typ, func(t *testing.T) {
			k := testkit.New(t)
			clock := withClock(k, time.Second)
			out := k.As("staff-engineer").OK("create_proposal", map[string]any{"title": "Keyboard shortcuts",
				"description": "What: shortcuts.\nWhy: speed.\nHow: a context.\nImpact: faster.", "type": typ})
			id, _ := out["id"].(string)
			if !uuidV4.MatchString(id) {
				t.Errorf("id %q is not a version 4 UUID", id)
			}
			want := map[string]any{"id": id, "title": "Keyboard shortcuts", "type": typ, "status": "pending",
				"createdAt": stamp(clock.Peek())}
			if !reflect.DeepEqual(out, want) {
				t.Errorf("output %v\nwant   %v", out, want)
			}
			ps := list(t, k.OK("list_proposals", nil), "proposals")
			if len(ps) != 1 {
				t.Fatalf("proposals %v", ps)
			}
			want["author"] = "staff-engineer"
			want["description"] = "What: shortcuts.\nWhy: speed.\nHow: a context.\nImpact: faster."
			if !reflect.DeepEqual(ps[0], want) {
				t.Errorf("listed %v\nwant   %v", ps[0], want)
			}
		})
	}
}

func TestCreateProposalLimits(t *testing.T) {
	k := testkit.New(t)
	base := map[string]any{"title": "t", "description": "d", "type": "product"}
	c := func(extra map[string]any) map[string]any { return with(base, extra) }
	runLimitCases(t, k, "create_proposal", []limitCase{
		{"type missing", c(map[string]any{"type": nil}), "type", "required"},
		{"type unknown", c(map[string]any{"type": "ux"}), "type", "enum"},
		{"type capitalised", c(map[string]any{"type": "Engineering"}), "type", "enum"},
		{"title missing", c(map[string]any{"title": nil}), "title", "required"},
		{"title empty", c(map[string]any{"title": ""}), "title", "minLength"},
		{"title blank", c(map[string]any{"title": "  "}), "title", "pattern"},
		{"title 256", c(map[string]any{"title": strings.Repeat("t", 256)}), "", ""},
		{"title 257", c(map[string]any{"title": strings.Repeat("t", 257)}), "title", "maxLength"},
		{"description missing", c(map[string]any{"description": nil}), "description", "required"},
		{"description empty", c(map[string]any{"description": ""}), "description", "minLength"},
		{"description blank", c(map[string]any{"description": "\n\n"}), "description", "pattern"},
		{"description 20000", c(map[string]any{"description": strings.Repeat("d", 20000)}), "", ""},
		{"description 20001", c(map[string]any{"description": strings.Repeat("d", 20001)}), "description", "maxLength"},
		{"author argument", c(map[string]any{"author": "agent-mallory"}), "author", "additionalProperties"},
		{"status argument", c(map[string]any{"status": "accepted"}), "status", "additionalProperties"},
		{"id argument", c(map[string]any{"id": "550e8400-e29b-41d4-a716-446655440003"}), "id", "additionalProperties"},
	})
	for _, p := range list(t, k.OK("list_proposals", nil), "proposals") {
		if p["author"] != "agent-alice" || p["status"] != "pending" {
			t.Errorf("stored %v: author must be the caller, status pending", p)
		}
	}
}

// decide moves a proposal to accepted or dismissed the way the user does
// (the CLI's proposal accept/dismiss), through the store.
func decide(k *testkit.Kit, id, status string) {
	k.T.Helper()
	ctx := context.Background()
	if err := k.Store.Update(ctx, func(tx baton.Tx) error {
		_, err := tx.DecideProposal(ctx, id, status)
		return err
	}); err != nil {
		k.T.Fatalf("decide %s %s: %v", id, status, err)
	}
}

func TestListProposals(t *testing.T) {
	k := testkit.New(t)
	withClock(k, time.Second)
	mk := func(who, title, typ string) string {
		return k.As(who).OK("create_proposal", map[string]any{"title": title, "description": "d " + title, "type": typ})["id"].(string)
	}
	mk("agent-alice", "p1", "product")
	e1 := mk("agent-bob", "e1", "engineering")
	p2 := mk("agent-bob", "p2", "product")
	mk("agent-carol", "e2", "engineering")
	mk("agent-alice", "p3", "product")
	decide(k, p2, "accepted")
	decide(k, e1, "dismissed")

	cases := []struct {
		name string
		args map[string]any
		want []string
	}{
		{"all, newest first", nil, []string{"p3", "e2", "p2", "e1", "p1"}},
		{"pending", map[string]any{"status": "pending"}, []string{"p3", "e2", "p1"}},
		{"accepted", map[string]any{"status": "accepted"}, []string{"p2"}},
		{"dismissed", map[string]any{"status": "dismissed"}, []string{"e1"}},
		{"product", map[string]any{"type": "product"}, []string{"p3", "p2", "p1"}},
		{"engineering", map[string]any{"type": "engineering"}, []string{"e2", "e1"}},
		{"pending engineering", map[string]any{"status": "pending", "type": "engineering"}, []string{"e2"}},
		{"accepted engineering", map[string]any{"status": "accepted", "type": "engineering"}, []string{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := on(k, t).OK("list_proposals", tc.args)
			ps := list(t, out, "proposals")
			if got := field(ps, "title"); !slices.Equal(got, tc.want) {
				t.Errorf("titles %v, want %v", got, tc.want)
			}
			if num(t, out["count"]) != len(ps) {
				t.Errorf("count %v, %d proposals", out["count"], len(ps))
			}
			for _, p := range ps {
				if p["description"] != "d "+p["title"].(string) {
					t.Errorf("description %v", p["description"])
				}
			}
		})
	}
	authors := map[string]string{}
	for _, p := range list(t, k.OK("list_proposals", nil), "proposals") {
		authors[p["title"].(string)] = p["author"].(string)
	}
	if want := map[string]string{"p1": "agent-alice", "e1": "agent-bob", "p2": "agent-bob", "e2": "agent-carol", "p3": "agent-alice"}; !reflect.DeepEqual(authors, want) {
		t.Errorf("authors %v, want %v", authors, want)
	}
	runLimitCases(t, k, "list_proposals", []limitCase{
		{"status unknown", map[string]any{"status": "open"}, "status", "enum"},
		{"status empty", map[string]any{"status": ""}, "status", "enum"},
		{"type unknown", map[string]any{"type": "ux"}, "type", "enum"},
		{"author filter is not a field", map[string]any{"author": "agent-bob"}, "author", "additionalProperties"},
	})
}

func TestListProposalsSameInstant(t *testing.T) {
	// Proposals made in one instant still list newest first: the last made first.
	k := testkit.New(t)
	withClock(k, 0)
	for _, title := range []string{"first", "second", "third"} {
		k.OK("create_proposal", map[string]any{"title": title, "description": "d", "type": "product"})
	}
	if got := field(list(t, k.OK("list_proposals", nil), "proposals"), "title"); !slices.Equal(got, []string{"third", "second", "first"}) {
		t.Errorf("titles %v, want [third second first]", got)
	}
}

func TestListProposalsEmpty(t *testing.T) {
	k := testkit.New(t)
	out := k.OK("list_proposals", nil)
	if ps := list(t, out, "proposals"); len(ps) != 0 || num(t, out["count"]) != 0 {
		t.Errorf("empty store: %v", out)
	}
}
