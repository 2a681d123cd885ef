package sqlcore

import (
	"cmp"
	"container/heap"
	"context"
	"database/sql"
	"encoding/binary"
	"hash/maphash"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/baton-dev/baton"
)

// BM25 parameters: FTS5's defaults.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// keywordIndex is an in-memory BM25 index of the chunks of current
// versions, in every space: term -> postings (chunk slot, term frequency)
// and each chunk's length in terms. A search adds up each query term's
// contribution into a dense score per chunk, then keeps the best in a heap,
// filtering candidates by space and path prefix.
//
// It follows the database like the vector cache: filled and used by
// read-only transactions at the knowledge generation their snapshot shows.
// A newer generation refreshes it version by version: versions no longer
// current lose their chunks, versions whose chunks changed (or are new) are
// read and indexed again; the others keep theirs. How a version's chunks
// are compared depends on whether chunk ids can be reused (CacheOptions).
//
// Corpus statistics (the chunk count, the average length, each term's
// document frequency) are over the indexed chunks: those of current
// versions, every space.
type keywordIndex struct {
	mu     sync.RWMutex
	loaded bool  // filled at gen; false before the first load or after a failed refresh
	gen    int64 // the generation indexed
	stable bool  // chunk ids are never reused (CacheOptions.StableChunkIDs)
	seed   maphash.Seed

	docs     []kwDoc          // by doc slot; a free slot has rid 0
	docSlot  map[int64]uint32 // version row id -> doc slot
	freeDocs []uint32

	// By chunk slot. The chunks of one version take consecutive slots; a
	// dropped chunk stays until the next compaction, marked dead.
	chunkRID []int64
	chunkDoc []uint32 // doc slot
	chunkLen []uint32 // terms indexed
	live     []bool
	nLive    int
	totalLen int64
	// lenNorm is each chunk's BM25 length normalisation at the current
	// average length, k1 * (1 - b + b * len / avgdl), and tf1 the weight of
	// a term occurring once, (k1 + 1) / (1 + lenNorm); set by finish.
	lenNorm, tf1 []float64

	terms map[string]*postings
}

// kwDoc is one current version with chunks.
type kwDoc struct {
	rid          int64
	key          baton.DocKey
	version      string
	first, count uint32 // its chunks' slots: first, first+1, ...
	maxRID       int64  // its largest chunk id
	sig          uint64 // hash of its chunks' ids and text (reused-ids mode)
}

// postings are the chunks holding one term, by slot, with the term's
// frequency in each.
type postings struct {
	slots []uint32
	tfs   []uint32
}

func newKeywordIndex(stable bool) *keywordIndex {
	return &keywordIndex{stable: stable, seed: maphash.MakeSeed()}
}

// reset empties the index.
func (ix *keywordIndex) reset() {
	ix.loaded = false
	ix.docs, ix.docSlot, ix.freeDocs = nil, map[int64]uint32{}, nil
	ix.chunkRID, ix.chunkDoc, ix.chunkLen, ix.live, ix.lenNorm, ix.tf1 = nil, nil, nil, nil, nil, nil
	ix.nLive, ix.totalLen = 0, 0
	ix.terms = map[string]*postings{}
}

// kwDocInfo is what the index keeps of a current version row.
type kwDocInfo struct {
	key     baton.DocKey
	version string
}

// kwChunkRow is one chunk read for indexing.
type kwChunkRow struct {
	rid  int64
	text string
}

// currentDocs reads the current version rows.
func (t *Tx) currentDocs(ctx context.Context) (map[int64]kwDocInfo, error) {
	rows, err := t.Q.QueryContext(ctx, `SELECT d.rid, d.scope, d.project, d.path, d.version_ms FROM documents d WHERE `+currentCond)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]kwDocInfo{}
	for rows.Next() {
		var rid, ms int64
		var d kwDocInfo
		if err := rows.Scan(&rid, &d.key.Scope, &d.key.Project, &d.key.Path, &ms); err != nil {
			return nil, err
		}
		d.version = versionID(ms)
		out[rid] = d
	}
	return out, rows.Err()
}

// currentChunksQuery reads the chunks of current versions, grouped by
// version, in order.
const currentChunksQuery = `SELECT c.doc_rid, c.rid, c.search_text FROM document_chunks c
	WHERE c.doc_rid IN (SELECT d.rid FROM documents d WHERE ` + currentCond + `) ORDER BY c.doc_rid, c.ordinal`

// refresh brings the index to the generation gen that t's snapshot shows.
// On an error the index is left empty (not loaded).
func (ix *keywordIndex) refresh(ctx context.Context, t *Tx, gen int64) (err error) {
	defer func() {
		if err != nil {
			ix.reset()
		}
	}()
	if !ix.loaded {
		ix.reset()
	}
	cur, err := t.currentDocs(ctx)
	if err != nil {
		return err
	}
	// Versions no longer current lose their chunks.
	for rid, slot := range ix.docSlot {
		if _, ok := cur[rid]; !ok {
			ix.dropDoc(slot)
		}
	}
	// The current versions whose chunks are not those indexed.
	changed := map[int64]bool{}
	switch {
	case len(ix.docSlot) == 0:
		for rid := range cur {
			changed[rid] = true
		}
	case ix.stable:
		err = ix.changedByCount(ctx, t, changed)
	default:
		err = ix.changedByContent(ctx, t, changed)
	}
	if err != nil {
		return err
	}
	for rid := range changed {
		if slot, ok := ix.docSlot[rid]; ok {
			ix.dropDoc(slot)
		}
	}
	if err := ix.load(ctx, t, cur, changed); err != nil {
		return err
	}
	if dead := len(ix.chunkRID) - ix.nLive; dead > 1024 && dead > ix.nLive/4 {
		ix.compact()
	}
	ix.finish()
	ix.loaded, ix.gen = true, gen
	return nil
}

// finish sets what depends on the whole corpus: the length
// normalisations at the new average length.
func (ix *keywordIndex) finish() {
	ix.lenNorm = slices.Grow(ix.lenNorm[:0], len(ix.chunkLen))[:len(ix.chunkLen)]
	ix.tf1 = slices.Grow(ix.tf1[:0], len(ix.chunkLen))[:len(ix.chunkLen)]
	avgdl := ix.avgdl()
	for s, n := range ix.chunkLen {
		d := bm25K1 * (1 - bm25B + bm25B*float64(n)/avgdl)
		ix.lenNorm[s], ix.tf1[s] = d, 1*(bm25K1+1)/(1+d)
	}
}

// avgdl is the average length of the live chunks (1 when there are none
// or all are empty, which no score then reads).
func (ix *keywordIndex) avgdl() float64 {
	if ix.nLive == 0 || ix.totalLen == 0 {
		return 1
	}
	return float64(ix.totalLen) / float64(ix.nLive)
}

// changedByCount adds to changed the indexed versions whose chunk count or
// largest chunk id differs from the database's, and those that have chunks
// and are not indexed: enough where ids are never reused, as a version's
// chunks are only ever replaced all together, by chunks with new, larger
// ids. Indexed versions that lost all their chunks are dropped.
func (ix *keywordIndex) changedByCount(ctx context.Context, t *Tx, changed map[int64]bool) error {
	rows, err := t.Q.QueryContext(ctx, `SELECT c.doc_rid, COUNT(*), MAX(c.rid) FROM document_chunks c
		WHERE c.doc_rid IN (SELECT d.rid FROM documents d WHERE `+currentCond+`) GROUP BY c.doc_rid`)
	if err != nil {
		return err
	}
	defer rows.Close()
	seen := map[int64]bool{}
	for rows.Next() {
		var rid, n, maxRID int64
		if err := rows.Scan(&rid, &n, &maxRID); err != nil {
			return err
		}
		seen[rid] = true
		if slot, ok := ix.docSlot[rid]; !ok || int64(ix.docs[slot].count) != n || ix.docs[slot].maxRID != maxRID {
			changed[rid] = true
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	ix.dropUnseen(seen)
	return nil
}

// changedByContent is changedByCount where ids may be reused (SQLite's
// rowid, after the newest chunks were deleted): a version's chunks can be
// replaced by as many others under the same ids, which no count shows, so
// the chunks' ids and text are read and hashed, version by version, and
// compared with the hash taken when they were indexed.
func (ix *keywordIndex) changedByContent(ctx context.Context, t *Tx, changed map[int64]bool) error {
	rows, err := t.Q.QueryContext(ctx, currentChunksQuery)
	if err != nil {
		return err
	}
	defer rows.Close()
	seen := map[int64]bool{}
	var h maphash.Hash
	h.SetSeed(ix.seed)
	doc, n, maxRID := int64(-1), uint32(0), int64(0)
	end := func() {
		if n == 0 {
			return
		}
		seen[doc] = true
		if slot, ok := ix.docSlot[doc]; !ok || ix.docs[slot].count != n || ix.docs[slot].maxRID != maxRID || ix.docs[slot].sig != h.Sum64() {
			changed[doc] = true
		}
	}
	for rows.Next() {
		var d, rid int64
		var text sql.RawBytes
		if err := rows.Scan(&d, &rid, &text); err != nil {
			return err
		}
		if d != doc {
			end()
			doc, n = d, 0
			h.Reset()
		}
		hashChunk(&h, rid, text)
		n, maxRID = n+1, rid
	}
	if err := rows.Err(); err != nil {
		return err
	}
	end()
	ix.dropUnseen(seen)
	return nil
}

// hashChunk adds a chunk's id and text to a version's hash.
func hashChunk(h *maphash.Hash, rid int64, text []byte) {
	var n [16]byte
	binary.LittleEndian.PutUint64(n[:8], uint64(rid))
	binary.LittleEndian.PutUint64(n[8:], uint64(len(text)))
	h.Write(n[:])
	h.Write(text)
}

// dropUnseen drops the indexed versions not in seen: current ones whose
// chunks are all gone.
func (ix *keywordIndex) dropUnseen(seen map[int64]bool) {
	for rid, slot := range ix.docSlot {
		if !seen[rid] {
			ix.dropDoc(slot)
		}
	}
}

// load reads and indexes the chunks of the changed current versions: all
// current chunks in one pass when they are many, else version by version.
func (ix *keywordIndex) load(ctx context.Context, t *Tx, cur map[int64]kwDocInfo, changed map[int64]bool) error {
	if len(changed) == 0 {
		return nil
	}
	b := &kwBuilder{words: map[string]*postings{}}
	var h maphash.Hash
	h.SetSeed(ix.seed)
	add := func(doc int64, rows []kwChunkRow) {
		if !changed[doc] {
			return
		}
		var sig uint64
		if !ix.stable {
			h.Reset()
			for _, r := range rows {
				hashChunk(&h, r.rid, []byte(r.text))
			}
			sig = h.Sum64()
		}
		ix.addDoc(b, doc, cur[doc], rows, sig)
	}
	if len(changed) > 256 && len(changed) > len(cur)/8 {
		return ix.readChunks(ctx, t, currentChunksQuery, nil, add)
	}
	ids := make([]any, 0, len(changed))
	for rid := range changed {
		ids = append(ids, rid)
	}
	slices.SortFunc(ids, func(a, b any) int { return cmp.Compare(a.(int64), b.(int64)) })
	for len(ids) > 0 {
		part := ids[:min(len(ids), 256)]
		ids = ids[len(part):]
		q := `SELECT c.doc_rid, c.rid, c.search_text FROM document_chunks c WHERE c.doc_rid IN (` + Placeholders(len(part)) + `)
			ORDER BY c.doc_rid, c.ordinal`
		if err := ix.readChunks(ctx, t, q, part, add); err != nil {
			return err
		}
	}
	return nil
}

// readChunks runs q, rows of (doc_rid, rid, search_text) ordered by
// doc_rid, and calls fn with each version's chunks.
func (ix *keywordIndex) readChunks(ctx context.Context, t *Tx, q string, args []any, fn func(doc int64, rows []kwChunkRow)) error {
	rows, err := t.Q.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var group []kwChunkRow
	doc := int64(-1)
	for rows.Next() {
		var d int64
		var r kwChunkRow
		if err := rows.Scan(&d, &r.rid, &r.text); err != nil {
			return err
		}
		if d != doc && len(group) > 0 {
			fn(doc, group)
			group = group[:0]
		}
		doc = d
		group = append(group, r)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(group) > 0 {
		fn(doc, group)
	}
	return nil
}

// dropDoc removes a version and marks its chunks dead.
func (ix *keywordIndex) dropDoc(slot uint32) {
	d := &ix.docs[slot]
	for s := d.first; s < d.first+d.count; s++ {
		if ix.live[s] {
			ix.live[s] = false
			ix.nLive--
			ix.totalLen -= int64(ix.chunkLen[s])
		}
	}
	delete(ix.docSlot, d.rid)
	*d = kwDoc{}
	ix.freeDocs = append(ix.freeDocs, slot)
}

// kwBuilder turns chunk text into postings during one refresh; it
// remembers the postings (nil: a stop word) of every word it met.
type kwBuilder struct {
	words map[string]*postings
	buf   []byte
}

// stopPostings marks a stop word in kwBuilder.words.
var stopPostings = &postings{}

// addDoc indexes a version's chunks (at least one) in new slots.
func (ix *keywordIndex) addDoc(b *kwBuilder, rid int64, info kwDocInfo, rows []kwChunkRow, sig uint64) {
	var slot uint32
	if n := len(ix.freeDocs); n > 0 {
		slot, ix.freeDocs = ix.freeDocs[n-1], ix.freeDocs[:n-1]
	} else {
		slot = uint32(len(ix.docs))
		ix.docs = append(ix.docs, kwDoc{})
	}
	ix.docs[slot] = kwDoc{rid: rid, key: info.key, version: info.version,
		first: uint32(len(ix.chunkRID)), count: uint32(len(rows)), maxRID: rows[len(rows)-1].rid, sig: sig}
	ix.docSlot[rid] = slot
	for _, r := range rows {
		cs := uint32(len(ix.chunkRID))
		var n uint32
		b.buf = eachWord(r.text, b.buf, func(w []byte) {
			p, ok := b.words[string(w)]
			if !ok {
				word := string(w)
				if t := stemWord(word); t == "" {
					p = stopPostings
				} else if p = ix.terms[t]; p == nil {
					p = &postings{}
					ix.terms[t] = p
				}
				b.words[word] = p
			}
			if p == stopPostings {
				return
			}
			n++
			if k := len(p.slots); k > 0 && p.slots[k-1] == cs {
				p.tfs[k-1]++
				return
			}
			p.slots = append(p.slots, cs)
			p.tfs = append(p.tfs, 1)
		})
		ix.chunkRID = append(ix.chunkRID, r.rid)
		ix.chunkDoc = append(ix.chunkDoc, slot)
		ix.chunkLen = append(ix.chunkLen, n)
		ix.live = append(ix.live, true)
		ix.nLive++
		ix.totalLen += int64(n)
	}
}

// compact drops the dead chunks, renumbering the live ones in order.
func (ix *keywordIndex) compact() {
	const dead = math.MaxUint32
	remap := make([]uint32, len(ix.chunkRID))
	n := uint32(0)
	for s := range ix.chunkRID {
		if !ix.live[s] {
			remap[s] = dead
			continue
		}
		remap[s] = n
		ix.chunkRID[n], ix.chunkDoc[n], ix.chunkLen[n] = ix.chunkRID[s], ix.chunkDoc[s], ix.chunkLen[s]
		n++
	}
	for i := range ix.docs {
		if d := &ix.docs[i]; d.rid != 0 {
			d.first = remap[d.first]
		}
	}
	ix.chunkRID = slices.Clip(ix.chunkRID[:n])
	ix.chunkDoc = slices.Clip(ix.chunkDoc[:n])
	ix.chunkLen = slices.Clip(ix.chunkLen[:n])
	ix.live = make([]bool, n)
	for i := range ix.live {
		ix.live[i] = true
	}
	for t, p := range ix.terms {
		k := 0
		for i, s := range p.slots {
			if remap[s] != dead {
				p.slots[k], p.tfs[k] = remap[s], p.tfs[i]
				k++
			}
		}
		if k == 0 {
			delete(ix.terms, t)
			continue
		}
		p.slots, p.tfs = slices.Clip(p.slots[:k]), slices.Clip(p.tfs[:k])
	}
}

// kwHit is one ranked chunk: its id, its version and its score (negated
// BM25, lower is better).
type kwHit struct {
	slot    uint32
	rid     int64
	score   float64
	key     baton.DocKey
	version string
}

// kwWorse says whether a ranks below b: a higher score, or the same score
// and a larger chunk id.
func kwWorse(a, b kwHit) bool {
	return a.score > b.score || (a.score == b.score && a.rid > b.rid)
}

type kwHeap []kwHit

func (h kwHeap) Len() int           { return len(h) }
func (h kwHeap) Less(i, j int) bool { return kwWorse(h[i], h[j]) }
func (h kwHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *kwHeap) Push(x any)        { *h = append(*h, x.(kwHit)) }
func (h *kwHeap) Pop() any {
	x := (*h)[len(*h)-1]
	*h = (*h)[:len(*h)-1]
	return x
}

// scratch is one search's working memory, recycled: a dense score per
// chunk slot (all zero between searches) and the slots it touched.
type scratch struct {
	acc     []float64
	touched []uint32
}

var scratchPool = sync.Pool{New: func() any { return &scratch{} }}

// search ranks the indexed chunks holding any of terms, in spaces under
// prefix, best first (ties by chunk id), at most limit of them. The
// caller holds ix.mu for reading.
func (ix *keywordIndex) search(terms []string, spaces []baton.DocSpace, prefix string, limit int) []kwHit {
	if ix.nLive == 0 || len(terms) == 0 {
		return nil
	}
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	if len(sc.acc) < len(ix.chunkRID) {
		sc.acc = make([]float64, len(ix.chunkRID))
	}
	acc := sc.acc
	nRow := float64(ix.nLive)
	allLive := ix.nLive == len(ix.chunkRID)
	live, norms, tf1 := ix.live, ix.lenNorm, ix.tf1
	// Candidates are collected as they are first scored when few, else
	// found by a pass over every slot afterwards.
	var lists []*postings
	total := 0
	for _, t := range terms {
		if p := ix.terms[t]; p != nil {
			lists = append(lists, p)
			total += len(p.slots)
		}
	}
	collect := total < len(ix.chunkRID)/4
	touched := sc.touched[:0]
	for _, p := range lists {
		hits := len(p.slots)
		if !allLive {
			hits = 0
			for _, s := range p.slots {
				if live[s] {
					hits++
				}
			}
		}
		if hits == 0 {
			continue
		}
		// FTS5's bm25(): idf floored at 1e-6 for terms in over half the rows.
		idf := math.Log((nRow - float64(hits) + 0.5) / (float64(hits) + 0.5))
		if idf <= 0 {
			idf = 1e-6
		}
		tfs := p.tfs[:len(p.slots)]
		for i, s := range p.slots {
			if !allLive && !live[s] {
				continue
			}
			if collect && acc[s] == 0 {
				touched = append(touched, s)
			}
			if tf := tfs[i]; tf == 1 {
				acc[s] += idf * tf1[s]
			} else {
				f := float64(tf)
				acc[s] += idf * (f * (bm25K1 + 1) / (f + norms[s]))
			}
		}
	}
	if !collect {
		for s, v := range acc[:len(ix.chunkRID)] {
			if v != 0 {
				touched = append(touched, uint32(s))
			}
		}
	}
	sc.touched = touched
	// Candidates are filtered by their version's space and path, decided
	// once per version.
	const unknown, yes, no = 0, 1, 2
	verdict := make([]uint8, len(ix.docs))
	h := make(kwHeap, 0, min(limit, len(touched)))
	for _, s := range touched {
		score := -acc[s]
		acc[s] = 0
		ds := ix.chunkDoc[s]
		if verdict[ds] == unknown {
			d := &ix.docs[ds]
			verdict[ds] = no
			if strings.HasPrefix(d.key.Path, prefix) && slices.Contains(spaces, d.key.DocSpace) {
				verdict[ds] = yes
			}
		}
		if verdict[ds] != yes {
			continue
		}
		hit := kwHit{slot: s, rid: ix.chunkRID[s], score: score}
		if len(h) < limit {
			heap.Push(&h, hit)
		} else if kwWorse(h[0], hit) {
			h[0] = hit
			heap.Fix(&h, 0)
		}
	}
	for i := range h { // the caller reads them after the lock is let go
		d := &ix.docs[ix.chunkDoc[h[i].slot]]
		h[i].key, h[i].version = d.key, d.version
	}
	slices.SortFunc(h, func(a, b kwHit) int { return cmp.Or(cmp.Compare(a.score, b.score), cmp.Compare(a.rid, b.rid)) })
	return h
}
