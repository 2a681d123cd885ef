package sqlcore

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
)

// benchDocs are docs versions of perDoc chunks of 40 words drawn from a
// vocabulary of common developer words.
func benchDocs(docs, perDoc int) [][]kwChunkRow {
	words := strings.Fields(`the a of to in and is for that with on as by this be are from it at or an not
	database connection pool transaction commit rollback retry backoff exponential timeout latency request
	server client cache memory index query search vector embedding chunk document version path file test
	build deploy release branch merge review error failure panic log metric trace span queue worker lease
	claim lock mutex channel goroutine context deadline cancel signal process thread socket protocol http
	json schema field limit offset page token session agent tool prompt model score rank fusion keyword`)
	r := rand.New(rand.NewPCG(1, 2))
	out := make([][]kwChunkRow, docs)
	rid := int64(1)
	for d := range out {
		out[d] = make([]kwChunkRow, perDoc)
		for i := range out[d] {
			var sb strings.Builder
			for range 40 {
				sb.WriteString(words[r.IntN(len(words))])
				sb.WriteByte(' ')
			}
			out[d][i] = kwChunkRow{rid: rid, text: sb.String()}
			rid++
		}
	}
	return out
}

// benchIndex indexes docs as a full load does.
func benchIndex(docs [][]kwChunkRow) *keywordIndex {
	ix := newKeywordIndex(true)
	ix.reset()
	b := &kwBuilder{words: map[string]*postings{}}
	for d, rows := range docs {
		ix.addDoc(b, int64(d+1), kwDocInfo{key: baton.DocKey{DocSpace: baton.DocSpace{Scope: baton.ScopeGlobal}, Path: fmt.Sprintf("notes/%05d.md", d)}}, rows, 0)
	}
	ix.finish()
	return ix
}

func BenchmarkKeywordIndexSearch100k(b *testing.B) {
	ix := benchIndex(benchDocs(1000, 100))
	terms := SearchTerms(SearchWords("retry the transaction after a timeout with exponential backoff"))
	spaces := []baton.DocSpace{{Scope: baton.ScopeGlobal}}
	for b.Loop() {
		if hs := ix.search(terms, spaces, "", 50); len(hs) != 50 {
			b.Fatal(len(hs))
		}
	}
}

// BenchmarkKeywordIndexBuild100k is the in-memory part of a full load
// of 100,000 chunks: tokenizing, stemming, filling the postings.
func BenchmarkKeywordIndexBuild100k(b *testing.B) {
	docs := benchDocs(1000, 100)
	for b.Loop() {
		benchIndex(docs)
	}
}
