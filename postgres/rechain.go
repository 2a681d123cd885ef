package postgres

import (
	"context"
	"database/sql"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/sqlcore"
)

// rechain re-hashes, in one transaction, the thought chains migration 15
// queued for Colibri's hash formula (see sqlcore.RechainThoughts) and the
// action log migration 28 queued (sqlcore.RechainActions). up runs
// it while it holds the migration lock, every time: the queue is empty
// after the first run, so later runs cost one query.
func rechain(ctx context.Context, db *sql.DB) error {
	t, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer t.Rollback()
	if _, err := sqlcore.RechainThoughts(ctx, rebound{t}); err != nil {
		return baton.Errorf(baton.ErrInitFailed, "re-hashing thought records by Colibri's formula: %v", err).
			WithHint("the database is unchanged; report this with the message")
	}
	if _, err := sqlcore.RechainActions(ctx, rebound{t}, time.Now()); err != nil {
		return baton.Errorf(baton.ErrInitFailed, "re-hashing the action log as RFC 6962 leaves of RFC 8785 JSON: %v", err).
			WithHint("the database is unchanged; report this with the message")
	}
	return t.Commit()
}
