package reservations_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// TestReservationConflicts: bob holds one reservation; alice asks for
// another. Whether alice's conflicts follows the rule: the globs overlap
// and at least one of the two is exclusive, the other is bob's (never
// alice's own), and bob's is active (not lapsed, not released) in the
// same project.
func TestReservationConflicts(t *testing.T) {
	cases := []struct {
		name          string
		held          string
		heldExclusive bool
		want          string
		wantExclusive bool
		// before alice asks: "expire" moves past bob's expiry, "release"
		// has bob release it, "self" makes the held reservation alice's,
		// "project" puts bob's in another project.
		setup    string
		conflict bool
	}{
		{"exclusive vs exclusive overlapping", "src/**", true, "src/pkg/*.go", true, "", true},
		{"exclusive vs exclusive, same file", "src/main.go", true, "src/main.go", true, "", true},
		{"directory slash vs its files", "src/", true, "src/a/b/c.txt", true, "", true},
		{"globstar suffix vs directory", "**/*.go", true, "src/**", true, "", true},
		{"shared and shared", "src/**", false, "src/pkg/*.go", false, "", false},
		{"shared held, exclusive wanted", "src/**", false, "src/pkg/*.go", true, "", true},
		{"exclusive held, shared wanted", "src/**", true, "src/pkg/*.go", false, "", true},
		{"own reservation overlaps", "src/**", true, "src/pkg/*.go", true, "self", false},
		{"disjoint globs", "src/**", true, "docs/*.md", true, "", false},
		{"disjoint by extension", "**/*.go", true, "docs/*.md", true, "", false},
		{"disjoint literal prefixes", "src/a/**", true, "src/b/**", true, "", false},
		{"a name is not its directory's contents", "src", true, "src/x.go", true, "", false},
		{"lapsed", "src/**", true, "src/pkg/*.go", true, "expire", false},
		{"released", "src/**", true, "src/pkg/*.go", true, "release", false},
		{"another project", "src/**", true, "src/pkg/*.go", true, "project", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k, clk := newKit(t)
			k = k.On(t)
			holder := k.As("agent-bob")
			args := map[string]any{"exclusive": tc.heldExclusive, "ttl_seconds": 600}
			switch tc.setup {
			case "self":
				holder = k
			case "project":
				k.AddProject("other", "OTH")
				args["project"] = "other"
			}
			held := reserve(holder, []string{tc.held}, args)[0]
			switch tc.setup {
			case "expire":
				clk.Advance(600 * time.Second)
			case "release":
				holder.OK("release_file_reservations", map[string]any{"paths": []string{tc.held}})
			}
			before := len(stored(k))
			ask := map[string]any{"paths": []string{tc.want}, "exclusive": tc.wantExclusive}
			if tc.setup == "project" {
				ask["project"] = testkit.Project
			}
			if !tc.conflict {
				got := reserve(k, ask["paths"].([]string), ask)
				if len(got) != 1 || got[0]["exclusive"] != tc.wantExclusive {
					t.Errorf("granted %v", got)
				}
				return
			}
			e := fail(k, "file_reservation_paths", ask, baton.ErrConflict)
			if e.Type != baton.ErrorTypePathConflict {
				t.Errorf("type = %q, want path_conflict", e.Type)
			}
			cs := maps(t, e.Details["conflicts"])
			if len(cs) != 1 || cs[0]["path"] != tc.want {
				t.Fatalf("conflicts = %v, want one for %s", cs, tc.want)
			}
			hs := maps(t, cs[0]["holders"])
			if len(hs) != 1 || hs[0]["agent"] != "agent-bob" || hs[0]["path_pattern"] != held["path_pattern"] ||
				id(t, hs[0]["file_reservation_id"]) != id(t, held["file_reservation_id"]) || hs[0]["exclusive"] != tc.heldExclusive {
				t.Errorf("holders = %v, want bob's %v", hs, held)
			}
			if after := len(stored(k)); after != before {
				t.Errorf("a refused call stored %d reservations", after-before)
			}
		})
	}
}

// TestConflictNamesHolderPathsAndExpiry: the refusal says who holds what
// until when, per requested path, in the message and in details; it is
// all or nothing (the free path is not reserved either); and its hint says
// what to do.
func TestConflictNamesHolderPathsAndExpiry(t *testing.T) {
	k, clk := newKit(t)
	bob, carol := k.As("agent-bob"), k.As("agent-carol")
	b := reserve(bob, []string{"src/api/**"}, map[string]any{"reason": "refactoring the API", "ttl_seconds": 900})[0]
	clk.Advance(time.Minute)
	c := reserve(carol, []string{"docs/*.md"}, map[string]any{"exclusive": false, "ttl_seconds": 1800})[0]
	clk.Advance(time.Minute)

	e := fail(k, "file_reservation_paths", map[string]any{"paths": []string{"src/api/handler.go", "README.txt", "docs/intro.md"}},
		baton.ErrConflict)
	bobExp, carolExp := epoch.Add(900*time.Second), epoch.Add(time.Minute+1800*time.Second)
	for _, want := range []string{"agent-bob", "src/api/**", "src/api/handler.go", baton.Timestamp(bobExp), "refactoring the API",
		"agent-carol", "docs/*.md", "docs/intro.md", baton.Timestamp(carolExp)} {
		if !strings.Contains(e.Message, want) {
			t.Errorf("message %q does not name %q", e.Message, want)
		}
	}
	if strings.Contains(e.Message, "README.txt") {
		t.Errorf("message %q names the free path as a conflict", e.Message)
	}
	cs := maps(t, e.Details["conflicts"])
	if len(cs) != 2 || cs[0]["path"] != "src/api/handler.go" || cs[1]["path"] != "docs/intro.md" {
		t.Fatalf("conflicts = %v", cs)
	}
	h := maps(t, cs[0]["holders"])[0]
	if h["agent"] != "agent-bob" || h["path_pattern"] != "src/api/**" || h["exclusive"] != true || h["reason"] != "refactoring the API" ||
		!stamp(t, h["expires_at"]).Equal(bobExp) || id(t, h["file_reservation_id"]) != id(t, b["file_reservation_id"]) ||
		h["example_path"] != "src/api/handler.go" {
		t.Errorf("bob's holder entry = %v", h)
	}
	h = maps(t, cs[1]["holders"])[0]
	if h["agent"] != "agent-carol" || h["exclusive"] != false || !stamp(t, h["expires_at"]).Equal(carolExp) ||
		id(t, h["file_reservation_id"]) != id(t, c["file_reservation_id"]) {
		t.Errorf("carol's holder entry = %v", h)
	}
	if hs, _ := e.Details["holders"].([]any); len(hs) != 2 {
		t.Errorf("details.holders = %v, want bob and carol", e.Details["holders"])
	}
	for _, want := range []string{"agent-bob", "agent-carol", baton.Timestamp(bobExp), "nothing was reserved"} {
		if !strings.Contains(e.Hint, want) {
			t.Errorf("hint %q does not say %q", e.Hint, want)
		}
	}
	for _, r := range stored(k) {
		if strings.EqualFold(r.Agent, "agent-alice") {
			t.Errorf("alice got %s although the call was refused", r.Pattern)
		}
	}
	// Only the free path: granted.
	if g := reserve(k, []string{"README.txt"}, nil); len(g) != 1 || g[0]["path_pattern"] != "README.txt" {
		t.Errorf("granted %v", g)
	}
}

// TestGrantShape: what a grant returns and stores: normal-form globs
// (src/ is src/**, repeats dropped), exclusive by default, an hour by
// default, the reason; and the action is in the log.
func TestGrantShape(t *testing.T) {
	k, _ := newKit(t)
	g := reserve(k, []string{"src/", "src//**", "docs/a.md"}, map[string]any{"reason": "docs pass"})
	if len(g) != 2 || g[0]["path_pattern"] != "src/**" || g[1]["path_pattern"] != "docs/a.md" {
		t.Fatalf("granted %v, want src/** and docs/a.md", g)
	}
	for _, r := range g {
		if r["exclusive"] != true || r["reason"] != "docs pass" || !stamp(t, r["expires_at"]).Equal(epoch.Add(time.Hour)) {
			t.Errorf("grant %v: want exclusive, the reason, an hour", r)
		}
		if _, linked := r["issue_id"]; linked {
			t.Errorf("grant %v linked to an item, without a claim", r)
		}
		s := reservation(k, id(t, r["file_reservation_id"]))
		if s.Agent != "agent-alice" || s.Project != testkit.Project || s.Pattern != r["path_pattern"] || !s.CreatedAt.Equal(epoch) ||
			!s.ExpiresAt.Equal(epoch.Add(time.Hour)) || !s.Exclusive {
			t.Errorf("stored %+v", s)
		}
	}
	if n := k.Count("SELECT COUNT(*) FROM actions WHERE tool = 'file_reservation_paths'"); n != 1 {
		t.Errorf("%d actions of file_reservation_paths, want 1", n)
	}
	shared := reserve(k, []string{"b/**"}, map[string]any{"exclusive": false, "ttl_seconds": 60})[0]
	if shared["exclusive"] != false || !stamp(t, shared["expires_at"]).Equal(epoch.Add(time.Minute)) {
		t.Errorf("shared grant %v", shared)
	}
}

// TestReserveAgainUpdates: reserving a glob one holds changes that
// reservation, never adds a second: the later expiry wins, exclusive
// wins over shared, a new reason replaces the old. Upgrading shared to
// exclusive is checked against the others' shared reservations.
func TestReserveAgainUpdates(t *testing.T) {
	k, clk := newKit(t)
	first := reserve(k, []string{"src/**"}, map[string]any{"exclusive": false, "ttl_seconds": 3600, "reason": "reading"})[0]
	rid := id(t, first["file_reservation_id"])

	// A shorter lease does not shorten it; the same mode and no reason
	// keep the reservation as it is.
	clk.Advance(10 * time.Minute)
	again := reserve(k, []string{"src/"}, map[string]any{"exclusive": false, "ttl_seconds": 60})[0]
	if id(t, again["file_reservation_id"]) != rid || !stamp(t, again["expires_at"]).Equal(epoch.Add(time.Hour)) ||
		again["reason"] != "reading" {
		t.Errorf("re-reserve with a shorter ttl = %v, want #%d unchanged", again, rid)
	}
	// A longer lease extends it, in place.
	again = reserve(k, []string{"src/**"}, map[string]any{"exclusive": false, "ttl_seconds": 7200})[0]
	if id(t, again["file_reservation_id"]) != rid || !stamp(t, again["expires_at"]).Equal(clk.Peek().Add(2*time.Hour)) {
		t.Errorf("re-reserve with a longer ttl = %v, want #%d until %v", again, rid, clk.Peek().Add(2*time.Hour))
	}
	if n := active(k, clk.Peek()); n != 1 {
		t.Errorf("%d active reservations, want 1", n)
	}

	// bob shares it; alice's upgrade to exclusive now conflicts with him.
	reserve(k.As("agent-bob"), []string{"src/pkg/**"}, map[string]any{"exclusive": false})
	e := fail(k, "file_reservation_paths", map[string]any{"paths": []string{"src/**"}}, baton.ErrConflict)
	if !strings.Contains(e.Message, "agent-bob") {
		t.Errorf("upgrade refusal %q does not name bob", e.Message)
	}
	k.As("agent-bob").OK("release_file_reservations", nil)

	up := reserve(k, []string{"src/**"}, map[string]any{"reason": "rewriting"})[0]
	if up["exclusive"] != true || up["reason"] != "rewriting" || !stamp(t, up["expires_at"]).Equal(clk.Peek().Add(2*time.Hour)) {
		t.Errorf("upgrade = %v, want exclusive, rewriting, the later expiry", up)
	}
	// Exclusive stays when asked for shared later.
	down := reserve(k, []string{"src/**"}, map[string]any{"exclusive": false})[0]
	if down["exclusive"] != true || down["file_reservation_id"] != up["file_reservation_id"] {
		t.Errorf("shared re-reserve of an exclusive one = %v, want %v unchanged", down, up)
	}
	var mine []*baton.FileReservation
	for _, r := range stored(k) {
		if r.Agent == "agent-alice" && r.Active(clk.Peek()) {
			mine = append(mine, r)
		}
	}
	if len(mine) != 1 || mine[0].Pattern != "src/**" || !mine[0].Exclusive || mine[0].Reason != "rewriting" {
		t.Errorf("alice's active reservations = %+v, want the one src/**", mine)
	}
}

// TestReserveValidation: what is not a repository-relative glob, and
// what breaks the limits, is refused before anything is stored.
func TestReserveValidation(t *testing.T) {
	k, _ := newKit(t)
	many := make([]string, 51)
	for i := range many {
		many[i] = fmt.Sprintf("f%d.go", i)
	}
	cases := []struct {
		name        string
		args        map[string]any
		field, rule string
	}{
		{"absolute path", map[string]any{"paths": []string{"src/ok.go", "/etc/passwd"}}, "paths[1]", "glob"},
		{"dot-dot", map[string]any{"paths": []string{"src/../secrets"}}, "paths[0]", "glob"},
		{"globstar inside a segment", map[string]any{"paths": []string{"src/a**"}}, "paths[0]", "glob"},
		{"unclosed class", map[string]any{"paths": []string{"src/[ab"}}, "paths[0]", "glob"},
		{"ttl 59", map[string]any{"paths": []string{"a"}, "ttl_seconds": 59}, "ttl_seconds", "minimum"},
		{"ttl past a day", map[string]any{"paths": []string{"a"}, "ttl_seconds": 86401}, "ttl_seconds", "maximum"},
		{"51 paths", map[string]any{"paths": many}, "paths", "maxItems"},
		{"no paths", map[string]any{"paths": []string{}}, "paths", "minItems"},
		{"empty path", map[string]any{"paths": []string{""}}, "paths[0]", "minLength"},
		{"long reason", map[string]any{"paths": []string{"a"}, "reason": strings.Repeat("r", 501)}, "reason", "maxLength"},
		{"long path", map[string]any{"paths": []string{strings.Repeat("a", 1025)}}, "paths[0]", "maxLength"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			invalid(k.On(t), "file_reservation_paths", tc.args, tc.field, tc.rule)
		})
	}
	if n := len(stored(k)); n != 0 {
		t.Errorf("%d reservations stored by refused calls", n)
	}
	// Where the glob is wrong, the refusal says how to write it.
	e := fail(k, "file_reservation_paths", map[string]any{"paths": []string{"/src/main.go"}}, baton.ErrInvalidInput)
	if !strings.Contains(e.Message, "absolute") || !strings.Contains(e.Message, "src/main.go") {
		t.Errorf("absolute path refusal %q", e.Message)
	}
}

// TestReserveBound: an agent holds at most 200 active reservations in a
// project; re-reserving what it holds does not count, releasing makes
// room, and other agents have their own bound.
func TestReserveBound(t *testing.T) {
	k, _ := newKit(t)
	for batch := range 4 {
		paths := make([]string, 50)
		for i := range paths {
			paths[i] = fmt.Sprintf("d%d/f%d.go", batch, i)
		}
		reserve(k, paths, nil)
	}
	e := invalid(k, "file_reservation_paths", map[string]any{"paths": []string{"d0/f0.go", "extra.go"}}, "paths", "max_active_reservations")
	if !strings.Contains(e.Hint, "release_file_reservations") || e.Details["limit"] != 200.0 {
		t.Errorf("bound refusal: hint %q, details %v", e.Hint, e.Details)
	}
	reserve(k, []string{"d0/f0.go", "d1/f1.go"}, nil) // held already: no new ones
	reserve(k.As("agent-bob"), []string{"other.go"}, nil)
	k.OK("release_file_reservations", map[string]any{"paths": []string{"d3/f49.go"}})
	reserve(k, []string{"extra.go"}, nil)
}

// TestReserveLinksToClaim: a reservation is linked to the item the caller
// claimed, named or (when it holds exactly one claim) implied; naming an
// item the caller does not hold is refused with what to do.
func TestReserveLinksToClaim(t *testing.T) {
	k, clk := newKit(t)
	bob := k.As("agent-bob")

	// No claim: unlinked.
	if g := reserve(k, []string{"a.go"}, nil)[0]; g["issue_id"] != nil {
		t.Errorf("unclaimed grant linked to %v", g["issue_id"])
	}
	one := claimed(k, 0)
	if g := reserve(k, []string{"b.go"}, nil)[0]; g["issue_id"] != one {
		t.Errorf("grant with one claim linked to %v, want %s", g["issue_id"], one)
	}
	two := claimed(k, 0)
	if g := reserve(k, []string{"c.go"}, nil)[0]; g["issue_id"] != nil {
		t.Errorf("grant with two claims linked to %v, want none", g["issue_id"])
	}
	if g := reserve(k, []string{"d.go"}, map[string]any{"issue_id": two})[0]; g["issue_id"] != two {
		t.Errorf("grant for %s linked to %v", two, g["issue_id"])
	}
	// The session's bound issue breaks the tie.
	bound := *k
	bound.Principal.IssueID = one
	if g := reserve(&bound, []string{"e.go"}, nil)[0]; g["issue_id"] != one {
		t.Errorf("bound session's grant linked to %v, want %s", g["issue_id"], one)
	}

	// Someone else's item: ERR_CLAIMED naming the holder.
	bobs := claimed(bob, 0)
	e := fail(k, "file_reservation_paths", map[string]any{"paths": []string{"f.go"}, "issue_id": bobs}, baton.ErrClaimed)
	if e.Details["holder"] != "agent-bob" || !strings.Contains(e.Message, "agent-bob") {
		t.Errorf("ERR_CLAIMED = %+v", e)
	}
	// An unclaimed item: claim it first.
	free := task(k)
	e = invalid(k, "file_reservation_paths", map[string]any{"paths": []string{"f.go"}, "issue_id": free}, "issue_id", "claimed_by_you")
	if !strings.Contains(e.Hint, "claim_item") {
		t.Errorf("hint %q does not say to claim", e.Hint)
	}
	fail(k, "file_reservation_paths", map[string]any{"paths": []string{"f.go"}, "issue_id": "COL-999"}, baton.ErrTaskNotFound)

	// A lapsed claim links nothing and cannot be named.
	short := claimed(bob, 30)
	clk.Advance(time.Minute)
	if g := reserve(bob, []string{"g.go"}, nil)[0]; g["issue_id"] != bobs {
		t.Errorf("bob's grant linked to %v, want his one live claim %s (not the lapsed %s)", g["issue_id"], bobs, short)
	}
	e = invalid(bob, "file_reservation_paths", map[string]any{"paths": []string{"h.go"}, "issue_id": short}, "issue_id", "claimed_by_you")
	if !strings.Contains(e.Message, "lapsed") {
		t.Errorf("lapsed-claim refusal %q", e.Message)
	}
	// An item of another project puts the reservation there.
	k.AddProject("other", "OTH")
	oid := k.OK("task_create", map[string]any{"project": "other", "title": "t"})["task_id"].(string)
	k.OK("task_update", map[string]any{"task_id": oid, "status": "todo"})
	k.OK("claim_item", map[string]any{"item_id": oid})
	g := reserve(k, []string{"x.go"}, map[string]any{"issue_id": oid})[0]
	if r := reservation(k, id(t, g["file_reservation_id"])); r.Project != "other" || r.Item != oid {
		t.Errorf("stored %+v, want project other, item %s", r, oid)
	}
}

// TestEveryToolRegistered: the five tools are in the registry, in the
// reservations toolset; the four of the work loop are in core, forcing
// only in full.
func TestEveryToolRegistered(t *testing.T) {
	k := testkit.New(t)
	names := []string{"file_reservation_paths", "renew_file_reservations", "release_file_reservations",
		"force_release_file_reservation", "list_file_reservations"}
	for _, n := range names {
		tl, ok := k.Registry.Get(n)
		if !ok {
			t.Errorf("%s is not registered", n)
			continue
		}
		if s := tl.Spec(); s.Toolset != "reservations" || s.Annotations.Privileged {
			t.Errorf("%s: toolset %q, privileged %v", n, s.Toolset, s.Annotations.Privileged)
		}
	}
	core := presetTools(k, "core")
	for _, n := range names {
		if in := slices.Contains(core, n); in != (n != "force_release_file_reservation") {
			t.Errorf("%s in core: %v", n, in)
		}
		if !slices.Contains(presetTools(k, "full"), n) {
			t.Errorf("%s not in full", n)
		}
	}
}
