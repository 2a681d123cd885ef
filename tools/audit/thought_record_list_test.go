package audit_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// thoughtIDs returns the thought_id of every listed record.
func thoughtIDs(t testing.TB, out map[string]any) []string {
	t.Helper()
	ids := []string{}
	for _, v := range list(t, out["thoughts"]) {
		ids = append(ids, v.(map[string]any)["thought_id"].(string))
	}
	return ids
}

// TestThoughtRecordListFilters lists by task, session, type and limit,
// each alone and combined, and checks order, count and the echoed filters.
func TestThoughtRecordListFilters(t *testing.T) {
	k := testkit.New(t)
	withClock(k, time.Second)
	a, b := create(k, nil), create(k, nil)
	id := func(out map[string]any) string { return out["thought_id"].(string) }
	a1 := id(k.OK("thought_record", map[string]any{"task_id": a, "type": "decision", "content": "a1"}))
	b1 := id(k.OK("thought_record", map[string]any{"task_id": b, "type": "discovery", "content": "b1"}))
	s := start(k, a, "")
	a2 := id(k.OK("thought_record", map[string]any{"task_id": a, "type": "risk", "content": "a2"}))
	b2 := id(k.OK("thought_record", map[string]any{"task_id": b, "type": "decision", "content": "b2"}))
	a3 := id(k.OK("thought_record", map[string]any{"task_id": a, "type": "decision", "content": "a3"}))

	cases := []struct {
		name string
		args map[string]any
		want []string
	}{
		{"task a", map[string]any{"task_id": a}, []string{a1, a2, a3}},
		{"task b", map[string]any{"task_id": b}, []string{b1, b2}},
		{"type decision", map[string]any{"type": "decision"}, []string{a1, a3, b2}},
		{"task a type risk", map[string]any{"task_id": a, "type": "risk"}, []string{a2}},
		{"type with no records", map[string]any{"type": "blockers"}, []string{}},
		{"session", map[string]any{"session_id": s}, []string{a2, a3}},
		{"session type decision", map[string]any{"session_id": s, "type": "decision"}, []string{a3}},
		{"session and other task", map[string]any{"session_id": s, "task_id": b}, []string{}},
		{"no filter", map[string]any{}, []string{a1, a2, a3, b1, b2}},
		{"task a limit 2", map[string]any{"task_id": a, "limit": 2}, []string{a1, a2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := on(k, t)
			out := k.OK("thought_record_list", c.args)
			if got := thoughtIDs(t, out); !slices.Equal(got, c.want) {
				t.Errorf("thoughts = %v, want %v", got, c.want)
			}
			if num(t, out["thought_count"]) != len(c.want) {
				t.Errorf("thought_count = %v, want %d", out["thought_count"], len(c.want))
			}
			for _, f := range []string{"task_id", "session_id"} {
				if want, ok := c.args[f]; ok && out[f] != want {
					t.Errorf("%s = %v, want the filter %v", f, out[f], want)
				} else if !ok && out[f] != nil {
					t.Errorf("%s = %v without that filter", f, out[f])
				}
			}
			if _, ok := out["chain_valid"]; ok {
				t.Errorf("chain_valid present without verify_chain: %v", out)
			}
			for _, v := range list(t, out["thoughts"]) {
				th := v.(map[string]any)
				want := []string{"chain_position", "content", "hash", "previous_hash", "recorded_at", "recorded_by", "task_id", "thought_id", "type"}
				if got := keys(th); !slices.Equal(got, want) {
					t.Fatalf("thought fields = %v, want %v", got, want)
				}
			}
		})
	}
	// A listing is read-only: it appends no action.
	before := len(actions(k))
	k.OK("thought_record_list", map[string]any{"task_id": a, "verify_chain": true})
	if got := len(actions(k)); got != before {
		t.Errorf("thought_record_list appended %d actions", got-before)
	}
}

// TestThoughtRecordListLimit: default 100, at most 500.
func TestThoughtRecordListLimit(t *testing.T) {
	k := testkit.New(t)
	task := create(k, nil)
	ctx := context.Background()
	const n = 501
	at := epoch
	if err := k.Store.Update(ctx, func(tx baton.Tx) error {
		for i := range n {
			r := &baton.ThoughtRecord{TaskID: task, Type: "decision", Content: fmt.Sprintf("record %d", i+1),
				RecordedAt: at.Add(time.Duration(i) * time.Second), RecordedBy: "agent-alice"}
			if err := tx.AddThought(ctx, r); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		limit any // nil = absent
		want  int
		field string // ERR_INVALID_INPUT rule when set
	}{
		{name: "default", want: 100},
		{name: "1", limit: 1, want: 1},
		{name: "500", limit: 500, want: 500},
		{name: "501", limit: 501, field: "maximum"},
		{name: "0", limit: 0, field: "minimum"},
		{name: "-1", limit: -1, field: "minimum"},
		{name: "fraction", limit: 2.5, field: "type"},
		{name: "string", limit: "10", field: "type"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := on(k, t)
			args := map[string]any{"task_id": task}
			if c.limit != nil {
				args["limit"] = c.limit
			}
			if c.field != "" {
				invalid(t, fail(k, "thought_record_list", args, baton.ErrInvalidInput), "limit", c.field)
				return
			}
			out := k.OK("thought_record_list", args)
			ids := thoughtIDs(t, out)
			if len(ids) != c.want || num(t, out["thought_count"]) != c.want {
				t.Fatalf("got %d records (thought_count %v), want %d", len(ids), out["thought_count"], c.want)
			}
			// The first records of the chain, in order.
			for i, v := range list(t, out["thoughts"]) {
				if p := num(t, v.(map[string]any)["chain_position"]); p != i+1 {
					t.Fatalf("record %d has chain_position %d", i, p)
				}
			}
		})
	}
}

// TestThoughtRecordListVerifyChain: verify_chain reports an intact chain
// as valid and, after the database is edited behind the store's back,
// the position of every broken link.
func TestThoughtRecordListVerifyChain(t *testing.T) {
	cases := []struct {
		name string
		stmt string // applied to task a's chain of four records
		want []int
	}{
		{"intact", "", nil},
		{"content changed", `UPDATE thoughts SET content = 'rewritten' WHERE id = 'Θ-0002'`, []int{2}},
		{"type changed", `UPDATE thoughts SET type = 'risk' WHERE id = 'Θ-0001'`, []int{1}},
		{"recorded_by changed", `UPDATE thoughts SET recorded_by = 'agent-mallory' WHERE id = 'Θ-0005'`, []int{4}},
		{"recorded_at changed", `UPDATE thoughts SET recorded_at = '2020-01-01T00:00:00.000Z' WHERE id = 'Θ-0004'`, []int{3}},
		// The record after the deleted one points to a hash no longer there:
		// that link (chain position 3) is the broken one.
		{"record deleted", `DELETE FROM thoughts WHERE id = 'Θ-0002'`, []int{3}},
		{"first record deleted", `DELETE FROM thoughts WHERE id = 'Θ-0001'`, []int{2}},
		{"hash rewritten", `UPDATE thoughts SET hash = '` + sha([]byte("forged")) + `' WHERE id = 'Θ-0002'`, []int{2, 3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := testkit.New(t)
			withClock(k, time.Second)
			a, b := create(k, nil), create(k, nil)
			// a: Θ-0001, Θ-0002, Θ-0004, Θ-0005; b: Θ-0003, Θ-0006.
			for i, task := range []string{a, a, b, a, a, b} {
				think(k, task, fmt.Sprintf("record %d", i+1))
			}
			s := start(k, a, "")
			think(k, a, "in the session")
			if c.stmt != "" {
				tamper(t, k, c.stmt)
			}
			for _, args := range []map[string]any{{"task_id": a}, {"type": "decision"}} {
				args["verify_chain"] = true
				out := k.OK("thought_record_list", args)
				valid := len(c.want) == 0
				if out["chain_valid"] != valid {
					t.Errorf("%v: chain_valid = %v, want %v", args, out["chain_valid"], valid)
				}
				var got []int
				if v, ok := out["invalid_links"]; ok {
					for _, p := range list(t, v) {
						got = append(got, num(t, p))
					}
				}
				slices.Sort(got)
				if !slices.Equal(got, c.want) {
					t.Errorf("%v: invalid_links = %v, want %v", args, got, c.want)
				}
			}
			// The other task's chain is untouched, and a session listing
			// checks the chain its records hang in.
			if out := k.OK("thought_record_list", map[string]any{"task_id": b, "verify_chain": true}); out["chain_valid"] != true {
				t.Errorf("task b: chain_valid = %v after tampering with task a", out["chain_valid"])
			}
			if out := k.OK("thought_record_list", map[string]any{"session_id": s, "verify_chain": true}); out["chain_valid"] != (len(c.want) == 0) {
				t.Errorf("session: chain_valid = %v", out["chain_valid"])
			}
		})
	}
}

// TestThoughtRecordListNotFound: unknown task and session ids are their
// own not-found errors, not an empty list.
func TestThoughtRecordListNotFound(t *testing.T) {
	k := testkit.New(t)
	task := create(k, nil)
	cases := []struct {
		args map[string]any
		code string
	}{
		{map[string]any{"task_id": "COL-99"}, baton.ErrTaskNotFound},
		{map[string]any{"session_id": "A-0099"}, baton.ErrSessionNotFound},
		{map[string]any{"task_id": task, "session_id": "A-0099"}, baton.ErrSessionNotFound},
		{map[string]any{"task_id": "COL-99", "verify_chain": true}, baton.ErrTaskNotFound},
	}
	for _, c := range cases {
		e := fail(k, "thought_record_list", c.args, c.code)
		for key, v := range c.args {
			if key != "verify_chain" && e.Details[key] != nil && e.Details[key] != v {
				t.Errorf("%v: details.%s = %v", c.args, key, e.Details[key])
			}
		}
	}
	invalid(t, fail(k, "thought_record_list", map[string]any{"type": "note"}, baton.ErrInvalidInput), "type", "enum")
}
