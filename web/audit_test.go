package web

import (
	"net/http"
	"strings"
	"testing"

	"github.com/baton-dev/baton/internal/testkit"
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
