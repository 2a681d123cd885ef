package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// rebound is a querier that takes SQLite-style ? placeholders and hands
// PostgreSQL $1, $2...: the stores then share their query shapes, and
// queries built from pieces (filters, IN lists) number themselves.
type rebound struct{ q querier }

func (r rebound) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return r.q.ExecContext(ctx, rebind(query), args...)
}

func (r rebound) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return r.q.QueryContext(ctx, rebind(query), args...)
}

func (r rebound) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return r.q.QueryRowContext(ctx, rebind(query), args...)
}

var rebindCache sync.Map // query -> rebound query

// rebind numbers the ? placeholders outside quoted literals and
// identifiers. Queries repeat, so the results are cached.
func rebind(query string) string {
	if !strings.Contains(query, "?") {
		return query
	}
	if v, ok := rebindCache.Load(query); ok {
		return v.(string)
	}
	var b strings.Builder
	b.Grow(len(query) + 16)
	n := 0
	var quote rune
	for _, r := range query {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '?':
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	out := b.String()
	rebindCache.Store(query, out)
	return out
}

// placeholders is "?, ?, ..." for an IN list of n values.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// searchWords splits text into the words a full-text query matches.
func searchWords(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) && r != '_' })
}

// split undoes string_agg with sep, sorted.
func split(s, sep string) []string {
	if s == "" {
		return []string{}
	}
	parts := strings.Split(s, sep)
	slices.Sort(parts)
	return parts
}

func joinAnd(conds []string) string { return strings.Join(conds, " AND ") }

// jsonList stores a string list as a JSON array.
func jsonList(s []string) string {
	if s == nil {
		s = []string{}
	}
	b, _ := json.Marshal(s) // a []string always marshals
	return string(b)
}

func parseList(s string) ([]string, error) {
	out := []string{}
	if s == "" {
		return out, nil
	}
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return nil, err
	}
	if out == nil {
		out = []string{}
	}
	return out, nil
}

// nextRecordID is PREFIX-N for the next row of table, skipping ids taken.
func (t *tx) nextRecordID(ctx context.Context, table, prefix string) (string, error) {
	var n int64
	if err := t.q.QueryRowContext(ctx, `SELECT COALESCE(MAX(rid), 0) + 1 FROM `+table).Scan(&n); err != nil {
		return "", err
	}
	for ; ; n++ {
		id := fmt.Sprintf("%s-%d", prefix, n)
		var taken bool
		if err := t.q.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM `+table+` WHERE id = ?)`, id).Scan(&taken); err != nil {
			return "", err
		}
		if !taken {
			return id, nil
		}
	}
}

// strings runs a query returning one text column.
func (t *tx) strings(ctx context.Context, query string, args ...any) ([]string, error) {
	rows, err := t.q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
