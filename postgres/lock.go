package postgres

import (
	"context"
	"hash/fnv"

	"github.com/jackc/pgx/v5"
)

// TryLock takes the advisory lock called name in this schema, across every
// replica on the database, without waiting: ok is false when another
// session holds it. The lock is a session lock on a connection of its own,
// outside the pool, held until unlock is called; if this process dies, the
// connection closes and PostgreSQL releases the lock, so no crash leaves
// it held. The orchestrator's tick takes one per project, so one replica
// ticks a project at a time.
func (s *Store) TryLock(ctx context.Context, name string) (unlock func(), ok bool, err error) {
	h := fnv.New64a()
	h.Write([]byte("baton-lock:" + s.schema + ":" + name))
	key := int64(h.Sum64() >> 1)
	conn, err := pgx.ConnectConfig(ctx, s.cfg.Copy())
	if err != nil {
		return nil, false, err
	}
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, key).Scan(&ok); err != nil || !ok {
		conn.Close(context.WithoutCancel(ctx))
		return nil, false, err
	}
	// Unlock at once, then close: the server releases a closed session's
	// locks only once its backend has noticed, so a tick right after this
	// one could still find the lock held. Should the unlock fail, closing
	// the connection ends the session and releases the lock all the same.
	return func() {
		bg := context.WithoutCancel(ctx)
		_, _ = conn.Exec(bg, `SELECT pg_advisory_unlock($1)`, key)
		conn.Close(bg)
	}, true, nil
}
