package mcpserver_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/mcpserver"
	"github.com/baton-dev/baton/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// session connects a real go-sdk client, in memory, to the kit's server
// as p.
func session(t *testing.T, k *testkit.Kit, p baton.Principal) *mcp.ClientSession {
	t.Helper()
	f := mcpserver.NewFactory(k.Registry, k.Env, "test")
	st, ct := mcp.NewInMemoryTransports()
	ss, err := f.Server(p).Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func listed(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var out []string
	for tl, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tl.Name)
	}
	return out
}

// callErr calls a tool and returns the error envelope's code and type, or
// "" for success.
func callErr(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (code, typ string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !res.IsError {
		return "", ""
	}
	b, _ := json.Marshal(res.StructuredContent)
	var env struct{ Error baton.Error }
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatalf("%s: error result without an envelope: %s", name, b)
	}
	return env.Error.Code, env.Error.Type
}

// TestScopeEnforcedBothWays: a profile's session lists only its tools, and
// calling another tool, registered or not, is ERR_PERMISSION_DENIED before
// its arguments are looked at.
func TestScopeEnforcedBothWays(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	worker := baton.Principal{Agent: "agent-w", Profile: "worker", Source: baton.SourceStdio}
	cs := session(t, k, worker)
	tools := listed(t, cs)
	for _, want := range []string{"get_issue", "add_finding", "claim_next", "record_test_health"} {
		if !slices.Contains(tools, want) {
			t.Errorf("worker does not list %s", want)
		}
	}
	for _, absent := range []string{"move_issue", "record_coverage", "merkle_finalize", "query_run_events"} {
		if slices.Contains(tools, absent) {
			t.Errorf("worker lists %s", absent)
		}
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"move_issue", map[string]any{"issue_id": "COL-1", "target_project": "x"}},
		{"move_issue", map[string]any{"not": "even valid"}},
		{"merkle_finalize", map[string]any{"session_id": "A-0001"}},
		{"no_such_tool", nil},
	} {
		if code, typ := callErr(t, cs, tc.tool, tc.args); code != baton.ErrPermissionDenied || typ != "out_of_scope" {
			t.Errorf("worker calls %s(%v): %s %s, want ERR_PERMISSION_DENIED out_of_scope", tc.tool, tc.args, code, typ)
		}
	}
	// The same call through the registry (the CLI's and tests' path).
	if res := k.Registry.Call(context.Background(), k.Env, worker, "move_issue", testkit.Raw(t, `{}`)); res.Err == nil || res.Err.Code != baton.ErrPermissionDenied {
		t.Errorf("registry call out of scope = %+v", res.Err)
	}
	// Without a profile, with the full preset, everything is listed but
	// the privileged tools, which only a grant gives (issue 12, point 1),
	// and calling one is refused the same way.
	bare := session(t, k, baton.Principal{Agent: "setup", Source: baton.SourceStdio, Preset: tool.PresetFull})
	var want []string
	for _, tl := range k.Registry.All() {
		if !tl.Spec().Annotations.Privileged && tl.Spec().AliasOf == "" {
			want = append(want, tl.Spec().Name)
		}
	}
	if got := listed(t, bare); len(got) != len(want) || slices.Contains(got, "merkle_finalize") {
		t.Errorf("a session without a profile lists %d tools (merkle_finalize: %v), want the %d unprivileged ones",
			len(got), slices.Contains(got, "merkle_finalize"), len(want))
	}
	if code, typ := callErr(t, bare, "merkle_finalize", map[string]any{"session_id": "A-0001"}); code != baton.ErrPermissionDenied || typ != "out_of_scope" {
		t.Errorf("a session without a profile calls merkle_finalize: %s %s, want ERR_PERMISSION_DENIED out_of_scope", code, typ)
	}
	// Naming nothing at all gives the core preset: that list exactly, and
	// a tool outside it is refused before its arguments are read.
	core := session(t, k, baton.Principal{Agent: "newcomer", Source: baton.SourceStdio})
	got := listed(t, core)
	slices.Sort(got)
	if wantCore := tool.PresetTools(k.Registry, tool.PresetCore); !slices.Equal(got, wantCore) {
		t.Errorf("a session naming nothing lists %v, want the core preset %v", got, wantCore)
	}
	if code, typ := callErr(t, core, "task_create", map[string]any{}); code != baton.ErrPermissionDenied || typ != "out_of_scope" {
		t.Errorf("a core session calls task_create: %s %s, want ERR_PERMISSION_DENIED out_of_scope", code, typ)
	}
}

// TestScopeFromStoreAndBundles: stored profile settings, skill bundles and
// the project bundle shape the list a session sees.
func TestScopeFromStoreAndBundles(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	ctx := context.Background()
	skill := filepath.Join(k.Env.WorkDir, ".agents", "skills", "coverage")
	if err := os.MkdirAll(skill, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("---\ndescription: track coverage\nbaton-tools: [record_coverage]\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := k.Store.Update(ctx, func(tx baton.Tx) error {
		if err := tx.PutProfile(ctx, &baton.Profile{Name: "worker", AllowedTools: []string{"get_issue", "add_finding", "merkle_finalize"},
			Skills: []string{"coverage"}}); err != nil {
			return err
		}
		if err := tx.PutProfile(ctx, &baton.Profile{Name: "auditor", Extends: "judge", DisallowedTools: []string{"add_comment"}}); err != nil {
			return err
		}
		return tx.SetProjectTools(ctx, testkit.Project, []string{"move_issue"})
	}); err != nil {
		t.Fatal(err)
	}
	w := listed(t, session(t, k, baton.Principal{Agent: "w", Profile: "worker", Project: testkit.Project, Source: baton.SourceStdio}))
	slices.Sort(w)
	if want := []string{"add_finding", "get_issue", "merkle_finalize", "move_issue", "record_coverage"}; !slices.Equal(w, want) {
		t.Errorf("worker with settings and bundles lists %v, want %v", w, want)
	}
	a := listed(t, session(t, k, baton.Principal{Agent: "a", Profile: "auditor", Source: baton.SourceStdio}))
	if slices.Contains(a, "add_comment") || !slices.Contains(a, "get_issue") || slices.Contains(a, "move_issue") {
		t.Errorf("auditor (judge minus add_comment, no project) lists %v", a)
	}
	if g := listed(t, session(t, k, baton.Principal{Agent: "g", Profile: "ghost", Source: baton.SourceStdio})); len(g) != 0 {
		t.Errorf("an unknown profile lists %v, want nothing", g)
	}
}

// TestScopeFile: a tool-scope file is the session's whole tool set; one
// that cannot be read fails tools/list with a structured error.
func TestScopeFile(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	file := filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(file, []byte(`["get_issue", "move_issue"]`), 0o644); err != nil {
		t.Fatal(err)
	}
	p := baton.Principal{Agent: "s", Profile: "scanner", ScopeFile: file, Source: baton.SourceStdio}
	if got := listed(t, session(t, k, p)); !slices.Equal(got, []string{"get_issue", "move_issue"}) {
		t.Errorf("scope file session lists %v", got)
	}
	p.ScopeFile = filepath.Join(t.TempDir(), "missing.json")
	cs := session(t, k, p)
	for _, err := range cs.Tools(context.Background(), nil) {
		if err == nil {
			t.Fatal("tools/list with an unreadable scope file succeeded")
		}
		break
	}
	if code, _ := callErr(t, cs, "get_issue", map[string]any{"issue_id": "COL-1"}); code != baton.ErrConfigInvalid {
		t.Errorf("call with an unreadable scope file: %s, want ERR_CONFIG_INVALID", code)
	}
}

// TestSchedulerSession: a scheduler session lists no scheduler-blocked
// tool, may not message the user, and its caps reset with a new session.
func TestSchedulerSession(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	p := baton.Principal{Agent: "cron", Profile: "worker", Source: baton.SourceHTTP, SchedulerMode: true}
	cs := session(t, k, p)
	tools := listed(t, cs)
	for _, blocked := range []string{"ask_owner", "announce"} {
		if slices.Contains(tools, blocked) {
			t.Errorf("scheduler session lists %s", blocked)
		}
	}
	if !slices.Contains(tools, "send_message") {
		t.Error("scheduler session cannot message agents at all")
	}
	if code, typ := callErr(t, cs, "send_message", map[string]any{"to": "user", "body": "hi"}); code != baton.ErrPermissionDenied || typ != "scheduler_blocked" {
		t.Errorf("scheduler message to the user: %s %s", code, typ)
	}
	if code, _ := callErr(t, cs, "ask_owner", map[string]any{"question": "?"}); code != baton.ErrPermissionDenied {
		t.Errorf("scheduler ask_owner: %s", code)
	}
	create := func(cs *mcp.ClientSession) (string, string) {
		return callErr(t, cs, "create_issue", map[string]any{"title": "scheduled", "project": testkit.Project})
	}
	for i := range 3 {
		if code, _ := create(cs); code != "" {
			t.Fatalf("create %d: %s", i+1, code)
		}
	}
	// The cap counts creations in any vocabulary.
	if code, typ := callErr(t, cs, "task_create", map[string]any{"title": "4th", "project": testkit.Project}); code != baton.ErrPermissionDenied || typ != "scheduler_cap" {
		t.Fatalf("4th creation: %s %s, want the scheduler cap", code, typ)
	}
	if code, _ := create(session(t, k, p)); code != "" {
		t.Fatalf("a new scheduler session is still capped: %s", code)
	}
	// Comments have a cap of 5.
	for i := range 5 {
		if code, _ := callErr(t, cs, "add_comment", map[string]any{"issue_id": "COL-1", "content": "c"}); code != "" {
			t.Fatalf("comment %d: %s", i+1, code)
		}
	}
	if code, typ := callErr(t, cs, "add_comment", map[string]any{"issue_id": "COL-1", "content": "c"}); code != baton.ErrPermissionDenied || typ != "scheduler_cap" {
		t.Fatalf("6th comment: %s %s", code, typ)
	}
}
