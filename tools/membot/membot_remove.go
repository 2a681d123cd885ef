package membot

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

// MaxRemovePaths is the most arguments one membot_remove takes (each may
// be a glob matching many paths).
const MaxRemovePaths = 100

type removeIn struct {
	Paths      []string `json:"paths" jsonschema:"Paths or globs (* within a segment, ** across, dir/** a subtree)."`
	Force      bool     `json:"force,omitempty" jsonschema:"Required to match everything (* or **)."`
	ChangeNote string   `json:"change_note,omitempty" jsonschema:"Stored on each tombstone."`
	Recursive  bool     `json:"recursive,omitempty" jsonschema:"A literal path also removes path/**."`
}

type removeOut struct {
	Removed []removedEntry `json:"removed" jsonschema:"One entry per matched path, by path."`
	Total   int            `json:"total" jsonschema:"Paths matched."`
	OK      int            `json:"ok" jsonschema:"Paths tombstoned."`
	Failed  int            `json:"failed" jsonschema:"Paths that could not be tombstoned."`
}

type removedEntry struct {
	LogicalPath string `json:"logical_path" jsonschema:"The path."`
	VersionID   string `json:"version_id,omitempty" jsonschema:"Its tombstone version; absent when it failed."`
	Status      string `json:"status" jsonschema:"ok or failed."`
	Error       string `json:"error,omitempty" jsonschema:"Why it failed."`
}

// Remove is membot_remove (called membot_delete before membot 0.15.4).
var Remove = removeTool("membot_remove", "`rm`: remove documents by path or glob; each gets a tombstone version (history "+
	"stays in membot_versions). If any argument matches nothing, nothing is removed.", []string{"rm"}, "")

// removeTool builds membot_remove under a name: the tool itself and its
// deprecated alias membot_delete behave the same.
func removeTool(name, description string, verbs []string, aliasOf string) tool.Tool {
	one := 1
	maxPaths := MaxRemovePaths
	item := writeRules.path
	return tool.New(tool.Definition[removeIn, Op[removeOut]]{
		Name:        name,
		Event:       "document.removed",
		Toolset:     Toolset,
		Description: description,
		// Destructive store tools are worker (and operator) tools:
		// Botholomew's chat mode leaves them out (§1).
		Profiles:    []string{"worker"},
		Annotations: tool.Annotations{Destructive: true},
		Input: tool.Rules{
			"paths":       {MinItems: &one, MaxItems: &maxPaths, Items: &item},
			"change_note": writeRules.note.WithDefault("deleted"),
			"force":       tool.Field{}.WithDefault(false),
			"recursive":   tool.Field{}.WithDefault(false),
		},
		Output:  tool.Rules{"data.removed.status": tool.Enum("ok", "failed")},
		Args:    []string{"paths"},
		Verbs:   verbs,
		AliasOf: aliasOf,
		Execute: func(ctx context.Context, c *tool.Call, in removeIn) (Op[removeOut], error) {
			out, err := removeMatching(ctx, c, in)
			if err != nil {
				return fail[removeOut](err)
			}
			return ok(out)
		},
	})
}

// matchAll are the arguments that name every path, which only force
// removes.
var matchAll = []string{"*", "**", "**/*"}

// removeMatching matches every argument against the current paths of the
// session's space before it tombstones anything, so one argument that
// matches nothing fails the call with nothing removed.
func removeMatching(ctx context.Context, c *tool.Call, in removeIn) (removeOut, error) {
	s, err := space(ctx, c)
	if err != nil {
		return removeOut{}, err
	}
	docs, err := c.Tx.ListDocuments(ctx, baton.DocumentFilter{Spaces: []baton.DocSpace{s}})
	if err != nil {
		return removeOut{}, err
	}
	paths := make([]string, len(docs))
	for i, d := range docs {
		paths[i] = d.Path
	}
	matched := map[string]bool{}
	for _, arg := range in.Paths {
		ms, err := matchRemoveArg(ctx, c, arg, paths, in.Recursive)
		if err != nil {
			return removeOut{}, err
		}
		norm := strings.TrimLeft(strings.ReplaceAll(arg, `\`, "/"), "/")
		if slices.Contains(matchAll, norm) && !in.Force {
			return removeOut{}, baton.Errorf(baton.ErrInvalidInput, "%q matches every document: it would remove %d paths", arg, len(ms)).
				WithDetails("field", "paths", "pattern", arg, "would_remove", len(ms)).
				WithHint("re-run with force: true if you mean to remove all %d, or narrow the pattern (e.g. dir/**)", len(ms))
		}
		for _, m := range ms {
			matched[m] = true
		}
	}
	targets := make([]string, 0, len(matched))
	for p := range matched {
		targets = append(targets, p)
	}
	slices.Sort(targets)
	out := removeOut{Removed: []removedEntry{}}
	for _, p := range targets {
		e := removedEntry{LogicalPath: p, Status: "ok"}
		v, err := c.Tx.DeleteDocument(ctx, baton.DocKey{DocSpace: s, Path: p}, in.ChangeNote, writer(c))
		if err != nil {
			var be *baton.Error
			if !errors.As(err, &be) {
				return removeOut{}, err // the store itself failed: the call fails whole
			}
			e.Status, e.Error = "failed", be.Message
			out.Failed++
		} else {
			e.VersionID = v.Version
			out.OK++
		}
		out.Removed = append(out.Removed, e)
	}
	out.Total = len(targets)
	return out, nil
}

// matchRemoveArg is the current paths one argument names: a glob's
// matches, or a literal path (with recursive, also everything under it).
// None is ERR_NOT_FOUND, with a hint for the likely mistake.
func matchRemoveArg(ctx context.Context, c *tool.Call, arg string, paths []string, recursive bool) ([]string, error) {
	norm := strings.TrimLeft(strings.ReplaceAll(arg, `\`, "/"), "/")
	if norm == "" {
		return nil, baton.Errorf(baton.ErrInvalidInput, "paths holds an empty path").
			WithDetails("field", "paths").WithHint("give a logical path or a glob such as notes/**")
	}
	var out []string
	if isGlob(norm) {
		re, err := compileGlob(norm)
		if err != nil {
			return nil, err
		}
		for _, p := range paths {
			if re.MatchString(p) {
				out = append(out, p)
			}
		}
	} else {
		dir := strings.TrimSuffix(norm, "/") + "/"
		for _, p := range paths {
			if p == norm || (recursive && strings.HasPrefix(p, dir)) {
				out = append(out, p)
			}
		}
	}
	if len(out) > 0 {
		return out, nil
	}
	e := baton.Errorf(baton.ErrNotFound, "%q matches no current document; nothing was removed", arg).
		WithDetails("field", "paths", "pattern", arg)
	under := 0
	if !isGlob(norm) {
		dir := strings.TrimSuffix(norm, "/") + "/"
		for _, p := range paths {
			if strings.HasPrefix(p, dir) {
				under++
			}
		}
	}
	switch {
	case under > 0:
		e.WithHint("%s is a directory prefix of %d documents: use %s** to remove them (or recursive: true)",
			norm, under, strings.TrimSuffix(norm, "/")+"/")
	default:
		if !isGlob(norm) {
			if g, _ := visibleDoc(ctx, c, norm); g != nil {
				return nil, e.WithHint("%s is in the global knowledge, which this session does not remove", norm)
			}
		}
		e.WithHint("list the current paths with membot_list or membot_tree; a deleted path shows only in membot_versions")
	}
	return nil, e
}
