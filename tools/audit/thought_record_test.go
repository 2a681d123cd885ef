package audit_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
	"github.com/baton-dev/baton/internal/testkit"
)

// TestThoughtRecordLimits drives every input rule of thought_record to its
// boundary: the value at the limit is accepted, the one past it is
// ERR_INVALID_INPUT naming the field and the rule, and a rejected call
// writes nothing (no thought, no action).
func TestThoughtRecordLimits(t *testing.T) {
	k := testkit.New(t)
	task := create(k, nil)
	hex := func(n int) string { return strings.Repeat("a", n) }
	items := func(n int, s string) []string { return slices.Repeat([]string{s}, n) }
	cases := []struct {
		name       string
		set        map[string]any
		drop       string
		code       string // "" = accepted
		field, why string
	}{
		{name: "content 1 char", set: map[string]any{"content": "x"}},
		{name: "content 5000 chars", set: map[string]any{"content": strings.Repeat("c", 5000)}},
		{name: "content 5000 multibyte chars", set: map[string]any{"content": strings.Repeat("Θ", 5000)}},
		{name: "content empty", set: map[string]any{"content": ""}, code: baton.ErrInvalidInput, field: "content", why: "minLength"},
		{name: "content whitespace only", set: map[string]any{"content": " \t\n  "}, code: baton.ErrInvalidInput, field: "content", why: "pattern"},
		{name: "content 5001 chars", set: map[string]any{"content": strings.Repeat("c", 5001)}, code: baton.ErrInvalidInput, field: "content", why: "maxLength"},
		{name: "content 5001 multibyte chars", set: map[string]any{"content": strings.Repeat("Θ", 5001)}, code: baton.ErrInvalidInput, field: "content", why: "maxLength"},
		{name: "content not a string", set: map[string]any{"content": 5}, code: baton.ErrInvalidInput, field: "content", why: "type"},

		{name: "type reflection", set: map[string]any{"type": "reflection"}},
		{name: "type decision", set: map[string]any{"type": "decision"}},
		{name: "type discovery", set: map[string]any{"type": "discovery"}},
		{name: "type risk", set: map[string]any{"type": "risk"}},
		{name: "type blockers", set: map[string]any{"type": "blockers"}},
		{name: "type unknown", set: map[string]any{"type": "thought"}, code: baton.ErrInvalidInput, field: "type", why: "enum"},
		{name: "type wrong case", set: map[string]any{"type": "Decision"}, code: baton.ErrInvalidInput, field: "type", why: "enum"},
		{name: "type empty", set: map[string]any{"type": ""}, code: baton.ErrInvalidInput, field: "type", why: "enum"},

		{name: "commit_sha 4 hex", set: map[string]any{"commit_sha": hex(4)}},
		{name: "commit_sha spec example", set: map[string]any{"commit_sha": "a3f7d9b2c"}},
		{name: "commit_sha 40 mixed case", set: map[string]any{"commit_sha": strings.Repeat("aB3f", 10)}},
		{name: "commit_sha 64 hex", set: map[string]any{"commit_sha": hex(64)}},
		// Point 18: commit_sha takes any git ref text, not only hex.
		{name: "commit_sha 3 hex", set: map[string]any{"commit_sha": hex(3)}},
		{name: "commit_sha 65 hex", set: map[string]any{"commit_sha": hex(65)}},
		{name: "commit_sha HEAD~2", set: map[string]any{"commit_sha": "HEAD~2"}},
		{name: "commit_sha tag", set: map[string]any{"commit_sha": "v1.2.0"}},
		{name: "commit_sha full ref", set: map[string]any{"commit_sha": "refs/heads/feature/task-create"}},
		{name: "commit_sha reflog", set: map[string]any{"commit_sha": "main@{2 days ago}"}},
		{name: "commit_sha 256 chars", set: map[string]any{"commit_sha": strings.Repeat("r", 256)}},
		{name: "commit_sha 257 chars", set: map[string]any{"commit_sha": strings.Repeat("r", 257)}, code: baton.ErrInvalidInput, field: "commit_sha", why: "maxLength"},
		{name: "commit_sha blank", set: map[string]any{"commit_sha": "  "}, code: baton.ErrInvalidInput, field: "commit_sha", why: "pattern"},

		{name: "branch 256 chars", set: map[string]any{"branch": strings.Repeat("b", 256)}},
		{name: "branch 257 chars", set: map[string]any{"branch": strings.Repeat("b", 257)}, code: baton.ErrInvalidInput, field: "branch", why: "maxLength"},

		{name: "tests_run empty list", set: map[string]any{"tests_run": []string{}}},
		{name: "tests_run 200 items", set: map[string]any{"tests_run": items(200, "t.test.ts")}},
		{name: "tests_run item 512 chars", set: map[string]any{"tests_run": []string{strings.Repeat("t", 512)}}},
		{name: "tests_run 201 items", set: map[string]any{"tests_run": items(201, "t.test.ts")}, code: baton.ErrInvalidInput, field: "tests_run", why: "maxItems"},
		{name: "tests_run item 513 chars", set: map[string]any{"tests_run": []string{"ok", strings.Repeat("t", 513)}}, code: baton.ErrInvalidInput, field: "tests_run[1]", why: "maxLength"},
		{name: "tests_run empty item", set: map[string]any{"tests_run": []string{""}}, code: baton.ErrInvalidInput, field: "tests_run[0]", why: "minLength"},
		{name: "tests_run not a list", set: map[string]any{"tests_run": "t.test.ts"}, code: baton.ErrInvalidInput, field: "tests_run", why: "type"},

		{name: "blockers empty list", set: map[string]any{"blockers": []string{}}},
		{name: "blockers 50 items", set: map[string]any{"blockers": items(50, "waiting")}},
		{name: "blockers item 1000 chars", set: map[string]any{"blockers": []string{strings.Repeat("w", 1000)}}},
		{name: "blockers 51 items", set: map[string]any{"blockers": items(51, "waiting")}, code: baton.ErrInvalidInput, field: "blockers", why: "maxItems"},
		{name: "blockers item 1001 chars", set: map[string]any{"blockers": []string{strings.Repeat("w", 1001)}}, code: baton.ErrInvalidInput, field: "blockers[0]", why: "maxLength"},
		{name: "blockers empty item", set: map[string]any{"blockers": []string{""}}, code: baton.ErrInvalidInput, field: "blockers[0]", why: "minLength"},

		{name: "metadata object", set: map[string]any{"metadata": map[string]any{"pr": 12, "nested": map[string]any{"a": []int{1}}}}},
		{name: "metadata not an object", set: map[string]any{"metadata": "x"}, code: baton.ErrInvalidInput, field: "metadata", why: "type"},

		{name: "task_id 129 chars", set: map[string]any{"task_id": strings.Repeat("C", 129)}, code: baton.ErrInvalidInput, field: "task_id", why: "maxLength"},
		{name: "task_id empty", set: map[string]any{"task_id": ""}, code: baton.ErrInvalidInput, field: "task_id", why: "minLength"},
		{name: "task_id unknown", set: map[string]any{"task_id": "COL-99"}, code: baton.ErrTaskNotFound},
		{name: "task_id missing", drop: "task_id", code: baton.ErrInvalidInput, field: "task_id", why: "required"},
		{name: "type missing", drop: "type", code: baton.ErrInvalidInput, field: "type", why: "required"},
		{name: "content missing", drop: "content", code: baton.ErrInvalidInput, field: "content", why: "required"},

		{name: "recorded_by given", set: map[string]any{"recorded_by": "agent-mallory"}, code: baton.ErrInvalidInput, field: "recorded_by", why: "additionalProperties"},
		{name: "recorded_at given", set: map[string]any{"recorded_at": "2020-01-01T00:00:00.000Z"}, code: baton.ErrInvalidInput, field: "recorded_at", why: "additionalProperties"},
		{name: "previous_hash given", set: map[string]any{"previous_hash": zeros}, code: baton.ErrInvalidInput, field: "previous_hash", why: "additionalProperties"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := on(k, t)
			args := map[string]any{"task_id": task, "type": "decision", "content": "a decision"}
			for key, v := range c.set {
				args[key] = v
			}
			delete(args, c.drop)
			before := len(actions(k))
			if c.code == "" {
				out := k.OK("thought_record", args)
				if out["task_id"] != task || out["type"] != args["type"] {
					t.Errorf("output %v does not echo task_id and type", out)
				}
				if got := len(actions(k)); got != before+1 {
					t.Errorf("actions %d -> %d, want one more", before, got)
				}
				return
			}
			e := fail(k, "thought_record", args, c.code)
			if c.field != "" {
				invalid(t, e, c.field, c.why)
			}
			if got := len(actions(k)); got != before {
				t.Errorf("a rejected call appended %d actions", got-before)
			}
		})
	}
	// Only the accepted cases are in the chain, and it is gapless.
	out := k.OK("thought_record_list", map[string]any{"task_id": task, "limit": 500, "verify_chain": true})
	accepted := 0
	for _, c := range cases {
		if c.code == "" {
			accepted++
		}
	}
	if num(t, out["thought_count"]) != accepted || out["chain_valid"] != true {
		t.Errorf("chain after the limit cases: %d records (want %d), chain_valid %v", num(t, out["thought_count"]), accepted, out["chain_valid"])
	}
}

// TestThoughtRecordOutput checks every output field against the spec with
// the hash recomputed independently: ids Θ-0001.. across tasks, per-task
// chains (positions from 1, previous_hash null for the first, each link the
// hash before), recorded_at from the clock to the millisecond and
// recorded_by the calling agent.
func TestThoughtRecordOutput(t *testing.T) {
	k := testkit.New(t)
	clock := withClock(k, 1500*time.Millisecond)
	a, b := create(k, nil), create(k, nil)
	if audit.Genesis != zeros {
		t.Fatalf("audit.Genesis = %q, want 64 zeros", audit.Genesis)
	}
	steps := []struct {
		task, agent, typ, content string
		position                  int
	}{
		{a, "agent-alice", "decision", "Use Zod for validation.", 1},
		{b, "agent-alice", "risk", "Risky: <script>&\"quotes\"</script>", 1},
		{a, "agent-bob", "discovery", "Found Θ, ü and emoji 🚀\nover two lines", 2},
		{a, "agent-alice", "reflection", "All tests pass.", 3},
		{b, "agent-bob", "blockers", "Waiting on credentials", 2},
		{a, "agent-alice", "decision", strings.Repeat("long ", 1000), 4},
	}
	prev := map[string]any{}
	want := []string{"chain_position", "hash", "previous_hash", "recorded_at", "recorded_by", "session_ids", "task_id", "thought_id", "type"}
	for i, s := range steps {
		out := k.As(s.agent).OK("thought_record", map[string]any{"task_id": s.task, "type": s.typ, "content": s.content})
		if got := keys(out); !slices.Equal(got, want) {
			t.Fatalf("output fields = %v, want %v", got, want)
		}
		at := stampOf(clock.Peek())
		if !strings.HasSuffix(at, "Z") || out["recorded_at"] != at {
			t.Errorf("record %d: recorded_at = %v, want %s (the call's time, milliseconds, UTC)", i+1, out["recorded_at"], at)
		}
		if want := fmt.Sprintf("Θ-%04d", i+1); out["thought_id"] != want {
			t.Errorf("record %d: thought_id = %v, want %s", i+1, out["thought_id"], want)
		}
		if out["task_id"] != s.task || out["type"] != s.typ || out["recorded_by"] != s.agent {
			t.Errorf("record %d: task_id/type/recorded_by = %v/%v/%v, want %s/%s/%s", i+1, out["task_id"], out["type"],
				out["recorded_by"], s.task, s.typ, s.agent)
		}
		if num(t, out["chain_position"]) != s.position {
			t.Errorf("record %d: chain_position = %v, want %d", i+1, out["chain_position"], s.position)
		}
		wantPrev := prev[s.task] // nil (null) for the first record
		if out["previous_hash"] != wantPrev {
			t.Errorf("record %d: previous_hash = %v, want %s", i+1, out["previous_hash"], wantPrev)
		}
		h := thoughtHash(t, s.task, s.typ, s.content, wantPrev, at, s.agent)
		if out["hash"] != h {
			t.Errorf("record %d: hash = %v, want sha256 of the canonical JSON = %s", i+1, out["hash"], h)
		}
		if len(list(t, out["session_ids"])) != 0 {
			t.Errorf("record %d joined sessions %v with none open", i+1, out["session_ids"])
		}
		prev[s.task] = h
	}
	// The stored records read back the same.
	for _, task := range []string{a, b} {
		out := k.OK("thought_record_list", map[string]any{"task_id": task})
		var p any // null before the first record
		for i, v := range list(t, out["thoughts"]) {
			th := v.(map[string]any)
			if num(t, th["chain_position"]) != i+1 || th["previous_hash"] != p {
				t.Errorf("%s record %d: position %v previous_hash %v", task, i+1, th["chain_position"], th["previous_hash"])
			}
			h := thoughtHash(t, task, th["type"].(string), th["content"].(string), p, th["recorded_at"].(string), th["recorded_by"].(string))
			if th["hash"] != h {
				t.Errorf("%s record %d: stored hash %v does not recompute (%s)", task, i+1, th["hash"], h)
			}
			p = h
		}
	}
}

// TestThoughtRecordFieldsOutsideTheHash: branch, commit_sha, tests_run,
// blockers and metadata are kept but not hashed, so the hash of a record
// with all of them equals the hash over the six specified fields.
func TestThoughtRecordFieldsOutsideTheHash(t *testing.T) {
	k := testkit.New(t)
	withClock(k, time.Second)
	task := create(k, nil)
	out := k.OK("thought_record", map[string]any{"task_id": task, "type": "reflection", "content": "done",
		"branch": "feature/task-create", "commit_sha": "a3f7d9b2c", "tests_run": []string{"task_create.test.ts"},
		"blockers": []string{}, "metadata": map[string]any{"pr": 7}})
	if h := thoughtHash(t, task, "reflection", "done", nil, out["recorded_at"].(string), "agent-alice"); out["hash"] != h {
		t.Errorf("hash = %v, want %s", out["hash"], h)
	}
}
