package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/baton-dev/baton"
)

// Registry holds every tool, in registration order.
type Registry struct {
	tools  []Tool
	byName map[string]Tool
}

// NewRegistry returns a registry holding ts.
func NewRegistry(ts ...Tool) *Registry {
	r := &Registry{byName: map[string]Tool{}}
	r.Add(ts...)
	return r
}

// Add registers tools; a duplicate name panics, as it is a programming error.
func (r *Registry) Add(ts ...Tool) {
	for _, t := range ts {
		name := t.Spec().Name
		if _, dup := r.byName[name]; dup {
			panic(fmt.Sprintf("tool %q registered twice", name))
		}
		r.byName[name] = t
		r.tools = append(r.tools, t)
	}
}

// Get returns the named tool.
func (r *Registry) Get(name string) (Tool, bool) {
	t, ok := r.byName[name]
	return t, ok
}

// All returns every tool in registration order.
func (r *Registry) All() []Tool { return slices.Clone(r.tools) }

// Len is the number of registered tools.
func (r *Registry) Len() int { return len(r.tools) }

// Toolsets returns the toolset names in order of first registration.
func (r *Registry) Toolsets() []string {
	var out []string
	for _, t := range r.tools {
		if s := t.Spec().Toolset; !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// Filter returns a registry holding the tools keep accepts.
func (r *Registry) Filter(keep func(*Spec) bool) *Registry {
	out := NewRegistry()
	for _, t := range r.tools {
		if keep(t.Spec()) {
			out.Add(t)
		}
	}
	return out
}

// Call runs the named tool directly: the path of the CLI and of tests.
func (r *Registry) Call(ctx context.Context, env *Env, p baton.Principal, name string, raw json.RawMessage) Result {
	t, ok := r.Get(name)
	if !ok {
		return failure(UnknownTool(name, r))
	}
	return t.Invoke(ctx, env, p, raw)
}

// UnknownTool is the error for a tool name nobody registered.
func UnknownTool(name string, r *Registry) *baton.Error {
	names := make([]string, 0, r.Len())
	for _, t := range r.tools {
		names = append(names, t.Spec().Name)
	}
	return baton.Errorf(baton.ErrNotFound, "unknown tool %q", name).
		WithDetails("tool", name).
		WithHint("call one of: %s", strings.Join(names, ", "))
}
