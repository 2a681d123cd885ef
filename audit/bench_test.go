package audit_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/baton-dev/baton/audit"
	"github.com/baton-dev/baton/tlog"
)

// Run with:
//
//	go test -run '^$' -bench 'VerifyBundle' -benchtime 3x ./audit/
//
// (BATON_BENCH_N sets the number of records; 1,000,000 by default.)

// benchBundle is a bundle of n valid actions under a signed checkpoint.
func benchBundle(b *testing.B, n int) (*audit.Bundle, string) {
	key, err := tlog.CreateKey(filepath.Join(b.TempDir(), "audit.key"), tlog.NewOrigin())
	if err != nil {
		b.Fatal(err)
	}
	bu := &audit.Bundle{Format: audit.BundleFormat, PublicKey: key.VerifierKey, Origin: key.Origin()}
	prev := audit.Genesis
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tree := tlog.NewTree()
	var leaf [32]byte
	for i := 1; i <= n; i++ {
		f := audit.ActionFields{Position: int64(i), Agent: "agent-" + strconv.Itoa(i%64), Source: "http", Tool: "task_update",
			Subject: "COL-" + strconv.Itoa(i%1000+1), InputDigest: audit.Sum([]byte(strconv.Itoa(i))),
			ResultDigest: audit.Sum([]byte("r" + strconv.Itoa(i))), At: audit.Stamp(at.Add(time.Duration(i) * time.Millisecond)),
			PreviousHash: prev}
		f.LeafHash(&leaf)
		if err := tree.Append(append([]byte(nil), leaf[:]...)); err != nil {
			b.Fatal(err)
		}
		h := f.Hash()
		bu.Actions = append(bu.Actions, audit.BundleAction{ActionFields: f, Hash: h})
		prev = h
	}
	cp, err := tlog.Sign(key.Signer, tree.Size(), tree.Root())
	if err != nil {
		b.Fatal(err)
	}
	bu.Checkpoint = string(cp.Note)
	return bu, key.VerifierKey
}

// BenchmarkVerifyBundle verifies a bundle of a million actions held in
// memory: each record's JCS bytes and leaf hash recomputed, the chain
// walked, the RFC 6962 tree built and the signed checkpoint checked
// against its root. Reading the bundle's JSON is not timed.
func BenchmarkVerifyBundle(b *testing.B) {
	n := 1_000_000
	if v, err := strconv.Atoi(os.Getenv("BATON_BENCH_N")); err == nil && v > 0 {
		n = v
	}
	bu, key := benchBundle(b, n)
	b.ResetTimer()
	for b.Loop() {
		rep, err := bu.Verify(key)
		if err != nil || !rep.OK() || rep.Actions != int64(n) {
			b.Fatalf("verify: %v %+v", err, rep.Checkpoints)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
