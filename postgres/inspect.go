package postgres

import (
	"context"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// Facts are what `baton doctor` reads from a PostgreSQL database without
// opening it as a store (which would create the schema and migrate it).
type Facts struct {
	Address       string // the URL without its password
	SchemaVersion int64  // goose's version; 0 for a database baton never used
	Latest        int64  // the newest migration this baton carries
}

// Inspect connects read-only in effect: it pings and reads the applied
// migration version, creating and changing nothing.
func Inspect(ctx context.Context, dsn string) (Facts, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return Facts{}, baton.Errorf(baton.ErrConfigInvalid, "the database URL is not valid: %v", redactErr(err)).
			WithHint("use postgres://user@host:5432/dbname?sslmode=disable")
	}
	f := Facts{Address: (&Store{cfg: cfg}).redacted()}
	if sp := cfg.RuntimeParams["search_path"]; sp != "" && !strings.ContainsAny(sp, ", \"") {
		cfg.RuntimeParams["search_path"] = pgx.Identifier{sp}.Sanitize()
	}
	db := stdlib.OpenDB(*cfg)
	defer db.Close()
	if err := db.PingContext(ctx); err != nil {
		return f, baton.Errorf(baton.ErrInitFailed, "cannot reach PostgreSQL at %s: %v", f.Address, redactErr(err)).
			WithHint("check that the server runs and the URL (user, host, port, database) is right")
	}
	p, err := provider(db)
	if err != nil {
		return f, err
	}
	if srcs := p.ListSources(); len(srcs) > 0 {
		f.Latest = srcs[len(srcs)-1].Version
	}
	var exists bool
	if err := db.QueryRowContext(ctx, `SELECT to_regclass('goose_db_version') IS NOT NULL`).Scan(&exists); err != nil {
		return f, baton.Errorf(baton.ErrInitFailed, "reading the schema version: %v", redactErr(err))
	}
	if exists {
		if f.SchemaVersion, err = p.GetDBVersion(ctx); err != nil {
			return f, baton.Errorf(baton.ErrInitFailed, "reading the schema version: %v", redactErr(err))
		}
	}
	return f, nil
}
