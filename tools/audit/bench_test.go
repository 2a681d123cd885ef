package audit_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/baton-dev/baton/audit"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/sqlite"
	_ "modernc.org/sqlite"
)

// Run with:
//
//	go test -run '^$' -bench 'VerifyChain|Finalize|Checkpoint' -benchtime 1x ./tools/audit/

// benchSeedActions writes a valid chain of n actions straight into the
// file, as a long-lived deployment would have accumulated them.
func benchSeedActions(b *testing.B, path string, n int) {
	db, err := sql.Open("sqlite", path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	benchAppendActions(b, db, 1, n, audit.Genesis)
}

// benchAppendActions appends n valid actions from position from, the
// first linking to prev, and returns the last hash.
func benchAppendActions(b *testing.B, db *sql.DB, from, n int, prev string) string {
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	stmt, err := tx.Prepare(`INSERT INTO actions (position, agent, source, tool, subject, input_digest, result_digest, at,
		previous_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		b.Fatal(err)
	}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := from; i < from+n; i++ {
		f := audit.ActionFields{Position: int64(i), Agent: "agent-" + strconv.Itoa(i%64), Source: "http", Tool: "task_update",
			Subject: "COL-" + strconv.Itoa(i%1000+1), InputDigest: audit.Sum([]byte(strconv.Itoa(i))),
			ResultDigest: audit.Sum([]byte("r" + strconv.Itoa(i))), At: audit.Stamp(at.Add(time.Duration(i) * time.Millisecond)),
			PreviousHash: prev}
		h := f.Hash()
		if _, err := stmt.Exec(f.Position, f.Agent, f.Source, f.Tool, f.Subject, f.InputDigest, f.ResultDigest, f.At, prev, h); err != nil {
			b.Fatal(err)
		}
		prev = h
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	return prev
}

// BenchmarkVerifyChain walks and recomputes a 1,000,000-record action
// chain from the database, as `baton audit verify` does.
func BenchmarkVerifyChain(b *testing.B) {
	testkit.SQLiteOnly(b) // seeds the file directly, with the store closed
	n := benchN(1_000_000)
	k := testkit.New(b)
	k.Store.Close()
	benchSeedActions(b, k.DBPath, n)
	s, err := sqlite.Open(context.Background(), k.DBPath, sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ResetTimer()
	for b.Loop() {
		rep, err := audit.VerifyStore(context.Background(), s)
		if err != nil || !rep.OK() || rep.Actions != int64(n) {
			b.Fatalf("verify: %v %+v", err, rep)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkCheckpoint signs a checkpoint of a 1,000,000-record log as
// baton serve does after new records: the tree resumes from the latest
// checkpoint's right edge, so only the records since are read, checked and
// hashed, whatever the log's size. Sub-benchmarks add 100 and 1,000 (the
// default checkpoint_records) records before each checkpoint; adding them
// is not timed: the reported time is MakeCheckpoint's alone, read, hash,
// sign and the stored checkpoint's commit. The first checkpoint of the
// whole log (no checkpoint before it) is timed once and reported as
// cold-ms.
func BenchmarkCheckpoint(b *testing.B) {
	testkit.SQLiteOnly(b)
	n := benchN(1_000_000)
	k := testkit.New(b)
	k.Store.Close()
	benchSeedActions(b, k.DBPath, n)
	ctx := context.Background()
	s, err := sqlite.Open(ctx, k.DBPath, sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	key, err := audit.OpenKey(ctx, s, filepath.Join(b.TempDir(), "audit.key"), true, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	cp, made, err := audit.MakeCheckpoint(ctx, s, key, time.Now())
	if err != nil || !made || cp.Size != int64(n) {
		b.Fatalf("cold checkpoint: %+v %v %v", cp, made, err)
	}
	cold := time.Since(start)
	db, err := sql.Open("sqlite", k.DBPath)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	// The seed wrote a million rows in one transaction: fold the WAL into
	// the file, as a long-lived deployment's would be.
	if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		b.Fatal(err)
	}
	head := cp.Size
	var prev string
	if err := db.QueryRow(`SELECT hash FROM actions WHERE position = ?`, head).Scan(&prev); err != nil {
		b.Fatal(err)
	}
	for _, step := range []int{100, 1000} {
		b.Run(fmt.Sprintf("new=%d", step), func(b *testing.B) {
			var took time.Duration
			for i := 0; i < b.N; i++ {
				prev = benchAppendActions(b, db, int(head)+1, step, prev)
				head += int64(step)
				t0 := time.Now()
				cp, made, err := audit.MakeCheckpoint(ctx, s, key, time.Now())
				took += time.Since(t0)
				if err != nil || !made || cp.Size != head {
					b.Fatalf("checkpoint: %+v %v %v", cp, made, err)
				}
			}
			b.ReportMetric(float64(took.Microseconds())/1000/float64(b.N), "ms/checkpoint")
			b.ReportMetric(float64(cold.Milliseconds()), "cold-ms")
			b.ReportMetric(float64(head), "records")
		})
	}
}

// BenchmarkFinalize finalizes an audit session of 100,000 records through
// the registry (merkle_finalize: read the leaves, build the tree, freeze).
func BenchmarkFinalize(b *testing.B) {
	const n = 100_000
	for b.Loop() {
		b.StopTimer()
		k := testkit.New(b)
		k.OK("task_create", `{"title":"audited","project":"colibri"}`)
		k.OK("audit_session_start", `{"task_id":"COL-1","auditor_id":"bench"}`)
		tx, err := k.DB().Begin()
		if err != nil {
			b.Fatal(err)
		}
		stmt, err := tx.Prepare(k.Rebind(`INSERT INTO session_records (session_id, seq, kind, record_id, task_id, hash, at) VALUES ('A-0001', ?, 'thought', ?, 'COL-1', ?, 0)`))
		if err != nil {
			b.Fatal(err)
		}
		for i := 100; i < n+100; i++ {
			if _, err := stmt.Exec(i, fmt.Sprintf("Θ-%d", i), audit.Sum([]byte(strconv.Itoa(i)))); err != nil {
				b.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		out := k.OK("merkle_finalize", `{"session_id":"A-0001"}`)
		if out["leaf_count"].(float64) < n {
			b.Fatalf("finalized %v leaves", out["leaf_count"])
		}
	}
}

// benchN lets a profile run use a smaller chain (BATON_BENCH_N).
func benchN(def int) int {
	if v, err := strconv.Atoi(os.Getenv("BATON_BENCH_N")); err == nil && v > 0 {
		return v
	}
	return def
}
