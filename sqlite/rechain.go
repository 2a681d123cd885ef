package sqlite

import (
	"context"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/sqlcore"
)

// rechain re-hashes, in one transaction, the thought chains migration 15
// queued for Colibri's hash formula (see sqlcore.RechainThoughts) and the
// action log migration 28 queued (sqlcore.RechainActions). It runs
// under the migration lock, after goose and before user_version records
// the new version, so a crash in between re-runs it at the next open.
func (s *Store) rechain(ctx context.Context) error {
	t, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer t.Rollback()
	if _, err := sqlcore.RechainThoughts(ctx, t); err != nil {
		return baton.Errorf(baton.ErrInitFailed, "re-hashing thought records by Colibri's formula: %v", err).
			WithHint("the database is unchanged; report this with the message")
	}
	if _, err := sqlcore.RechainActions(ctx, t, time.Now()); err != nil {
		return baton.Errorf(baton.ErrInitFailed, "re-hashing the action log as RFC 6962 leaves of RFC 8785 JSON: %v", err).
			WithHint("the database is unchanged; report this with the message")
	}
	return t.Commit()
}
