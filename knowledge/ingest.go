package knowledge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/baton-dev/baton"
)

// Indexed is a version's chunks, description and vectors, made before the
// write transaction: chunking is cheap, but an embedder may be a network
// call that no write transaction should wait for.
type Indexed struct {
	Path        string // the normalised logical path the chunks were indexed under
	Description string
	Chunks      []*baton.Chunk
	Vectors     [][]float32 // one per chunk, by emb's Model
	Model       string
	SHA256      string // of the content indexed, to tell a stale Indexed from a fresh one
}

// Index chunks content (Split with the default config), describes it
// (Describe) and embeds every chunk's indexed text with emb in one batch.
// It touches no store. A nil emb leaves the chunks without vectors (full
// text only).
func Index(ctx context.Context, emb baton.Embedder, path, content, mime string) (*Indexed, error) {
	p, err := baton.NormalizeDocPath(path)
	if err != nil {
		return nil, err
	}
	ix := &Indexed{Path: p, Description: Describe(content, mime), SHA256: sha(content)}
	parts := Split(content, DefaultChunkConfig)
	texts := make([]string, len(parts))
	for i := range parts {
		c := &parts[i]
		c.SearchText = IndexedText(p, ix.Description, c.Context, c.Text)
		texts[i] = c.SearchText
		ix.Chunks = append(ix.Chunks, c)
	}
	if emb == nil || len(texts) == 0 {
		return ix, nil
	}
	vs, err := emb.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	if len(vs) != len(texts) {
		return nil, baton.Errorf(baton.ErrInternal, "the embedder returned %d vectors for %d chunks", len(vs), len(texts)).
			WithHint("check the embedding endpoint; nothing was written")
	}
	ix.Vectors, ix.Model = vs, emb.Model()
	return ix, nil
}

// Write stores d as a new version of its path (tx.PutDocument) with the
// chunks and vectors of ix, made by Index for d's path and content. A nil
// ix, or one made for other content, is made again here with emb. d's
// Description is ix's unless d has one.
func Write(ctx context.Context, tx baton.KnowledgeTx, emb baton.Embedder, d *baton.Document, ix *Indexed) error {
	if ix == nil || ix.SHA256 != sha(d.Content) || !samePath(ix.Path, d.Path) {
		var err error
		if ix, err = Index(ctx, emb, d.Path, d.Content, d.ContentType); err != nil {
			return err
		}
	}
	if d.Description == "" {
		d.Description = ix.Description
	}
	if err := tx.PutDocument(ctx, d); err != nil {
		return err
	}
	return attach(ctx, tx, d.DocKey, d.Version, ix)
}

// attach stores ix's chunks (and vectors) as those of one version.
func attach(ctx context.Context, tx baton.KnowledgeTx, key baton.DocKey, version string, ix *Indexed) error {
	if err := tx.ReplaceChunks(ctx, key, version, ix.Chunks); err != nil {
		return err
	}
	if len(ix.Vectors) == 0 {
		return nil
	}
	vs := make([]baton.ChunkVector, len(ix.Chunks))
	for i, c := range ix.Chunks {
		vs[i] = baton.ChunkVector{ChunkID: c.ID, Model: ix.Model, Vector: ix.Vectors[i]}
	}
	return tx.PutVectors(ctx, vs)
}

func samePath(a, b string) bool {
	nb, err := baton.NormalizeDocPath(b)
	return err == nil && a == nb
}

// Reindexer re-chunks and re-embeds the current versions whose chunks lack
// vectors of an embedder's model: after a change of model, or for
// documents written while no embedder answered.
type Reindexer struct {
	Store    baton.Store
	Embedder baton.Embedder
	// Batch is how many versions one write transaction re-indexes (<= 0: 16).
	Batch int
	// Progress, if set, hears done of total after every batch.
	Progress func(done, total int)
}

// Run re-indexes every stale version and returns how many it did. Each
// batch is embedded outside any transaction and written in one; a version
// that changed meanwhile is left for its writer, which indexed it.
func (r *Reindexer) Run(ctx context.Context) (int, error) {
	if r.Embedder == nil {
		return 0, baton.Errorf(baton.ErrConfigInvalid, "no embedder to re-index with").
			WithHint("configure [embedding] in baton.toml, or leave it out for the built-in embedder")
	}
	batch := r.Batch
	if batch <= 0 {
		batch = 16
	}
	model := r.Embedder.Model()
	var total []baton.StaleVersion
	if err := r.Store.View(ctx, func(tx baton.Tx) (err error) {
		total, err = tx.StaleVersions(ctx, model, 1<<30)
		return err
	}); err != nil {
		return 0, err
	}
	done := 0
	if r.Progress != nil {
		r.Progress(0, len(total))
	}
	for start := 0; start < len(total); start += batch {
		part := total[start:min(start+batch, len(total))]
		docs := make([]*baton.Document, len(part))
		if err := r.Store.View(ctx, func(tx baton.Tx) error {
			for i, s := range part {
				d, err := tx.Document(ctx, s.Key, s.Version)
				if err != nil {
					return err
				}
				docs[i] = d
			}
			return nil
		}); err != nil {
			return done, err
		}
		ixs := make([]*Indexed, len(docs))
		for i, d := range docs {
			ix, err := Index(ctx, r.Embedder, d.Path, d.Content, d.ContentType)
			if err != nil {
				return done, fmt.Errorf("re-indexing %s: %w", d.Path, err)
			}
			ixs[i] = ix
		}
		if err := r.Store.Update(ctx, func(tx baton.Tx) error {
			for i, d := range docs {
				cur, err := tx.Document(ctx, d.DocKey, "")
				if err != nil || cur.Version != d.Version {
					continue // deleted or rewritten since: its writer indexed the new version
				}
				if err := attach(ctx, tx, d.DocKey, d.Version, ixs[i]); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return done, err
		}
		done += len(part)
		if r.Progress != nil {
			r.Progress(done, len(total))
		}
	}
	return done, nil
}

// sha is the hex sha256 of s, as the store hashes content.
func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
