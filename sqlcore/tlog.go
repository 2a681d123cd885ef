package sqlcore

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/baton-dev/baton"
)

// LogIdentity reads the action log's name and public key (nil before its
// key is made).
func (t *Tx) LogIdentity(ctx context.Context) (*baton.LogIdentity, error) {
	var id baton.LogIdentity
	var at string
	err := t.Q.QueryRowContext(ctx, `SELECT origin, public_key, created_at FROM audit_log WHERE id = 1`).
		Scan(&id.Origin, &id.PublicKey, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	id.CreatedAt, _ = time.Parse(time.RFC3339, at)
	return &id, nil
}

// SetLogIdentity names the log unless it is named already.
func (t *Tx) SetLogIdentity(ctx context.Context, id *baton.LogIdentity) error {
	_, err := t.Q.ExecContext(ctx, `INSERT INTO audit_log (id, origin, public_key, created_at) VALUES (1, ?, ?, ?)
		ON CONFLICT (id) DO NOTHING`, id.Origin, id.PublicKey, stampAudit(id.CreatedAt))
	return err
}

// AddCheckpoint stores c unless a checkpoint of its size is stored.
func (t *Tx) AddCheckpoint(ctx context.Context, c *baton.Checkpoint) error {
	_, err := t.Q.ExecContext(ctx, `INSERT INTO audit_checkpoints (size, root, note, edge, head, at) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (size) DO NOTHING`, c.Size, c.Root, c.Note, strings.Join(c.Edge, ","), c.Head, stampAudit(c.At))
	return err
}

// Checkpoints lists stored checkpoints, the largest first.
func (t *Tx) Checkpoints(ctx context.Context, limit int) ([]*baton.Checkpoint, error) {
	q, args := `SELECT size, root, note, edge, head, at FROM audit_checkpoints ORDER BY size DESC`, []any{}
	if limit > 0 {
		q, args = q+` LIMIT `+t.D.LimitArg(), append(args, limit)
	}
	rows, err := t.Q.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*baton.Checkpoint{}
	for rows.Next() {
		var c baton.Checkpoint
		var edge, at string
		if err := rows.Scan(&c.Size, &c.Root, &c.Note, &edge, &c.Head, &at); err != nil {
			return nil, err
		}
		if edge != "" {
			c.Edge = strings.Split(edge, ",")
		}
		c.At, _ = time.Parse(time.RFC3339, at)
		out = append(out, &c)
	}
	return out, rows.Err()
}

// ActionRechains lists the re-hashings of the action log done at upgrade.
func (t *Tx) ActionRechains(ctx context.Context) ([]baton.ActionRechain, error) {
	rows, err := t.Q.QueryContext(ctx, `SELECT at, records, old_head, first_break, position FROM action_rechain
		WHERE pending = 0 ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []baton.ActionRechain{}
	for rows.Next() {
		var r baton.ActionRechain
		var at string
		if err := rows.Scan(&at, &r.Records, &r.OldHead, &r.FirstBreak, &r.Position); err != nil {
			return nil, err
		}
		r.At, _ = time.Parse(time.RFC3339, at)
		out = append(out, r)
	}
	return out, rows.Err()
}
