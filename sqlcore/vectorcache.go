package sqlcore

import (
	"cmp"
	"container/heap"
	"context"
	"database/sql"
	"encoding/binary"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/viterin/vek/vek32"

	"github.com/baton-dev/baton"
)

// The vector half of KnowledgeCache: every vector of a model, history
// included, decoded into one slice, with the version each belongs to.
// A newer generation reloads a model's vectors whole: a vector can be
// replaced in place (PutVectors on a chunk that has one), which nothing
// cheaper than reading it again shows.

// modelVectors are one model's vectors at one generation.
type modelVectors struct {
	gen  int64
	docs []vecDoc // the versions the vectors belong to
	rows []cachedVector
}

// vecDoc is a version row holding vectors.
type vecDoc struct {
	key     baton.DocKey
	version string
	current bool // the version is its path's current one
}

type cachedVector struct {
	chunkID int64
	doc     uint32 // index in modelVectors.docs
	ordinal int32
	norm    float32 // of vec
	vec     []float32
}

// cachedVectors are model's vectors for a read-only transaction, from the
// cache (loaded now if the snapshot is newer than it); nil, false when the
// transaction must read the database itself.
func (t *Tx) cachedVectors(ctx context.Context, model string) (*modelVectors, bool, error) {
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
		return m, true, nil
	case m != nil && m.gen > gen:
		return nil, false, nil // an older snapshot than the cache: read it as it was
	}
	m, err = t.loadVectors(ctx, model)
	if err != nil {
		return nil, false, err
	}
	m.gen = gen
	c.models[model] = m
	return m, true, nil
}

// loadVectors reads every vector of model, history included, with its
// version and whether that version is current.
func (t *Tx) loadVectors(ctx context.Context, model string) (*modelVectors, error) {
	all := map[int64]vecDoc{}
	rows, err := t.Q.QueryContext(ctx, `SELECT d.rid, d.scope, d.project, d.path, d.version_ms,
		CASE WHEN `+currentCond+` THEN 1 ELSE 0 END FROM documents d WHERE d.deleted = 0`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var rid, ms int64
		var cur int
		var d vecDoc
		if err := rows.Scan(&rid, &d.key.Scope, &d.key.Project, &d.key.Path, &ms, &cur); err != nil {
			rows.Close()
			return nil, err
		}
		d.version, d.current = versionID(ms), cur == 1
		all[rid] = d
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = t.Q.QueryContext(ctx, `SELECT v.chunk_rid, c.doc_rid, c.ordinal, v.vec
		FROM chunk_vectors v JOIN document_chunks c ON c.rid = v.chunk_rid WHERE v.model = ? ORDER BY v.chunk_rid`, model)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	m := &modelVectors{}
	docIdx := map[int64]uint32{}
	var arena []float32
	var offs []int
	for rows.Next() {
		var v cachedVector
		var doc int64
		var blob sql.RawBytes
		if err := rows.Scan(&v.chunkID, &doc, &v.ordinal, &blob); err != nil {
			return nil, err
		}
		i, ok := docIdx[doc]
		if !ok {
			d, ok := all[doc]
			if !ok { // cannot be: a tombstone has no chunks
				continue
			}
			i = uint32(len(m.docs))
			docIdx[doc] = i
			m.docs = append(m.docs, d)
		}
		v.doc = i
		offs = append(offs, len(arena))
		arena = decodeVectorInto(arena, blob)
		m.rows = append(m.rows, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	arena = slices.Clip(arena)
	for i := range m.rows {
		end := len(arena)
		if i+1 < len(offs) {
			end = offs[i+1]
		}
		r := &m.rows[i]
		r.vec = arena[offs[i]:end:end]
		r.norm = vek32.Norm(r.vec)
	}
	m.rows = slices.Clip(m.rows)
	return m, nil
}

// decodeVectorInto appends the vector EncodeVector stored in b.
func decodeVectorInto(dst []float32, b []byte) []float32 {
	for i := 0; i+4 <= len(b); i += 4 {
		dst = append(dst, math.Float32frombits(binary.LittleEndian.Uint32(b[i:])))
	}
	return dst
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
	m, ok, err := t.cachedVectors(ctx, f.Model)
	if err != nil {
		return nil, err
	}
	if !ok {
		vs, err := t.ChunkVectors(ctx, f)
		if err != nil {
			return nil, err
		}
		m = &modelVectors{}
		for _, v := range vs {
			m.rows = append(m.rows, cachedVector{chunkID: v.ChunkID, doc: uint32(len(m.docs)), ordinal: int32(v.Ordinal),
				norm: vek32.Norm(v.Vector), vec: v.Vector})
			m.docs = append(m.docs, vecDoc{key: v.Key, version: v.Version, current: true})
		}
	}
	// Versions are judged once each: current (or history asked), in the
	// spaces, under the prefix.
	verdict := make([]bool, len(m.docs))
	for i, d := range m.docs {
		verdict[i] = (d.current || f.IncludeHistory) && strings.HasPrefix(d.key.Path, f.PathPrefix) && inSpaces(d.key.DocSpace, f.Spaces)
	}
	out := m.scan(q, verdict, limit)
	slices.SortFunc(out, func(a, b baton.VectorHit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.ChunkID, b.ChunkID))
	})
	return out, nil
}

// scanPart is how many vectors one goroutine of a scan takes at least.
const scanPart = 16384

// scan returns the best limit hits (unordered) among the vectors of the
// versions verdict accepts, split over the processors: the scan reads
// every vector, so it is bound by memory bandwidth more than by
// arithmetic.
func (m *modelVectors) scan(q []float32, verdict []bool, limit int) []baton.VectorHit {
	parts := min(runtime.GOMAXPROCS(0), (len(m.rows)+scanPart-1)/scanPart)
	if parts <= 1 {
		return m.scanRows(m.rows, q, verdict, limit).hits
	}
	heaps := make([]*hitHeap, parts)
	var wg sync.WaitGroup
	for i := range parts {
		lo, hi := len(m.rows)*i/parts, len(m.rows)*(i+1)/parts
		wg.Go(func() { heaps[i] = m.scanRows(m.rows[lo:hi], q, verdict, limit) })
	}
	wg.Wait()
	h := heaps[0]
	for _, o := range heaps[1:] {
		for _, hit := range o.hits {
			if h.Len() < limit {
				heap.Push(h, hit)
			} else if worse(h.hits[0], hit) {
				h.hits[0] = hit
				heap.Fix(h, 0)
			}
		}
	}
	return h.hits
}

// scanRows keeps the best limit hits of rows in a heap.
func (m *modelVectors) scanRows(rows []cachedVector, q []float32, verdict []bool, limit int) *hitHeap {
	qn := vek32.Norm(q)
	h := &hitHeap{}
	for i := range rows {
		r := &rows[i]
		if !verdict[r.doc] || len(r.vec) != len(q) {
			continue
		}
		var score float64
		if qn != 0 && r.norm != 0 {
			score = float64(vek32.Dot(q, r.vec) / (qn * r.norm))
		}
		if h.Len() >= limit && !worse(h.hits[0], baton.VectorHit{ChunkID: r.chunkID, Score: score}) {
			continue
		}
		d := &m.docs[r.doc]
		hit := baton.VectorHit{ChunkID: r.chunkID, Key: d.key, Version: d.version, Ordinal: int(r.ordinal), Score: score}
		if h.Len() < limit {
			heap.Push(h, hit)
		} else {
			h.hits[0] = hit
			heap.Fix(h, 0)
		}
	}
	return h
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
