package messaging_test

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

func TestReadMessagesFilters(t *testing.T) {
	k := testkit.New(t)
	withClock(k, time.Second)
	known(k, "agent-bob", "agent-carol")
	alice, bob, carol := k, k.As("agent-bob"), k.As("agent-carol")

	send(alice, "agent-bob", "ab1", map[string]any{"threadId": "t-ab"})
	send(bob, "agent-alice", "ba1", map[string]any{"threadId": "t-ab"})
	send(carol, "user", "cu1", nil)
	send(alice, "agent-carol", "ac1", map[string]any{"threadId": "t-ac"})
	send(k.As("user"), "agent-bob", "ub1", map[string]any{"threadId": "t-ab"})
	alice.OK("announce", map[string]any{"type": "completion", "title": "done", "body": "COL-1 shipped"})
	send(carol, "agent-bob", "cb1", nil)

	cases := []struct {
		name string
		args map[string]any
		want []string
	}{
		{"no filter, oldest first", map[string]any{}, []string{"ab1", "ba1", "cu1", "ac1", "ub1", "done\n\nCOL-1 shipped", "cb1"}},
		{"thread", map[string]any{"threadId": "t-ab"}, []string{"ab1", "ba1", "ub1"}},
		{"other thread", map[string]any{"threadId": "t-ac"}, []string{"ac1"}},
		{"unknown thread", map[string]any{"threadId": "t-none"}, []string{}},
		{"agent: from or to bob", map[string]any{"agentId": "agent-bob"}, []string{"ab1", "ba1", "ub1", "cb1"}},
		{"agent any case", map[string]any{"agentId": "AGENT-BOB"}, []string{"ab1", "ba1", "ub1", "cb1"}},
		{"agent: carol", map[string]any{"agentId": "agent-carol"}, []string{"cu1", "ac1", "cb1"}},
		{"agent: user", map[string]any{"agentId": "user"}, []string{"cu1", "ub1", "done\n\nCOL-1 shipped"}},
		{"agent and thread", map[string]any{"agentId": "agent-carol", "threadId": "t-ac"}, []string{"ac1"}},
		{"agent and other thread", map[string]any{"agentId": "agent-carol", "threadId": "t-ab"}, []string{}},
		{"unknown agent", map[string]any{"agentId": "agent-nobody"}, []string{}},
		{"limit keeps the newest", map[string]any{"limit": 2}, []string{"done\n\nCOL-1 shipped", "cb1"}},
		{"limit with filter", map[string]any{"agentId": "agent-bob", "limit": 3}, []string{"ba1", "ub1", "cb1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := field(read(on(k.As("agent-observer"), t), tc.args), "body")
			if !slices.Equal(got, tc.want) {
				t.Errorf("bodies = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestReadMessagesDefaultLimit(t *testing.T) {
	k := testkit.New(t)
	withClock(k, time.Second)
	known(k, "agent-bob")
	for i := 1; i <= 60; i++ {
		send(k, "agent-bob", fmt.Sprintf("m%02d", i), nil)
	}
	var want []string
	for i := 11; i <= 60; i++ {
		want = append(want, fmt.Sprintf("m%02d", i))
	}
	got := read(k, map[string]any{})
	if bodies := field(got, "body"); !slices.Equal(bodies, want) {
		t.Errorf("default page = %v (%d), want the newest 50, oldest first: %v", bodies, len(bodies), want)
	}
	if n := len(read(k, map[string]any{"limit": 500})); n != 60 {
		t.Errorf("limit 500 returned %d, want all 60", n)
	}
}

func TestReadMessagesLimits(t *testing.T) {
	k := testkit.New(t)
	runLimitCases(t, k, "read_messages", []limitCase{
		{"limit 1", map[string]any{"limit": 1}, "", ""},
		{"limit 500", map[string]any{"limit": 500}, "", ""},
		{"limit 50.0 is an integer", map[string]any{"limit": 50.0}, "", ""},
		{"limit 0", map[string]any{"limit": 0}, "limit", "minimum"},
		{"limit -1", map[string]any{"limit": -1}, "limit", "minimum"},
		{"limit 501", map[string]any{"limit": 501}, "limit", "maximum"},
		{"limit 2.5", map[string]any{"limit": 2.5}, "", ""}, // the catalogue types it number (point 18)
		{"limit a string", map[string]any{"limit": "10"}, "limit", "type"},
		{"threadId empty", map[string]any{"threadId": ""}, "threadId", "minLength"},
		{"threadId 129", map[string]any{"threadId": strings.Repeat("t", 129)}, "threadId", "maxLength"},
		{"agentId empty", map[string]any{"agentId": ""}, "agentId", "minLength"},
		{"before a word", map[string]any{"before": "yesterday"}, "before", "format"},
		{"before a date only", map[string]any{"before": "2026-04-08"}, "before", "format"},
		{"before with a space", map[string]any{"before": "2026-04-08 22:15:30Z"}, "before", "format"},
		{"before without zone", map[string]any{"before": "2026-04-08T22:15:30"}, "before", "format"},
		{"before unix seconds", map[string]any{"before": 1775686530}, "before", "type"},
		{"before with offset", map[string]any{"before": "2026-04-08T23:15:30+01:00"}, "", ""},
		{"before with ms", map[string]any{"before": "2026-04-08T22:15:30.123Z"}, "", ""},
		{"beforeId 65 chars", map[string]any{"before": "2026-04-08T22:15:30Z", "beforeId": fmt.Sprintf("%065d", 0)}, "beforeId", "maxLength"},
		{"unknown field", map[string]any{"after": "2026-04-08T22:15:30Z"}, "after", "additionalProperties"},
	})

	e := fail(k, "read_messages", map[string]any{"beforeId": "550e8400-e29b-41d4-a716-446655440000"}, baton.ErrInvalidInput)
	if e.Details["field"] != "beforeId" || e.Details["constraint"] != "requires_before" || e.Hint == "" {
		t.Errorf("beforeId without before: %+v", e)
	}
}

func TestReadMessagesBefore(t *testing.T) {
	k := testkit.New(t)
	clock := withClock(k, 0)
	known(k, "agent-bob")
	t0, t1, t2 := epoch, epoch.Add(250*time.Millisecond), epoch.Add(time.Second)
	for _, at := range []time.Time{t0, t1, t1, t2} {
		clock.Set(at)
		send(k, "agent-bob", stamp(at), nil)
	}
	cases := []struct {
		before string
		want   []string
	}{
		{stamp(t2), []string{stamp(t0), stamp(t1), stamp(t1)}},
		{"2026-04-08T23:15:31+01:00", []string{stamp(t0), stamp(t1), stamp(t1)}}, // t2 in another zone
		{stamp(t1), []string{stamp(t0)}},                                         // strictly before: the tie at t1 is out
		{stamp(t0), []string{}},
		{"2026-04-08T22:15:30.251Z", []string{stamp(t0), stamp(t1), stamp(t1)}},
		{"2030-01-01T00:00:00Z", []string{stamp(t0), stamp(t1), stamp(t1), stamp(t2)}},
	}
	for _, tc := range cases {
		got := field(read(k, map[string]any{"before": tc.before}), "createdAt")
		if !slices.Equal(got, tc.want) {
			t.Errorf("before %s: %v, want %v", tc.before, got, tc.want)
		}
	}
}

// cursorFixture sends messages at a frozen clock, several at each of a few
// instants (more per instant than a page holds), and returns their ids.
func cursorFixture(k *testkit.Kit) []string {
	k.T.Helper()
	clock := withClock(k, 0)
	known(k, "agent-bob", "agent-carol")
	senders := []*testkit.Kit{k, k.As("agent-bob"), k.As("agent-carol")}
	var ids []string
	n := 0
	for i, group := range []int{3, 1, 5, 2, 4} {
		clock.Set(epoch.Add(time.Duration(i) * time.Second))
		for range group {
			n++
			to := "agent-bob"
			if n%3 == 1 {
				to = "user"
			}
			ids = append(ids, send(senders[n%3], to, fmt.Sprintf("m%02d", n), nil))
		}
	}
	return ids
}

func TestReadMessagesCursorSameSecondTies(t *testing.T) {
	k := testkit.New(t)
	ids := cursorFixture(k)
	reader := k.As("agent-carol")

	all := read(reader, map[string]any{"limit": 500})
	if len(all) != len(ids) {
		t.Fatalf("one read returns %d messages, want %d", len(all), len(ids))
	}
	for i := 1; i < len(all); i++ {
		prev, cur := all[i-1], all[i]
		if prev["createdAt"].(string) > cur["createdAt"].(string) {
			t.Errorf("not oldest first: %v before %v", prev["createdAt"], cur["createdAt"])
		}
	}

	for _, limit := range []int{1, 2, 3, 4} {
		t.Run(fmt.Sprint("limit ", limit), func(t *testing.T) {
			reader := on(reader, t)
			var pages [][]map[string]any
			args := map[string]any{"limit": limit}
			for range len(ids) + 2 {
				page := read(reader, args)
				if len(page) == 0 {
					break
				}
				if len(page) > limit {
					t.Fatalf("page of %d, limit %d", len(page), limit)
				}
				pages = append(pages, page)
				oldest := page[0]
				args = map[string]any{"limit": limit, "before": oldest["createdAt"], "beforeId": oldest["id"]}
			}
			// Pages come newest first; each is oldest first. Together, oldest
			// first, they must be exactly the one-read sequence.
			var seen []map[string]any
			for i := len(pages) - 1; i >= 0; i-- {
				seen = append(seen, pages[i]...)
			}
			count := map[string]int{}
			for _, m := range seen {
				count[m["id"].(string)]++
			}
			for _, id := range ids {
				if count[id] != 1 {
					t.Errorf("message %s seen %d times, want exactly once", id, count[id])
				}
			}
			if got, want := field(seen, "id"), field(all, "id"); !slices.Equal(got, want) {
				t.Errorf("paged order %v\ndiffers from one read %v", field(seen, "body"), field(all, "body"))
			}
			if want := (len(ids) + limit - 1) / limit; len(pages) != want {
				t.Errorf("%d pages, want %d", len(pages), want)
			}
		})
	}
}

func TestReadMessagesCursorWithFilter(t *testing.T) {
	k := testkit.New(t)
	cursorFixture(k)
	reader := k.As("agent-carol")
	want := field(read(reader, map[string]any{"agentId": "user", "limit": 500}), "id")
	if len(want) < 4 {
		t.Fatalf("fixture has only %d messages to user", len(want))
	}
	var got []string
	args := map[string]any{"agentId": "user", "limit": 2}
	for range 20 {
		page := read(reader, args)
		if len(page) == 0 {
			break
		}
		got = append(field(page, "id"), got...)
		args = map[string]any{"agentId": "user", "limit": 2, "before": page[0]["createdAt"], "beforeId": page[0]["id"]}
	}
	if !slices.Equal(got, want) {
		t.Errorf("paged %v, want %v", got, want)
	}
}

// Messages sent at one instant have no time order of their own; oldest
// first can only mean the order they were sent in, on one page and across
// pages.
func TestReadMessagesSameInstantKeepsSendOrder(t *testing.T) {
	k := testkit.New(t)
	withClock(k, 0) // every message at the same millisecond
	known(k, "agent-bob")
	var want []string
	for i := 1; i <= 8; i++ {
		body := fmt.Sprintf("step %d", i)
		send(k, "agent-bob", body, map[string]any{"threadId": "t"})
		want = append(want, body)
	}
	if got := field(read(k, map[string]any{"threadId": "t"}), "body"); !slices.Equal(got, want) {
		t.Errorf("messages of one instant read as %q, want the send order %q", got, want)
	}
	var paged []string
	args := map[string]any{"threadId": "t", "limit": 3}
	for range 10 {
		page := read(k, args)
		if len(page) == 0 {
			break
		}
		paged = append(field(page, "body"), paged...)
		args = map[string]any{"threadId": "t", "limit": 3, "before": page[0]["createdAt"], "beforeId": page[0]["id"]}
	}
	if !slices.Equal(paged, want) {
		t.Errorf("paged %q, want the send order %q", paged, want)
	}
	// The first page (limit 3) must be the last three sent.
	if got := field(read(k, map[string]any{"threadId": "t", "limit": 3}), "body"); !slices.Equal(got, want[5:]) {
		t.Errorf("newest page %q, want the last three sent %q", got, want[5:])
	}
}

func TestReadMessagesCursorWithinInstant(t *testing.T) {
	// At one instant, before plus the id of any message on the page returns
	// exactly the messages before it on that page.
	k := testkit.New(t)
	withClock(k, 0)
	known(k, "agent-bob")
	var ids []string
	for i := range 6 {
		ids = append(ids, send(k, "agent-bob", fmt.Sprint(i), nil))
	}
	all := field(read(k, map[string]any{}), "id")
	sorted := slices.Clone(ids)
	sort.Strings(sorted)
	if !slices.Equal(slices.Sorted(slices.Values(all)), sorted) {
		t.Fatalf("read %v, sent %v", all, ids)
	}
	for i, id := range all {
		got := field(read(k, map[string]any{"before": stamp(epoch), "beforeId": id}), "id")
		if !slices.Equal(got, all[:i]) {
			t.Errorf("beforeId %s (position %d): %v, want %v", id, i, got, all[:i])
		}
	}
	// An id that names no message resumes nothing at that instant.
	if got := read(k, map[string]any{"before": stamp(epoch), "beforeId": "no-such-id"}); len(got) != 0 {
		t.Errorf("unknown beforeId returned %v", field(got, "body"))
	}
}
