package web

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/baton-dev/baton"
)

// The board: work items as columns by status, each a tile with what the
// operator scans for (priority, phase, who works on it, the claim and its
// lease, what holds it back), filtered by project, label, assignee, phase
// and text. Every column is bounded; the counts say how many more match.

const (
	// boardColumnCap bounds the tiles of an open column (backlog ...
	// review), the most urgent first.
	boardColumnCap = 200
	// boardClosedCap bounds done and cancelled: the most recently
	// changed; the rest are only counted.
	boardClosedCap = 20
	// boardScan bounds the items read per column when a filter the store
	// cannot apply (a phase besides a label, or the ready phase, which
	// items without a phase label are in) runs here.
	boardScan = 2000
	// boardAgentsCap bounds the assignee suggestions.
	boardAgentsCap = 200
)

// Bounds of the filters, in characters; the tools' own limits where
// there is one (a project slug 63, a label 64, an agent name 128).
const (
	boardProjectMax  = 63
	boardLabelMax    = 64
	boardAssigneeMax = 128
	boardPhaseMax    = 32
	boardSearchMax   = 200
)

// boardUnassigned is the assignee filter value for items nobody is
// assigned to.
const boardUnassigned = "unassigned"

var boardPage = &pageDef{
	Pattern: "/board", Name: "board", Title: "Board", Nav: "board",
	Live: []string{"issue.", "task.", "bead.", "item.", "claim.", "phase.", "pr.", "dependency.", "proposal."},
	Load: loadBoard,
}

func init() { register(boardPage) }

// boardFilter is the board's query: ?project=&label=&assignee=&phase=&q=.
type boardFilter struct {
	Project, Label, Assignee, Phase, Search string
}

// Any reports whether a filter narrows the board.
func (f boardFilter) Any() bool {
	return f.Project != "" || f.Label != "" || f.Assignee != "" || f.Phase != "" || f.Search != ""
}

// boardTile is one item on the board with what holds it back.
type boardTile struct {
	Item *baton.Item
	// Phase is the phase its phase:* label names, "" without one (the
	// item then counts as ready, which every item outside the pipeline
	// is: no badge for that).
	Phase  string
	Labels []string // the other labels
	Claim  *baton.Claim
	// WaitingOn are the unfinished items it depends on, OpenSubtasks
	// its unfinished children (known for todo and blocked items, the
	// ones waiting to start).
	WaitingOn    []string
	OpenSubtasks []string
	Blocked      bool
}

// Urgent reports whether the priority is critical or high.
func (t boardTile) Urgent() bool { return t.Item.Priority <= baton.PriorityHigh }

type boardColumn struct {
	Status baton.Status
	Tiles  []boardTile
	Total  int  // matching items in the column
	More   int  // Total - len(Tiles)
	Closed bool // done or cancelled: only the most recent shown
	// Approx: a filter ran here over the first boardScan items only, so
	// Total counts those.
	Approx bool
}

type boardData struct {
	Filter     boardFilter
	Columns    []boardColumn
	Phases     []string
	Agents     []string // assignee suggestions
	Unassigned string
}

func loadBoard(s *Server, r *http.Request) (any, error) {
	ctx := r.Context()
	f, ferr := parseBoardFilter(r.URL.Query())
	d := &boardData{Filter: f, Phases: baton.PhaseNames(), Unassigned: boardUnassigned}
	if ferr != nil {
		return d, ferr
	}
	err := s.view(ctx, func(tx baton.Tx) error {
		if f.Project != "" {
			if _, err := tx.Project(ctx, f.Project); err != nil {
				return err
			}
		}
		base, keep := boardQuery(f)
		for _, st := range baton.Statuses {
			col, err := readColumn(ctx, tx, st, base, keep)
			if err != nil {
				return err
			}
			d.Columns = append(d.Columns, col)
		}
		if err := boardAnnotate(ctx, tx, f.Project, d.Columns); err != nil {
			return err
		}
		agents, err := tx.Agents(ctx)
		if err != nil {
			return err
		}
		for _, a := range agents {
			if len(d.Agents) == boardAgentsCap {
				break
			}
			d.Agents = append(d.Agents, a.Name)
		}
		return nil
	})
	if err != nil {
		return d, err
	}
	return d, nil
}

// parseBoardFilter reads and bounds the board's query parameters. A value
// over its bound or holding control characters is refused whole: a
// silently cut filter would show the wrong items.
func parseBoardFilter(q url.Values) (boardFilter, *baton.Error) {
	var f boardFilter
	fields := []struct {
		name string
		max  int
		dst  *string
	}{
		{"project", boardProjectMax, &f.Project},
		{"label", boardLabelMax, &f.Label},
		{"assignee", boardAssigneeMax, &f.Assignee},
		{"phase", boardPhaseMax, &f.Phase},
		{"q", boardSearchMax, &f.Search},
	}
	for _, fl := range fields {
		vs := q[fl.name]
		if len(vs) > 1 {
			return f, baton.Errorf(baton.ErrInvalidInput, "the %s filter is given %d times", fl.name, len(vs)).
				WithDetails("field", fl.name, "constraint", "once").
				WithHint("give each filter at most once, or start again from /board")
		}
		if len(vs) == 0 {
			continue
		}
		v := strings.TrimSpace(vs[0])
		if n := utf8.RuneCountInString(v); n > fl.max || !utf8.ValidString(v) {
			return f, baton.Errorf(baton.ErrInvalidInput, "the %s filter is over %d characters", fl.name, fl.max).
				WithDetails("field", fl.name, "constraint", "max_length", "limit", fl.max).
				WithHint("shorten the %s filter, or clear the filters at /board", fl.name)
		}
		if strings.ContainsFunc(v, unicode.IsControl) {
			return f, baton.Errorf(baton.ErrInvalidInput, "the %s filter holds control characters", fl.name).
				WithDetails("field", fl.name, "constraint", "printable").
				WithHint("type the %s filter again, or clear the filters at /board", fl.name)
		}
		*fl.dst = v
	}
	if f.Phase != "" && strings.ContainsFunc(f.Phase, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_')
	}) {
		return f, baton.Errorf(baton.ErrInvalidInput, "%q is not a phase name", f.Phase).
			WithDetails("field", "phase", "constraint", "phase_name", "phases", baton.PhaseNames()).
			WithHint("pick one of %s, or any phase", strings.Join(baton.PhaseNames(), ", "))
	}
	return f, nil
}

// boardQuery turns the filter into the store's filter and, when the store
// cannot apply all of it, the test the rest of it is.
func boardQuery(f boardFilter) (baton.ItemFilter, func(*baton.Item) bool) {
	base := baton.ItemFilter{Project: f.Project, Search: f.Search}
	switch f.Assignee {
	case "":
	case boardUnassigned:
		base.Assignee = new(string)
	default:
		a := f.Assignee
		base.Assignee = &a
	}
	var keep func(*baton.Item) bool
	switch {
	case f.Label != "":
		base.Label = f.Label
		if f.Phase != "" {
			keep = func(it *baton.Item) bool { return string(it.Phase()) == f.Phase }
		}
	case f.Phase == string(baton.PhaseReady):
		// Ready is also every item without a phase label.
		keep = func(it *baton.Item) bool { return it.Phase() == baton.PhaseReady }
	case f.Phase != "":
		base.Label = baton.PhaseLabelPrefix + f.Phase
	}
	return base, keep
}

// readColumn reads one status's items: the most urgent open ones, or the
// most recently changed closed ones.
func readColumn(ctx context.Context, tx baton.Tx, st baton.Status, base baton.ItemFilter, keep func(*baton.Item) bool) (boardColumn, error) {
	col := boardColumn{Status: st, Closed: st.Terminal()}
	lf := base
	lf.Statuses = []baton.Status{st}
	limit := boardColumnCap
	if col.Closed {
		lf.Sort, lf.Descending, limit = baton.SortUpdated, true, boardClosedCap
	} else {
		lf.Sort, lf.Descending = baton.SortPriority, true // critical first
	}
	var items []*baton.Item
	if keep == nil {
		lf.Limit = limit
		page, err := tx.ListItems(ctx, lf)
		if err != nil {
			return col, err
		}
		items, col.Total = page.Items, page.Total
	} else {
		lf.Limit = boardScan
		page, err := tx.ListItems(ctx, lf)
		if err != nil {
			return col, err
		}
		for _, it := range page.Items {
			if !keep(it) {
				continue
			}
			col.Total++
			if len(items) < limit {
				items = append(items, it)
			}
		}
		col.Approx = page.Total > len(page.Items)
	}
	for _, it := range items {
		t := boardTile{Item: it, Labels: slices.DeleteFunc(slices.Clone(it.Labels), baton.IsPhaseLabel),
			Blocked: it.Status == baton.StatusBlocked}
		if slices.ContainsFunc(it.Labels, baton.IsPhaseLabel) {
			t.Phase = string(it.Phase())
		}
		col.Tiles = append(col.Tiles, t)
	}
	col.More = col.Total - len(col.Tiles)
	return col, nil
}

// boardAnnotate adds the claims, and for the items waiting to start what
// holds them back: one query for the claims and one for the readiness of
// the waiting tiles, whatever the number of tiles.
func boardAnnotate(ctx context.Context, tx baton.Tx, project string, cols []boardColumn) error {
	claims, err := tx.Claims(ctx, project)
	if err != nil {
		return err
	}
	byItem := make(map[string]*baton.Claim, len(claims))
	for _, c := range claims {
		byItem[c.ItemID] = c
	}
	waiting := false
	for ci := range cols {
		for ti := range cols[ci].Tiles {
			t := &cols[ci].Tiles[ti]
			t.Claim = byItem[t.Item.ID]
			if st := t.Item.Status; st == baton.StatusTodo || st == baton.StatusBlocked {
				waiting = true
			}
		}
	}
	if !waiting {
		return nil
	}
	// Only the tiles shown: a project's whole queue can be thousands of
	// items, and a busy board refreshes every second.
	var ids []string
	for _, c := range cols {
		for _, t := range c.Tiles {
			if t.Item.Status == baton.StatusTodo || t.Item.Status == baton.StatusBlocked {
				ids = append(ids, t.Item.ID)
			}
		}
	}
	rs, err := tx.ReadinessOf(ctx, ids)
	if err != nil {
		return err
	}
	ready := map[string]baton.Readiness{}
	for _, r := range rs {
		ready[r.Item.ID] = r
	}
	for ci := range cols {
		for ti := range cols[ci].Tiles {
			t := &cols[ci].Tiles[ti]
			r, ok := ready[t.Item.ID]
			if !ok {
				continue
			}
			t.WaitingOn, t.OpenSubtasks = r.WaitingOn, r.OpenSubtasks
			if r.DependenciesUnmet > 0 || len(r.OpenSubtasks) > 0 {
				t.Blocked = true
			}
		}
	}
	return nil
}
