package audit_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/gowebpki/jcs"
)

// zeros is the genesis previous_hash, written out rather than taken from
// the package under test.
var zeros = strings.Repeat("0", 64)

// emptySHA is sha256(""), written out.
const emptySHA = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// epoch is the first instant a fake clock reports. It carries nanoseconds
// so tests see that audit timestamps keep exactly milliseconds.
var epoch = time.Date(2026, 4, 8, 23, 15, 0, 123456789, time.UTC)

// withClock makes every call of k read a fake clock that starts at epoch
// and moves by step per call (0: every call ties).
func withClock(k *testkit.Kit, step time.Duration) *testkit.Clock {
	return k.UseClock(testkit.NewClock(epoch, step))
}

// stampOf is an audit timestamp written independently of the code under
// test: UTC, milliseconds, Z.
func stampOf(t time.Time) string {
	u := t.UTC()
	return fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", u.Year(), u.Month(), u.Day(), u.Hour(), u.Minute(),
		u.Second(), u.Nanosecond()/int(time.Millisecond))
}

// on returns k reporting failures to t.
func on(k *testkit.Kit, t testing.TB) *testkit.Kit {
	c := *k
	c.T = t
	return &c
}

// fail calls a tool that must fail with code, checks the envelope a client
// reads, and returns the error.
func fail(k *testkit.Kit, name string, args any, code string) *baton.Error {
	k.T.Helper()
	res := k.Call(name, args)
	if res.Err == nil {
		k.T.Fatalf("%s(%s): want %s, got success %s", name, testkit.Raw(k.T, args), code, res.Text)
	}
	if res.Err.Code != code {
		k.T.Fatalf("%s(%s): want %s, got %s", name, testkit.Raw(k.T, args), code, res.Text)
	}
	var env map[string]map[string]any
	if err := json.Unmarshal([]byte(res.Text), &env); err != nil || env["error"]["code"] != code {
		k.T.Fatalf("%s: error text is not the envelope with %s: %s", name, code, res.Text)
	}
	if res.Err.Message == "" {
		k.T.Fatalf("%s: error without a message: %s", name, res.Text)
	}
	return res.Err
}

// invalid asserts an ERR_INVALID_INPUT names field and the rule broken.
func invalid(t testing.TB, e *baton.Error, field, constraint string) {
	t.Helper()
	if e.Details["field"] != field || e.Details["constraint"] != constraint {
		t.Errorf("details field/constraint = %v/%v, want %s/%s (%s)", e.Details["field"], e.Details["constraint"],
			field, constraint, e.Message)
	}
	if !strings.Contains(e.Message, field) {
		t.Errorf("message %q does not name %s", e.Message, field)
	}
}

// keys returns the sorted keys of m.
func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// num reads a JSON number as an int.
func num(t testing.TB, v any) int {
	t.Helper()
	f, ok := v.(float64)
	if !ok {
		t.Fatalf("%v (%T) is not a number", v, v)
	}
	return int(f)
}

// list reads a JSON array, failing on null or a missing field.
func list(t testing.TB, v any) []any {
	t.Helper()
	l, ok := v.([]any)
	if !ok {
		t.Fatalf("%v (%T) is not a list", v, v)
	}
	return l
}

// canonicalJSON renders a map as RFC 8785 canonical JSON (JCS), which the
// action log's digests and hashes cover.
func canonicalJSON(t testing.TB, m map[string]any) []byte {
	t.Helper()
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	// RFC 8785 by the maintained reference implementation, independent of
	// the code under test.
	out, err := jcs.Transform(raw)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sha(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// thoughtHash is the thought_record hash as a Colibri client computes it
// (the catalogue's formula): SHA-256 of JSON.stringify({task_id, type,
// content, previous_hash, recorded_at, recorded_by}), previous_hash nil
// (null) for a chain's first record. Written independently of the code
// under test: encoding/json on a struct in that field order, without HTML
// escaping, and U+2028/U+2029 put back raw, as JavaScript leaves them.
func thoughtHash(t testing.TB, task, typ, content string, prev any, at, by string) string {
	t.Helper()
	if prev != nil {
		if _, ok := prev.(string); !ok {
			t.Fatalf("previous_hash %v (%T) is neither null nor a string", prev, prev)
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(struct {
		TaskID       string `json:"task_id"`
		Type         string `json:"type"`
		Content      string `json:"content"`
		PreviousHash any    `json:"previous_hash"`
		RecordedAt   string `json:"recorded_at"`
		RecordedBy   string `json:"recorded_by"`
	}{task, typ, content, prev, at, by}); err != nil {
		t.Fatal(err)
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	b = bytes.ReplaceAll(b, []byte(`\u2028`), []byte("\u2028"))
	b = bytes.ReplaceAll(b, []byte(`\u2029`), []byte("\u2029"))
	return sha(b)
}

// actionHash is an action's hash computed independently from its fields.
func actionHash(t testing.TB, a *baton.Action) string {
	t.Helper()
	// The RFC 6962 leaf hash of the record's RFC 8785 JSON.
	return sha(append([]byte{0}, canonicalJSON(t, map[string]any{"position": a.Position, "agent": a.Agent, "source": a.Source,
		"tool": a.Tool, "subject": a.Subject, "input_digest": a.InputDigest, "result_digest": a.ResultDigest,
		"at": stampOf(a.At), "previous_hash": a.PreviousHash})...))
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != sha256.Size {
		t.Fatalf("%q is not a hex SHA-256", s)
	}
	return b
}

// pair is SHA256(left||right) over raw bytes.
func pair(t testing.TB, l, r string) string {
	t.Helper()
	return sha(append(unhex(t, l), unhex(t, r)...))
}

// refRoot is the Merkle root by the documented rule, written independently:
// pair neighbours, promote an odd last node, sha256("") for no leaves.
// depth counts levels, leaves included.
func refRoot(t testing.TB, leaves []string) (string, int) {
	t.Helper()
	if len(leaves) == 0 {
		return sha(nil), 0
	}
	level, depth := slices.Clone(leaves), 1
	for len(level) > 1 {
		var next []string
		for i := 0; i < len(level); i += 2 {
			if i+1 < len(level) {
				next = append(next, pair(t, level[i], level[i+1]))
			} else {
				next = append(next, level[i])
			}
		}
		level, depth = next, depth+1
	}
	return level[0], depth
}

// leafHashes makes n distinct leaf hashes.
func leafHashes(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = sha([]byte("leaf " + strconv.Itoa(i)))
	}
	return out
}

// create makes a task in colibri and returns its id.
func create(k *testkit.Kit, args map[string]any) string {
	k.T.Helper()
	a := map[string]any{"project": testkit.Project, "title": "task"}
	for key, v := range args {
		a[key] = v
	}
	return k.OK("task_create", a)["task_id"].(string)
}

// think records a thought on task and returns the output.
func think(k *testkit.Kit, task, content string) map[string]any {
	k.T.Helper()
	return k.OK("thought_record", map[string]any{"task_id": task, "type": "decision", "content": content})
}

// start opens an audit session and returns its id.
func start(k *testkit.Kit, task, scope string) string {
	k.T.Helper()
	args := map[string]any{"task_id": task, "auditor_id": "agent-auditor"}
	if scope != "" {
		args["scope"] = scope
	}
	return k.OK("audit_session_start", args)["session_id"].(string)
}

// actions reads the whole action log.
func actions(k *testkit.Kit) []*baton.Action {
	k.T.Helper()
	ctx := context.Background()
	var acts []*baton.Action
	if err := k.Store.View(ctx, func(tx baton.Tx) (err error) {
		acts, err = tx.Actions(ctx, 0, 100_000)
		return err
	}); err != nil {
		k.T.Fatalf("actions: %v", err)
	}
	return acts
}

// lastAction is the record id ("position") of the newest action.
func lastAction(k *testkit.Kit) string {
	k.T.Helper()
	acts := actions(k)
	if len(acts) == 0 {
		k.T.Fatal("the action log is empty")
	}
	return strconv.FormatInt(acts[len(acts)-1].Position, 10)
}

// session reads a session from the store.
func session(k *testkit.Kit, id string) *baton.AuditSession {
	k.T.Helper()
	ctx := context.Background()
	var s *baton.AuditSession
	if err := k.Store.View(ctx, func(tx baton.Tx) (err error) { s, err = tx.Session(ctx, id); return err }); err != nil {
		k.T.Fatalf("session %s: %v", id, err)
	}
	return s
}

// records reads a session's records from the store, in joining order.
func records(k *testkit.Kit, id string) []baton.SessionRecord {
	k.T.Helper()
	ctx := context.Background()
	var recs []baton.SessionRecord
	if err := k.Store.View(ctx, func(tx baton.Tx) (err error) { recs, err = tx.SessionRecords(ctx, id); return err }); err != nil {
		k.T.Fatalf("session records %s: %v", id, err)
	}
	return recs
}

// hashesOf are the records' hashes: the session's Merkle leaves.
func hashesOf(recs []baton.SessionRecord) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.Hash
	}
	return out
}

// opening is the record id of the action that opened session id: the
// audit_session_start call whose result was this session.
func opening(k *testkit.Kit, id string) string {
	k.T.Helper()
	s := session(k, id)
	want, err := audit.Digest(map[string]any{"session_id": s.ID, "task_id": s.TaskID, "auditor_id": s.AuditorID,
		"started_at": stampOf(s.StartedAt), "scope": s.Scope})
	if err != nil {
		k.T.Fatal(err)
	}
	for _, a := range actions(k) {
		if a.Tool == "audit_session_start" && a.ResultDigest == want {
			return strconv.FormatInt(a.Position, 10)
		}
	}
	k.T.Fatalf("no action opened %s", id)
	return ""
}

// members lists a session's records as "kind:record_id", leaving out the
// call that opened the session (whether that call belongs to the session
// is asserted once, in TestSessionOpeningCallIsNotARecord).
func members(k *testkit.Kit, id string) []string {
	k.T.Helper()
	skip := "action:" + opening(k, id)
	out := []string{}
	for _, r := range records(k, id) {
		if m := r.Kind + ":" + r.RecordID; m != skip {
			out = append(out, m)
		}
	}
	return out
}

// tamper runs SQL on the database behind the store's back, as an
// attacker holding the database would. Statements take ? placeholders and
// run on either backend.
func tamper(t testing.TB, k *testkit.Kit, stmts ...string) {
	t.Helper()
	db := on(k, t).DB()
	for _, s := range stmts {
		res, err := db.Exec(k.Rebind(s))
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if n, _ := res.RowsAffected(); n == 0 && !strings.HasPrefix(s, "CREATE") && !strings.HasPrefix(s, "DROP") {
			t.Fatalf("%s changed nothing", s)
		}
	}
}
