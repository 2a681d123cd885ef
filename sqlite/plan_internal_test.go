package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
)

// planner is a Querier that, before each read, asks SQLite how it will run
// it (EXPLAIN QUERY PLAN, with the same arguments) and keeps the answer.
type planner struct {
	q     *sql.Tx
	t     *testing.T
	plans []string // one per read, its lines joined by newlines
}

func (p *planner) explain(ctx context.Context, query string, args []any) {
	rows, err := p.q.QueryContext(ctx, "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		p.t.Fatalf("explain %s: %v", query, err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			p.t.Fatal(err)
		}
		lines = append(lines, detail)
	}
	p.plans = append(p.plans, strings.Join(lines, "\n"))
}

func (p *planner) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return p.q.ExecContext(ctx, query, args...)
}

func (p *planner) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	p.explain(ctx, query, args)
	return p.q.QueryContext(ctx, query, args...)
}

func (p *planner) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	p.explain(ctx, query, args)
	return p.q.QueryRowContext(ctx, query, args...)
}

// TestPageReadsUseIndexes: list_issues', task_list's and read_messages'
// reads (and the listing's total) seek an index and walk it in the order
// asked, so they read a page's rows, not a table's: no table is scanned
// and no listing of items is sorted after the fact. The data is large
// enough that the planner would rather scan than seek a useless index.
func TestPageReadsUseIndexes(t *testing.T) {
	for _, analyzed := range []bool{false, true} {
		t.Run(map[bool]string{false: "fresh", true: "analyzed"}[analyzed], func(t *testing.T) {
			pageReadsUseIndexes(t, analyzed)
		})
	}
}

// pageReadsUseIndexes runs TestPageReadsUseIndexes on a database with
// statistics (ANALYZE) or without, as baton itself leaves every database:
// without them SQLite's planner takes each equality on an indexed column
// as equally selective, and must still choose the index that reads a page.
func pageReadsUseIndexes(t *testing.T, analyzed bool) {
	ctx := context.Background()
	s := openTemp(t)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := s.Update(ctx, func(tx baton.Tx) error {
		if err := tx.CreateProject(ctx, &baton.Project{Slug: "colibri", Prefix: "COL"}); err != nil {
			return err
		}
		for i := range 2000 {
			at := start.Add(time.Duration(i) * time.Minute)
			if err := tx.CreateItem(ctx, &baton.Item{Project: "colibri", Title: fmt.Sprintf("item %d", i),
				Status: []baton.Status{baton.StatusTodo, baton.StatusDone, baton.StatusBacklog}[i%3], Priority: baton.Priority(i % 5),
				CreatedBy: "test", CreatedAt: at, UpdatedAt: at}); err != nil {
				return err
			}
			if err := tx.SendMessage(ctx, &baton.Message{Project: "colibri", AgentID: fmt.Sprintf("agent-%d", i%40),
				Recipient: fmt.Sprintf("agent-%d", (i+1)%40), Role: baton.RoleAgent, Body: "hello", CreatedAt: at}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if analyzed {
		if _, err := s.w.ExecContext(ctx, `ANALYZE`); err != nil {
			t.Fatal(err)
		}
	}
	before := start.Add(time.Hour)
	reads := []struct {
		name string
		read func(tx *tx) error
		// indexes are the ones the plans must name; sorted says whether a
		// sort of the (bounded) rows read is allowed.
		indexes []string
		sorted  bool
	}{
		{"list_issues", func(tx *tx) error {
			_, err := tx.ListItems(ctx, baton.ItemFilter{Project: "colibri", Sort: baton.SortPriority, Descending: true, Limit: 10})
			return err
		}, []string{"items_priority", "item_counts"}, false},
		{"list_issues by status", func(tx *tx) error {
			_, err := tx.ListItems(ctx, baton.ItemFilter{Project: "colibri", Statuses: []baton.Status{baton.StatusTodo},
				Sort: baton.SortPriority, Descending: true, Limit: 10})
			return err
		}, []string{"items_status_priority", "item_counts"}, false},
		{"task_list", func(tx *tx) error {
			_, err := tx.ListItems(ctx, baton.ItemFilter{Sort: baton.SortUpdated, Descending: true, Limit: 10})
			return err
		}, []string{"items_updated_all", "item_counts"}, false},
		{"task_list of a project", func(tx *tx) error {
			_, err := tx.ListItems(ctx, baton.ItemFilter{Project: "colibri", Sort: baton.SortUpdated, Descending: true, Limit: 10})
			return err
		}, []string{"items_updated", "item_counts"}, false},
		{"read_messages of an agent", func(tx *tx) error {
			_, err := tx.ReadMessages(ctx, "", baton.MessageFilter{Project: "colibri", AgentID: "AGENT-7", Limit: 10})
			return err
		}, []string{"messages_agent", "messages_recipient_at"}, true},
		{"read_messages of an agent, paged", func(tx *tx) error {
			_, err := tx.ReadMessages(ctx, "", baton.MessageFilter{Project: "colibri", AgentID: "agent-7", Limit: 10,
				Before: &before, BeforeID: "x"})
			return err
		}, []string{"messages_agent", "messages_recipient_at"}, true},
		{"read_messages of a project", func(tx *tx) error {
			_, err := tx.ReadMessages(ctx, "", baton.MessageFilter{Project: "colibri", Limit: 10})
			return err
		}, []string{"messages_project_at"}, true},
		// Each branch of the one statement (the caller's own work, then
		// unassigned work) walks (assignee, status, priority, created_at)
		// and stops at its first ready item; the two rows are then sorted.
		{"claim_next's ready work", func(tx *tx) error {
			_, _, err := tx.ClaimNext(ctx, "agent-1", baton.ClaimNextFilter{Project: "colibri"}, time.Minute, time.Now())
			return err
		}, []string{"items_assignee"}, true},
		{"what get_issue's lists hold", func(tx *tx) error {
			_, err := tx.ItemHolds(ctx, "COL-7")
			return err
		}, []string{"items_parent", "findings_item", "comments_item", "prs_item", "file_reservations_item"}, true},
	}
	// A table read without an index: "SCAN items", not "SCAN items USING
	// INDEX ..." (a walk of an index in order, which LIMIT stops).
	// item_counts is scanned for a total over every project: a few rows a
	// project, however many items.
	scan := regexp.MustCompile(`(?m)^SCAN (items|messages|item_deps|findings|learnings|comments|prs|file_reservations)$`)
	for _, r := range reads {
		t.Run(r.name, func(t *testing.T) {
			db, err := s.w.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Rollback()
			p := &planner{q: db, t: t}
			if err := r.read(newTx(p, time.Now)); err != nil {
				t.Fatal(err)
			}
			all := strings.Join(p.plans, "\n---\n")
			if scan.MatchString(all) {
				t.Errorf("a table is scanned:\n%s", all)
			}
			for _, ix := range r.indexes {
				used := regexp.MustCompile(`USING (COVERING )?INDEX ` + ix + `\b|(SEARCH|SCAN) ` + ix + `\b`)
				if !used.MatchString(all) {
					t.Errorf("%s is not used:\n%s", ix, all)
				}
				// The listing of items walks its index in the order asked
				// (labels are then read for the page, and sorted).
				for _, plan := range p.plans {
					if !r.sorted && used.MatchString(plan) && strings.Contains(plan, "TEMP B-TREE") {
						t.Errorf("the page is sorted rather than read in order:\n%s", plan)
					}
				}
			}
		})
	}
}
