// Package tools lists every tool baton ships. Adding a tool is one file in
// its area's package plus one line here.
package tools

import (
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/system"
	"github.com/baton-dev/baton/tools/tasks"
)

// All returns every built-in tool, in the order clients list them.
func All() []tool.Tool {
	return []tool.Tool{
		system.Ping,
		system.Health,
		tasks.Create,
		tasks.Get,
		tasks.Update,
		tasks.List,
		tasks.NextActions,
	}
}

// Registry returns a registry of every built-in tool.
func Registry() *tool.Registry { return tool.NewRegistry(All()...) }
