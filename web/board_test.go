package web

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// boardColumnOf is the HTML of one status's column of a board page.
func boardColumnOf(t *testing.T, page, status string) string {
	t.Helper()
	start := strings.Index(page, `data-status="`+status+`"`)
	if start < 0 {
		t.Fatalf("the board has no %s column:\n%s", status, page)
	}
	rest := page[start:]
	if end := strings.Index(rest, "</section>"); end >= 0 {
		rest = rest[:end]
	}
	return rest
}

var boardTileRe = regexp.MustCompile(`(?s)<article class="tile" data-id="([^"]*)".*?</article>`)

// tileOf is the HTML of item id's tile, wherever it is.
func tileOf(t *testing.T, page, id string) string {
	t.Helper()
	for _, m := range boardTileRe.FindAllStringSubmatch(page, -1) {
		if m[1] == id {
			return m[0]
		}
	}
	t.Fatalf("no tile for %s on the board:\n%s", id, page)
	return ""
}

// boardIDs lists the ids of the tiles on a board page.
func boardIDs(page string) []string {
	var out []string
	for _, m := range boardTileRe.FindAllStringSubmatch(page, -1) {
		out = append(out, m[1])
	}
	return out
}

// getBoard fetches the board with query and fails unless it is 200.
func (d *dash) getBoard(query string) string {
	d.t.Helper()
	st, page := d.get("/board" + query)
	if st != http.StatusOK {
		d.t.Fatalf("GET /board%s: %d\n%s", query, st, page)
	}
	return page
}

// newIssue files an issue through create_issue as agent and returns its id.
func newIssue(k *testkit.Kit, agent string, args map[string]any) string {
	k.T.Helper()
	return k.As(agent).OK("create_issue", args)["issue_id"].(string)
}

// moveTo walks an item through task_update as agent.
func moveTo(k *testkit.Kit, agent, id string, steps ...map[string]any) {
	k.T.Helper()
	for _, s := range steps {
		a := map[string]any{"task_id": id}
		for key, v := range s {
			a[key] = v
		}
		k.As(agent).OK("task_update", a)
	}
}

func TestBoardPutsToolMadeItemsInTheirColumnsWithClaimAndBlockedBadges(t *testing.T) {
	d := newDash(t)
	backlog := newIssue(d.Kit, "agent-x", map[string]any{"title": "Someday maybe", "labels": []string{"phase:research", "backend"}})
	claimed := d.As("agent-x").OK("task_create", map[string]any{"title": "Being worked on", "project": testkit.Project,
		"priority": "critical"})["task_id"].(string)
	moveTo(d.Kit, "agent-x", claimed, map[string]any{"status": "todo"})
	d.As("agent-x").OK("claim_item", map[string]any{"item_id": claimed, "ttl_seconds": 600})
	dep := newIssue(d.Kit, "agent-x", map[string]any{"title": "Prerequisite"})
	waiting := newIssue(d.Kit, "agent-x", map[string]any{"title": "Waits for the prerequisite"})
	moveTo(d.Kit, "agent-x", dep, map[string]any{"status": "todo"})
	moveTo(d.Kit, "agent-x", waiting, map[string]any{"status": "todo"})
	d.As("agent-x").OK("add_dependency", map[string]any{"issue_id": waiting, "depends_on": dep})
	stuck := newIssue(d.Kit, "agent-y", map[string]any{"title": "Stuck on credentials"})
	moveTo(d.Kit, "agent-y", stuck, map[string]any{"status": "todo"},
		map[string]any{"status": "blocked", "blocked_reason": "needs the API key"})
	parent := newIssue(d.Kit, "agent-x", map[string]any{"title": "Parent"})
	moveTo(d.Kit, "agent-x", parent, map[string]any{"status": "todo"})
	sub := d.As("agent-x").OK("create_subtask", map[string]any{"issue_id": parent, "title": "Child"})["issue_id"].(string)
	done := newIssue(d.Kit, "agent-x", map[string]any{"title": "Finished"})
	moveTo(d.Kit, "agent-x", done, map[string]any{"status": "todo"}, map[string]any{"status": "in_progress"},
		map[string]any{"status": "review"}, map[string]any{"status": "done"})

	page := d.getBoard("")
	for id, status := range map[string]string{backlog: "backlog", claimed: "in_progress", dep: "todo", waiting: "todo",
		stuck: "blocked", parent: "blocked", sub: "todo", done: "done"} {
		if col := boardColumnOf(t, page, status); !strings.Contains(col, `data-id="`+id+`"`) {
			t.Errorf("%s is not in the %s column", id, status)
		}
	}

	tile := tileOf(t, page, backlog)
	mustContain(t, tile, `href="/items/`+backlog+`"`, "Someday maybe", `<span class="badge phase" title="phase research">phase research</span>`,
		`<span class="badge" title="backend">backend</span>`, "unassigned", "P2 normal", "task")

	tile = tileOf(t, page, claimed)
	mustContain(t, tile, "assigned to <strong>agent-x</strong>", "claimed by <strong>agent-x</strong>", "m left</span>",
		`<span class="badge high">P0 critical</span>`)
	if strings.Contains(tile, "badge blocked") {
		t.Errorf("the claimed item is marked blocked:\n%s", tile)
	}

	tile = tileOf(t, page, waiting)
	mustContain(t, tile, `<span class="badge blocked">blocked</span>`, `waits on <a href="/items/`+dep+`">`+dep+`</a>`)
	if tile := tileOf(t, page, dep); strings.Contains(tile, "badge blocked") {
		t.Errorf("the prerequisite is marked blocked:\n%s", tile)
	}
	mustContain(t, tileOf(t, page, stuck), `<span class="badge blocked">blocked</span>`, "needs the API key")
	mustContain(t, tileOf(t, page, parent), `<span class="badge blocked">blocked</span>`,
		`open subtasks <a href="/items/`+sub+`">`+sub+`</a>`)
	if !strings.Contains(page, `class="filters"`) {
		t.Error("the board has no filter form")
	}
}

func TestBoardFiltersNarrowTheItems(t *testing.T) {
	d := newDash(t)
	d.AddProject("other", "OTH")
	front := newIssue(d.Kit, "agent-x", map[string]any{"title": "Polish the frontend", "labels": []string{"ui"},
		"project": testkit.Project})
	back := newIssue(d.Kit, "agent-x", map[string]any{"title": "Tune the database", "labels": []string{"db", "phase:research"},
		"project": testkit.Project})
	moveTo(d.Kit, "agent-x", back, map[string]any{"assignee": "agent-z"})
	elsewhere := newIssue(d.Kit, "agent-x", map[string]any{"title": "Elsewhere", "project": "other"})

	cases := []struct {
		query string
		want  []string
	}{
		{"", []string{front, back, elsewhere}},
		{"?project=other", []string{elsewhere}},
		{"?project=" + testkit.Project, []string{front, back}},
		{"?label=ui", []string{front}},
		{"?label=db", []string{back}},
		{"?assignee=agent-z", []string{back}},
		{"?assignee=unassigned", []string{front, elsewhere}},
		{"?phase=research", []string{back}},
		{"?phase=ready", []string{front, elsewhere}},
		{"?phase=research&label=ui", nil},
		{"?phase=ready&label=ui", []string{front}},
		{"?q=database", []string{back}},
		{"?q=frontend&project=" + testkit.Project, []string{front}},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			got := boardIDs(d.getBoard(c.query))
			if strings.Join(got, " ") != strings.Join(sortedLike(got, c.want), " ") || len(got) != len(c.want) {
				t.Errorf("/board%s shows %v, want %v", c.query, got, c.want)
			}
		})
	}
	page := d.getBoard("?label=ui&assignee=unassigned&q=polish")
	mustContain(t, page, `value="ui"`, `value="polish"`, `href="/board">Clear filters</a>`)
}

// sortedLike returns want ordered as got orders its members (the board's
// order is by column, then urgency), so the comparison checks the sets.
func sortedLike(got, want []string) []string {
	var out []string
	for _, g := range got {
		for _, w := range want {
			if g == w {
				out = append(out, g)
			}
		}
	}
	return out
}

func TestBoardEscapesAgentText(t *testing.T) {
	d := newDash(t)
	id := newIssue(d.Kit, "agent-x", map[string]any{"title": "<script>alert(1)</script>", "labels": []string{"<b>x</b>"}})
	page := d.getBoard("")
	mustContain(t, tileOf(t, page, id), "&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;b&gt;x&lt;/b&gt;")
	if strings.Contains(page, "<script>alert(1)") || strings.Contains(page, "<b>x</b>") {
		t.Error("agent text reached the page unescaped")
	}
}

func TestBoardRefusesJunkFilters(t *testing.T) {
	d := newDash(t)
	cases := []struct {
		query  string
		status int
		want   string
	}{
		{"?label=" + strings.Repeat("l", 65), http.StatusBadRequest, "the label filter is over 64 characters"},
		{"?assignee=" + strings.Repeat("a", 129), http.StatusBadRequest, "the assignee filter is over 128 characters"},
		{"?q=" + strings.Repeat("q", 201), http.StatusBadRequest, "the q filter is over 200 characters"},
		{"?project=" + strings.Repeat("p", 64), http.StatusBadRequest, "the project filter is over 63 characters"},
		{"?label=" + url.QueryEscape("a\x00b"), http.StatusBadRequest, "the label filter holds control characters"},
		{"?phase=" + url.QueryEscape("not a phase"), http.StatusBadRequest, "is not a phase name"},
		{"?label=a&label=b", http.StatusBadRequest, "the label filter is given 2 times"},
		{"?project=nowhere", http.StatusNotFound, "project &#34;nowhere&#34; does not exist"},
		{"?q=" + url.QueryEscape(`"unclosed`), http.StatusBadRequest, "ERR_INVALID_INPUT"},
	}
	for _, c := range cases {
		t.Run(c.want, func(t *testing.T) {
			st, page := d.get("/board" + c.query)
			if st != c.status {
				t.Fatalf("GET /board%s: %d, want %d\n%s", c.query, st, c.status, page)
			}
			mustContain(t, page, `class="card error-page"`, c.want, `class="hint"`)
		})
	}
}

func TestBoardBoundsItsColumns(t *testing.T) {
	d := newDash(t)
	for i := range boardClosedCap + 3 {
		d.StoreItem(&baton.Item{Title: fmt.Sprintf("old %d", i), Status: baton.StatusDone})
	}
	for i := range boardColumnCap + 2 {
		d.StoreItem(&baton.Item{Title: fmt.Sprintf("open %d", i), Status: baton.StatusBacklog})
	}
	page := d.getBoard("")
	done := boardColumnOf(t, page, "done")
	if n := len(boardIDs(done)); n != boardClosedCap {
		t.Errorf("the done column shows %d tiles, want %d", n, boardClosedCap)
	}
	mustContain(t, done, fmt.Sprintf(`<span class="count">%d</span>`, boardClosedCap+3), "3 more.")
	backlog := boardColumnOf(t, page, "backlog")
	if n := len(boardIDs(backlog)); n != boardColumnCap {
		t.Errorf("the backlog column shows %d tiles, want %d", n, boardColumnCap)
	}
	mustContain(t, backlog, "2 more: narrow the filters")
}
