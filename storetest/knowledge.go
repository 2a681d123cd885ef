package storetest

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
)

// The knowledge group (issue 15): documents keyed by logical path in a
// project's or the global space, versioned (write, move and delete append a
// version; prune removes old ones as membot-operations.md §3.3 says), with
// chunks, vectors and a full-text search that ranks the same on both
// stores.
var knowledgeCases = []testCase{
	{"Versions", testKnowledgeVersions},
	{"Spaces", testKnowledgeSpaces},
	{"Move", testKnowledgeMove},
	{"Delete", testKnowledgeDelete},
	{"Prune", testKnowledgePrune},
	{"ChunksAndVectors", testKnowledgeChunksVectors},
	{"SearchRanking", testKnowledgeSearchRanking},
	{"KeywordIndex", testKnowledgeKeywordIndex},
	{"Limits", testKnowledgeLimits},
	{"VectorSearch", testKnowledgeVectorSearch},
	{"StatsAndRefresh", testKnowledgeStatsRefresh},
}

var (
	projSpace   = baton.DocSpace{Scope: baton.ScopeProject, Project: "kb"}
	globalSpace = baton.DocSpace{Scope: baton.ScopeGlobal}
)

func pkey(path string) baton.DocKey { return baton.DocKey{DocSpace: projSpace, Path: path} }

// knowledgeEnv is an env with the project kb.
func knowledgeEnv(t *testing.T, open func(t *testing.T) baton.Store) *env {
	e := newEnv(t, open)
	e.project("kb", "KB")
	return e
}

// write stores content at key as by and returns the new version.
func (e *env) write(key baton.DocKey, content, by string) *baton.Document {
	e.t.Helper()
	d := &baton.Document{DocKey: key, Content: content, ContentType: "text/markdown", UpdatedBy: by}
	e.update(func(tx baton.Tx) error { return tx.PutDocument(e.ctx, d) })
	return d
}

func (e *env) doc(key baton.DocKey, version string) (*baton.Document, error) {
	var d *baton.Document
	err := e.s.View(e.ctx, func(tx baton.Tx) error {
		var err error
		d, err = tx.Document(e.ctx, key, version)
		return err
	})
	return d, err
}

func (e *env) versions(key baton.DocKey) []*baton.DocumentVersion {
	e.t.Helper()
	var vs []*baton.DocumentVersion
	e.view(func(tx baton.Tx) error {
		var err error
		vs, err = tx.DocumentVersions(e.ctx, key)
		return err
	})
	return vs
}

func (e *env) paths(f baton.DocumentFilter) []string {
	e.t.Helper()
	var out []string
	e.view(func(tx baton.Tx) error {
		ds, err := tx.ListDocuments(e.ctx, f)
		for _, d := range ds {
			out = append(out, d.Path)
		}
		return err
	})
	return out
}

// chunkText stores content's paragraphs as the chunks of key's current
// version and returns them.
func (e *env) chunkParagraphs(key baton.DocKey, d *baton.Document) []*baton.Chunk {
	e.t.Helper()
	var cs []*baton.Chunk
	off := 0
	for i, p := range strings.Split(d.Content, "\n\n") {
		cs = append(cs, &baton.Chunk{Ordinal: i, Text: p, Start: off, End: off + len(p)})
		off += len(p) + 2
	}
	e.update(func(tx baton.Tx) error { return tx.ReplaceChunks(e.ctx, key, d.Version, cs) })
	return cs
}

func hexSHA(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func testKnowledgeVersions(t *testing.T, open func(t *testing.T) baton.Store) {
	e := knowledgeEnv(t, open)
	v1 := e.write(pkey("/notes\\design.md"), "first", "alice")
	if v1.Path != "notes/design.md" {
		t.Errorf("stored path = %q, want the normalised notes/design.md", v1.Path)
	}
	v2 := e.write(pkey("notes/design.md"), "second", "bob")
	v3 := e.write(pkey("notes/design.md"), "second", "carol") // same content: still a version
	if !(v1.Version < v2.Version && v2.Version < v3.Version) {
		t.Fatalf("versions %s, %s, %s are not strictly increasing", v1.Version, v2.Version, v3.Version)
	}
	if _, err := time.Parse(baton.VersionLayout, v3.Version); err != nil {
		t.Errorf("version %q is not in VersionLayout: %v", v3.Version, err)
	}
	cur, err := e.doc(pkey("notes/design.md"), "")
	if err != nil {
		t.Fatal(err)
	}
	if cur.Version != v3.Version || cur.Content != "second" || cur.Size != 6 || cur.SHA256 != hexSHA("second") ||
		cur.CreatedBy != "alice" || cur.UpdatedBy != "carol" || cur.ContentType != "text/markdown" || cur.Deleted {
		t.Errorf("current = %+v, want v3 'second' by carol, created by alice", cur)
	}
	old, err := e.doc(pkey("notes/design.md"), v1.Version)
	if err != nil || old.Content != "first" || old.UpdatedBy != "alice" {
		t.Errorf("version %s = %+v, %v; want 'first' by alice", v1.Version, old, err)
	}
	vs := e.versions(pkey("notes/design.md"))
	var got []string
	for _, v := range vs {
		got = append(got, v.Version)
	}
	if want := []string{v3.Version, v2.Version, v1.Version}; !slices.Equal(got, want) {
		t.Errorf("versions = %v, want newest first %v", got, want)
	}
	if vs[2].SHA256 != hexSHA("first") || vs[2].SourceSHA256 != hexSHA("first") || vs[2].Size != 5 {
		t.Errorf("oldest version = %+v, want hashes and size of 'first'", vs[2])
	}
	for _, v := range []string{"2001-01-01T00:00:00.000Z", "not-a-version"} {
		_, err := e.doc(pkey("notes/design.md"), v)
		wantCode(t, err, baton.ErrNotFound)
	}
	_, err = e.doc(pkey("notes/absent.md"), "")
	wantCode(t, err, baton.ErrNotFound)
}

func testKnowledgeSpaces(t *testing.T, open func(t *testing.T) baton.Store) {
	e := knowledgeEnv(t, open)
	e.project("other", "OTH")
	e.write(pkey("a.md"), "project a", "alice")
	e.write(pkey("poems/x.md"), "x", "alice")
	e.write(pkey("poems-archive/y.md"), "y", "alice")
	e.write(baton.DocKey{DocSpace: globalSpace, Path: "a.md"}, "global a", "alice")
	e.write(baton.DocKey{DocSpace: baton.DocSpace{Scope: baton.ScopeProject, Project: "other"}, Path: "z.md"}, "z", "alice")

	if got, want := e.paths(baton.DocumentFilter{Spaces: []baton.DocSpace{projSpace}}), []string{"a.md", "poems-archive/y.md", "poems/x.md"}; !slices.Equal(got, want) {
		t.Errorf("project list = %v, want %v", got, want)
	}
	if got, want := e.paths(baton.DocumentFilter{Spaces: []baton.DocSpace{projSpace}, PathPrefix: "poems"}), []string{"poems-archive/y.md", "poems/x.md"}; !slices.Equal(got, want) {
		t.Errorf("prefix poems = %v, want the raw prefix matches %v", got, want)
	}
	if got, want := e.paths(baton.DocumentFilter{Spaces: []baton.DocSpace{projSpace, globalSpace}, Limit: 2}), []string{"a.md", "a.md"}; !slices.Equal(got, want) {
		t.Errorf("both spaces, limit 2 = %v, want %v", got, want)
	}
	g, err := e.doc(baton.DocKey{DocSpace: globalSpace, Path: "a.md"}, "")
	if err != nil || g.Content != "global a" || g.Scope != baton.ScopeGlobal || g.Project != "" {
		t.Errorf("global a.md = %+v, %v", g, err)
	}
	p, _ := e.doc(pkey("a.md"), "")
	if p == nil || p.Content != "project a" {
		t.Errorf("project a.md = %+v, want its own content", p)
	}
	err = e.tryUpdate(func(tx baton.Tx) error {
		return tx.PutDocument(e.ctx, &baton.Document{DocKey: baton.DocKey{DocSpace: baton.DocSpace{Scope: baton.ScopeProject, Project: "nope"}, Path: "a.md"}, UpdatedBy: "a"})
	})
	wantCode(t, err, baton.ErrProjectNotFound)
	for _, s := range []baton.DocSpace{{Scope: baton.ScopeGlobal, Project: "kb"}, {Scope: baton.ScopeProject}, {Scope: "team", Project: "kb"}} {
		err := e.tryUpdate(func(tx baton.Tx) error {
			return tx.PutDocument(e.ctx, &baton.Document{DocKey: baton.DocKey{DocSpace: s, Path: "a.md"}, UpdatedBy: "a"})
		})
		wantCode(t, err, baton.ErrInvalidInput)
	}
	err = e.s.View(e.ctx, func(tx baton.Tx) error {
		_, err := tx.ListDocuments(e.ctx, baton.DocumentFilter{})
		return err
	})
	wantCode(t, err, baton.ErrInvalidInput)
}

func testKnowledgeMove(t *testing.T, open func(t *testing.T) baton.Store) {
	e := knowledgeEnv(t, open)
	src := e.write(pkey("drafts/plan.md"), "alpha\n\nbeta", "alice")
	cs := e.chunkParagraphs(pkey("drafts/plan.md"), src)
	e.update(func(tx baton.Tx) error {
		return tx.PutVectors(e.ctx, []baton.ChunkVector{{ChunkID: cs[0].ID, Model: "m1", Vector: []float32{1, 0}}, {ChunkID: cs[1].ID, Model: "m1", Vector: []float32{0, 1}}})
	})
	var moved *baton.Document
	e.update(func(tx baton.Tx) error {
		var err error
		moved, err = tx.MoveDocument(e.ctx, pkey("drafts/plan.md"), "final/plan.md", "bob")
		return err
	})
	if moved.Path != "final/plan.md" || moved.Content != src.Content || moved.ChangeNote != "move from drafts/plan.md" || moved.UpdatedBy != "bob" {
		t.Errorf("moved = %+v", moved)
	}
	if _, err := e.doc(pkey("drafts/plan.md"), ""); err == nil {
		t.Error("the source still has a current version after the move")
	} else {
		wantCode(t, err, baton.ErrNotFound)
	}
	vs := e.versions(pkey("drafts/plan.md"))
	if len(vs) != 2 || !vs[0].Deleted || vs[0].ChangeNote != "moved to final/plan.md" || vs[1].Version != src.Version {
		t.Errorf("source versions = %+v, want a tombstone 'moved to final/plan.md' over the original", vs)
	}
	if old, err := e.doc(pkey("drafts/plan.md"), src.Version); err != nil || old.Content != src.Content {
		t.Errorf("old source version = %+v, %v; history stays readable", old, err)
	}
	var chunks []*baton.Chunk
	var vecs []baton.ChunkVector
	e.view(func(tx baton.Tx) error {
		var err error
		if chunks, err = tx.Chunks(e.ctx, pkey("final/plan.md"), ""); err != nil {
			return err
		}
		vecs, err = tx.ChunkVectors(e.ctx, baton.VectorFilter{Spaces: []baton.DocSpace{projSpace}, Model: "m1"})
		return err
	})
	if len(chunks) != 2 || chunks[1].Text != "beta" || chunks[1].Version != moved.Version {
		t.Errorf("moved chunks = %+v, want the source's two", chunks)
	}
	if len(vecs) != 2 || vecs[0].Key.Path != "final/plan.md" || !slices.Equal(vecs[1].Vector, []float32{0, 1}) {
		t.Errorf("current vectors = %+v, want the two carried to final/plan.md", vecs)
	}
	// The destination must be free; the source must exist.
	e.write(pkey("taken.md"), "t", "alice")
	err := e.tryUpdate(func(tx baton.Tx) error {
		_, err := tx.MoveDocument(e.ctx, pkey("final/plan.md"), "taken.md", "bob")
		return err
	})
	wantCode(t, err, baton.ErrConflict)
	err = e.tryUpdate(func(tx baton.Tx) error {
		_, err := tx.MoveDocument(e.ctx, pkey("drafts/plan.md"), "new.md", "bob")
		return err
	})
	wantCode(t, err, baton.ErrNotFound)
	// A path freed by a move takes a move back.
	e.update(func(tx baton.Tx) error {
		_, err := tx.MoveDocument(e.ctx, pkey("final/plan.md"), "drafts/plan.md", "bob")
		return err
	})
	if d, err := e.doc(pkey("drafts/plan.md"), ""); err != nil || d.Content != src.Content {
		t.Errorf("after moving back: %+v, %v", d, err)
	}
}

func testKnowledgeDelete(t *testing.T, open func(t *testing.T) baton.Store) {
	e := knowledgeEnv(t, open)
	e.write(pkey("gone.md"), "soon gone", "alice")
	var tomb *baton.DocumentVersion
	e.update(func(tx baton.Tx) error {
		var err error
		tomb, err = tx.DeleteDocument(e.ctx, pkey("gone.md"), "", "bob")
		return err
	})
	if !tomb.Deleted || tomb.ChangeNote != "deleted" || tomb.CreatedBy != "bob" {
		t.Errorf("tombstone = %+v, want deleted with note 'deleted' by bob", tomb)
	}
	_, err := e.doc(pkey("gone.md"), "")
	wantCode(t, err, baton.ErrNotFound)
	if d, err := e.doc(pkey("gone.md"), tomb.Version); err != nil || !d.Deleted || d.Content != "" {
		t.Errorf("the tombstone by version = %+v, %v", d, err)
	}
	if got := e.paths(baton.DocumentFilter{Spaces: []baton.DocSpace{projSpace}}); len(got) != 0 {
		t.Errorf("list after delete = %v, want none", got)
	}
	if vs := e.versions(pkey("gone.md")); len(vs) != 2 || !vs[0].Deleted {
		t.Errorf("versions = %+v, want the tombstone first", vs)
	}
	err = e.tryUpdate(func(tx baton.Tx) error {
		_, err := tx.DeleteDocument(e.ctx, pkey("gone.md"), "again", "bob")
		return err
	})
	wantCode(t, err, baton.ErrNotFound)
	err = e.tryUpdate(func(tx baton.Tx) error {
		err := tx.ReplaceChunks(e.ctx, pkey("gone.md"), tomb.Version, nil)
		return err
	})
	wantCode(t, err, baton.ErrInvalidInput)
	e.write(pkey("gone.md"), "back", "carol")
	if d, err := e.doc(pkey("gone.md"), ""); err != nil || d.Content != "back" {
		t.Errorf("rewritten after delete = %+v, %v", d, err)
	}
	e.update(func(tx baton.Tx) error {
		_, err := tx.DeleteDocument(e.ctx, pkey("gone.md"), "obsolete", "bob")
		return err
	})
	if vs := e.versions(pkey("gone.md")); vs[0].ChangeNote != "obsolete" {
		t.Errorf("delete note = %q, want obsolete", vs[0].ChangeNote)
	}
}

func testKnowledgePrune(t *testing.T, open func(t *testing.T) baton.Store) {
	e := knowledgeEnv(t, open)
	a1 := e.write(pkey("a.md"), "a one", "x")
	e.chunkParagraphs(pkey("a.md"), a1)
	a2 := e.write(pkey("a.md"), "a two", "x")
	cut, _ := time.Parse(baton.VersionLayout, a2.Version)
	// a2's instant may run ahead of the clock (bumped past a1 in the same
	// millisecond); the other paths' versions must come after it.
	for !time.Now().After(cut.Add(time.Millisecond)) {
		time.Sleep(time.Millisecond)
	}
	b1 := e.write(pkey("b.md"), "b one", "x")
	e.update(func(tx baton.Tx) error { _, err := tx.DeleteDocument(e.ctx, pkey("b.md"), "", "x"); return err })
	e.write(baton.DocKey{DocSpace: globalSpace, Path: "g.md"}, "g one", "x")
	g2 := e.write(baton.DocKey{DocSpace: globalSpace, Path: "g.md"}, "g two", "x")
	a3 := e.write(pkey("a.md"), "a three", "x") // newer than the first cutoff

	prune := func(before time.Time, dry bool) baton.PruneResult {
		var r baton.PruneResult
		e.update(func(tx baton.Tx) error {
			var err error
			r, err = tx.PruneDocuments(e.ctx, []baton.DocSpace{projSpace}, before, dry)
			return err
		})
		return r
	}
	// Strictly older than a2: only a1 goes (b1 and the tombstone are newer).
	if r := prune(cut, true); r.RemovedVersions != 1 || r.RemovedChunks != 1 || r.ReclaimedBytes != 5 {
		t.Errorf("dry run = %+v, want a1's 1 version, 1 chunk, 5 bytes", r)
	}
	if len(e.versions(pkey("a.md"))) != 3 {
		t.Error("a dry run removed versions")
	}
	prune(cut, false)
	if _, err := e.doc(pkey("a.md"), a1.Version); err == nil {
		t.Error("a1 survived the prune")
	}
	// Far in the future: every row but the newest of each path goes, the
	// newest survives even when it is a tombstone; other spaces are untouched.
	if r := prune(time.Now().Add(time.Hour), false); r.RemovedVersions != 2 {
		t.Errorf("second prune removed %d versions, want a2 and b1", r.RemovedVersions)
	}
	if vs := e.versions(pkey("a.md")); len(vs) != 1 || vs[0].Version != a3.Version {
		t.Errorf("a.md versions = %+v, want only a3", vs)
	}
	if vs := e.versions(pkey("b.md")); len(vs) != 1 || !vs[0].Deleted || vs[0].Version == b1.Version {
		t.Errorf("b.md versions = %+v, want only its tombstone", vs)
	}
	if vs := e.versions(baton.DocKey{DocSpace: globalSpace, Path: "g.md"}); len(vs) != 2 || vs[0].Version != g2.Version {
		t.Errorf("global versions = %+v, want both kept", vs)
	}
	if r := prune(time.Now().Add(time.Hour), false); r.RemovedVersions != 0 {
		t.Errorf("pruning again removed %d", r.RemovedVersions)
	}
}

func testKnowledgeChunksVectors(t *testing.T, open func(t *testing.T) baton.Store) {
	e := knowledgeEnv(t, open)
	d := e.write(pkey("v.md"), "# Title\n\nbody one\n\nbody two", "x")
	cs := []*baton.Chunk{
		{Ordinal: 0, Text: "# Title\n\nbody one", Context: "", SearchText: "v.md\n\n# Title\n\nbody one", Start: 0, End: 17},
		{Ordinal: 1, Text: "body one\n\nbody two", Context: "Title", Start: 9, End: len(d.Content)},
	}
	e.update(func(tx baton.Tx) error { return tx.ReplaceChunks(e.ctx, pkey("v.md"), "", cs) })
	if cs[0].ID == 0 || cs[1].ID == cs[0].ID {
		t.Fatalf("chunk ids = %d, %d", cs[0].ID, cs[1].ID)
	}
	var got []*baton.Chunk
	e.view(func(tx baton.Tx) error {
		var err error
		got, err = tx.Chunks(e.ctx, pkey("v.md"), d.Version)
		return err
	})
	if len(got) != 2 || got[0].SearchText != cs[0].SearchText || got[1].SearchText != "body one\n\nbody two" ||
		got[1].Context != "Title" || got[1].Start != 9 || got[1].End != len(d.Content) || got[0].Key.Path != "v.md" {
		t.Errorf("chunks = %+v", got)
	}
	vec := []float32{0.25, -1.5, float32(math.Pi), 1e-30, -0}
	e.update(func(tx baton.Tx) error {
		return tx.PutVectors(e.ctx, []baton.ChunkVector{
			{ChunkID: cs[0].ID, Model: "m1", Vector: vec},
			{ChunkID: cs[1].ID, Model: "m1", Vector: []float32{1, 2, 3, 4, 5}},
			{ChunkID: cs[0].ID, Model: "m2", Vector: []float32{9}},
		})
	})
	e.update(func(tx baton.Tx) error { // replacing keeps one vector per chunk and model
		return tx.PutVectors(e.ctx, []baton.ChunkVector{{ChunkID: cs[1].ID, Model: "m1", Vector: []float32{5, 4, 3, 2, 1}}})
	})
	vectors := func(f baton.VectorFilter) []baton.ChunkVector {
		var vs []baton.ChunkVector
		e.view(func(tx baton.Tx) error {
			var err error
			vs, err = tx.ChunkVectors(e.ctx, f)
			return err
		})
		return vs
	}
	vs := vectors(baton.VectorFilter{Spaces: []baton.DocSpace{projSpace}, Model: "m1"})
	if len(vs) != 2 || !slices.Equal(vs[0].Vector, vec) || !slices.Equal(vs[1].Vector, []float32{5, 4, 3, 2, 1}) ||
		vs[1].Ordinal != 1 || vs[1].Version != d.Version || vs[0].Model != "m1" {
		t.Errorf("m1 vectors = %+v", vs)
	}
	if vs := vectors(baton.VectorFilter{Spaces: []baton.DocSpace{projSpace}, Model: "m2"}); len(vs) != 1 || vs[0].Vector[0] != 9 {
		t.Errorf("m2 vectors = %+v", vs)
	}
	if vs := vectors(baton.VectorFilter{Spaces: []baton.DocSpace{globalSpace}, Model: "m1"}); len(vs) != 0 {
		t.Errorf("global vectors = %+v, want none", vs)
	}
	// A new version hides the old vectors unless history is asked for.
	e.write(pkey("v.md"), "new", "x")
	if vs := vectors(baton.VectorFilter{Spaces: []baton.DocSpace{projSpace}, Model: "m1"}); len(vs) != 0 {
		t.Errorf("current vectors after a rewrite = %d, want 0", len(vs))
	}
	if vs := vectors(baton.VectorFilter{Spaces: []baton.DocSpace{projSpace}, Model: "m1", IncludeHistory: true}); len(vs) != 2 {
		t.Errorf("history vectors = %d, want 2", len(vs))
	}
	// Re-chunking a version drops its vectors.
	e.update(func(tx baton.Tx) error {
		return tx.ReplaceChunks(e.ctx, pkey("v.md"), d.Version, []*baton.Chunk{{Ordinal: 0, Text: "whole", Start: 0, End: len(d.Content)}})
	})
	if vs := vectors(baton.VectorFilter{Spaces: []baton.DocSpace{projSpace}, Model: "m1", IncludeHistory: true}); len(vs) != 0 {
		t.Errorf("vectors after re-chunking = %d, want 0", len(vs))
	}
	bad := []struct {
		name string
		fn   func(tx baton.Tx) error
		code string
	}{
		{"unknown chunk", func(tx baton.Tx) error {
			return tx.PutVectors(e.ctx, []baton.ChunkVector{{ChunkID: 999999, Model: "m", Vector: []float32{1}}})
		}, baton.ErrNotFound},
		{"no model", func(tx baton.Tx) error {
			return tx.PutVectors(e.ctx, []baton.ChunkVector{{ChunkID: cs[0].ID, Vector: []float32{1}}})
		}, baton.ErrInvalidInput},
		{"empty vector", func(tx baton.Tx) error {
			return tx.PutVectors(e.ctx, []baton.ChunkVector{{ChunkID: cs[0].ID, Model: "m"}})
		}, baton.ErrInvalidInput},
		{"too wide", func(tx baton.Tx) error {
			return tx.PutVectors(e.ctx, []baton.ChunkVector{{ChunkID: cs[0].ID, Model: "m", Vector: make([]float32, baton.MaxVectorDims+1)}})
		}, baton.ErrInvalidInput},
		{"ordinal gap", func(tx baton.Tx) error {
			return tx.ReplaceChunks(e.ctx, pkey("v.md"), "", []*baton.Chunk{{Ordinal: 1, Text: "n", End: 1}})
		}, baton.ErrInvalidInput},
		{"offsets past the content", func(tx baton.Tx) error {
			return tx.ReplaceChunks(e.ctx, pkey("v.md"), "", []*baton.Chunk{{Ordinal: 0, Text: "n", End: 99}})
		}, baton.ErrInvalidInput},
		{"unknown version", func(tx baton.Tx) error {
			return tx.ReplaceChunks(e.ctx, pkey("v.md"), "2001-01-01T00:00:00.000Z", nil)
		}, baton.ErrNotFound},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) { wantCode(t, e.tryUpdate(tc.fn), tc.code) })
	}
}

// searchDocs are the ranking table's documents, one chunk each.
var searchDocs = map[string]string{
	"vectors.md":  "Vector search compares embedding vectors by cosine similarity. Vectors are normalised before the vector index is built.",
	"fts.md":      "Full text search orders documents by term frequency and inverse document frequency with the bm25 formula.",
	"hybrid.md":   "Hybrid search fuses the vector ranking with the full text ranking by reciprocal rank fusion.",
	"cooking.md":  "Slow cooking keeps the stew tender; season with salt and pepper before serving.",
	"postgres.md": "PostgreSQL stores tsvector columns and ranks them with ts_rank; SQLite uses FTS5.",
}

func testKnowledgeSearchRanking(t *testing.T, open func(t *testing.T) baton.Store) {
	e := knowledgeEnv(t, open)
	for _, p := range slices.Sorted(func(yield func(string) bool) {
		for k := range searchDocs {
			if !yield(k) {
				return
			}
		}
	}) {
		d := e.write(pkey(p), searchDocs[p], "x")
		e.chunkParagraphs(pkey(p), d)
	}
	// An old version's words must not match: only current chunks count.
	old := e.write(pkey("stale.md"), "cosine cosine cosine fusion", "x")
	e.chunkParagraphs(pkey("stale.md"), old)
	e.write(pkey("stale.md"), "nothing relevant", "x")
	// Another space's documents stay out.
	g := e.write(baton.DocKey{DocSpace: globalSpace, Path: "global.md"}, "cosine vector fusion", "x")
	e.chunkParagraphs(baton.DocKey{DocSpace: globalSpace, Path: "global.md"}, g)

	cases := []struct {
		query string
		want  []string
	}{
		{"vector", []string{"vectors.md", "hybrid.md"}},
		{"cosine", []string{"vectors.md"}},
		{"rank fusion", []string{"hybrid.md", "postgres.md"}},
		{"Stew!", []string{"cooking.md"}},
		{"tsvector", []string{"postgres.md"}},
		{"bm25 frequency", []string{"fts.md"}},
		{"zebra", nil},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			var hits []baton.ChunkHit
			e.view(func(tx baton.Tx) error {
				var err error
				hits, err = tx.SearchChunks(e.ctx, baton.ChunkQuery{Spaces: []baton.DocSpace{projSpace}, Text: tc.query})
				return err
			})
			var got []string
			for i, h := range hits {
				got = append(got, h.Chunk.Key.Path)
				if i > 0 && h.Score < hits[i-1].Score {
					t.Errorf("hit %d scores %v, better than hit %d's %v", i, h.Score, i-1, hits[i-1].Score)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("SearchChunks(%q) = %v, want %v", tc.query, got, tc.want)
			}
		})
	}
	// Both spaces, a prefix and a limit.
	var hits []baton.ChunkHit
	e.view(func(tx baton.Tx) error {
		var err error
		hits, err = tx.SearchChunks(e.ctx, baton.ChunkQuery{Spaces: []baton.DocSpace{projSpace, globalSpace}, Text: "cosine", Limit: 5})
		return err
	})
	if len(hits) != 2 {
		t.Errorf("cosine over both spaces = %d hits, want 2", len(hits))
	}
	e.view(func(tx baton.Tx) error {
		var err error
		hits, err = tx.SearchChunks(e.ctx, baton.ChunkQuery{Spaces: []baton.DocSpace{projSpace}, Text: "vector search", PathPrefix: "h", Limit: 1})
		return err
	})
	if len(hits) != 1 || hits[0].Chunk.Key.Path != "hybrid.md" || hits[0].Chunk.Text != searchDocs["hybrid.md"] {
		t.Errorf("prefix h, limit 1 = %+v, want hybrid.md", hits)
	}
}

func testKnowledgeLimits(t *testing.T, open func(t *testing.T) baton.Store) {
	e := knowledgeEnv(t, open)
	paths := []struct {
		path string
		ok   bool
	}{
		{"notes/a.md", true},
		{"dir/", true},
		{"", false},
		{"///", false},
		{"a//b", false},
		{"a/../b", false},
		{"a\x00b", false},
		{"a\nb", false},
		{strings.Repeat("p", baton.MaxDocumentPath), true},
		{strings.Repeat("p", baton.MaxDocumentPath+1), false},
	}
	for _, tc := range paths {
		err := e.tryUpdate(func(tx baton.Tx) error {
			return tx.PutDocument(e.ctx, &baton.Document{DocKey: pkey(tc.path), Content: "c", UpdatedBy: "x"})
		})
		if tc.ok && err != nil {
			t.Errorf("path %.20q: %v", tc.path, err)
		}
		if !tc.ok {
			wantCode(t, err, baton.ErrInvalidInput)
		}
	}
	for name, d := range map[string]*baton.Document{
		"too large": {DocKey: pkey("big.md"), Content: strings.Repeat("x", baton.MaxDocumentBytes+1), UpdatedBy: "x"},
		"bad utf-8": {DocKey: pkey("bin.md"), Content: "\xff\xfe", UpdatedBy: "x"},
		"no writer": {DocKey: pkey("anon.md"), Content: "c"},
	} {
		t.Run(name, func(t *testing.T) {
			wantCode(t, e.tryUpdate(func(tx baton.Tx) error { return tx.PutDocument(e.ctx, d) }), baton.ErrInvalidInput)
		})
	}
	// Search: no words is bad input; the limit is capped.
	err := e.s.View(e.ctx, func(tx baton.Tx) error {
		_, err := tx.SearchChunks(e.ctx, baton.ChunkQuery{Spaces: []baton.DocSpace{projSpace}, Text: " ?! "})
		return err
	})
	wantCode(t, err, baton.ErrInvalidInput)
	n := 0
	e.update(func(tx baton.Tx) error {
		d := &baton.Document{DocKey: pkey("many.md"), Content: strings.Repeat("w", baton.MaxChunkSearchLimit+5), UpdatedBy: "x"}
		if err := tx.PutDocument(e.ctx, d); err != nil {
			return err
		}
		cs := make([]*baton.Chunk, baton.MaxChunkSearchLimit+5)
		for i := range cs {
			cs[i] = &baton.Chunk{Ordinal: i, Text: "needle", Start: i, End: i + 1}
		}
		return tx.ReplaceChunks(e.ctx, d.DocKey, d.Version, cs)
	})
	e.view(func(tx baton.Tx) error {
		hits, err := tx.SearchChunks(e.ctx, baton.ChunkQuery{Spaces: []baton.DocSpace{projSpace}, Text: "needle", Limit: baton.MaxChunkSearchLimit * 10})
		n = len(hits)
		return err
	})
	if n != baton.MaxChunkSearchLimit {
		t.Errorf("search with a huge limit returned %d hits, want the cap %d", n, baton.MaxChunkSearchLimit)
	}
}
