package browsertest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// boardTile is what the board shows of one item, read from the DOM.
type boardTile struct {
	ID     string `json:"id"`
	Column string `json:"column"` // the data-status of the tile's column
	Text   string `json:"text"`
}

// readBoard returns the tiles of the given items on the open board page
// (absent items are left out).
func readBoard(tb *tab, ids ...string) map[string]boardTile {
	tb.t.Helper()
	arg, _ := json.Marshal(ids)
	raw := eval[[]byte](tb, fmt.Sprintf(`%s.map(id => {
		const tile = document.querySelector('.tile[data-id="' + CSS.escape(id) + '"]');
		if (!tile) return null;
		const col = tile.closest(".column");
		return {id, column: col ? col.dataset.status : "", text: tile.innerText};
	}).filter(Boolean)`, arg))
	var tiles []boardTile
	if err := json.Unmarshal(raw, &tiles); err != nil {
		tb.t.Fatalf("reading the board: %v: %s", err, raw)
	}
	out := map[string]boardTile{}
	for _, tl := range tiles {
		out[tl.ID] = tl
	}
	return out
}

// TestBoardShowsItemsMadeOverMCP: items an agent makes and claims over
// MCP are on /board in their status's column, the claimed one with its
// holder and lease, the one waiting on another with a blocked badge; an
// item made while the board is open appears without reload.
func TestBoardShowsItemsMadeOverMCP(t *testing.T) {
	t.Parallel() // no latency measured here: it may share the machine with the other parallel tests
	fx := setup(t)
	bot := fx.newAgent(t, "agent-board")

	issue := func(title string, extra map[string]any) string {
		args := map[string]any{"title": title}
		for k, v := range extra {
			args[k] = v
		}
		return bot.call("create_issue", args)["issue_id"].(string)
	}
	backlog := issue("Board: write the parser", map[string]any{"priority": 2})
	working := issue("Board: wire the lexer", nil)
	bot.call("task_update", map[string]any{"task_id": working, "status": "todo"})
	claim := bot.call("claim_item", map[string]any{"item_id": working})
	if claim["status"] != "in_progress" || claim["holder"] != "agent-board" {
		t.Fatalf("claim_item: %v", claim)
	}
	waiting := issue("Board: ship it", map[string]any{"depends_on": []string{backlog}})
	bot.call("task_update", map[string]any{"task_id": waiting, "status": "todo"})
	task := bot.call("task_create", map[string]any{"title": "Board: a task", "project": "colibri"})["task_id"].(string)

	tb := fx.loggedInTab(t)
	tb.openLive("/board")
	tiles := readBoard(tb, backlog, working, waiting, task)
	tb.shot("board")

	for id, col := range map[string]string{backlog: "backlog", working: "in_progress", waiting: "todo", task: "backlog"} {
		tl, ok := tiles[id]
		if !ok {
			t.Errorf("%s is not on the board", id)
			continue
		}
		if tl.Column != col {
			t.Errorf("%s is in column %q, want %q", id, tl.Column, col)
		}
	}
	if tl := tiles[working]; !strings.Contains(tl.Text, "claimed by agent-board") || !strings.Contains(tl.Text, "assigned to agent-board") {
		t.Errorf("the claimed item's tile does not name its holder: %q", tl.Text)
	}
	if tl := tiles[backlog]; !strings.Contains(tl.Text, "write the parser") || !strings.Contains(tl.Text, "high") {
		t.Errorf("the backlog tile lacks its title or priority: %q", tl.Text)
	}
	if tl := tiles[waiting]; !strings.Contains(tl.Text, "blocked") || !strings.Contains(tl.Text, "waits on "+backlog) {
		t.Errorf("the item waiting on %s shows no blocked badge: %q", backlog, tl.Text)
	}

	// Live: a new item appears on the open board.
	start := time.Now()
	late := issue("Board: made while you watch", nil)
	tb.waitJS(fmt.Sprintf(`!!document.querySelector('.column[data-status="backlog"] .tile[data-id=%q]')`, late),
		5*time.Second, "the new item on the open board")
	t.Logf("a new item reached the open board in %s", time.Since(start).Round(time.Millisecond))
	tb.shot("board-live")
	matchesReload(tb, "a new item")
}
