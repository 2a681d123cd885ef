package web

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
)

// getItem fetches an item's page and fails unless it is 200.
func (d *dash) getItem(id string) string {
	d.t.Helper()
	st, page := d.get("/items/" + id)
	if st != http.StatusOK {
		d.t.Fatalf("GET /items/%s: %d\n%s", id, st, page)
	}
	return page
}

func TestItemPageShowsWhatAgentsRecordedThroughTheTools(t *testing.T) {
	d := newDash(t)
	x := d.As("agent-x")
	dep := newIssue(d.Kit, "agent-x", map[string]any{"title": "Prerequisite"})
	id := newIssue(d.Kit, "agent-x", map[string]any{"title": "Build the thing", "priority": 2, // Symphony's 2 is high
		"description": "Line one\n<script>alert(1)</script>", "labels": []string{"phase:grooming", "api"}})
	moveTo(d.Kit, "agent-x", id, map[string]any{"status": "todo"})
	x.OK("add_dependency", map[string]any{"issue_id": id, "depends_on": dep})
	later := newIssue(d.Kit, "agent-x", map[string]any{"title": "Comes after"})
	moveTo(d.Kit, "agent-x", later, map[string]any{"status": "todo"})
	x.OK("add_dependency", map[string]any{"issue_id": later, "depends_on": id})
	sub := x.OK("create_subtask", map[string]any{"issue_id": id, "title": "A part of it"})["issue_id"].(string)
	x.OK("claim_item", map[string]any{"item_id": sub, "ttl_seconds": 900})
	x.OK("add_finding", map[string]any{"issue_id": id, "category": "bug", "summary": "retries <never> stop",
		"details": "seen in the logs", "files": []string{"server/retry.go"}})
	x.OK("add_learning", map[string]any{"issue_id": id, "pattern": "Always bound retries with a deadline, or a dead peer keeps the worker busy",
		"learning_type": "gotcha", "applies_to": []string{"server/"}})
	x.OK("add_comment", map[string]any{"issue_id": id, "content": "on it & <b>soon</b>"})
	x.OK("thought_record", map[string]any{"task_id": id, "type": "decision", "content": "Use exponential backoff",
		"branch": "feature/retry"})
	// create_pr builds its record from a git branch; the PR pages' tests
	// drive it. Here the record is stored as it would leave it.
	ctx := context.Background()
	if err := d.Store.Update(ctx, func(tx baton.Tx) error {
		return tx.CreatePR(ctx, &baton.PR{ItemID: id, BranchName: "issue/" + id, BaseBranch: "main", Status: baton.PROpen,
			Files: []baton.FileStat{{Path: "server/retry.go", Status: "modified", Added: 12, Removed: 3}},
			Risk:  baton.RiskScore{Level: baton.RiskMedium}, CreatedBy: "agent-x"})
	}); err != nil {
		t.Fatal(err)
	}

	page := d.getItem(id)
	mustContain(t, page,
		"Build the thing", "P1 high", `<span class="badge phase" title="phase grooming">phase grooming</span>`, `<span class="badge" title="api">api</span>`,
		"Line one\n&lt;script&gt;alert(1)&lt;/script&gt;", "by agent-x",
		// related items, both ways
		`<a href="/items/`+sub+`">`+sub+`</a> A part of it`, `<a href="/items/`+dep+`">`+dep+`</a> Prerequisite`,
		`<a href="/items/`+later+`">`+later+`</a> Comes after`,
		// records
		"retries &lt;never&gt; stop", "seen in the logs", "<code>server/retry.go</code>",
		"Always bound retries with a deadline, or a dead peer keeps the worker busy", `<span class="badge">gotcha</span>`,
		"on it &amp; &lt;b&gt;soon&lt;/b&gt;",
		"Use exponential backoff", "branch <code>feature/retry</code>",
		`<a href="/prs/PR-1">PR-1</a>`, "+12 −3", "risk medium",
		// actions
		`data-tool="add_comment"`, `name="issue_id" value="`+id+`"`, `data-tool="task_update"`,
		// blocked by its subtask, it may go back to todo, on, or be cancelled
		`name="status" value="todo"`, `name="status" value="in_progress"`, `name="status" value="cancelled"`,
		`<span class="badge blocked">blocked</span>`, "waiting on sub-tasks")
	if strings.Contains(page, "<script>alert(1)") || strings.Contains(page, "<b>soon</b>") {
		t.Error("agent text reached the page unescaped")
	}
	// The parent is blocked by its open subtask; it is not claimed.
	mustContain(t, page, "Not claimed.")
	if strings.Contains(page, `data-tool="force_release_claim"`) {
		t.Error("an unclaimed item offers to release its claim")
	}

	sp := d.getItem(sub)
	mustContain(t, sp, "held by <strong>agent-x</strong>", "token 1", "m left</span>",
		`data-tool="force_release_claim"`, `name="item_id" value="`+sub+`"`, `name="reason"`,
		`<a href="/items/`+id+`">`+id+`</a> Build the thing`)
}

func TestItemPageOfAnUnknownItemIsA404WithTheReason(t *testing.T) {
	d := newDash(t)
	st, page := d.get("/items/COL-999")
	if st != http.StatusNotFound {
		t.Fatalf("GET /items/COL-999: %d, want 404\n%s", st, page)
	}
	mustContain(t, page, "Not found", "task &#34;COL-999&#34; does not exist", "check the id on the board", "ERR_TASK_NOT_FOUND")

	st, page = d.get("/items/" + strings.Repeat("x", itemIDMax+1))
	if st != http.StatusBadRequest {
		t.Fatalf("an over-long id: %d, want 400\n%s", st, page)
	}
	mustContain(t, page, "ERR_INVALID_INPUT", "an item id has 1 to 128 characters")
}

func TestItemPageFindsAPaddedID(t *testing.T) {
	d := newDash(t)
	id := newIssue(d.Kit, "agent-x", map[string]any{"title": "Padded"})
	page := d.getItem(strings.Replace(id, "-", "-000", 1))
	mustContain(t, page, "Padded", "leads here: the item is "+id+" now.")
}

func TestCommentFromTheItemPageLandsAndIsAuditedAsTheUser(t *testing.T) {
	d := newDash(t)
	id := newIssue(d.Kit, "agent-x", map[string]any{"title": "Discuss"})
	page := d.getItem(id)
	mustContain(t, page, "No comments.", `data-tool="add_comment"`)

	d.mustAct("add_comment", map[string]any{"issue_id": id, "content": "Please <em>also</em> add tests"})
	page = d.getItem(id)
	mustContain(t, page, "<strong>user</strong>", "Please &lt;em&gt;also&lt;/em&gt; add tests")

	ctx := context.Background()
	var acts []*baton.Action
	if err := d.Store.View(ctx, func(tx baton.Tx) (err error) { acts, err = tx.Actions(ctx, 0, 1000); return err }); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, a := range acts {
		if a.Tool == "add_comment" && a.Agent == baton.User && a.Subject == id && a.Source == string(baton.SourceWeb) {
			found = true
		}
	}
	if !found {
		t.Errorf("no add_comment by %s from the web about %s in the action log: %+v", baton.User, id, acts)
	}
}

func TestStatusChangeFromTheItemPage(t *testing.T) {
	d := newDash(t)
	id := newIssue(d.Kit, "agent-x", map[string]any{"title": "Move me"})
	page := d.getItem(id)
	mustContain(t, page, `name="status" value="todo"`, `name="status" value="cancelled"`)

	d.mustAct("task_update", map[string]any{"task_id": id, "status": "todo"})
	page = d.getItem(id)
	mustContain(t, page, `<span class="badge todo">todo</span>`, `name="status" value="in_progress"`, "by user")

	st, out := d.act("task_update", map[string]any{"task_id": id, "status": "blocked"})
	if st != http.StatusBadRequest {
		t.Fatalf("blocking without a reason: %d %v", st, out)
	}
	d.mustAct("task_update", map[string]any{"task_id": id, "status": "cancelled"})
	page = d.getItem(id)
	mustContain(t, page, "cancelled is terminal: nothing leaves it.")
}
