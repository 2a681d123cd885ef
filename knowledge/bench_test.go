package knowledge_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/embedding"
	"github.com/baton-dev/baton/knowledge"
	"github.com/baton-dev/baton/sqlite"
)

// benchWords is the vocabulary of the generated documents: common words
// of developers' notes, so that full-text terms have realistic frequencies
// and the built-in embedder knows them.
var benchWords = strings.Fields(`the a of to in and is for that with on as by this be are from it at or an not
	database connection pool transaction commit rollback retry backoff exponential timeout latency request
	server client cache memory index query search vector embedding chunk document version path file test
	build deploy release branch merge review error failure panic log metric trace span queue worker lease
	claim lock mutex channel goroutine context deadline cancel signal process thread socket protocol http
	json schema field limit offset page token session agent tool prompt model score rank fusion keyword
	parser lexer grammar compiler runtime garbage collector heap stack allocation benchmark profile cpu
	disk network packet route proxy gateway certificate encryption hash signature key secret permission
	user role group project issue task status priority label comment finding learning message thread`)

// benchText is n bytes or so of generated prose, deterministic in seed.
func benchText(r *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		if b.Len() > 0 {
			if r.IntN(12) == 0 {
				b.WriteString(".\n\n")
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString(benchWords[r.IntN(len(benchWords))])
	}
	return b.String()
}

// benchStore opens a SQLite store in dir.
func benchStore(b *testing.B, dir string) *sqlite.Store {
	b.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(dir, "baton.db"), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

var benchSpace = baton.DocSpace{Scope: baton.ScopeGlobal}

// fill stores docs documents of perDoc chunks of about 250 bytes each,
// chunked as given (not by Split, so the count is exact) and embedded by
// emb, in transactions of 50 documents.
func fill(b *testing.B, s baton.Store, emb baton.Embedder, docs, perDoc int) {
	b.Helper()
	ctx := context.Background()
	r := rand.New(rand.NewPCG(1, 2))
	for start := 0; start < docs; start += 50 {
		type prepared struct {
			d  *baton.Document
			ix *knowledge.Indexed
		}
		var batch []prepared
		for i := start; i < min(docs, start+50); i++ {
			parts := make([]string, perDoc)
			for j := range parts {
				parts[j] = benchText(r, 250)
			}
			content := strings.Join(parts, "\n\n")
			path := fmt.Sprintf("notes/%05d.md", i)
			ix := &knowledge.Indexed{Path: path, Model: emb.Model()}
			off := 0
			texts := make([]string, perDoc)
			for j, p := range parts {
				c := &baton.Chunk{Ordinal: j, Text: p, Start: off, End: off + len(p)}
				c.SearchText = knowledge.IndexedText(path, "", "", p)
				texts[j] = c.SearchText
				ix.Chunks = append(ix.Chunks, c)
				off += len(p) + 2
			}
			vs, err := emb.Embed(ctx, texts)
			if err != nil {
				b.Fatal(err)
			}
			ix.Vectors = vs
			batch = append(batch, prepared{&baton.Document{DocKey: baton.DocKey{DocSpace: benchSpace, Path: path},
				Content: content, ContentType: "text/markdown", UpdatedBy: "bench"}, ix})
		}
		if err := s.Update(ctx, func(tx baton.Tx) error {
			for _, p := range batch {
				if err := tx.PutDocument(ctx, p.d); err != nil {
					return err
				}
				if err := tx.ReplaceChunks(ctx, p.d.DocKey, p.d.Version, p.ix.Chunks); err != nil {
					return err
				}
				vs := make([]baton.ChunkVector, len(p.ix.Chunks))
				for i, c := range p.ix.Chunks {
					vs[i] = baton.ChunkVector{ChunkID: c.ID, Model: p.ix.Model, Vector: p.ix.Vectors[i]}
				}
				if err := tx.PutVectors(ctx, vs); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
}

// reportPercentiles adds p50 and p95 of the per-operation times.
func reportPercentiles(b *testing.B, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(ds[len(ds)/2]), "p50-ms")
	b.ReportMetric(ms(ds[len(ds)*95/100]), "p95-ms")
}

var benchQueries = []string{
	"retry the transaction after a timeout with exponential backoff",
	"why does the connection pool run out of memory",
	"signature key permission for the release branch",
	"garbage collector heap allocation benchmark",
	"session token limit for each agent",
}

// BenchmarkHybridSearch100k is the budget: a hybrid search (bm25
// and exact cosine, fused) over 100,000 chunks, p50 at most 10 ms. The
// store is filled once (1,000 documents of 100 chunks); the first search
// loads the vectors into memory, as a server's first search does, and is
// not timed (load-ms; cache-MB is the heap it adds).
func BenchmarkHybridSearch100k(b *testing.B) {
	benchSearch(b, 1000, 100, knowledge.ModeHybrid)
}

// BenchmarkSemanticSearch100k is the vector side alone.
func BenchmarkSemanticSearch100k(b *testing.B) {
	benchSearch(b, 1000, 100, knowledge.ModeSemantic)
}

// BenchmarkKeywordSearch100k is the bm25 side alone.
func BenchmarkKeywordSearch100k(b *testing.B) {
	benchSearch(b, 1000, 100, knowledge.ModeKeyword)
}

func benchSearch(b *testing.B, docs, perDoc int, mode string) {
	emb := embedding.NewBuiltin()
	s := filledStore(b, emb, docs, perDoc)
	search := benchSearcher(b, s, emb, mode)
	// The first search loads the caches: their size is the heap it adds.
	heap0 := heapInUse()
	t0 := time.Now()
	search(benchQueries[0])
	load := time.Since(t0)
	cache := heapInUse() - heap0
	var ds []time.Duration
	i := 0
	for b.Loop() {
		t0 := time.Now()
		search(benchQueries[i%len(benchQueries)])
		ds = append(ds, time.Since(t0))
		i++
	}
	reportPercentiles(b, ds)
	// After the loop: its first round resets the reported metrics.
	b.ReportMetric(float64(cache)/(1<<20), "cache-MB")
	b.ReportMetric(float64(load)/float64(time.Millisecond), "load-ms")
}

// benchSearcher returns a function running one search of mode in a
// snapshot of s, failing the benchmark on an error or no hits.
func benchSearcher(b *testing.B, s baton.Store, emb baton.Embedder, mode string) func(q string) {
	ctx := context.Background()
	return func(q string) {
		if err := s.View(ctx, func(tx baton.Tx) error {
			hs, err := knowledge.Search(ctx, tx, emb, knowledge.Query{Spaces: []baton.DocSpace{benchSpace}, Query: q,
				Mode: mode, Limit: 10, MaxPerFile: 3})
			if err == nil && len(hs) == 0 {
				err = fmt.Errorf("no hits for %q", q)
			}
			return err
		}); err != nil {
			b.Fatal(err)
		}
	}
}

// heapInUse is the live heap after a collection.
func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// BenchmarkReloadAfterWrite100k is the first search after a write: one
// small document (one chunk, embedded) is written, then a search runs and
// is timed, which brings the in-memory caches to the new generation (the
// keyword index version by version, the vectors whole).
func BenchmarkReloadAfterWrite100k(b *testing.B) {
	for _, mode := range []string{knowledge.ModeKeyword, knowledge.ModeSemantic, knowledge.ModeHybrid} {
		b.Run(mode, func(b *testing.B) {
			emb := embedding.NewBuiltin()
			s := filledStore(b, emb, 1000, 100)
			search := benchSearcher(b, s, emb, mode)
			search(benchQueries[0]) // loads the caches
			ctx := context.Background()
			r := rand.New(rand.NewPCG(5, 6))
			var ds []time.Duration
			i := 0
			for b.Loop() {
				text := benchText(r, 250)
				path := fmt.Sprintf("extra/%05d.md", i)
				ix, err := knowledge.Index(ctx, emb, path, text, "text/markdown")
				if err != nil {
					b.Fatal(err)
				}
				if err := s.Update(ctx, func(tx baton.Tx) error {
					return knowledge.Write(ctx, tx, emb, &baton.Document{DocKey: baton.DocKey{DocSpace: benchSpace, Path: path},
						Content: text, ContentType: "text/markdown", UpdatedBy: "bench"}, ix)
				}); err != nil {
					b.Fatal(err)
				}
				t0 := time.Now()
				search(benchQueries[i%len(benchQueries)])
				ds = append(ds, time.Since(t0))
				i++
			}
			reportPercentiles(b, ds)
		})
	}
}

// Filled stores are filled once per process (it takes a minute for
// 100,000 chunks) and copied for each benchmark that asks.
var filled struct {
	sync.Mutex
	dirs  []string
	paths map[string]string // "docs x perDoc" -> the filled database file
}

// TestMain removes the filled stores.
func TestMain(m *testing.M) {
	code := m.Run()
	for _, d := range filled.dirs {
		os.RemoveAll(d)
	}
	os.Exit(code)
}

// filledStore opens a copy of a store filled by fill with docs documents
// of perDoc chunks.
func filledStore(b *testing.B, emb baton.Embedder, docs, perDoc int) baton.Store {
	b.Helper()
	filled.Lock()
	key := fmt.Sprintf("%dx%d", docs, perDoc)
	src, ok := filled.paths[key]
	if !ok {
		dir, err := os.MkdirTemp("", "baton-bench-")
		if err != nil {
			filled.Unlock()
			b.Fatal(err)
		}
		filled.dirs = append(filled.dirs, dir)
		src = filepath.Join(dir, "baton.db")
		s, err := sqlite.Open(context.Background(), src, sqlite.Options{})
		if err != nil {
			filled.Unlock()
			b.Fatal(err)
		}
		fill(b, s, emb, docs, perDoc)
		if err := s.Close(); err != nil {
			filled.Unlock()
			b.Fatal(err)
		}
		if filled.paths == nil {
			filled.paths = map[string]string{}
		}
		filled.paths[key] = src
	}
	filled.Unlock()
	dir := b.TempDir()
	for _, suffix := range []string{"", "-wal"} {
		if err := copyFile(src+suffix, filepath.Join(dir, "baton.db"+suffix)); err != nil && !os.IsNotExist(err) {
			b.Fatal(err)
		}
	}
	return benchStore(b, dir)
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// BenchmarkIngest1000x5KB is the ingest budget: 1,000 documents
// of 5 KB written as membot_write writes them (Index outside the write
// transaction, Write inside; one transaction per document), at most 10 s.
func BenchmarkIngest1000x5KB(b *testing.B) {
	emb := embedding.NewBuiltin()
	if err := emb.Load(); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	r := rand.New(rand.NewPCG(3, 4))
	texts := make([]string, 1000)
	for i := range texts {
		texts[i] = "# Note " + fmt.Sprint(i) + "\n\n" + benchText(r, 5000)
	}
	for b.Loop() {
		b.StopTimer()
		s := benchStore(b, b.TempDir())
		b.StartTimer()
		for i, text := range texts {
			path := fmt.Sprintf("notes/%04d.md", i)
			ix, err := knowledge.Index(ctx, emb, path, text, "text/markdown")
			if err != nil {
				b.Fatal(err)
			}
			if err := s.Update(ctx, func(tx baton.Tx) error {
				return knowledge.Write(ctx, tx, emb, &baton.Document{DocKey: baton.DocKey{DocSpace: benchSpace, Path: path},
					Content: text, ContentType: "text/markdown", UpdatedBy: "bench"}, ix)
			}); err != nil {
				b.Fatal(err)
			}
		}
	}
}
