package web

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// partOf is the HTML from the element with the id to the end of the
// article or section it is in (enough to tell one part of a page from
// another).
func partOf(t *testing.T, page, id string) string {
	t.Helper()
	i := strings.Index(page, `id="`+id+`"`)
	if i < 0 {
		t.Fatalf("the page has no region %q:\n%s", id, page)
	}
	rest := page[i:]
	for _, end := range []string{"</article>", "</section>"} {
		if j := strings.Index(rest, end); j >= 0 {
			rest = rest[:j]
		}
	}
	return rest
}

func TestAgentsShowsStatusProgressAndRecentCalls(t *testing.T) {
	d := newDash(t)
	clock := d.UseClock(testkit.NewClock(time.Now().UTC().Truncate(time.Second), 0))
	d.As("agent-yves").OK("set_status", map[string]any{"status": "working", "task": "left early"})
	clock.Advance(10 * time.Minute)
	x := d.As("agent-xena")
	x.OK("set_status", map[string]any{"status": "blocked", "task": "Fix <script>alert(1)</script> parser", "beadId": "COL-7"})
	x.OK("report_progress", map[string]any{"task": "parser rewrite", "percentage": 40, "description": "half the grammar"})
	// An agent known only from its live session: connected, idle, no calls.
	now := clock.Peek()
	if err := d.Store.Update(context.Background(), func(tx baton.Tx) error {
		return tx.TouchSession(context.Background(), &baton.SessionPresence{ID: "s-zed", Agent: "agent-zed",
			ConnectedAt: now.Add(-time.Minute), LastSeen: now})
	}); err != nil {
		t.Fatal(err)
	}

	st, page := d.get("/agents")
	if st != http.StatusOK {
		t.Fatalf("GET /agents: %d %s", st, page)
	}
	mustContain(t, page, `aria-current="page">Agents`, "2 connected")
	xena := partOf(t, page, "agent-agent-xena")
	mustContain(t, xena, `badge blocked">blocked`, "Fix &lt;script&gt;alert(1)&lt;/script&gt; parser", `href="/items/COL-7"`,
		"parser rewrite: 40%", `value="40"`, "half the grammar", "<code>report_progress</code>", "<code>set_status</code>",
		"connected")
	if strings.Contains(page, "<script>alert(1)") {
		t.Error("the agent's task is in the page unescaped")
	}
	yves := partOf(t, page, "agent-agent-yves")
	mustContain(t, yves, `badge stale">offline`, "last seen 10m ago", "last reported working", "<code>set_status</code>")
	zed := partOf(t, page, "agent-agent-zed")
	mustContain(t, zed, `">idle`, "No recent calls.")
	// Connected agents come first.
	if strings.Index(page, `id="agent-agent-yves"`) < strings.Index(page, `id="agent-agent-zed"`) {
		t.Error("the offline agent is listed before a connected one")
	}
	calls := partOf(t, page, "calls")
	mustContain(t, calls, "agent-xena", "agent-yves", "<code>report_progress</code>", "<code>set_status</code>", "test")
}

func TestAgentsCallsFilter(t *testing.T) {
	d := newDash(t)
	d.As("agent-xena").OK("report_progress", map[string]any{"task": "x", "percentage": 10})
	d.As("agent-yves").OK("set_status", map[string]any{"status": "idle"})
	d.mustAct("send_message", map[string]any{"to": "agent-yves", "body": "hello"})

	_, page := d.get("/agents?agent=AGENT-YVES")
	mustContain(t, page, `<option value="agent-yves" selected>`, "Recent calls of AGENT-YVES")
	calls := partOf(t, page, "calls")
	mustContain(t, calls, "<code>set_status</code>")
	if strings.Contains(calls, "report_progress") || strings.Contains(calls, "send_message") {
		t.Errorf("the calls of agent-yves hold another agent's calls:\n%s", calls)
	}
	// The operator's own calls are in the log as the user, from the web.
	_, page = d.get("/agents?agent=user")
	calls = partOf(t, page, "calls")
	mustContain(t, calls, "<code>send_message</code>", "<td>web</td>")

	st, page := d.get("/agents?agent=" + strings.Repeat("a", maxAgentName+1))
	if st != http.StatusBadRequest {
		t.Fatalf("an over-long agent filter: %d, want 400", st)
	}
	mustContain(t, page, "ERR_INVALID_INPUT")
}
