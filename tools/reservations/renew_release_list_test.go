package reservations_test

import (
	"slices"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// TestRenew: renewing moves the expiry of the caller's active
// reservations (all, or those named by glob or id) by extend_seconds
// (30 minutes by default) from the later of now and the old expiry,
// never past a day from now; lapsed ones and others' are left alone.
func TestRenew(t *testing.T) {
	k, clk := newKit(t)
	g := reserve(k, []string{"a/**", "b/**", "c/**"}, map[string]any{"ttl_seconds": 600})
	short := reserve(k, []string{"d/**"}, map[string]any{"ttl_seconds": 60})[0]
	bobs := reserve(k.As("agent-bob"), []string{"z/**"}, map[string]any{"ttl_seconds": 600})[0]
	a, b := id(t, g[0]["file_reservation_id"]), id(t, g[1]["file_reservation_id"])

	clk.Advance(2 * time.Minute) // d/** has lapsed
	now := clk.Peek()
	out := k.OK("renew_file_reservations", map[string]any{"paths": []string{"a/"}, "file_reservation_ids": []int64{b, id(t, bobs["file_reservation_id"])}})
	if out["renewed"] != 2.0 {
		t.Fatalf("renewed %v, want a/** and b/** only", out)
	}
	for _, r := range maps(t, out["file_reservations"]) {
		if !stamp(t, r["old_expires_at"]).Equal(epoch.Add(10*time.Minute)) ||
			!stamp(t, r["new_expires_at"]).Equal(epoch.Add(40*time.Minute)) {
			t.Errorf("renewed %v: want 10m → 40m after epoch", r)
		}
	}
	if r := reservation(k, a); !r.ExpiresAt.Equal(epoch.Add(40 * time.Minute)) {
		t.Errorf("stored a/** expires %v", r.ExpiresAt)
	}
	if r := reservation(k, id(t, g[2]["file_reservation_id"])); !r.ExpiresAt.Equal(epoch.Add(10 * time.Minute)) {
		t.Errorf("c/** (not named) expires %v, want unchanged", r.ExpiresAt)
	}
	if r := reservation(k, id(t, bobs["file_reservation_id"])); !r.ExpiresAt.Equal(epoch.Add(10 * time.Minute)) {
		t.Errorf("bob's reservation renewed by alice: expires %v", r.ExpiresAt)
	}

	// All of alice's active ones, by a chosen amount; the lapsed one is
	// not revived.
	out = k.OK("renew_file_reservations", map[string]any{"extend_seconds": 3600})
	if out["renewed"] != 3.0 {
		t.Errorf("renew all = %v, want the 3 active", out)
	}
	if r := reservation(k, id(t, short["file_reservation_id"])); r.Active(now) {
		t.Errorf("a lapsed reservation was renewed: %+v", r)
	}
	// Never past a day from now.
	k.OK("renew_file_reservations", map[string]any{"extend_seconds": 86400, "file_reservation_ids": []int64{a}})
	if r := reservation(k, a); !r.ExpiresAt.Equal(now.Add(24 * time.Hour)) {
		t.Errorf("a/** expires %v, want the cap %v", r.ExpiresAt, now.Add(24*time.Hour))
	}
	invalid(k, "renew_file_reservations", map[string]any{"extend_seconds": 59}, "extend_seconds", "minimum")
	invalid(k, "renew_file_reservations", map[string]any{"paths": []string{"../x"}}, "paths[0]", "glob")
	// Nothing of bob's matched: renewed 0, no error.
	if out := k.As("agent-carol").OK("renew_file_reservations", nil); out["renewed"] != 0.0 {
		t.Errorf("carol renewed %v", out)
	}
}

// TestRelease: release ends the caller's active reservations (all, or
// those named), freeing the paths for others; it is idempotent, and
// others' reservations are untouched.
func TestRelease(t *testing.T) {
	k, clk := newKit(t)
	g := reserve(k, []string{"a/**", "b/**", "c/**"}, nil)
	bobs := reserve(k.As("agent-bob"), []string{"z/**"}, nil)[0]
	clk.Advance(time.Minute)
	now := clk.Peek()

	out := k.OK("release_file_reservations", map[string]any{"paths": []string{"a/"}, "file_reservation_ids": []int64{id(t, bobs["file_reservation_id"])}})
	if out["released"] != 1.0 || !stamp(t, out["released_at"]).Equal(now) {
		t.Fatalf("release = %v, want only a/**", out)
	}
	if ids := out["file_reservation_ids"].([]any); len(ids) != 1 || id(t, ids[0]) != id(t, g[0]["file_reservation_id"]) {
		t.Errorf("released ids %v", ids)
	}
	r := reservation(k, id(t, g[0]["file_reservation_id"]))
	if !r.ReleasedAt.Equal(now) || r.ReleasedBy != "agent-alice" {
		t.Errorf("stored %+v, want released by alice at %v", r, now)
	}
	if r := reservation(k, id(t, bobs["file_reservation_id"])); !r.Active(now) {
		t.Errorf("alice released bob's reservation: %+v", r)
	}
	// The path is free for bob now, not b/**.
	reserve(k.As("agent-bob"), []string{"a/x.go"}, nil)
	fail(k.As("agent-bob"), "file_reservation_paths", map[string]any{"paths": []string{"b/x.go"}}, baton.ErrConflict)

	if out := k.OK("release_file_reservations", nil); out["released"] != 2.0 {
		t.Errorf("release all = %v, want b/** and c/**", out)
	}
	if out := k.OK("release_file_reservations", nil); out["released"] != 0.0 {
		t.Errorf("second release all = %v, want 0", out)
	}
	if n := active(k, now); n != 2 {
		t.Errorf("%d active, want bob's two", n)
	}
}

// TestList: active reservations, oldest first, narrowed by agent, item,
// overlapping path and limit; include_released adds ended ones, newest
// first, with who ended them.
func TestList(t *testing.T) {
	k, clk := newKit(t)
	bob := k.As("agent-bob")
	item := claimed(k, 0)
	a := reserve(k, []string{"src/**"}, map[string]any{"reason": "core"})[0]
	clk.Advance(time.Second)
	b := reserve(bob, []string{"docs/*.md"}, map[string]any{"exclusive": false})[0]
	clk.Advance(time.Second)
	c := reserve(bob, []string{"web/app.js"}, nil)[0]
	clk.Advance(time.Second)
	bob.OK("release_file_reservations", map[string]any{"paths": []string{"web/app.js"}})

	ids := func(out map[string]any) []int64 {
		var got []int64
		for _, r := range maps(t, out["file_reservations"]) {
			got = append(got, id(t, r["file_reservation_id"]))
		}
		return got
	}
	aid, bid, cid := id(t, a["file_reservation_id"]), id(t, b["file_reservation_id"]), id(t, c["file_reservation_id"])
	cases := []struct {
		name string
		args map[string]any
		want []int64
	}{
		{"active", nil, []int64{aid, bid}},
		{"by agent", map[string]any{"agent": "AGENT-BOB"}, []int64{bid}},
		{"by item", map[string]any{"issue_id": item}, []int64{aid}},
		{"overlapping a file", map[string]any{"path": "docs/intro.md"}, []int64{bid}},
		{"overlapping a glob", map[string]any{"path": "docs/[a-i]*"}, []int64{bid}},
		{"overlapping both", map[string]any{"path": "**/*.md"}, []int64{aid, bid}},
		{"overlapping nothing", map[string]any{"path": "tests/**"}, nil},
		{"limit", map[string]any{"limit": 1}, []int64{aid}},
		{"with released", map[string]any{"include_released": true}, []int64{cid, bid, aid}},
		{"released, by path", map[string]any{"include_released": true, "path": "web/"}, []int64{cid}},
		{"released, limit after the path", map[string]any{"include_released": true, "path": "**/*.md", "limit": 1}, []int64{bid}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := ids(k.On(t).OK("list_file_reservations", tc.args)); !slices.Equal(got, tc.want) {
				t.Errorf("list %v = %v, want %v", tc.args, got, tc.want)
			}
		})
	}
	all := maps(t, k.OK("list_file_reservations", map[string]any{"include_released": true})["file_reservations"])
	if r := all[0]; r["active"] != false || r["released_by"] != "agent-bob" || !stamp(t, r["released_at"]).Equal(clk.Peek()) {
		t.Errorf("released entry %v", r)
	}
	if r := all[2]; r["active"] != true || r["agent"] != "agent-alice" || r["path_pattern"] != "src/**" || r["exclusive"] != true ||
		r["reason"] != "core" || r["issue_id"] != item || r["project"] != testkit.Project || !stamp(t, r["created_at"]).Equal(epoch) ||
		r["released_at"] != nil {
		t.Errorf("active entry %v", r)
	}
	invalid(k, "list_file_reservations", map[string]any{"limit": 1001}, "limit", "maximum")
	invalid(k, "list_file_reservations", map[string]any{"path": "/abs"}, "path", "glob")
	// Read-only: not in the action log.
	if n := k.Count("SELECT COUNT(*) FROM actions WHERE tool = 'list_file_reservations'"); n != 0 {
		t.Errorf("list_file_reservations recorded %d actions", n)
	}
}
