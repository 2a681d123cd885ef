// Package testkit builds the real parts tests run against: a SQLite store
// on a temporary file with a project, the full registry and an
// environment, and helpers to call tools the way clients do.
package testkit

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/sqlite"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools"
)

// Project and Prefix name the project every Kit starts with.
const (
	Project = "colibri"
	Prefix  = "COL"
)

// Kit is one isolated baton: its own database file, registry and identity.
type Kit struct {
	T         testing.TB
	Store     *sqlite.Store
	Registry  *tool.Registry
	Env       *tool.Env
	Principal baton.Principal
	DBPath    string
}

// New opens a fresh store in t's temporary directory with the project
// colibri (prefix COL) and the full registry, acting as agent-alice.
func New(t testing.TB) *Kit {
	t.Helper()
	return open(t, nil)
}

// NewAt is New on a fake clock, given to the store as well as to the tools,
// as the CLI does: the store reads its own clock where its interface takes
// no "now" (lazy claim expiry), so both must agree.
func NewAt(t testing.TB, c *Clock) *Kit {
	t.Helper()
	k := open(t, c.Now)
	k.Env.Clock = c.Now
	return k
}

func open(t testing.TB, clock baton.Clock) *Kit {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "baton.db")
	s, err := sqlite.Open(ctx, path, sqlite.Options{Clock: clock})
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Update(ctx, func(tx baton.Tx) error {
		return tx.CreateProject(ctx, &baton.Project{Slug: Project, Prefix: Prefix})
	}); err != nil {
		t.Fatalf("create project: %v", err)
	}
	reg := tools.Registry()
	return &Kit{
		T: t, Store: s, Registry: reg, DBPath: path,
		Env: &tool.Env{Store: s, Registry: reg, DataDir: dir, WorkDir: dir,
			Server: tool.ServerInfo{Version: "test", Mode: "TEST", Started: time.Now()}},
		Principal: baton.Principal{Agent: "agent-alice", Source: baton.SourceTest},
	}
}

// Call runs a tool directly with args (a JSON string, a map or a struct).
func (k *Kit) Call(name string, args any) tool.Result {
	k.T.Helper()
	return k.Registry.Call(context.Background(), k.Env, k.Principal, name, Raw(k.T, args))
}

// As returns a copy of the kit acting as another agent.
func (k *Kit) As(agent string) *Kit {
	c := *k
	c.Principal.Agent = agent
	return &c
}

// OK runs a tool, fails the test on an error result, and decodes the
// structured output into a generic map.
func (k *Kit) OK(name string, args any) map[string]any {
	k.T.Helper()
	res := k.Call(name, args)
	if res.Err != nil {
		k.T.Fatalf("%s(%s): unexpected error %s", name, Raw(k.T, args), res.Text)
	}
	return Decode(k.T, res.Output)
}

// Fail runs a tool and fails the test unless it returns the error code.
func (k *Kit) Fail(name string, args any, code string) *baton.Error {
	k.T.Helper()
	res := k.Call(name, args)
	if res.Err == nil {
		k.T.Fatalf("%s(%s): want %s, got success %s", name, Raw(k.T, args), code, res.Text)
	}
	if res.Err.Code != code {
		k.T.Fatalf("%s(%s): want %s, got %s", name, Raw(k.T, args), code, res.Text)
	}
	return res.Err
}

// Raw turns args into JSON: strings are taken as JSON text.
func Raw(t testing.TB, args any) json.RawMessage {
	t.Helper()
	switch a := args.(type) {
	case nil:
		return json.RawMessage("{}")
	case string:
		return json.RawMessage(a)
	case json.RawMessage:
		return a
	}
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatalf("marshal args: %v", err)
	}
	return b
}

// Decode round-trips v through JSON into a generic map.
func Decode(t testing.TB, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("unmarshal: %v", err)
	}
	return m
}

// On returns a copy of k reporting failures to t: a kit built by a parent
// test must not call Fatal on the parent from a subtest.
func (k *Kit) On(t testing.TB) *Kit {
	c := *k
	c.T = t
	return &c
}

// APIError is the inner object of the error envelope as a client reads it.
type APIError struct {
	Code    string         `json:"code"`
	Type    string         `json:"type"`
	Message string         `json:"message"`
	Details map[string]any `json:"details"`
	Hint    string         `json:"next_action_hint"`
}

// FailEnvelope calls a tool that must fail with code and returns the error
// decoded from the text a client receives, checking the envelope's shape:
// one "error" key, the expected code (also in Result.Err), a message and a
// type.
func (k *Kit) FailEnvelope(name string, args any, code string) APIError {
	k.T.Helper()
	res := k.Call(name, args)
	if res.Err == nil {
		k.T.Fatalf("%s(%s) as %s: want %s, got success %s", name, Raw(k.T, args), k.Principal.Agent, code, res.Text)
	}
	var env map[string]json.RawMessage
	if err := json.Unmarshal([]byte(res.Text), &env); err != nil {
		k.T.Fatalf("%s: error text is not JSON: %v: %s", name, err, res.Text)
	}
	if len(env) != 1 || env["error"] == nil {
		k.T.Fatalf("%s: error text is not the envelope {\"error\": {...}}: %s", name, res.Text)
	}
	var e APIError
	if err := json.Unmarshal(env["error"], &e); err != nil {
		k.T.Fatalf("%s: decode envelope: %v", name, err)
	}
	if e.Code != code {
		k.T.Fatalf("%s(%s) as %s: want %s, got %s", name, Raw(k.T, args), k.Principal.Agent, code, res.Text)
	}
	if res.Err.Code != e.Code {
		k.T.Fatalf("%s: Result.Err code %s differs from the envelope's %s", name, res.Err.Code, e.Code)
	}
	if e.Message == "" || e.Type == "" {
		k.T.Fatalf("%s: envelope lacks message or type: %s", name, res.Text)
	}
	return e
}

// AddProject creates another project beside colibri.
func (k *Kit) AddProject(slug, prefix string) {
	k.T.Helper()
	ctx := context.Background()
	if err := k.Store.Update(ctx, func(tx baton.Tx) error {
		return tx.CreateProject(ctx, &baton.Project{Slug: slug, Prefix: prefix})
	}); err != nil {
		k.T.Fatalf("create project %s: %v", slug, err)
	}
}

// StoreItem creates an item directly through the store, for what the tools
// under test cannot produce (any status or kind, a parent, a chosen
// creation time). Empty fields default to a todo task titled "item" in
// colibri, created by agent-alice.
func (k *Kit) StoreItem(it *baton.Item) string {
	k.T.Helper()
	ctx := context.Background()
	if it.Project == "" {
		it.Project = Project
	}
	if it.Status == "" {
		it.Status = baton.StatusTodo
	}
	if it.Kind == "" {
		it.Kind = baton.KindTask
	}
	if it.Title == "" {
		it.Title = "item"
	}
	if it.CreatedBy == "" {
		it.CreatedBy = "agent-alice"
	}
	if err := k.Store.Update(ctx, func(tx baton.Tx) error { return tx.CreateItem(ctx, it) }); err != nil {
		k.T.Fatalf("create item: %v", err)
	}
	return it.ID
}

// Depend records that id cannot start before dependsOn is done.
func (k *Kit) Depend(id, dependsOn string) {
	k.T.Helper()
	ctx := context.Background()
	if err := k.Store.Update(ctx, func(tx baton.Tx) error { return tx.AddDependency(ctx, id, dependsOn) }); err != nil {
		k.T.Fatalf("add dependency %s -> %s: %v", id, dependsOn, err)
	}
}
