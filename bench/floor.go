package bench

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/baton-dev/baton/postgres"
	"github.com/baton-dev/baton/sqlite"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// The floors are what the layers under baton do on this machine, in the
// same run and with the same concurrency: how many no-op calls per second
// the go-sdk serves over loopback Streamable HTTP, and how many small
// write transactions per second the database commits with the store's
// driver and settings. Baton's figures as fractions of them say how much
// of the machine baton itself spends, whatever the machine.

// Floors are the floors measured beside a run.
type Floors struct {
	NoOp *NoOpFloor
	// Replay is the go-sdk answering each tool with a result baton gave
	// in the run (replay.go); it is a NoOpFloor in all but its answers.
	Replay *NoOpFloor
	// SQLite and Postgres are the write floor of the run's store (the
	// other is nil).
	SQLite   *WriteFloor
	Postgres *WriteFloor
}

// NoOpFloor is the go-sdk's own cost: the run's sessions calling a tool
// that does nothing, closed-loop, for the run's duration.
type NoOpFloor struct {
	Sessions   int
	Elapsed    time.Duration
	Calls      int
	Errors     int
	FirstError string
	// CPU is the CPU time the floor used (split like the run's).
	CPU *CPU
}

// Throughput is no-op calls per second.
func (f *NoOpFloor) Throughput() float64 { return rate(f.Calls, f.Elapsed) }

// WriteFloor is the database's own cost: baton-shaped write transactions
// from as many goroutines as the run had agents, one writer at a time as
// baton's writers are, for the run's duration.
type WriteFloor struct {
	Goroutines int
	Elapsed    time.Duration
	Tx         int // committed
	Errors     int
	FirstError string
}

// Throughput is committed transactions per second.
func (f *WriteFloor) Throughput() float64 { return rate(f.Tx, f.Elapsed) }

func rate(n int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// floorSchema is the scratch schema of the SQLite floor: the rows one
// baton write touches, with the indexes that make their lookups cheap.
const floorSchema = `
CREATE TABLE items (id INTEGER PRIMARY KEY, project TEXT NOT NULL, status TEXT NOT NULL, assignee TEXT, updated_at TEXT NOT NULL);
CREATE TABLE actions (id INTEGER PRIMARY KEY, item_id INTEGER NOT NULL REFERENCES items(id), agent TEXT NOT NULL,
	kind TEXT NOT NULL, detail TEXT NOT NULL, at TEXT NOT NULL);
CREATE INDEX actions_item ON actions(item_id, at);
CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, project TEXT NOT NULL, type TEXT NOT NULL, subject TEXT NOT NULL,
	agent TEXT NOT NULL, data TEXT NOT NULL, at TEXT NOT NULL);
CREATE TABLE presence (agent TEXT PRIMARY KEY, status TEXT NOT NULL, last_seen TEXT NOT NULL);
`

// floorSchemaPostgres is floorSchema in PostgreSQL's words.
const floorSchemaPostgres = `
CREATE TABLE items (id BIGINT PRIMARY KEY, project TEXT NOT NULL, status TEXT NOT NULL, assignee TEXT, updated_at TEXT NOT NULL);
CREATE TABLE actions (id BIGSERIAL PRIMARY KEY, item_id BIGINT NOT NULL REFERENCES items(id), agent TEXT NOT NULL,
	kind TEXT NOT NULL, detail TEXT NOT NULL, at TEXT NOT NULL);
CREATE INDEX actions_item ON actions(item_id, at);
CREATE TABLE events (seq BIGSERIAL PRIMARY KEY, project TEXT NOT NULL, type TEXT NOT NULL, subject TEXT NOT NULL,
	agent TEXT NOT NULL, data TEXT NOT NULL, at TEXT NOT NULL);
CREATE TABLE presence (agent TEXT PRIMARY KEY, status TEXT NOT NULL, last_seen TEXT NOT NULL);
`

// measureSQLiteFloor commits baton-shaped write transactions (BEGIN
// IMMEDIATE; update an item; insert an action; insert an event; update
// the agent's presence; COMMIT) from goroutines goroutines for d, on one
// connection opened exactly as the store opens its writer, in a scratch
// file of its own.
func measureSQLiteFloor(ctx context.Context, goroutines int, d time.Duration) (*WriteFloor, error) {
	dir, err := os.MkdirTemp("", "baton-floor-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	db, err := sql.Open("sqlite", sqlite.DSN(filepath.Join(dir, "floor.db"), sqlite.Options{}, true))
	if err != nil {
		return nil, err
	}
	defer db.Close()
	// One connection, as the store has one writer: the goroutines queue
	// for it as the agents' writes do.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	if _, err := db.ExecContext(ctx, floorSchema); err != nil {
		return nil, fmt.Errorf("the SQLite floor's schema: %w", err)
	}
	return measureWriteFloor(ctx, db, floorDB{}, goroutines, d)
}

// measurePostgresFloor commits the same transactions on a scratch schema
// of the database at dsn, through the store's driver (pgx), with as many
// connections as the bench's baton servers have in all (32), each
// transaction taking a transaction-level advisory lock first as the
// store's writers do: what PostgreSQL and the round trips to it allow
// baton-shaped writes, one at a time, on this machine.
func measurePostgresFloor(ctx context.Context, dsn string, goroutines int, d time.Duration) (_ *WriteFloor, err error) {
	schema := scratchSchema("bench_floor_")
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	_, err = conn.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize())
	conn.Close(ctx)
	if err != nil {
		return nil, err
	}
	defer func() {
		if derr := postgres.DropSchema(context.WithoutCancel(ctx), dsn, schema); err == nil && derr != nil {
			err = derr
		}
	}()
	cfg.RuntimeParams["search_path"] = schema
	db := stdlib.OpenDB(*cfg)
	defer db.Close()
	db.SetMaxOpenConns(32)
	db.SetMaxIdleConns(32)
	if _, err := db.ExecContext(ctx, floorSchemaPostgres); err != nil {
		return nil, fmt.Errorf("the PostgreSQL floor's schema: %w", err)
	}
	return measureWriteFloor(ctx, db, floorDB{postgres: true}, goroutines, d)
}

// scratchSchema is a fresh PostgreSQL schema name starting with prefix,
// for a run's tables (dropped after it).
func scratchSchema(prefix string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// floorDB is what differs between the write floors' databases.
type floorDB struct{ postgres bool }

// q is query in the database's placeholders.
func (f floorDB) q(query string) string {
	if f.postgres {
		return postgres.Rebind(query)
	}
	return query
}

// measureWriteFloor seeds an item and a presence row per goroutine, then
// has each commit floorTx in a loop until d is up.
func measureWriteFloor(ctx context.Context, db *sql.DB, fd floorDB, goroutines int, d time.Duration) (*WriteFloor, error) {
	now := time.Now().UTC().Format(time.RFC3339Nano)
	for g := range goroutines {
		if _, err := db.ExecContext(ctx, fd.q(`INSERT INTO items (id, project, status, updated_at) VALUES (?, ?, 'todo', ?)`), g+1, Project, now); err != nil {
			return nil, err
		}
		if _, err := db.ExecContext(ctx, fd.q(`INSERT INTO presence (agent, status, last_seen) VALUES (?, 'idle', ?)`), agentName(g), now); err != nil {
			return nil, err
		}
	}
	f := &WriteFloor{Goroutines: goroutines}
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; time.Now().Before(deadline) && ctx.Err() == nil; n++ {
				err := floorTx(ctx, db, fd, g, n)
				mu.Lock()
				if err != nil {
					f.Errors++
					if f.FirstError == "" {
						f.FirstError = err.Error()
					}
				} else {
					f.Tx++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	f.Elapsed = time.Since(start)
	return f, nil
}

// floorWriterLock keys the PostgreSQL floor's advisory lock.
const floorWriterLock = 0x6261746f6e // "baton"

// floorTx is one baton-shaped write transaction of goroutine g.
func floorTx(ctx context.Context, db *sql.DB, fd floorDB, g, n int) error {
	var opts *sql.TxOptions
	if fd.postgres {
		opts = &sql.TxOptions{Isolation: sql.LevelReadCommitted}
	}
	tx, err := db.BeginTx(ctx, opts) // SQLite: BEGIN IMMEDIATE, the DSN's _txlock
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if fd.postgres {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, floorWriterLock); err != nil {
			return err
		}
	}
	now := time.Now().UTC().Format(time.RFC3339Nano)
	agent := agentName(g)
	status := []string{"in_progress", "review", "todo"}[n%3]
	if _, err := tx.ExecContext(ctx, fd.q(`UPDATE items SET status = ?, assignee = ?, updated_at = ? WHERE id = ?`), status, agent, now, g+1); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, fd.q(`INSERT INTO actions (item_id, agent, kind, detail, at) VALUES (?, ?, 'status', ?, ?)`),
		g+1, agent, `{"to":"`+status+`","reason":"benchmark floor"}`, now); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, fd.q(`INSERT INTO events (project, type, subject, agent, data, at) VALUES (?, 'item.status', ?, ?, ?, ?)`),
		Project, fmt.Sprintf("B-%d", g+1), agent, `{"status":"`+status+`"}`, now); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, fd.q(`UPDATE presence SET status = 'working', last_seen = ? WHERE agent = ?`), now, agent); err != nil {
		return err
	}
	return tx.Commit()
}
