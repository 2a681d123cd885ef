package tool_test

import (
	"context"
	"slices"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

// TestAliasFollowsItsTool: an alias is in a scope exactly when the tool it
// stands for is, and is never among the listed names.
func TestAliasFollowsItsTool(t *testing.T) {
	type none struct{} // no fields, in and out: New must take that too
	newTool := func(name, alias string, profiles ...string) tool.Tool {
		return tool.New(tool.Definition[none, none]{
			Name: name, Toolset: "test", Description: "A tool.", Profiles: profiles, AliasOf: alias,
			Execute: func(context.Context, *tool.Call, none) (none, error) { return none{}, nil },
		})
	}
	reg := tool.NewRegistry(newTool("remove", "", "worker"), newTool("delete", "remove", "worker", "judge"), newTool("read", "", "worker", "judge"))
	for _, tc := range []struct {
		p      baton.Principal
		has    bool
		listed []string
	}{
		{baton.Principal{Profile: "worker", Source: baton.SourceStdio, Preset: tool.PresetFull}, true, []string{"remove", "read"}},
		{baton.Principal{Profile: "judge", Source: baton.SourceStdio, Preset: tool.PresetFull}, false, []string{"read"}},
		{baton.Principal{Source: baton.SourceWeb}, true, []string{"remove", "read"}},
		{baton.Principal{Source: baton.SourceStdio, Preset: tool.PresetFull}, true, []string{"remove", "read"}},
	} {
		s := tool.ComputeScope(reg, tc.p, tool.ScopeInput{})
		if s.Has("delete") != tc.has || s.Listed("delete") {
			t.Errorf("%+v: has delete %v (want %v), listed %v", tc.p, s.Has("delete"), tc.has, s.Listed("delete"))
		}
		if got := s.Names(reg); !slices.Equal(got, tc.listed) {
			t.Errorf("%+v: names %v, want %v", tc.p, got, tc.listed)
		}
	}
}
