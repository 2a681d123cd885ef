package sqlcore

import (
	"math/rand/v2"
	"testing"

	"github.com/viterin/vek/vek32"

	"github.com/baton-dev/baton"
)

// benchVectors are n random vectors of dims in one version.
func benchVectors(n, dims int) *modelVectors {
	r := rand.New(rand.NewPCG(1, 2))
	m := &modelVectors{docs: []vecDoc{{key: baton.DocKey{DocSpace: baton.DocSpace{Scope: baton.ScopeGlobal}, Path: "a.md"}, current: true}}}
	arena := make([]float32, n*dims)
	for i := range arena {
		arena[i] = r.Float32() - 0.5
	}
	for i := range n {
		v := arena[i*dims : (i+1)*dims : (i+1)*dims]
		m.rows = append(m.rows, cachedVector{chunkID: int64(i + 1), vec: v, norm: vek32.Norm(v)})
	}
	return m
}

func BenchmarkVectorScan100k(b *testing.B) {
	m := benchVectors(100000, 100)
	q := m.rows[7].vec
	verdict := []bool{true}
	b.Run("parallel", func(b *testing.B) {
		for b.Loop() {
			m.scan(q, verdict, 50)
		}
	})
	b.Run("one", func(b *testing.B) {
		for b.Loop() {
			m.scanRows(m.rows, q, verdict, 50)
		}
	})
}
