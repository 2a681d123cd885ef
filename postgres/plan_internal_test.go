package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
)

// planner is a Querier that, before each read, asks PostgreSQL how it
// will run it (EXPLAIN, with the same arguments) and keeps the answer.
type planner struct {
	q     *sql.Tx
	t     *testing.T
	plans []string
}

func (p *planner) explain(ctx context.Context, query string, args []any) {
	rows, err := p.q.QueryContext(ctx, "EXPLAIN "+query, args...)
	if err != nil {
		p.t.Fatalf("explain %s: %v", query, err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			p.t.Fatal(err)
		}
		lines = append(lines, line)
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
// asked, so they read a page's rows, not a table's: no sequential scan of
// items or messages, and no listing of items sorted after the fact.
func TestPageReadsUseIndexes(t *testing.T) {
	t.Parallel()
	dsn := os.Getenv("BATON_TEST_POSTGRES_URL")
	if dsn == "" {
		t.Skip("BATON_TEST_POSTGRES_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable); .ci/run sets it")
	}
	ctx := context.Background()
	schema := fmt.Sprintf("plan_%d", os.Getpid())
	s, err := Open(ctx, dsn, Options{Schema: schema, MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		s.Close()
		if err := DropSchema(ctx, dsn, schema); err != nil {
			t.Error(err)
		}
	}()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := s.Update(ctx, func(tx baton.Tx) error {
		if err := tx.CreateProject(ctx, &baton.Project{Slug: "colibri", Prefix: "COL"}); err != nil {
			return err
		}
		for i := range 3000 {
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
	if _, err := s.db.ExecContext(ctx, `ANALYZE`); err != nil {
		t.Fatal(err)
	}
	before := start.Add(time.Hour)
	reads := []struct {
		name string
		read func(tx *tx) error
		// indexes are the ones the plans must name (patterns: with one
		// project, the planner may walk every project's index and find
		// only it); sorted says whether a sort of the (bounded) rows read
		// is allowed. The total's item_counts is a few rows a project,
		// which PostgreSQL rightly reads whole.
		indexes []string
		sorted  bool
	}{
		{"list_issues", func(tx *tx) error {
			_, err := tx.ListItems(ctx, baton.ItemFilter{Project: "colibri", Sort: baton.SortPriority, Descending: true, Limit: 10})
			return err
		}, []string{"items_priority"}, false},
		{"list_issues by status", func(tx *tx) error {
			_, err := tx.ListItems(ctx, baton.ItemFilter{Project: "colibri", Statuses: []baton.Status{baton.StatusTodo},
				Sort: baton.SortPriority, Descending: true, Limit: 10})
			return err
		}, []string{"items_status_priority"}, false},
		{"task_list", func(tx *tx) error {
			_, err := tx.ListItems(ctx, baton.ItemFilter{Sort: baton.SortUpdated, Descending: true, Limit: 10})
			return err
		}, []string{"items_updated_all"}, false},
		{"task_list of a project", func(tx *tx) error {
			_, err := tx.ListItems(ctx, baton.ItemFilter{Project: "colibri", Sort: baton.SortUpdated, Descending: true, Limit: 10})
			return err
		}, []string{"items_updated(_all)?"}, false},
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
	}
	seq := regexp.MustCompile(`Seq Scan on (items|messages)\b`)
	for _, r := range reads {
		t.Run(r.name, func(t *testing.T) {
			db, err := s.db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Rollback()
			p := &planner{q: db, t: t}
			if err := r.read(s.newTx(p, false)); err != nil {
				t.Fatal(err)
			}
			all := strings.Join(p.plans, "\n---\n")
			if seq.MatchString(all) {
				t.Errorf("a table is scanned:\n%s", all)
			}
			for _, ix := range r.indexes {
				used := regexp.MustCompile(`(Index|Index Only) Scan (Backward )?using ` + ix + `\b|Bitmap Index Scan on ` + ix + `\b`)
				if !used.MatchString(all) {
					t.Errorf("%s is not used:\n%s", ix, all)
				}
				for _, plan := range p.plans {
					if !r.sorted && used.MatchString(plan) && strings.Contains(plan, "Sort") {
						t.Errorf("the page is sorted rather than read in order:\n%s", plan)
					}
				}
			}
		})
	}
}
