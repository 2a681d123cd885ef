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

func TestNeedsShowsAnOpenQuestionAndAnsweringClosesIt(t *testing.T) {
	d := newDash(t)
	asked := d.As("agent-bob").OK("ask_owner", map[string]any{"question": "Ship <b>it</b>?", "timeout_seconds": 0})
	st, page := d.get("/")
	if st != http.StatusOK {
		t.Fatalf("GET /: %d", st)
	}
	mustContain(t, page, "agent-bob", "Ship &lt;b&gt;it&lt;/b&gt;?", `data-tool="send_message"`)
	d.mustAct("send_message", map[string]any{"to": "agent-bob", "threadId": asked["threadId"], "body": "yes"})
	_, page = d.get("/")
	mustContain(t, page, "No open questions.")
}

func TestNeedsListsEachKindAndItsActionWorks(t *testing.T) {
	clock := testkit.NewClock(time.Now().UTC().Truncate(time.Second), 0)
	d := newDashAt(t, clock)
	bob, carol := d.As("agent-bob"), d.As("agent-carol")
	// A claim whose holder falls silent.
	held := bob.OK("task_create", map[string]any{"title": "Held by a dead agent", "project": testkit.Project})["task_id"].(string)
	bob.OK("claim_item", map[string]any{"item_id": held})
	// Work blocked on a person, and work the pipeline gave up on.
	stuck := carol.OK("task_create", map[string]any{"title": "Needs credentials", "project": testkit.Project})["task_id"].(string)
	carol.OK("task_update", map[string]any{"task_id": stuck, "status": "todo"})
	carol.OK("task_update", map[string]any{"task_id": stuck, "status": "blocked", "blocked_reason": "need the <b>staging</b> password"})
	phased := carol.OK("task_create", map[string]any{"title": "Research loop", "project": testkit.Project})["task_id"].(string)
	carol.OK("task_update", map[string]any{"task_id": phased, "status": "todo"})
	carol.OK("task_update", map[string]any{"task_id": phased, "status": "blocked", "blocked_reason": "phase research rejected 3 times"})
	// A proposal and an open PR.
	prop := carol.OK("create_proposal", map[string]any{"title": "Cache the schema", "description": "It is rebuilt per call.", "type": "engineering"})
	ctx := context.Background()
	if err := d.Store.Update(ctx, func(tx baton.Tx) error {
		return tx.CreatePR(ctx, &baton.PR{ItemID: stuck, BranchName: "issue/" + stuck, BaseBranch: "main", Status: baton.PROpen,
			Risk: baton.RiskScore{Level: baton.RiskHigh, Reasons: []string{"touches auth/"}}, CreatedBy: "agent-carol"})
	}); err != nil {
		t.Fatal(err)
	}

	_, page := d.get("/")
	mustContain(t, page, "Needs credentials", "need the &lt;b&gt;staging&lt;/b&gt; password", "Cache the schema",
		"touches auth/", `data-tool="approve_pr"`, `data-tool="decide_proposal"`, "No stale claims.")
	esc := section(t, page, "escalated")
	if !strings.Contains(esc, phased) || strings.Contains(esc, stuck) {
		t.Errorf("phase rejections section:\n%s", esc)
	}
	if bl := section(t, page, "blocked"); !strings.Contains(bl, stuck) || strings.Contains(bl, phased) {
		t.Errorf("blocked section:\n%s", bl)
	}

	// The page knows when bob's claim turns stale by time alone (no event
	// will say so) and asks to be refreshed then.
	if clockRegion := openingTag(t, page, "stale-clock"); !strings.Contains(clockRegion, `data-refresh-in="300000"`) {
		t.Errorf("stale clock: %s", clockRegion)
	}
	// Six minutes of silence make bob's claim stale.
	clock.Advance(StaleAfter + time.Minute)
	_, page = d.get("/")
	stale := section(t, page, "stale")
	mustContain(t, stale, held, "agent-bob", `data-tool="force_release_claim"`)

	d.mustAct("force_release_claim", map[string]any{"item_id": held, "reason": "agent-bob stopped answering"})
	d.mustAct("decide_proposal", map[string]any{"id": prop["id"], "decision": "accepted", "create_item": true})
	d.mustAct("task_update", map[string]any{"task_id": stuck, "status": "todo"})

	_, page = d.get("/")
	mustContain(t, page, "No stale claims.", "No pending proposals.", "Nothing is blocked.")
	// The holder was told, and every decision is the user's in the log.
	msgs := bob.OK("read_messages", map[string]any{})["messages"].([]any)
	if len(msgs) == 0 || !strings.Contains(msgs[len(msgs)-1].(map[string]any)["body"].(string), "agent-bob stopped answering") {
		t.Fatalf("bob's messages: %v", msgs)
	}
	for _, tool := range []string{"force_release_claim", "decide_proposal", "task_update"} {
		if n := d.Count(`SELECT COUNT(*) FROM actions WHERE agent = 'user' AND source = 'web' AND tool = ?`, tool); n != 1 {
			t.Errorf("%s by user from the web: %d in the action log", tool, n)
		}
	}
}

// section is the HTML of the page's live region id.
func section(t *testing.T, page, id string) string {
	t.Helper()
	i := strings.Index(page, `id="`+id+`"`)
	if i < 0 {
		t.Fatalf("no section %s", id)
	}
	j := strings.Index(page[i:], "</section>")
	return page[i : i+j]
}

// openingTag is the opening tag of the element with id.
func openingTag(t *testing.T, page, id string) string {
	t.Helper()
	i := strings.Index(page, `id="`+id+`"`)
	if i < 0 {
		t.Fatalf("no element %s", id)
	}
	return page[i : i+strings.Index(page[i:], ">")]
}
