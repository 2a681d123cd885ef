package web

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// filesDash is a dashboard on a still clock, for pages that say how long
// is left.
func filesDash(t *testing.T) (*dash, *testkit.Clock) {
	t.Helper()
	clock := testkit.NewClock(time.Now().UTC().Truncate(time.Second), 0)
	return newDashAt(t, clock), clock
}

// claimedTask creates a todo task and claims it as agent.
func claimedTask(d *dash, agent, title string) string {
	d.t.Helper()
	a := d.As(agent)
	id := a.OK("task_create", map[string]any{"project": testkit.Project, "title": title})["task_id"].(string)
	a.OK("task_update", map[string]any{"task_id": id, "status": "todo"})
	a.OK("claim_item", map[string]any{"item_id": id, "ttl_seconds": 3600})
	return id
}

// reserveAs reserves paths as agent and returns the granted ids in order.
func reserveAs(d *dash, agent string, args map[string]any) []int64 {
	d.t.Helper()
	var ids []int64
	for _, g := range d.As(agent).OK("file_reservation_paths", args)["granted"].([]any) {
		ids = append(ids, int64(g.(map[string]any)["file_reservation_id"].(float64)))
	}
	return ids
}

// storedReservation reads one reservation from the store.
func storedReservation(d *dash, id int64) *baton.FileReservation {
	d.t.Helper()
	ctx := context.Background()
	var r *baton.FileReservation
	if err := d.Store.View(ctx, func(tx baton.Tx) (err error) { r, err = tx.Reservation(ctx, id); return err }); err != nil {
		d.t.Fatal(err)
	}
	return r
}

// row is the list item or table row of the reservation in the page part.
func row(t *testing.T, part string, id int64) string {
	t.Helper()
	i := strings.Index(part, fmt.Sprintf(`class="reservation" data-id="%d"`, id))
	if i < 0 {
		t.Fatalf("no reservation %d in:\n%s", id, part)
	}
	rest := part[i:]
	for _, end := range []string{"</li>", "</tr>"} {
		if j := strings.Index(rest, end); j >= 0 {
			rest = rest[:j]
		}
	}
	return rest
}

func TestFilesPageListsActiveReservationsAndFiltersByAgent(t *testing.T) {
	d, _ := filesDash(t)
	item := claimedTask(d, "agent-xena", "Rewrite the parser")
	xena := reserveAs(d, "agent-xena", map[string]any{"paths": []string{"src/**"}, "ttl_seconds": 1800,
		"reason": "refactoring <script>alert(1)</script> the parser"})[0]
	yves := reserveAs(d, "agent-yves", map[string]any{"paths": []string{"docs/*.md"}, "exclusive": false, "reason": "typo fixes"})[0]

	st, page := d.get("/reservations")
	if st != http.StatusOK {
		t.Fatalf("GET /reservations: %d %s", st, page)
	}
	mustContain(t, page, `<a href="/reservations" aria-current="page">Files</a>`, "2 reserved")
	active := section(t, page, "files-active")
	x := row(t, active, xena)
	mustContain(t, x, "<code>src/**</code>", `<span class="badge high">exclusive</span>`, "<strong>agent-xena</strong>",
		`for <a href="/items/`+item+`">`+item+`</a>`, "refactoring &lt;script&gt;alert(1)&lt;/script&gt; the parser",
		"expires: 30m left", "taken 0s ago", fmt.Sprintf("#%d", xena),
		`data-tool="force_release_file_reservation"`, fmt.Sprintf(`name="file_reservation_id" value="%d" data-type="int"`, xena),
		`data-confirm="Release agent-xena's exclusive reservation on src/**?"`)
	y := row(t, active, yves)
	mustContain(t, y, "<code>docs/*.md</code>", `<span class="badge">shared</span>`, "agent-yves", "typo fixes", "expires: 1h00m left")
	if strings.Contains(y, "/items/") {
		t.Errorf("a reservation taken for no item links one:\n%s", y)
	}
	if strings.Contains(page, "<script>alert(1)") {
		t.Error("a reservation's reason reached the page unescaped")
	}
	// Oldest first; the page refreshes itself when the first one lapses.
	if strings.Index(active, "src/**") > strings.Index(active, "docs/*.md") {
		t.Error("the active reservations are not oldest first")
	}
	if clock := openingTag(t, page, "files-clock"); !strings.Contains(clock, `data-refresh-in="1800000"`) {
		t.Errorf("files clock: %s", clock)
	}
	mustContain(t, section(t, page, "files-ended"), "None ended lately.")

	// The filter, whatever the case, narrows both lists to the agent.
	_, page = d.get("/reservations?agent=AGENT-YVES")
	mustContain(t, page, `<option value="agent-yves" selected>`, `<option value="agent-xena">`, "Reserved now by AGENT-YVES")
	active = section(t, page, "files-active")
	mustContain(t, active, "docs/*.md")
	if strings.Contains(active, "src/**") {
		t.Errorf("the reservations of agent-yves hold agent-xena's:\n%s", active)
	}
	_, page = d.get("/reservations?agent=agent-zed")
	mustContain(t, page, `<option value="agent-zed" selected>`, "No file is reserved by agent-zed.")

	st, page = d.get("/reservations?agent=" + strings.Repeat("a", maxAgentName+1))
	if st != http.StatusBadRequest {
		t.Fatalf("an over-long agent filter: %d, want 400", st)
	}
	mustContain(t, page, "ERR_INVALID_INPUT")
}

func TestFilesPageShowsEndedReservationsAndWhoEndedThem(t *testing.T) {
	d, clock := filesDash(t)
	short := reserveAs(d, "agent-wen", map[string]any{"paths": []string{"tmp/**"}, "ttl_seconds": 60, "reason": "scratch"})[0]
	clock.Advance(2 * time.Minute) // wen's lapses
	mine := reserveAs(d, "agent-xena", map[string]any{"paths": []string{"a/**"}, "reason": "done soon"})[0]
	clock.Advance(time.Second)
	d.As("agent-xena").OK("release_file_reservations", map[string]any{})
	item := claimedTask(d, "agent-yves", "Linked")
	linked := reserveAs(d, "agent-yves", map[string]any{"paths": []string{"b/**"}, "reason": "for the claim"})[0]
	clock.Advance(time.Second)
	d.As("agent-yves").OK("release_claim", map[string]any{"item_id": item})
	stale := reserveAs(d, "agent-zed", map[string]any{"paths": []string{"c/**"}, "reason": "<b>left</b> behind"})[0]
	clock.Advance(time.Second)
	d.mustAct("force_release_file_reservation", map[string]any{"file_reservation_id": stale, "note": "zed stopped"})
	clock.Advance(time.Minute)

	_, page := d.get("/reservations")
	mustContain(t, page, "0 reserved", "No file is reserved.")
	ended := section(t, page, "files-ended")
	mustContain(t, row(t, ended, short), "<code>tmp/**</code>", "agent-wen", "<td>expired</td>", "scratch")
	mustContain(t, row(t, ended, mine), "<code>a/**</code>", "<td>released by its holder</td>", "1m ago")
	mustContain(t, row(t, ended, linked), "<code>b/**</code>", "<td>ended with its claim</td>",
		`<a href="/items/`+item+`">`+item+`</a>`)
	mustContain(t, row(t, ended, stale), "<code>c/**</code>", `<span class="badge stale">forced by user</span>`,
		"&lt;b&gt;left&lt;/b&gt; behind")
	if strings.Contains(page, "<b>left</b>") {
		t.Error("a reservation's reason reached the page unescaped")
	}
	// The latest ended first.
	order := []int64{stale, linked, mine, short}
	for i := 1; i < len(order); i++ {
		if strings.Index(ended, fmt.Sprintf(`data-id="%d"`, order[i-1])) > strings.Index(ended, fmt.Sprintf(`data-id="%d"`, order[i])) {
			t.Errorf("ended reservation %d is listed before %d", order[i], order[i-1])
		}
	}
	// The agent filter narrows the ended ones too.
	_, page = d.get("/reservations?agent=agent-zed")
	ended = section(t, page, "files-ended")
	mustContain(t, ended, "c/**")
	if strings.Contains(ended, "a/**") || strings.Contains(ended, "tmp/**") {
		t.Errorf("agent-zed's ended reservations hold others':\n%s", ended)
	}
}

func TestForceReleaseFromTheFilesPage(t *testing.T) {
	d, _ := filesDash(t)
	id := reserveAs(d, "agent-zed", map[string]any{"paths": []string{"web/**"}, "reason": "redesign"})[0]
	_, page := d.get("/reservations")
	mustContain(t, row(t, section(t, page, "files-active"), id), `data-tool="force_release_file_reservation"`, "Force release")

	// Without the session's CSRF token (or with a wrong one) the call is
	// refused and the reservation holds.
	for name, token := range map[string]string{"none": "", "wrong": wrongToken(d.csrf)} {
		h := map[string]string{"Content-Type": "application/json"}
		if token != "" {
			h["X-CSRF-Token"] = token
		}
		st, body := fetch(t, d.client, http.MethodPost, d.ts.URL+"/api/tools/force_release_file_reservation",
			strings.NewReader(fmt.Sprintf(`{"file_reservation_id":%d}`, id)), h)
		if st != http.StatusForbidden || !strings.Contains(body, `"type":"csrf"`) {
			t.Errorf("%s token: %d %s", name, st, body)
		}
	}
	if r := storedReservation(d, id); !r.ReleasedAt.IsZero() {
		t.Fatalf("a refused call released the reservation: %+v", r)
	}

	out := d.mustAct("force_release_file_reservation", map[string]any{"file_reservation_id": id, "note": "zed is gone"})
	if out["previous_holder"] != "agent-zed" || out["notified"] != true {
		t.Errorf("force release answered %v", out)
	}
	if r := storedReservation(d, id); r.ReleasedAt.IsZero() || r.ReleasedBy != baton.User {
		t.Fatalf("after the force release: %+v", r)
	}
	_, page = d.get("/reservations")
	mustContain(t, page, "No file is reserved.")
	mustContain(t, row(t, section(t, page, "files-ended"), id), "forced by user")
	// The holder was told, and the log has it as the user's, from the web.
	if n := d.Count(`SELECT COUNT(*) FROM actions WHERE agent = 'user' AND source = 'web' AND tool = 'force_release_file_reservation'`); n != 1 {
		t.Errorf("the action log has %d web force releases by user, want 1", n)
	}
	msgs := d.As("agent-zed").OK("read_messages", map[string]any{})["messages"].([]any)
	if len(msgs) != 1 || !strings.Contains(fmt.Sprint(msgs[0]), "zed is gone") {
		t.Errorf("agent-zed's messages: %v", msgs)
	}
	// An ended one cannot be released again.
	if st, out := d.act("force_release_file_reservation", map[string]any{"file_reservation_id": id}); st != http.StatusBadRequest {
		t.Errorf("releasing it again: %d %v", st, out)
	}
}

func TestItemAndAgentsPagesShowActiveReservations(t *testing.T) {
	d, _ := filesDash(t)
	item := claimedTask(d, "agent-xena", "Parser")
	ids := reserveAs(d, "agent-xena", map[string]any{"paths": []string{"src/parser/**", "go.mod"}, "ttl_seconds": 900,
		"reason": "new <i>grammar</i>"})
	// Unlinked ones: another item's, and more than an agent's card lists.
	var many []string
	for i := range agentReservationsShown + 2 {
		many = append(many, fmt.Sprintf("pkg%d/**", i))
	}
	reserveAs(d, "agent-yves", map[string]any{"paths": many, "exclusive": false})

	page := d.getItem(item)
	files := section(t, page, "item-files")
	mustContain(t, files, "Reserved files", `<span class="count">2</span>`, "<code>src/parser/**</code>", "<code>go.mod</code>",
		`<span class="badge high">exclusive</span>`, `<a href="/reservations?agent=agent-xena">agent-xena</a>`, "15m left",
		"new &lt;i&gt;grammar&lt;/i&gt;")
	if strings.Contains(files, "pkg0/**") {
		t.Errorf("the item lists another agent's unlinked reservation:\n%s", files)
	}
	if strings.Contains(page, "<i>grammar</i>") {
		t.Error("a reservation's reason reached the item page unescaped")
	}
	if clock := openingTag(t, page, "item-files"); !strings.Contains(clock, `data-refresh-in="900000"`) {
		t.Errorf("item files clock: %s", clock)
	}
	mustContain(t, row(t, files, ids[0]), "src/parser/**")

	// Once the claim ends, so do its reservations.
	d.As("agent-xena").OK("release_claim", map[string]any{"item_id": item})
	mustContain(t, section(t, d.getItem(item), "item-files"), "No file is reserved for it.")

	_, page = d.get("/agents")
	yves := partOf(t, page, "agent-agent-yves")
	mustContain(t, yves, "Reserved files", "<code>pkg0/**</code>", `<span class="badge">shared</span>`, "1h00m left",
		`<a href="/reservations?agent=agent-yves">2 more</a>`)
	if strings.Contains(yves, fmt.Sprintf("<code>pkg%d/**</code>", agentReservationsShown)) {
		t.Errorf("agent-yves's card lists more than %d reservations:\n%s", agentReservationsShown, yves)
	}
	if xena := partOf(t, page, "agent-agent-xena"); strings.Contains(xena, "Reserved files") {
		t.Errorf("agent-xena's card lists reservations that ended with its claim:\n%s", xena)
	}
}
