// Package membot holds Botholomew's knowledge tools (botholomew-tool-class.md,
// membot-operations.md): the membot operations over baton's one document
// store, Botholomew's wrappers (edit, copy, exists, count_lines, pipe,
// query) and read_large_result.
//
// Where documents live: a session's tools write in its project's space
// (--project, a token's project, else the only project there is), or in
// the global space when there is no project to name. Reads and searches
// see the project's space over the global one: a path the project holds
// hides the same path of the global space.
//
// Envelopes: the 15 membot operations answer {is_error: false, data: {...}}
// (§2.1), the wrappers put their fields beside is_error. A failure is
// baton's error envelope with membot's error_type (input_error, not_found,
// conflict, ...) and a next_action_hint on every error.
package membot

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/knowledge"
	"github.com/baton-dev/baton/tool"
)

// Toolset is the CLI group and toolset name of the membot tools.
const Toolset = "membot"

// membot's error kinds (membot-operations.md §2.2) besides baton's own.
const (
	typeInputError = "input_error"
	typeNotFound   = "not_found"
	typeConflict   = "conflict"
)

// Op is a membot operation's success envelope: {is_error: false, data}.
type Op[T any] struct {
	IsError bool `json:"is_error" jsonschema:"Always false on success (a failure is the error envelope with error_type)."`
	Data    T    `json:"data" jsonschema:"The operation's output."`
}

// ok wraps an operation's output.
func ok[T any](v T) (Op[T], error) { return Op[T]{Data: v}, nil }

// fail is an operation's failure with membot's kinds: invalid input reads
// as input_error (a schema failure never reaches the tool and stays
// invalid_input), the rest keep baton's type. The hint is never empty.
func fail[T any](err error) (Op[T], error) { return Op[T]{}, opError(err) }

// opError maps err to membot's error kinds (§2.2).
func opError(err error) error {
	var e *baton.Error
	if !errors.As(err, &e) {
		return err
	}
	c := *e
	switch {
	case c.Type != "" && c.Type != baton.ErrorTypeInvalidInput:
	case c.Code == baton.ErrInvalidInput:
		c.Type = typeInputError
	}
	if c.Hint == "" {
		c.Hint = "check the store with membot_stats and retry"
	}
	return &c
}

// space is where the session's tools write: its project's space, the only
// project's, or the global space.
func space(ctx context.Context, c *tool.Call) (baton.DocSpace, error) {
	if p := c.Principal.Project; p != "" {
		return baton.DocSpace{Scope: baton.ScopeProject, Project: p}, nil
	}
	ps, err := c.Tx.Projects(ctx)
	if err != nil {
		return baton.DocSpace{}, err
	}
	if len(ps) == 1 {
		return baton.DocSpace{Scope: baton.ScopeProject, Project: ps[0].Slug}, nil
	}
	return baton.DocSpace{Scope: baton.ScopeGlobal}, nil
}

// Spaces are what the session reads and searches: its space, then the
// global one (just the global one when that is its space).
func Spaces(ctx context.Context, c *tool.Call) ([]baton.DocSpace, error) {
	s, err := space(ctx, c)
	if err != nil {
		return nil, err
	}
	if s.Scope == baton.ScopeGlobal {
		return []baton.DocSpace{s}, nil
	}
	return []baton.DocSpace{s, {Scope: baton.ScopeGlobal}}, nil
}

// writeKey is the key the session writes path at (normalised).
func writeKey(ctx context.Context, c *tool.Call, path string) (baton.DocKey, error) {
	s, err := space(ctx, c)
	if err != nil {
		return baton.DocKey{}, err
	}
	p, err := baton.NormalizeDocPath(path)
	if err != nil {
		return baton.DocKey{}, err
	}
	return baton.DocKey{DocSpace: s, Path: p}, nil
}

// resolve is the key path reads at: the session's space when it has a
// current version there (or version names one there), else the global
// space when that has one, else the session's space (whose lookup then
// answers not_found).
func resolve(ctx context.Context, c *tool.Call, path, version string) (baton.DocKey, error) {
	key, err := writeKey(ctx, c, path)
	if err != nil {
		return key, err
	}
	if key.Scope == baton.ScopeGlobal {
		return key, nil
	}
	if _, err := c.Tx.Document(ctx, key, version); err == nil || !isNotFound(err) {
		return key, err
	}
	g := baton.DocKey{DocSpace: baton.DocSpace{Scope: baton.ScopeGlobal}, Path: key.Path}
	if _, err := c.Tx.Document(ctx, g, version); err == nil {
		return g, nil
	}
	return key, nil
}

// current lists the current documents the session sees under a raw
// prefix, by path, without content: its space's, and the global space's
// paths it does not hide.
func current(ctx context.Context, c *tool.Call, prefix string) ([]*baton.Document, error) {
	spaces, err := Spaces(ctx, c)
	if err != nil {
		return nil, err
	}
	var out []*baton.Document
	seen := map[string]bool{}
	for _, s := range spaces {
		ds, err := c.Tx.ListDocuments(ctx, baton.DocumentFilter{Spaces: []baton.DocSpace{s}, PathPrefix: prefix})
		if err != nil {
			return nil, err
		}
		for _, d := range ds {
			if !seen[d.Path] {
				seen[d.Path] = true
				out = append(out, d)
			}
		}
	}
	sortByPath(out)
	return out, nil
}

// write stores d as a new version, chunked and embedded; ix is what a
// Prepare hook indexed for it beforehand (nil: index now).
func write(ctx context.Context, c *tool.Call, d *baton.Document, ix *knowledge.Indexed) error {
	if d.UpdatedBy == "" {
		d.UpdatedBy = writer(c)
	}
	if d.ContentType == "" {
		d.ContentType = "text/markdown"
	}
	return knowledge.Write(ctx, c.Tx, c.Env.Embed(), d, ix)
}

// writer is who a version is recorded as written by.
func writer(c *tool.Call) string {
	if c.Principal.Agent != "" {
		return c.Principal.Agent
	}
	return baton.User
}

// prepared is the Indexed a Prepare hook left, or nil.
func prepared(c *tool.Call) *knowledge.Indexed {
	ix, _ := c.Prepared.(*knowledge.Indexed)
	return ix
}

// indexFor is a Prepare hook's work for writing content at path: chunk and
// embed it before the write transaction, so none waits for the embedder.
func indexFor(ctx context.Context, c *tool.Call, path, content string) (any, error) {
	ix, err := knowledge.Index(ctx, c.Env.Embed(), path, content, "text/markdown")
	if err != nil {
		return nil, opError(err)
	}
	return ix, nil
}

func isNotFound(err error) bool {
	var e *baton.Error
	return errors.As(err, &e) && (e.Code == baton.ErrNotFound || e.Code == baton.ErrProjectNotFound)
}

func sortByPath(ds []*baton.Document) {
	slices.SortFunc(ds, func(a, b *baton.Document) int { return strings.Compare(a.Path, b.Path) })
}

// All returns the membot tools, in the order clients list them.
func All() []tool.Tool {
	var out []tool.Tool
	out = append(out, readTools()...)
	out = append(out, writeTools()...)
	return append(out, pipeTools()...)
}
