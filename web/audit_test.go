package web

import (
	"context"
	"encoding/hex"
	"html/template"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/tlog"
)

// logSome makes three actions through the tools: two by agent-bob, one by
// agent-carol; it returns the task they are about.
func logSome(d *dash) string {
	d.t.Helper()
	task := d.As("agent-bob").OK("task_create", map[string]any{"title": "Audit <me>", "project": testkit.Project})["task_id"].(string)
	d.As("agent-bob").OK("task_update", map[string]any{"task_id": task, "progress": 10})
	d.As("agent-carol").OK("task_update", map[string]any{"task_id": task, "progress": 20})
	return task
}

func TestAuditListsTheActionLogNewestFirst(t *testing.T) {
	d := newDash(t)
	task := logSome(d)
	st, page := d.get("/audit")
	if st != http.StatusOK {
		t.Fatalf("GET /audit: %d", st)
	}
	mustContain(t, page, `aria-current="page">Audit`, "<td>task_create</td>", "<td>task_update</td>", "<td>agent-bob</td>",
		"<td>agent-carol</td>", `href="/items/`+task+`"`)
	p3, p1 := strings.Index(page, `data-position="3"`), strings.Index(page, `data-position="1"`)
	if p3 < 0 || p1 < 0 || p3 > p1 {
		t.Errorf("positions 3 and 1 at %d and %d: want newest first", p3, p1)
	}

	// One agent's actions.
	_, page = d.get("/audit?agent=AGENT-CAROL")
	mustContain(t, page, "<td>agent-carol</td>")
	if strings.Contains(page, "<td>agent-bob</td>") {
		t.Error("the agent filter kept agent-bob's actions")
	}

	// An older page ends before the position given.
	_, page = d.get("/audit?before=3")
	mustContain(t, page, `data-position="2"`, `data-position="1"`, `href="/audit">newest`)
	if strings.Contains(page, `data-position="3"`) {
		t.Error("?before=3 lists position 3")
	}
	for _, bad := range []string{"/audit?before=x", "/audit?before=1", "/audit?agent=" + strings.Repeat("a", 129)} {
		if st, _ := d.get(bad); st != http.StatusBadRequest {
			t.Errorf("GET %s: %d, want 400", bad, st)
		}
	}
}

func TestAuditVerifyFindsTheTamperedRecord(t *testing.T) {
	d := newDash(t)
	logSome(d)
	_, page := d.get("/audit")
	if strings.Contains(page, "verify-result") {
		t.Error("the page verified without being asked")
	}
	verify := func() string {
		t.Helper()
		st, out := fetch(t, d.client, http.MethodPost, d.ts.URL+"/audit/verify", nil, map[string]string{"X-CSRF-Token": d.csrf})
		if st != http.StatusOK {
			t.Fatalf("verify: %d %s", st, out)
		}
		return out
	}
	mustContain(t, verify(), `<span class="badge ok">verified</span>`, "every link verifies", "3 actions", "took ")

	// It reads the whole trail: never for a request without the token.
	if st, _ := fetch(t, d.client, http.MethodPost, d.ts.URL+"/audit/verify", nil, nil); st != http.StatusForbidden {
		t.Errorf("verify without the CSRF token: %d", st)
	}
	if st, _ := d.get("/audit/verify"); st == http.StatusOK {
		t.Error("GET verifies")
	}

	// Rewriting a record behind the store's back breaks the chain there.
	if n := d.Exec(`UPDATE actions SET agent = 'agent-mallory' WHERE position = 2`); n != 1 {
		t.Fatalf("tampering changed %d rows", n)
	}
	mustContain(t, verify(), `<span class="badge fail">broken</span>`, "breaks at position <strong>2</strong>",
		"no longer gives its stored hash")
	_, page = d.get("/audit")
	mustContain(t, page, "<td>agent-mallory</td>")
}

func TestAuditShowsSessionsAndTheirRoot(t *testing.T) {
	d := newDash(t)
	bob := d.As("agent-bob")
	task := bob.OK("task_create", map[string]any{"title": "Audited", "project": testkit.Project})["task_id"].(string)
	sid := bob.OK("audit_session_start", map[string]any{"task_id": task, "auditor_id": "auditor-<x>"})["session_id"].(string)
	bob.OK("task_update", map[string]any{"task_id": task, "progress": 50}) // joins the session
	_, page := d.get("/audit")
	mustContain(t, page, `data-id="`+sid+`"`, `<span class="badge">tracking</span>`, "auditor-&lt;x&gt;",
		`href="/audit?session=`+sid+`"`)

	root := bob.OK("merkle_root", map[string]any{"session_id": sid})
	_, page = d.get("/audit?session=" + sid)
	mustContain(t, page, "Merkle root of <strong>"+sid+"</strong>", root["merkle_root"].(string), "over its records so far")

	st, page := d.get("/audit?session=A-9999")
	if st != http.StatusOK {
		t.Fatalf("GET /audit?session=A-9999: %d", st)
	}
	mustContain(t, page, "A-9999", `class="result bad"`)

	// Verifying the session ends its tracking.
	bob.OK("audit_verify_chain", map[string]any{"session_id": sid})
	_, page = d.get("/audit")
	mustContain(t, page, `<span class="badge ok">verified</span>`)
}

func TestAuditRefusesPagingOneAgent(t *testing.T) {
	d := newDash(t)
	st, page := d.get("/audit?agent=agent-bob&before=20")
	if st != http.StatusBadRequest {
		t.Fatalf("agent with before: %d", st)
	}
	mustContain(t, page, "does not combine with agent")
}

// verifyOn posts the Verify button of d's audit page and returns the result.
func verifyOn(d *dash) string {
	d.t.Helper()
	st, out := fetch(d.t, d.client, http.MethodPost, d.ts.URL+"/audit/verify", nil, map[string]string{"X-CSRF-Token": d.csrf})
	if st != http.StatusOK {
		d.t.Fatalf("verify: %d %s", st, out)
	}
	return out
}

// escaped is s as html/template writes it in text ('+' included).
func escaped(t *testing.T, s string) string {
	t.Helper()
	var b strings.Builder
	if err := template.Must(template.New("").Parse("{{.}}")).Execute(&b, s); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// logKey makes the log's signing key in a temporary directory, as
// `baton audit checkpoint` does on first use.
func logKey(t *testing.T, s baton.Store) *tlog.Key {
	t.Helper()
	path := filepath.Join(t.TempDir(), "log.key")
	if _, err := tlog.CreateKey(path, tlog.NewOrigin()); err != nil {
		t.Fatal(err)
	}
	k, err := audit.OpenKey(context.Background(), s, path, true, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func checkpoint(t *testing.T, s baton.Store, k *tlog.Key) *baton.Checkpoint {
	t.Helper()
	cp, made, err := audit.MakeCheckpoint(context.Background(), s, k, time.Now())
	if err != nil || !made {
		t.Fatalf("MakeCheckpoint: made %v, %v", made, err)
	}
	return cp
}

// detailOf is what audit.VerifyStore says of the checkpoint of size,
// escaped as the page writes it.
func detailOf(t *testing.T, s baton.Store, size int64) string {
	t.Helper()
	rep, err := audit.VerifyStore(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Checkpoints {
		if c.Size == size {
			if c.Detail == "" {
				t.Fatalf("the check of the checkpoint of size %d says nothing", size)
			}
			return escaped(t, c.Detail)
		}
	}
	t.Fatalf("no checkpoint of size %d was checked: %+v", size, rep.Checkpoints)
	return ""
}

func TestAuditSaysNoCheckpointIsSignedYet(t *testing.T) {
	d := newDash(t)
	logSome(d)
	_, page := d.get("/audit")
	mustContain(t, page, `id="audit-checkpoint"`, "No checkpoint is signed yet.", "<code>baton audit checkpoint</code> signs one",
		"The log has no signing key yet")
	if strings.Contains(page, `<pre class="output"`) || strings.Contains(page, "class=\"body log-key\"") {
		t.Error("the page shows a checkpoint or a key the log does not have")
	}
	out := verifyOn(d)
	mustContain(t, out, `<span class="badge ok">verified</span>`, "No signed checkpoint to check the log against yet.", "Merkle root today <code>")
	if strings.Contains(out, "every signed checkpoint holds") {
		t.Error("the result vouches for checkpoints there are none of")
	}

	// A key without a checkpoint yet: the key shows, the checkpoint does not.
	k := logKey(t, d.Store)
	_, page = d.get("/audit")
	mustContain(t, page, "No checkpoint is signed yet.", escaped(t, k.VerifierKey))
}

func TestAuditShowsTheLatestCheckpoint(t *testing.T) {
	d := newDash(t)
	logSome(d)
	k := logKey(t, d.Store)
	cp := checkpoint(t, d.Store, k)
	if cp.Size != 3 {
		t.Fatalf("the checkpoint is of size %d, want 3", cp.Size)
	}
	_, page := d.get("/audit")
	mustContain(t, page, `<div class="checkpoint" data-size="3">`, "commits to the first <strong>3</strong> records",
		": the whole log.", "<span>size 3</span>",
		`root <code title="`+cp.Root+`">`+cp.Root[:hashPrefix]+"</code>",
		"signed <span title=", baton.Timestamp(cp.At),
		"origin <code>"+k.Origin()+"</code>",
		`<p class="body log-key"><code>`+escaped(t, k.VerifierKey)+"</code></p>",
		"<code>baton audit key</code> prints this key", "<code>baton audit verify --checkpoint FILE --key KEY</code>",
		`<pre class="output" aria-label="The signed checkpoint note">`+escaped(t, cp.Note)+"</pre>")
	if strings.Contains(page, "No checkpoint is signed yet") {
		t.Error("the page says no checkpoint is signed")
	}
	if strings.Contains(page, `<code title="`+cp.Root+`">`+cp.Root+"<") {
		t.Error("the root is not cut as the page cuts hashes")
	}

	// Records since it: the head moves on, the checkpoint stays.
	d.As("agent-bob").OK("task_create", map[string]any{"title": "One more", "project": testkit.Project})
	_, page = d.get("/audit")
	mustContain(t, page, "<strong>1</strong> record was appended since.", "<span>records since: 1</span>", `data-size="3"`)

	// A newer checkpoint replaces it.
	cp2 := checkpoint(t, d.Store, k)
	_, page = d.get("/audit")
	mustContain(t, page, `data-size="4"`, cp2.Root[:hashPrefix], "<span>records since: 0</span>")
	if strings.Contains(page, `data-size="3"`) {
		t.Error("the page shows the older checkpoint")
	}

	out := verifyOn(d)
	mustContain(t, out, `<span class="badge ok">verified</span>`, "every signed checkpoint holds",
		"<strong>2</strong> of 2 signed checkpoints consistent", "Merkle root today <code>"+cp2.Root+"</code>")
	if strings.Contains(out, "unchecked signature") {
		t.Error("the signatures were not checked with the log's key")
	}
}

func TestAuditVerifyFailsACutLogAgainstItsCheckpoint(t *testing.T) {
	d := newDash(t)
	logSome(d)
	k := logKey(t, d.Store)
	checkpoint(t, d.Store, k)
	mustContain(t, verifyOn(d), `<span class="badge ok">verified</span>`, "<strong>1</strong> of 1 signed checkpoints")

	// Deleting the newest record leaves a chain that still links, but the
	// signed checkpoint remembers three records.
	if n := d.Exec(`DELETE FROM actions WHERE position = 3`); n != 1 {
		t.Fatalf("tampering deleted %d rows", n)
	}
	out := verifyOn(d)
	mustContain(t, out, `<span class="badge fail">broken</span>`, "1 signed checkpoint the log no longer holds",
		"<strong>0</strong> of 1 signed checkpoints consistent",
		`<li class="checkpoint-fail" data-size="3"><span class="badge fail">truncated</span>`,
		"departs at position <strong>3</strong>: "+detailOf(t, d.Store, 3)+".", "signature verified")
	if strings.Contains(out, "every link verifies") || strings.Contains(out, `badge ok`) {
		t.Error("a log cut below its checkpoint verifies")
	}
	_, page := d.get("/audit")
	mustContain(t, page, `<p class="result bad">The log ends at position <strong>2</strong>, before the 3 records`,
		"1 signed record is gone", "<span>log head 2</span>")
}

func TestAuditVerifyListsACheckpointPastTheLog(t *testing.T) {
	d := newDash(t)
	logSome(d)
	k := logKey(t, d.Store)
	checkpoint(t, d.Store, k)
	// A checkpoint signed by the log's key for 7 records, the log has 3.
	root := make([]byte, 32)
	root[0] = 0xab
	signed, err := tlog.Sign(k.Signer, 7, root)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Store.Update(context.Background(), func(tx baton.Tx) error {
		return tx.AddCheckpoint(context.Background(), &baton.Checkpoint{Size: 7, Root: hex.EncodeToString(root),
			Note: string(signed.Note), Edge: []string{hex.EncodeToString(root)}, At: time.Now()})
	}); err != nil {
		t.Fatal(err)
	}
	_, page := d.get("/audit")
	mustContain(t, page, `data-size="7"`, "4 signed records are gone", `title="`+hex.EncodeToString(root)+`"`)
	out := verifyOn(d)
	mustContain(t, out, `<span class="badge fail">broken</span>`, "<strong>1</strong> of 2 signed checkpoints consistent",
		`data-size="7"><span class="badge fail">truncated</span>`, "departs at position <strong>4</strong>",
		"departs at position <strong>4</strong>: "+detailOf(t, d.Store, 7)+".",
		`<code title="`+hex.EncodeToString(root)+`">ab`+strings.Repeat("0", hashPrefix-2)+`</code>`)
	if strings.Contains(out, `data-size="3"`) {
		t.Error("the consistent checkpoint is listed among the failing")
	}
}

func TestAuditShowsTheUpgradeRehash(t *testing.T) {
	d := newDash(t)
	logSome(d)
	_, page := d.get("/audit")
	if strings.Contains(page, "re-hashed at upgrade") {
		t.Fatal("the page reports a re-hash that did not happen")
	}
	at := baton.Timestamp(time.Now())
	d.Exec(`INSERT INTO action_rechain (id, pending, records, old_head, first_break, position, at) VALUES (1, 0, 2, ?, 0, 3, ?)`,
		strings.Repeat("c", 64), at)
	_, page = d.get("/audit")
	mustContain(t, page, `<p class="rechain" data-position="3">The log was re-hashed at upgrade (`+at+`)`,
		"its 2 records", "position <strong>3</strong>", `<code title="`+strings.Repeat("c", 64)+`">`+strings.Repeat("c", 12)+"</code>")
	if strings.Contains(page, "did not verify at position") {
		t.Error("an old chain that verified is reported broken")
	}
	d.Exec(`UPDATE action_rechain SET first_break = 2 WHERE id = 1`)
	_, page = d.get("/audit")
	mustContain(t, page, `<span class="badge fail">broken</span> The old chain did not verify at position <strong>2</strong>`)
}
