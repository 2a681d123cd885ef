package mcpserver_test

import (
	"slices"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/tool"
)

// TestAliasCallableNotListed: a Botholomew session does not list
// membot_delete, membot_remove's old name, but calling it works as
// membot_remove does; a session without membot_remove cannot call it.
func TestAliasCallableNotListed(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	both := session(t, k, baton.Principal{Agent: "b", Source: baton.SourceStdio, Preset: tool.PresetBotholomew})
	names := listed(t, both)
	if !slices.Contains(names, "membot_remove") || slices.Contains(names, "membot_delete") {
		t.Fatalf("botholomew lists membot_remove %v, membot_delete %v", slices.Contains(names, "membot_remove"), slices.Contains(names, "membot_delete"))
	}
	if code, _ := callErr(t, both, "membot_write", map[string]any{"logical_path": "a.md", "content": "x"}); code != "" {
		t.Fatalf("membot_write: %s", code)
	}
	if code, typ := callErr(t, both, "membot_delete", map[string]any{"paths": []string{"a.md"}}); code != "" {
		t.Fatalf("membot_delete: %s %s", code, typ)
	}
	if code, typ := callErr(t, both, "membot_exists", map[string]any{"logical_path": "a.md"}); code != "" {
		t.Fatalf("membot_exists: %s %s", code, typ)
	}
	if n := k.Count(`SELECT COUNT(*) FROM documents WHERE deleted = 1`); n != 1 {
		t.Errorf("%d tombstones after membot_delete, want 1", n)
	}
	judge := session(t, k, baton.Principal{Agent: "j", Profile: "judge", Source: baton.SourceStdio})
	if code, typ := callErr(t, judge, "membot_delete", map[string]any{"paths": []string{"a.md"}}); code != baton.ErrPermissionDenied || typ != "out_of_scope" {
		t.Errorf("a judge calls membot_delete: %s %s, want out_of_scope", code, typ)
	}
}
