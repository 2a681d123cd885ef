package cli_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	core "github.com/baton-dev/baton"
	"github.com/baton-dev/baton/cli"
	"github.com/baton-dev/baton/embedding"
	"github.com/baton-dev/baton/knowledge"
	"github.com/baton-dev/baton/sqlite"
)

// writeDocs writes documents into the database at dbPath the way a write
// does while no embedder answers: chunks without vectors.
func writeDocs(t *testing.T, dbPath string, docs map[core.DocKey]string) {
	t.Helper()
	ctx := context.Background()
	s, err := sqlite.Open(ctx, dbPath, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Update(ctx, func(tx core.Tx) error {
		for k, content := range docs {
			if err := knowledge.Write(ctx, tx, nil, &core.Document{DocKey: k, Content: content, ContentType: "text/markdown", UpdatedBy: "test"}, nil); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// staleVersions lists the current versions of dbPath lacking vectors of model.
func staleVersions(t *testing.T, dbPath, model string) []core.StaleVersion {
	t.Helper()
	ctx := context.Background()
	s, err := sqlite.Open(ctx, dbPath, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out []core.StaleVersion
	if err := s.View(ctx, func(tx core.Tx) (err error) {
		out, err = tx.StaleVersions(ctx, model, 100)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

var (
	globalSpace  = core.DocSpace{Scope: core.ScopeGlobal}
	colibriSpace = core.DocSpace{Scope: core.ScopeProject, Project: "colibri"}
)

func TestKnowledgeReindex(t *testing.T) {
	env := newDB(t)
	t.Chdir(t.TempDir()) // no baton.toml here: the built-in embedder
	db := env["BATON_DB"]
	writeDocs(t, db, map[core.DocKey]string{
		{DocSpace: globalSpace, Path: "notes/cache.md"}:   "# Cache\n\nThe build cache keeps compiled packages between runs.\n",
		{DocSpace: colibriSpace, Path: "design/queue.md"}: "# Queue\n\nJobs wait in a queue until a worker claims them.\n",
	})
	if got := staleVersions(t, db, embedding.BuiltinModel); len(got) != 2 {
		t.Fatalf("before: %d stale versions, want 2", len(got))
	}
	r := baton(t, env, "knowledge", "reindex")
	if r.code != 0 || !strings.Contains(r.stdout, "re-indexed 2 document versions with "+embedding.BuiltinModel) {
		t.Fatalf("reindex = %+v", r)
	}
	if got := staleVersions(t, db, embedding.BuiltinModel); len(got) != 0 {
		t.Fatalf("after: stale versions %+v", got)
	}
	// The vectors are there: a vectors-only search finds the document.
	ctx := context.Background()
	s, err := sqlite.Open(ctx, db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var hits []knowledge.Hit
	err = s.View(ctx, func(tx core.Tx) (err error) {
		hits, err = knowledge.Search(ctx, tx, embedding.NewBuiltin(), knowledge.Query{Spaces: []core.DocSpace{colibriSpace},
			Query: "workers claim jobs", Mode: knowledge.ModeSemantic, Limit: 1})
		return err
	})
	s.Close()
	if err != nil || len(hits) != 1 || hits[0].Key.Path != "design/queue.md" {
		t.Fatalf("semantic search after reindex = %+v, %v", hits, err)
	}

	r = baton(t, env, "knowledge", "reindex", "--json")
	var out struct {
		Reindexed *int   `json:"reindexed"`
		Model     string `json:"model"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); r.code != 0 || err != nil || out.Reindexed == nil || *out.Reindexed != 0 || out.Model != embedding.BuiltinModel {
		t.Fatalf("second reindex --json = %+v (%v)", r, err)
	}
	if r := baton(t, env, "knowledge", "reindex"); r.code != 0 || !strings.Contains(r.stdout, "nothing to re-index") {
		t.Fatalf("third reindex = %+v", r)
	}
}

// fakeEmbeddings is an OpenAI-compatible /embeddings endpoint on loopback
// answering 3-dimensional vectors.
func fakeEmbeddings(t *testing.T, calls *atomic.Int32) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if r.URL.Path != "/v1/embeddings" || json.NewDecoder(r.Body).Decode(&req) != nil || req.Model != "fake-embed" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		calls.Add(1)
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var data []item
		for i, in := range req.Input {
			data = append(data, item{Index: i, Embedding: []float32{float32(len(in)), 1, float32(i + 1)}})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"data": data})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestKnowledgeConfiguredEmbedder: [embedding] of baton.toml chooses the
// embedder reindex uses; a broken table fails every command that builds a
// tool environment, rather than being ignored.
func TestKnowledgeConfiguredEmbedder(t *testing.T) {
	env := newDB(t)
	dir := t.TempDir()
	t.Chdir(dir)
	var calls atomic.Int32
	srv := fakeEmbeddings(t, &calls)
	conf := "[embedding]\nprovider = \"openai\"\nurl = \"" + srv.URL + "/v1\"\nmodel = \"fake-embed\"\ndims = 3\n"
	if err := os.WriteFile(filepath.Join(dir, "baton.toml"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	db := env["BATON_DB"]
	writeDocs(t, db, map[core.DocKey]string{{DocSpace: globalSpace, Path: "a.md"}: "# A\n\nSome text about alpha.\n"})
	r := baton(t, env, "knowledge", "reindex")
	if r.code != 0 || !strings.Contains(r.stdout, "re-indexed 1 document versions with fake-embed") || calls.Load() == 0 {
		t.Fatalf("reindex with ./baton.toml = %+v (%d calls)", r, calls.Load())
	}
	if got := staleVersions(t, db, "fake-embed"); len(got) != 0 {
		t.Fatalf("stale after reindex: %+v", got)
	}
	// Still stale for the built-in model, which is not the configured one.
	if got := staleVersions(t, db, embedding.BuiltinModel); len(got) != 1 {
		t.Fatalf("built-in model: %d stale, want 1", len(got))
	}

	// BATON_CONFIG names the file; --config wins over it.
	bad := filepath.Join(t.TempDir(), "bad.toml")
	if err := os.WriteFile(bad, []byte("[embedding]\nprovider = \"magic\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env["BATON_CONFIG"] = bad
	for _, args := range [][]string{{"knowledge", "reindex"}, {"tasks", "task_list"}, {"knowledge", "eval", "--dir", dir}} {
		r := baton(t, env, args...)
		if r.code == 0 || !strings.Contains(r.stderr, "ERR_CONFIG_INVALID") || !strings.Contains(r.stderr, "magic") {
			t.Errorf("%v with a broken [embedding] = %+v", args, r)
		}
	}
	if r := baton(t, env, "knowledge", "reindex", "--config", filepath.Join(dir, "baton.toml")); r.code != 0 || !strings.Contains(r.stdout, "nothing to re-index") {
		t.Errorf("--config over BATON_CONFIG = %+v", r)
	}
	env["BATON_CONFIG"] = filepath.Join(dir, "missing.toml")
	if r := baton(t, env, "knowledge", "reindex"); r.code == 0 || !strings.Contains(r.stderr, "ERR_CONFIG_INVALID") {
		t.Errorf("a named config file that is missing = %+v", r)
	}
}

func TestKnowledgeEval(t *testing.T) {
	work := t.TempDir()
	t.Chdir(work) // no database and no baton.toml here: eval needs neither
	set := t.TempDir()
	cli.WriteEvalSet(t, set)
	r := baton(t, nil, "knowledge", "eval", "--dir", set)
	if r.code != 0 {
		t.Fatalf("eval = %+v", r)
	}
	for _, want := range []string{"3 documents", "2 queries (1 paraphrase, 1 keyword)", embedding.BuiltinModel, "RECALL@5", "MRR",
		"PARAPHRASE R@5", "KEYWORD R@5", "keyword (bm25 alone)", "semantic (vectors alone)", "hybrid (fused)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("eval output lacks %q:\n%s", want, r.stdout)
		}
	}
	// bm25 finds the keyword query's answer first: its row starts 1.000 1.000 for that kind.
	for _, line := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(line, "keyword (bm25 alone)") && !strings.HasSuffix(strings.Join(strings.Fields(line), " "), "1.000 1.000") {
			t.Errorf("bm25 row = %q, want the keyword query found first", line)
		}
	}
	if entries, _ := os.ReadDir(work); len(entries) != 0 {
		t.Errorf("eval left %v in the working directory", entries)
	}

	r = baton(t, nil, "knowledge", "eval", "--dir", set, "--json", "--semantic-weight", "0.3")
	var rep knowledge.EvalReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); r.code != 0 || err != nil {
		t.Fatalf("eval --json = %+v (%v)", r, err)
	}
	if rep.Docs != 3 || rep.Queries != 2 || rep.SemanticWeight != 0.3 || len(rep.Modes) != 3 || len(rep.PerQuery) != 2 {
		t.Fatalf("report = %+v", rep)
	}
	for i, mode := range []string{knowledge.ModeKeyword, knowledge.ModeSemantic, knowledge.ModeHybrid} {
		m := rep.Modes[i]
		if m.Mode != mode || m.Recall < 0 || m.Recall > 1 || m.MRR < 0 || m.MRR > 1 || m.ByKind[knowledge.EvalKeyword].Queries != 1 {
			t.Errorf("mode %d = %+v", i, m)
		}
	}
	if k := rep.Mode(knowledge.ModeKeyword).ByKind[knowledge.EvalKeyword]; k.Recall != 1 || k.MRR != 1 {
		t.Errorf("bm25 on the keyword query: %+v", k)
	}

	if r := baton(t, nil, "knowledge", "eval", "--dir", filepath.Join(set, "nope")); r.code != 2 || !strings.Contains(r.stderr, "ERR_INVALID_INPUT") {
		t.Errorf("eval of a missing directory = %+v", r)
	}
	if r := baton(t, nil, "knowledge", "eval", "--dir", set, "--semantic-weight", "2"); r.code != 2 {
		t.Errorf("eval with a weight of 2 = %+v", r)
	}
}

// TestKnowledgeEvalBuiltinSet runs the evaluation on the set built into
// the binary (several seconds).
func TestKnowledgeEvalBuiltinSet(t *testing.T) {
	if testing.Short() {
		t.Skip("the built-in evaluation takes several seconds")
	}
	t.Chdir(t.TempDir())
	r := baton(t, nil, "knowledge", "eval", "--json")
	var rep knowledge.EvalReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); r.code != 0 || err != nil {
		t.Fatalf("eval --json = %d %s (%v)", r.code, r.stderr, err)
	}
	if rep.Docs < 300 || rep.Queries < 60 || len(rep.Modes) != 3 || rep.Model != embedding.BuiltinModel {
		t.Fatalf("report: %d docs, %d queries, %d modes, model %s", rep.Docs, rep.Queries, len(rep.Modes), rep.Model)
	}
	for _, m := range rep.Modes {
		if m.Recall <= 0 || m.Recall > 1 || m.MRR <= 0 || m.MRR > 1 {
			t.Errorf("%s: recall %v, MRR %v", m.Mode, m.Recall, m.MRR)
		}
	}
}
