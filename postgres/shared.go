package postgres

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/baton-dev/baton/sqlcore"
)

// rebound is a querier that takes SQLite-style ? placeholders and hands
// PostgreSQL $1, $2...: the stores then share their query shapes, and
// queries built from pieces (filters, IN lists) number themselves.
type rebound struct{ q sqlcore.Querier }

func (r rebound) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return r.q.ExecContext(ctx, Rebind(query), args...)
}

func (r rebound) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return r.q.QueryContext(ctx, Rebind(query), args...)
}

func (r rebound) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return r.q.QueryRowContext(ctx, Rebind(query), args...)
}

var (
	rebindCache  sync.Map     // query -> rebound query
	rebindCached atomic.Int64 // entries in rebindCache
)

// maxRebindCache bounds the cache: SQL text is fixed per call site except
// search, whose text follows the shape of a client's query, so a client
// sending ever new shapes must not grow the server without limit. Past it,
// queries are rebound each time (microseconds).
const maxRebindCache = 4096

// Rebind numbers the ? placeholders outside quoted literals and
// identifiers. Queries repeat, so the results are cached.
func Rebind(query string) string {
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
	if rebindCached.Load() < maxRebindCache {
		if _, loaded := rebindCache.LoadOrStore(query, out); !loaded {
			rebindCached.Add(1)
		}
	}
	return out
}
