package sqlcore

import (
	"context"
	"sync"

	"github.com/baton-dev/baton"
)

// KnowledgeCache keeps what knowledge search scans in memory: every
// stored vector of the models searched, decoded (vectorcache.go), and a
// BM25 index of the chunks of current versions (keywordindex.go), so a
// search is a scan over memory rather than a read of every blob or an
// evaluation of the database's ranking function over every match.
//
// It is filled and used only by read-only transactions, at the knowledge
// generation their snapshot shows (knowledge_state.gen, moved on by every
// knowledge write in its own transaction): a snapshot showing an older
// generation than the cache reads the database instead, and a newer one
// brings the cache up to it first. Write transactions always read the
// database. One cache serves one store; other processes' writes are seen
// through the generation like this process's own.
type KnowledgeCache struct {
	mu       sync.Mutex
	models   map[string]*modelVectors
	keywords *keywordIndex
}

// VectorCache is KnowledgeCache's first name, kept for the transaction
// field that holds it (Tx.Vectors).
type VectorCache = KnowledgeCache

// CacheOptions tune a KnowledgeCache to its store.
type CacheOptions struct {
	// StableChunkIDs says a chunk id, once used, is never given to another
	// chunk (PostgreSQL's identity column): the keyword index then finds
	// the versions whose chunks changed by their chunk count and largest
	// chunk id alone. Without it (SQLite's rowid, which reuses the largest
	// ids after their rows are deleted) a refresh reads the chunks' text
	// to compare it.
	StableChunkIDs bool
}

// NewKnowledgeCache returns an empty cache.
func NewKnowledgeCache(opts CacheOptions) *KnowledgeCache {
	return &KnowledgeCache{models: map[string]*modelVectors{}, keywords: newKeywordIndex(opts.StableChunkIDs)}
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

// searchKeywords ranks the indexed chunks for a read-only transaction,
// bringing the keyword index to the transaction's generation first; ok is
// false when the transaction must search the database itself (a write
// transaction, no cache, or a snapshot older than the index).
func (t *Tx) searchKeywords(ctx context.Context, terms []string, spaces []baton.DocSpace, prefix string, limit int) (hits []kwHit, ok bool, err error) {
	if t.Vectors == nil || !t.ReadOnly {
		return nil, false, nil
	}
	gen, err := t.knowledgeGen(ctx)
	if err != nil {
		return nil, false, err
	}
	ix := t.Vectors.keywords
	for {
		ix.mu.RLock()
		if ix.loaded && ix.gen == gen {
			hits = ix.search(terms, spaces, prefix, limit)
			ix.mu.RUnlock()
			return hits, true, nil
		}
		newer := ix.loaded && ix.gen > gen
		ix.mu.RUnlock()
		if newer { // an older snapshot than the index: read it as it was
			return nil, false, nil
		}
		ix.mu.Lock()
		if !ix.loaded || ix.gen < gen {
			err = ix.refresh(ctx, t, gen)
		}
		ix.mu.Unlock()
		if err != nil {
			return nil, false, err
		}
	}
}

// dropKeywords empties the keyword index: the next search reloads it.
func (c *KnowledgeCache) dropKeywords() {
	c.keywords.mu.Lock()
	c.keywords.reset()
	c.keywords.mu.Unlock()
}
