package sqlcore

import (
	"cmp"
	"container/heap"
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/viterin/vek/vek32"

	"github.com/baton-dev/baton"
)

// VectorCache keeps every stored vector of the models searched, decoded,
// so an exact search is a scan over memory rather than a read and decode
// of every blob. It is filled and used only by read-only transactions, at
// the knowledge generation their snapshot shows (knowledge_state.gen,
// moved on by every knowledge write in its own transaction): a snapshot
// showing another generation reads the database instead, and a newer one
// reloads the cache. One cache serves one store; other processes' writes
// are seen through the generation like this process's own.
type VectorCache struct {
	mu     sync.Mutex
	models map[string]*modelVectors
}

// NewVectorCache returns an empty cache.
func NewVectorCache() *VectorCache { return &VectorCache{models: map[string]*modelVectors{}} }

// modelVectors are one model's vectors at one generation.
type modelVectors struct {
	gen  int64
	rows []cachedVector
}

type cachedVector struct {
	baton.ChunkVector
	current bool    // the chunk's version is its path's current one
	norm    float32 // of Vector
}

// bumpKnowledge moves the knowledge generation on, once per transaction.
func (t *Tx) bumpKnowledge(ctx context.Context) error {
	if t.bumped {
		return nil
	}
	_, err := t.Q.ExecContext(ctx, `INSERT INTO knowledge_state (id, gen) VALUES (1, 1)
		ON CONFLICT (id) DO UPDATE SET gen = knowledge_state.gen + 1`)
	t.bumped = err == nil
	return err
}

// knowledgeGen is the generation the transaction sees.
func (t *Tx) knowledgeGen(ctx context.Context) (int64, error) {
	var gen int64
	err := t.Q.QueryRowContext(ctx, `SELECT COALESCE(MAX(gen), 0) FROM knowledge_state`).Scan(&gen)
	return gen, err
}

// cachedVectors are model's vectors for a read-only transaction, from the
// cache (loaded now if the snapshot is newer than it); nil, false when the
// transaction must read the database itself.
func (t *Tx) cachedVectors(ctx context.Context, model string) ([]cachedVector, bool, error) {
	if t.Vectors == nil || !t.ReadOnly {
		return nil, false, nil
	}
	gen, err := t.knowledgeGen(ctx)
	if err != nil {
		return nil, false, err
	}
	c := t.Vectors
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.models[model]
	switch {
	case m != nil && m.gen == gen:
		return m.rows, true, nil
	case m != nil && m.gen > gen:
		return nil, false, nil // an older snapshot than the cache: read it as it was
	}
	rows, err := t.loadVectors(ctx, model)
	if err != nil {
		return nil, false, err
	}
	c.models[model] = &modelVectors{gen: gen, rows: rows}
	return rows, true, nil
}

// loadVectors reads every vector of model, history included, with whether
// its version is current.
func (t *Tx) loadVectors(ctx context.Context, model string) ([]cachedVector, error) {
	rows, err := t.Q.QueryContext(ctx, `SELECT v.chunk_rid, v.vec, d.scope, d.project, d.path, d.version_ms, c.ordinal,
		CASE WHEN `+currentCond+` THEN 1 ELSE 0 END
		FROM chunk_vectors v JOIN document_chunks c ON c.rid = v.chunk_rid JOIN documents d ON d.rid = c.doc_rid
		WHERE v.model = ? ORDER BY v.chunk_rid`, model)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []cachedVector{}
	for rows.Next() {
		var v cachedVector
		var blob []byte
		var ms int64
		var cur int
		if err := rows.Scan(&v.ChunkID, &blob, &v.Key.Scope, &v.Key.Project, &v.Key.Path, &ms, &v.Ordinal, &cur); err != nil {
			return nil, err
		}
		v.Model, v.Vector, v.Version, v.current = model, DecodeVector(blob), versionID(ms), cur == 1
		v.norm = vek32.Norm(v.Vector)
		out = append(out, v)
	}
	return out, rows.Err()
}

// SearchVectors implements baton.KnowledgeTx: exact cosine similarity
// over the filtered vectors, the best limit kept in a heap.
func (t *Tx) SearchVectors(ctx context.Context, f baton.VectorFilter, q []float32, limit int) ([]baton.VectorHit, error) {
	if _, _, err := spacesCond(f.Spaces); err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = 50
	}
	rows, ok, err := t.cachedVectors(ctx, f.Model)
	if err != nil {
		return nil, err
	}
	if !ok {
		vs, err := t.ChunkVectors(ctx, f)
		if err != nil {
			return nil, err
		}
		rows = make([]cachedVector, len(vs))
		for i, v := range vs {
			rows[i] = cachedVector{ChunkVector: v, current: true, norm: vek32.Norm(v.Vector)}
		}
	}
	qn := vek32.Norm(q)
	h := &hitHeap{}
	for i := range rows {
		r := &rows[i]
		if (!r.current && !f.IncludeHistory) || len(r.Vector) != len(q) || !inSpaces(r.Key.DocSpace, f.Spaces) ||
			!strings.HasPrefix(r.Key.Path, f.PathPrefix) {
			continue
		}
		var score float64
		if qn != 0 && r.norm != 0 {
			score = float64(vek32.Dot(q, r.Vector) / (qn * r.norm))
		}
		hit := baton.VectorHit{ChunkID: r.ChunkID, Key: r.Key, Version: r.Version, Ordinal: r.Ordinal, Score: score}
		if h.Len() < limit {
			heap.Push(h, hit)
		} else if worse(h.hits[0], hit) {
			h.hits[0] = hit
			heap.Fix(h, 0)
		}
	}
	out := h.hits
	slices.SortFunc(out, func(a, b baton.VectorHit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.ChunkID, b.ChunkID))
	})
	return out, nil
}

func inSpaces(s baton.DocSpace, spaces []baton.DocSpace) bool {
	return slices.Contains(spaces, s)
}

// worse says whether a ranks below b: a lower score, or the same score
// and a larger chunk id.
func worse(a, b baton.VectorHit) bool {
	return a.Score < b.Score || (a.Score == b.Score && a.ChunkID > b.ChunkID)
}

// hitHeap is a min-heap of hits, the worst on top.
type hitHeap struct{ hits []baton.VectorHit }

func (h *hitHeap) Len() int           { return len(h.hits) }
func (h *hitHeap) Less(i, j int) bool { return worse(h.hits[i], h.hits[j]) }
func (h *hitHeap) Swap(i, j int)      { h.hits[i], h.hits[j] = h.hits[j], h.hits[i] }
func (h *hitHeap) Push(x any)         { h.hits = append(h.hits, x.(baton.VectorHit)) }
func (h *hitHeap) Pop() any {
	x := h.hits[len(h.hits)-1]
	h.hits = h.hits[:len(h.hits)-1]
	return x
}
