package audit_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/sqlcore"
)

// Issue 12, point 17: Colibri exactness. Thought hashes follow the
// catalogue's formula (JSON.stringify of six fields in its order, null
// before the first record), task ids accept zero-padded forms,
// audit_verify_chain takes session_id and task_id together, names a
// deleted record by hashes, and ends the session's tracking.

// TestPoint17ZeroPaddedTaskIDs: every Colibri tool that takes a task id
// finds COL-1 from COL-0001 (and COL-01) and answers with the item's own
// id; a padded id of nothing, or one in another case, is
// ERR_TASK_NOT_FOUND; an item whose own id is padded is found exactly.
func TestPoint17ZeroPaddedTaskIDs(t *testing.T) {
	k := testkit.New(t)
	withClock(k, time.Second)
	task := create(k, nil) // COL-1
	if task != "COL-1" {
		t.Fatalf("first task is %s, want COL-1", task)
	}
	s := start(k, task, "")
	think(k, task, "one record, so the lists have something to show")
	cases := []struct {
		tool string
		args map[string]any
		id   string // the output field that must name COL-1
	}{
		{"task_get", map[string]any{"task_id": "COL-0001"}, "task_id"},
		{"task_get", map[string]any{"task_id": "COL-01"}, "task_id"},
		{"task_update", map[string]any{"task_id": "COL-0001", "progress": 10}, "task_id"},
		{"thought_record", map[string]any{"task_id": "COL-0001", "type": "decision", "content": "padded"}, "task_id"},
		{"thought_record_list", map[string]any{"task_id": "COL-0001"}, "task_id"},
		{"audit_session_start", map[string]any{"task_id": "COL-0001", "auditor_id": "agent-auditor"}, "task_id"},
		{"audit_verify_chain", map[string]any{"task_id": "COL-0001"}, "task_id"},
		{"task_create", map[string]any{"project": testkit.Project, "title": "sub-task", "parent_id": "COL-0001"}, ""},
	}
	for _, c := range cases {
		out := on(k, t).OK(c.tool, c.args)
		if c.id != "" && out[c.id] != task {
			t.Errorf("%s(%v): %s = %v, want %s", c.tool, c.args, c.id, out[c.id], task)
		}
		if c.tool == "task_create" {
			if got := k.OK("task_get", map[string]any{"task_id": out["task_id"]}); got["parent_id"] != task {
				t.Errorf("task_create with parent_id COL-0001: parent_id = %v, want %s", got["parent_id"], task)
			}
		}
		bad := map[string]any{}
		for key, v := range c.args {
			bad[key] = v
		}
		for _, unknown := range []string{"COL-0099", "col-0001", "COL-00x1"} {
			field := "task_id"
			if c.tool == "task_create" {
				field = "parent_id"
			}
			bad[field] = unknown
			if c.tool == "task_create" {
				// An unknown parent is refused as it always was.
				if res := k.Call(c.tool, bad); res.Err == nil {
					t.Errorf("%s(%v) succeeded", c.tool, bad)
				}
				continue
			}
			fail(on(k, t), c.tool, bad, baton.ErrTaskNotFound)
		}
	}
	// The padded task_update and thought_record joined the session on
	// COL-1, their actions under the item's own id.
	recs := records(k, s)
	var thoughts, updates int
	for _, r := range recs {
		if r.TaskID != task {
			t.Errorf("session record %+v is not about %s", r, task)
		}
		if r.Kind == "thought" {
			thoughts++
		}
	}
	for _, a := range actions(k) {
		if a.Tool == "task_update" {
			updates++
			if a.Subject != task {
				t.Errorf("task_update COL-0001 logged with subject %q, want %s", a.Subject, task)
			}
		}
	}
	if thoughts != 2 || updates != 1 {
		t.Errorf("session holds %d thoughts (want 2) and the log %d task_update actions (want 1)", thoughts, updates)
	}

	// An item whose own id is zero-padded is found exactly; the padded
	// form of another number still reaches COL-1.
	own := k.StoreItem(&baton.Item{ID: "COL-007"})
	if got := k.OK("task_get", map[string]any{"task_id": "COL-007"}); got["task_id"] != own {
		t.Errorf("task_get COL-007 = %v, want the item with that id", got["task_id"])
	}
	if got := k.OK("task_get", map[string]any{"task_id": "COL-001"}); got["task_id"] != task {
		t.Errorf("task_get COL-001 = %v, want %s", got["task_id"], task)
	}
	// COL-0007 is neither COL-0007 nor COL-7: not found, never a guess at COL-007.
	fail(k, "task_get", map[string]any{"task_id": "COL-0007"}, baton.ErrTaskNotFound)
}

// TestPoint17VerifySessionAndTask: session_id and task_id together verify
// that task's records within that session (and echo both); each alone
// keeps its meaning. A change to a sub-task's record breaks the session
// for the sub-task and not for the parent.
func TestPoint17VerifySessionAndTask(t *testing.T) {
	k := testkit.New(t)
	withClock(k, time.Second)
	parent := create(k, nil)
	child := create(k, map[string]any{"parent_id": parent})
	s := start(k, parent, "deep")
	var childThought string
	for i := range 2 {
		think(k, parent, fmt.Sprintf("parent %d", i))
		childThought = think(k, child, fmt.Sprintf("child %d", i))["thought_id"].(string)
	}
	k.OK("task_update", map[string]any{"task_id": child, "status": "todo"})
	count := map[string]int{}
	for _, r := range records(k, s) {
		count[r.TaskID]++
	}
	if count[parent] == 0 || count[child] == 0 {
		t.Fatalf("session records by task: %v", count)
	}
	tamper(t, k, fmt.Sprintf(`UPDATE thoughts SET content = 'rewritten' WHERE id = '%s'`, childThought))
	cases := []struct {
		task  string
		total int
		valid bool
	}{
		{child, count[child], false},
		{parent, count[parent], true},
		{"", count[parent] + count[child], false},
	}
	for _, c := range cases {
		args := map[string]any{"session_id": s}
		if c.task != "" {
			args["task_id"] = c.task
		}
		out := k.OK("audit_verify_chain", args)
		if out["session_id"] != s || (c.task != "" && out["task_id"] != c.task) || (c.task == "" && out["task_id"] != nil) {
			t.Errorf("%v: echoes session_id %v task_id %v", args, out["session_id"], out["task_id"])
		}
		if num(t, out["total_records"]) != c.total || out["chain_valid"] != c.valid {
			t.Errorf("%v: total_records %v chain_valid %v, want %d %v", args, out["total_records"], out["chain_valid"], c.total, c.valid)
		}
	}
}

// TestPoint17VerifyEndsSessionTracking: "All subsequent operations are
// tracked under this session until audit_verify_chain is called"
// (catalogue). After the session is verified nothing joins it, neither
// the verifying call nor later records; a second verification reports the
// same end; verifying a task alone ends no session; the session can still
// be finalized over the records it holds.
func TestPoint17VerifyEndsSessionTracking(t *testing.T) {
	k := testkit.New(t)
	clock := withClock(k, time.Second)
	task := create(k, nil)
	s, other := start(k, task, ""), start(k, task, "")
	think(k, task, "tracked")
	k.OK("audit_verify_chain", map[string]any{"task_id": task}) // ends nothing
	if out := think(k, task, "still tracked"); !slices.Equal(fmtIDs(list(t, out["session_ids"])), []string{s, other}) {
		t.Fatalf("after a task verification the thought joined %v, want both sessions", out["session_ids"])
	}
	held := len(records(k, s))

	out := k.OK("audit_verify_chain", map[string]any{"session_id": s})
	ended := stampOf(clock.Peek())
	if out["tracking_ended_at"] != ended || out["verified_at"] != ended {
		t.Errorf("tracking_ended_at %v verified_at %v, want both %s", out["tracking_ended_at"], out["verified_at"], ended)
	}
	if stampOf(session(k, s).TrackingEndedAt) != ended || session(k, s).Tracking() || !session(k, other).Tracking() {
		t.Errorf("stored: %+v / %+v", session(k, s), session(k, other))
	}
	if got := len(records(k, s)); got != held {
		t.Errorf("the verifying call joined the session it ended: %d records, want %d", got, held)
	}
	if out := think(k, task, "after the verification"); !slices.Equal(fmtIDs(list(t, out["session_ids"])), []string{other}) {
		t.Errorf("a thought after the verification joined %v, want only %s", out["session_ids"], other)
	}
	k.OK("task_update", map[string]any{"task_id": task, "status": "todo"})
	if got := len(records(k, s)); got != held {
		t.Errorf("records joined a verified session: %d, want %d", got, held)
	}
	again := k.OK("audit_verify_chain", map[string]any{"session_id": s})
	if again["tracking_ended_at"] != ended || num(t, again["total_records"]) != held {
		t.Errorf("second verification: tracking_ended_at %v total %v, want %s %d", again["tracking_ended_at"], again["total_records"], ended, held)
	}
	fin := k.OK("merkle_finalize", map[string]any{"session_id": s})
	if num(t, fin["leaf_count"]) != held {
		t.Errorf("finalized over %v leaves, want %d", fin["leaf_count"], held)
	}
}

// TestPoint17DeletedRecordReportedByHashes: a deleted thought record is
// reported by the hashes involved, by task and by session: the record
// after it expected the hash of the one before the gap and points to the
// deleted record's hash; in a session, the deleted record's own leaf is
// expected and nothing is found. Never "position N".
func TestPoint17DeletedRecordReportedByHashes(t *testing.T) {
	for _, victim := range []int{0, 1} { // first, middle
		t.Run(fmt.Sprintf("record %d", victim+1), func(t *testing.T) {
			k := testkit.New(t)
			withClock(k, time.Second)
			task := create(k, nil)
			s := start(k, task, "")
			var outs []map[string]any
			for i := range 3 {
				outs = append(outs, think(k, task, fmt.Sprintf("thought %d", i+1)))
			}
			tamper(t, k, fmt.Sprintf(`DELETE FROM thoughts WHERE id = '%s'`, outs[victim]["thought_id"]))
			wantExpected := ""
			if victim > 0 {
				wantExpected = outs[victim-1]["hash"].(string)
			}
			deleted := outs[victim]["hash"].(string)

			out := k.OK("audit_verify_chain", map[string]any{"task_id": task})
			broken := list(t, out["broken_links"])
			if len(broken) != 1 {
				t.Fatalf("by task: broken_links %v, want one", broken)
			}
			b := broken[0].(map[string]any)
			if b["expected_hash"] != wantExpected || b["actual_hash"] != deleted || num(t, b["position"]) != victim+2 {
				t.Errorf("by task: %v, want position %d expected %q actual %s", b, victim+2, wantExpected, deleted)
			}

			out = k.OK("audit_verify_chain", map[string]any{"session_id": s})
			var gone, relinked bool
			for _, v := range list(t, out["broken_links"]) {
				b := v.(map[string]any)
				for _, h := range []any{b["expected_hash"], b["actual_hash"]} {
					if strings.Contains(fmt.Sprint(h), "position") {
						t.Errorf("by session: a break names positions: %v", b)
					}
				}
				gone = gone || (b["expected_hash"] == deleted && b["actual_hash"] == "")
				relinked = relinked || (b["expected_hash"] == wantExpected && b["actual_hash"] == deleted)
			}
			if !gone || !relinked {
				t.Errorf("by session: %v; want the deleted record's hash expected and missing, and its successor pointing to it",
					out["broken_links"])
			}
		})
	}
}

// TestPoint17ColibriClientVerifiesWithNode plays a Colibri client that
// checks hashes itself, in JavaScript: it reads thought_record_list's
// output and recomputes every hash as the catalogue says (Node's
// JSON.stringify and crypto SHA-256) and every link (null first). Skipped
// where node is not installed; the committed vectors of the audit package
// cover the same ground without it.
func TestPoint17ColibriClientVerifiesWithNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	k := testkit.New(t)
	withClock(k, 1234*time.Millisecond)
	task := create(k, nil)
	for _, content := range []string{"plain", "<script>alert('&')</script>", "sep \u2028 \u2029 end", "emoji 🚀👩‍💻",
		"ctl \x1b[32mAPPROVED\x1b[0m \x01 \x7f \u009b", "quote \" backslash \\ \n\t\r\b\f", "bidi \u202e x"} {
		k.As("agent <bob> & co").OK("thought_record", map[string]any{"task_id": task, "type": "discovery", "content": content})
	}
	out := k.OK("thought_record_list", map[string]any{"task_id": task})
	raw, _ := json.Marshal(out["thoughts"])
	const script = `
const crypto = require("crypto");
let input = "";
process.stdin.on("data", d => input += d).on("end", () => {
  let prev = null, bad = [];
  for (const t of JSON.parse(input)) {
    const json = JSON.stringify({task_id: process.argv[1], type: t.type, content: t.content,
      previous_hash: t.previous_hash, recorded_at: t.recorded_at, recorded_by: t.recorded_by});
    const h = crypto.createHash("sha256").update(json).digest("hex");
    if (h !== t.hash) bad.push(t.thought_id + " hash " + h + " != " + t.hash);
    if (t.previous_hash !== prev) bad.push(t.thought_id + " previous_hash " + t.previous_hash + " != " + prev);
    prev = t.hash;
  }
  console.log(bad.length ? bad.join("\n") : "ok");
});`
	cmd := exec.Command(node, "-e", script, task)
	cmd.Stdin = strings.NewReader(string(raw))
	got, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(got)) != "ok" {
		t.Fatalf("node: %v\n%s", err, got)
	}
}

// rebound runs ?-placeholder queries on either backend, as the stores'
// own queriers do.
type rebound struct {
	k  *testkit.Kit
	tx *sql.Tx
}

func (r rebound) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return r.tx.ExecContext(ctx, r.k.Rebind(q), args...)
}

func (r rebound) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return r.tx.QueryContext(ctx, r.k.Rebind(q), args...)
}

func (r rebound) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	return r.tx.QueryRowContext(ctx, r.k.Rebind(q), args...)
}

func rechain(t *testing.T, k *testkit.Kit) sqlcore.RechainResult {
	t.Helper()
	ctx := context.Background()
	tx, err := k.DB().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	res, err := sqlcore.RechainThoughts(ctx, rebound{k, tx})
	if err != nil {
		t.Fatalf("rechain: %v", err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return res
}

// legacyHash is a thought hash by the rule before migration 15, written
// independently: SHA-256 over the canonical JSON (keys sorted) with 64
// zeros before the first record.
func legacyHash(t testing.TB, task string, th map[string]any, prev string) string {
	return sha(canonicalJSON(t, map[string]any{"task_id": task, "type": th["type"], "content": th["content"],
		"previous_hash": prev, "recorded_at": th["recorded_at"], "recorded_by": th["recorded_by"]}))
}

// TestPoint17RechainExistingDatabase: a database whose thought records
// were hashed by the older rule (sorted keys, 64 zeros first), as migration
// 15 finds it, is re-chained once: an intact chain gets exactly the hashes
// the catalogue's formula gives (the ones thought_record returns today),
// the session leaves and the frozen Merkle root follow, proofs verify; a
// chain that did not verify by the old rule is left as it was and still
// fails; a second run does nothing.
func TestPoint17RechainExistingDatabase(t *testing.T) {
	k := testkit.New(t)
	withClock(k, time.Second)
	good, bad := create(k, nil), create(k, nil)
	s := start(k, good, "")
	for i := range 3 {
		think(k, good, fmt.Sprintf("good %d <&>", i))
		think(k, bad, fmt.Sprintf("bad %d", i))
	}
	k.OK("merkle_finalize", map[string]any{"session_id": s})
	want := map[string][]map[string]any{}
	for _, task := range []string{good, bad} {
		for _, v := range list(t, k.OK("thought_record_list", map[string]any{"task_id": task})["thoughts"]) {
			want[task] = append(want[task], v.(map[string]any))
		}
	}
	root := session(k, s).MerkleRoot
	leaves := hashesOf(records(k, s))

	// Rewrite the trail as the older baton wrote it.
	for _, task := range []string{good, bad} {
		prev := zeros
		for _, th := range want[task] {
			h := legacyHash(t, task, th, prev)
			tamper(t, k, fmt.Sprintf(`UPDATE thoughts SET previous_hash = '%s', hash = '%s' WHERE id = '%s'`, prev, h, th["thought_id"]))
			if task == good {
				tamper(t, k, fmt.Sprintf(`UPDATE session_records SET hash = '%s' WHERE record_id = '%s'`, h, th["thought_id"]))
			}
			prev = h
		}
	}
	var oldLeaves []string
	for _, r := range records(k, s) {
		oldLeaves = append(oldLeaves, r.Hash)
	}
	oldRoot, _ := refRoot(t, oldLeaves)
	tamper(t, k, fmt.Sprintf(`UPDATE audit_sessions SET merkle_root = '%s' WHERE id = '%s'`, oldRoot, s),
		// ... and the bad chain was edited behind that baton's back.
		fmt.Sprintf(`UPDATE thoughts SET content = 'forged' WHERE id = '%s'`, want[bad][1]["thought_id"]),
		`INSERT INTO thought_rechain (task_id) SELECT DISTINCT task_id FROM thoughts`)
	var badBefore []string
	for _, th := range list(t, k.OK("thought_record_list", map[string]any{"task_id": bad})["thoughts"]) {
		badBefore = append(badBefore, th.(map[string]any)["hash"].(string))
	}

	if res := rechain(t, k); res.Chains != 1 || res.Kept != 1 || res.Sessions != 1 {
		t.Fatalf("rechain = %+v, want 1 chain re-hashed, 1 kept, 1 root recomputed", res)
	}
	for i, v := range list(t, k.OK("thought_record_list", map[string]any{"task_id": good})["thoughts"]) {
		th := v.(map[string]any)
		if th["hash"] != want[good][i]["hash"] || th["previous_hash"] != want[good][i]["previous_hash"] {
			t.Errorf("good record %d: hash %v prev %v, want %v %v", i+1, th["hash"], th["previous_hash"], want[good][i]["hash"],
				want[good][i]["previous_hash"])
		}
	}
	if got := hashesOf(records(k, s)); !slices.Equal(got, leaves) || session(k, s).MerkleRoot != root {
		t.Errorf("session leaves %v root %s, want %v %s", got, session(k, s).MerkleRoot, leaves, root)
	}
	k.OK("merkle_proof", map[string]any{"session_id": s, "record_id": want[good][1]["thought_id"]})
	if out := k.OK("audit_verify_chain", map[string]any{"task_id": good}); out["chain_valid"] != true {
		t.Errorf("re-chained chain: %v", out)
	}
	for i, th := range list(t, k.OK("thought_record_list", map[string]any{"task_id": bad})["thoughts"]) {
		if h := th.(map[string]any)["hash"]; h != badBefore[i] {
			t.Errorf("the tampered chain was re-hashed: record %d %v, was %s", i+1, h, badBefore[i])
		}
	}
	if out := k.OK("audit_verify_chain", map[string]any{"task_id": bad}); out["chain_valid"] != false {
		t.Errorf("the tampered chain verifies after the upgrade: %v", out)
	}
	if n := k.Count(`SELECT COUNT(*) FROM thought_rechain`); n != 0 {
		t.Errorf("%d chains still queued", n)
	}
	if res := rechain(t, k); res != (sqlcore.RechainResult{}) {
		t.Errorf("second run = %+v, want nothing done", res)
	}
}
