package vault_test

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/knowledge"
	"github.com/baton-dev/baton/tool"
)

// project is the project the vault sessions work in; testkit's colibri
// stays beside it as "another project".
const project = "sym"

// fx is a baton with project sym, whose directory is a real temporary
// directory, and a session of sym.
type fx struct {
	t    *testing.T
	k    *testkit.Kit
	root string
}

var (
	symSpace    = baton.DocSpace{Scope: baton.ScopeProject, Project: project}
	globalSpace = baton.DocSpace{Scope: baton.ScopeGlobal}
	otherSpace  = baton.DocSpace{Scope: baton.ScopeProject, Project: testkit.Project}
)

func setup(t *testing.T) *fx {
	t.Helper()
	k := testkit.New(t)
	f := &fx{t: t, k: k, root: t.TempDir()}
	ctx := context.Background()
	if err := k.Store.Update(ctx, func(tx baton.Tx) error {
		return tx.CreateProject(ctx, &baton.Project{Slug: project, Prefix: "SYM", Root: f.root})
	}); err != nil {
		t.Fatal(err)
	}
	k.Principal.Project = project
	return f
}

// as is a session of sym under a profile.
func (f *fx) as(agent, profile string) *testkit.Kit {
	c := *f.k
	c.Principal = baton.Principal{Agent: agent, Profile: profile, AgentType: profile, Project: project, Source: baton.SourceTest}
	return &c
}

// with is the session on an environment of its own using emb.
func (f *fx) with(emb baton.Embedder) *testkit.Kit {
	c := *f.k
	c.Env = &tool.Env{Store: f.k.Store, Registry: f.k.Registry, DataDir: f.k.Env.DataDir, WorkDir: f.root,
		Server: f.k.Env.Server, Embedder: emb}
	return &c
}

// write creates or replaces a file under dir.
func (f *fx) write(dir, name, content string) string {
	f.t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
	return p
}

// put stores a document directly, chunked and embedded, in any space.
func (f *fx) put(space baton.DocSpace, path, content string) {
	f.t.Helper()
	ctx := context.Background()
	if err := f.k.Store.Update(ctx, func(tx baton.Tx) error {
		return knowledge.Write(ctx, tx, f.k.Env.Embed(), &baton.Document{DocKey: baton.DocKey{DocSpace: space, Path: path},
			Content: content, ContentType: "text/markdown", SourceType: baton.SourceInline, UpdatedBy: "agent-setup"}, nil)
	}); err != nil {
		f.t.Fatal(err)
	}
}

// doc is the current version of path in space, or nil.
func (f *fx) doc(space baton.DocSpace, path string) *baton.Document {
	f.t.Helper()
	var d *baton.Document
	ctx := context.Background()
	err := f.k.Store.View(ctx, func(tx baton.Tx) (err error) {
		d, err = tx.Document(ctx, baton.DocKey{DocSpace: space, Path: path}, "")
		return err
	})
	if e := baton.AsError(err); e != nil {
		if e.Code == baton.ErrNotFound {
			return nil
		}
		f.t.Fatal(err)
	}
	return d
}

// versions lists every kept version of path in sym, newest first.
func (f *fx) versions(path string) []*baton.DocumentVersion {
	f.t.Helper()
	var vs []*baton.DocumentVersion
	ctx := context.Background()
	err := f.k.Store.View(ctx, func(tx baton.Tx) (err error) {
		vs, err = tx.DocumentVersions(ctx, baton.DocKey{DocSpace: symSpace, Path: path})
		return err
	})
	if e := baton.AsError(err); e != nil && e.Code != baton.ErrNotFound {
		f.t.Fatal(err)
	}
	return vs
}

// vectors counts the vectors of model on the current version of path in sym.
func (f *fx) vectors(path, model string) int {
	f.t.Helper()
	var vs []baton.ChunkVector
	ctx := context.Background()
	if err := f.k.Store.View(ctx, func(tx baton.Tx) (err error) {
		vs, err = tx.ChunkVectors(ctx, baton.VectorFilter{Spaces: []baton.DocSpace{symSpace}, PathPrefix: path, Model: model})
		return err
	}); err != nil {
		f.t.Fatal(err)
	}
	return len(vs)
}

// documents counts the stored versions of every space, tombstones included.
func (f *fx) documents() int { return f.k.Count(`SELECT COUNT(*) FROM documents`) }

// hashEmbedder is a second embedding model: deterministic vectors from a
// hash of the text, standing for "the model changed since".
type hashEmbedder struct{}

func (hashEmbedder) Model() string { return "test-hash-8d" }
func (hashEmbedder) Dims() int     { return 8 }
func (hashEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, s := range texts {
		sum := sha256.Sum256([]byte(s))
		v := make([]float32, 8)
		for d := range v {
			v[d] = float32(binary.LittleEndian.Uint16(sum[2*d:])) + 1
		}
		out[i] = v
	}
	return out, nil
}

// results is a search's results as maps.
func results(t *testing.T, out map[string]any) []map[string]any {
	t.Helper()
	rs, ok := out["results"].([]any)
	if !ok {
		t.Fatalf("no results array in %v", out)
	}
	res := make([]map[string]any, len(rs))
	for i, r := range rs {
		res[i] = r.(map[string]any)
	}
	if n, _ := out["total"].(float64); int(n) != len(res) {
		t.Fatalf("total %v for %d results", out["total"], len(res))
	}
	return res
}

// sources are the source (search_knowledge) or path (vault_retrieve) of
// each result.
func sources(rs []map[string]any) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		if s, ok := r["source"].(string); ok {
			out[i] = s
		} else {
			out[i], _ = r["path"].(string)
		}
	}
	return out
}
