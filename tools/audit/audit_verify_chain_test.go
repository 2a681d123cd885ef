package audit_test

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// TestAuditVerifyChainInput: session_id, task_id or both (see
// TestPoint17VerifySessionAndTask), and each unknown id is its own
// not-found error.
func TestAuditVerifyChainInput(t *testing.T) {
	k := testkit.New(t)
	task := create(k, nil)
	s := start(k, task, "")
	cases := []struct {
		name       string
		args       map[string]any
		code       string
		field, why string
	}{
		{"neither", map[string]any{}, baton.ErrInvalidInput, "session_id", "at_least_one"},
		{"only full_trace", map[string]any{"full_trace": true}, baton.ErrInvalidInput, "session_id", "at_least_one"},
		{"empty session_id", map[string]any{"session_id": ""}, baton.ErrInvalidInput, "session_id", "minLength"},
		{"session_id 65 chars", map[string]any{"session_id": strings.Repeat("A", 65)}, baton.ErrInvalidInput, "session_id", "maxLength"},
		{"full_trace not a boolean", map[string]any{"task_id": task, "full_trace": "yes"}, baton.ErrInvalidInput, "full_trace", "type"},
		// The spec groups these under ERR_NOT_FOUND; baton answers with the
		// specific codes of its error list.
		{"unknown session", map[string]any{"session_id": "A-0099"}, baton.ErrSessionNotFound, "", ""},
		{"unknown task", map[string]any{"task_id": "COL-99"}, baton.ErrTaskNotFound, "", ""},
		{"unknown padded task", map[string]any{"task_id": "COL-0099"}, baton.ErrTaskNotFound, "", ""},
		{"unknown task in a session", map[string]any{"session_id": s, "task_id": "COL-99"}, baton.ErrTaskNotFound, "", ""},
		{"task in an unknown session", map[string]any{"session_id": "A-0099", "task_id": task}, baton.ErrSessionNotFound, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := fail(on(k, t), "audit_verify_chain", c.args, c.code)
			if c.field != "" {
				invalid(t, e, c.field, c.why)
			}
		})
	}
}

// TestAuditVerifyChainIntact: an untouched chain is valid with score 100
// and an empty broken_links list, by task and by session; full_trace lists
// every record's hash in order.
func TestAuditVerifyChainIntact(t *testing.T) {
	k := testkit.New(t)
	clock := withClock(k, time.Second)
	task, empty := create(k, nil), create(k, nil)
	think(k, task, "before the session")
	s := start(k, task, "")
	var hashes []string
	for i := range 3 {
		hashes = append(hashes, think(k, task, fmt.Sprintf("thought %d", i+1))["hash"].(string))
	}
	k.OK("task_update", map[string]any{"task_id": task, "status": "todo"})
	chain := list(t, k.OK("thought_record_list", map[string]any{"task_id": task})["thoughts"])
	recs := records(k, s)

	// The session first: verifying it ends its tracking, so the task
	// verifications after it (logged calls about the task) do not join it.
	cases := []struct {
		name  string
		args  map[string]any
		total int
	}{
		{"session", map[string]any{"session_id": s}, len(recs)},
		{"task", map[string]any{"task_id": task}, 4},
		{"task without records", map[string]any{"task_id": empty}, 0},
	}
	for _, c := range cases {
		for _, trace := range []bool{false, true} {
			args := map[string]any{"full_trace": trace}
			for key, v := range c.args {
				args[key] = v
			}
			out := k.OK("audit_verify_chain", args)
			want := []string{"broken_links", "chain_valid", "integrity_score", "total_records", "verified_at"}
			for key := range c.args {
				want = append(want, key)
			}
			if c.args["session_id"] != nil {
				want = append(want, "tracking_ended_at")
			}
			if trace {
				want = append(want, "trace")
			}
			slices.Sort(want)
			if got := keys(out); !slices.Equal(got, want) {
				t.Errorf("%s: output fields = %v, want %v", c.name, got, want)
			}
			for key, v := range c.args {
				if out[key] != v {
					t.Errorf("%s: %s = %v, want %v", c.name, key, out[key], v)
				}
			}
			if out["chain_valid"] != true || num(t, out["integrity_score"]) != 100 || num(t, out["total_records"]) != c.total ||
				len(list(t, out["broken_links"])) != 0 {
				t.Errorf("%s: %v, want valid, score 100, %d records, broken_links []", c.name, out, c.total)
			}
			if at := stampOf(clock.Peek()); out["verified_at"] != at {
				t.Errorf("%s: verified_at = %v, want %s", c.name, out["verified_at"], at)
			}
			if !trace {
				continue
			}
			entries := list(t, out["trace"])
			if len(entries) != c.total {
				t.Fatalf("%s: trace has %d entries, want %d", c.name, len(entries), c.total)
			}
			for i, v := range entries {
				e := v.(map[string]any)
				var hash, kind, id string
				if c.args["session_id"] != nil {
					hash, kind, id = recs[i].Hash, recs[i].Kind, recs[i].RecordID
				} else {
					th := chain[i].(map[string]any)
					hash, kind, id = th["hash"].(string), "thought", th["thought_id"].(string)
				}
				if num(t, e["position"]) != i+1 || e["hash"] != hash || e["kind"] != kind || e["record_id"] != id || e["valid"] != true {
					t.Errorf("%s: trace[%d] = %v, want position %d %s %s hash %s valid", c.name, i, e, i+1, kind, id, hash)
				}
			}
		}
	}
	// Spot-check: the session's thoughts are the three made in it.
	var inSession []string
	for _, r := range recs {
		if r.Kind == "thought" {
			inSession = append(inSession, r.Hash)
		}
	}
	if !slices.Equal(inSession, hashes) {
		t.Errorf("session thoughts %v, want %v", inSession, hashes)
	}
}

// TestAuditVerifyChainTamperedTask edits one of N thought records in the
// database: the chain is invalid, integrity_score is (N-1)*100/N and the
// one broken link names the position, the hash stored with the record
// (expected) and the hash its content now gives (actual).
func TestAuditVerifyChainTamperedTask(t *testing.T) {
	cases := []struct{ n, pos, score int }{
		{1, 1, 0},
		{2, 2, 50},
		{3, 1, 66},
		{4, 2, 75},
		{7, 7, 85},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%d of %d", c.pos, c.n), func(t *testing.T) {
			k := testkit.New(t)
			withClock(k, time.Second)
			task, other := create(k, nil), create(k, nil)
			var outs []map[string]any
			for i := range c.n {
				outs = append(outs, think(k, task, fmt.Sprintf("thought %d", i+1)))
				think(k, other, "interleaved")
			}
			victim := outs[c.pos-1]
			tamper(t, k, fmt.Sprintf(`UPDATE thoughts SET content = 'rewritten' WHERE id = '%s'`, victim["thought_id"]))
			actual := thoughtHash(t, task, "decision", "rewritten", victim["previous_hash"],
				victim["recorded_at"].(string), "agent-alice")

			out := k.OK("audit_verify_chain", map[string]any{"task_id": task, "full_trace": true})
			if out["chain_valid"] != false || num(t, out["total_records"]) != c.n || num(t, out["integrity_score"]) != c.score {
				t.Errorf("chain_valid %v, total_records %v, integrity_score %v; want false, %d, %d",
					out["chain_valid"], out["total_records"], out["integrity_score"], c.n, c.score)
			}
			broken := list(t, out["broken_links"])
			if len(broken) != 1 {
				t.Fatalf("broken_links = %v, want one", broken)
			}
			b := broken[0].(map[string]any)
			if num(t, b["position"]) != c.pos || b["expected_hash"] != victim["hash"] || b["actual_hash"] != actual ||
				b["expected_hash"] == b["actual_hash"] {
				t.Errorf("broken link %v, want position %d expected %s actual %s", b, c.pos, victim["hash"], actual)
			}
			for i, v := range list(t, out["trace"]) {
				if valid := v.(map[string]any)["valid"]; valid != (i+1 != c.pos) {
					t.Errorf("trace[%d].valid = %v", i, valid)
				}
			}
			// The other task's chain still verifies.
			if out := k.OK("audit_verify_chain", map[string]any{"task_id": other}); out["chain_valid"] != true {
				t.Errorf("the untouched chain: %v", out)
			}
		})
	}
}

// TestAuditVerifyChainTamperedSession edits one record of a session (a
// thought, or an action) in the database: verification by session reports
// it at its position in the session, with the hash the session holds as
// expected and the hash recomputed from the record as it is now as actual.
func TestAuditVerifyChainTamperedSession(t *testing.T) {
	cases := []struct {
		name   string
		victim func(recs []baton.SessionRecord) int // index of the record to change
		stmt   func(r baton.SessionRecord) string
	}{
		{"thought", func(recs []baton.SessionRecord) int { return indexOf(recs, "thought", 2) },
			func(r baton.SessionRecord) string {
				return fmt.Sprintf(`UPDATE thoughts SET content = 'rewritten' WHERE id = '%s'`, r.RecordID)
			}},
		{"action", func(recs []baton.SessionRecord) int { return indexOf(recs, "action", 3) },
			func(r baton.SessionRecord) string {
				return fmt.Sprintf(`UPDATE actions SET agent = 'agent-mallory' WHERE position = %s`, r.RecordID)
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := testkit.New(t)
			withClock(k, time.Second)
			task := create(k, nil)
			s := start(k, task, "")
			for i := range 3 {
				think(k, task, fmt.Sprintf("thought %d", i+1))
				k.OK("task_update", map[string]any{"task_id": task, "progress": 10 * (i + 1)})
			}
			recs := records(k, s)
			n := len(recs)
			i := c.victim(recs)
			tamper(t, k, c.stmt(recs[i]))
			var actual string
			if recs[i].Kind == "thought" {
				for _, v := range list(t, k.OK("thought_record_list", map[string]any{"task_id": task})["thoughts"]) {
					th := v.(map[string]any)
					if th["thought_id"] == recs[i].RecordID {
						actual = thoughtHash(t, task, th["type"].(string), th["content"].(string), th["previous_hash"],
							th["recorded_at"].(string), th["recorded_by"].(string))
					}
				}
			} else {
				for _, a := range actions(k) {
					if strconv.FormatInt(a.Position, 10) == recs[i].RecordID {
						actual = actionHash(t, a)
					}
				}
			}
			if actual == "" || actual == recs[i].Hash {
				t.Fatalf("recomputed hash %q of the changed record", actual)
			}

			out := k.OK("audit_verify_chain", map[string]any{"session_id": s, "full_trace": true})
			if out["chain_valid"] != false || num(t, out["total_records"]) != n || num(t, out["integrity_score"]) != (n-1)*100/n {
				t.Errorf("chain_valid %v, total_records %v, integrity_score %v; want false, %d, %d",
					out["chain_valid"], out["total_records"], out["integrity_score"], n, (n-1)*100/n)
			}
			broken := list(t, out["broken_links"])
			if len(broken) != 1 {
				t.Fatalf("broken_links = %v, want one", broken)
			}
			b := broken[0].(map[string]any)
			if num(t, b["position"]) != i+1 || b["expected_hash"] != recs[i].Hash || b["actual_hash"] != actual {
				t.Errorf("broken link %v, want position %d expected %s actual %s", b, i+1, recs[i].Hash, actual)
			}
			trace := list(t, out["trace"])
			for j, v := range trace {
				e := v.(map[string]any)
				if e["hash"] != recs[j].Hash || e["valid"] != (j != i) {
					t.Errorf("trace[%d] = %v", j, e)
				}
			}
		})
	}
}

// indexOf is the index of the nth (1-based) record of a kind.
func indexOf(recs []baton.SessionRecord, kind string, nth int) int {
	for i, r := range recs {
		if r.Kind == kind {
			if nth--; nth == 0 {
				return i
			}
		}
	}
	return -1
}
