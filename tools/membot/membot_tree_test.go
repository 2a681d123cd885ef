package membot_test

import (
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

func node(v any, i int) map[string]any { return v.([]any)[i].(map[string]any) }

// TestTreeShape: the tree comes from the / segments of current paths,
// siblings by name; a node can be a file and have children; deleted
// paths are hidden; global paths show beside the project's.
func TestTreeShape(t *testing.T) {
	k := testkit.New(t)
	for _, p := range []string{"docs/api/auth.md", "docs/api.md", "docs/intro.md", "readme.md", "tmp/x.md"} {
		put(k, p, "text of "+p)
	}
	putGlobal(k, "global/guide.md", "a global guide")
	remove(k, projectSpace, "tmp/x.md")

	d := data(k, "membot_tree", nil)
	eq(t, "root", d["root"], "/")
	eq(t, "top", strs(d["tree"], "name"), []string{"docs", "global", "readme.md"})
	if _, ok := d["truncated"]; ok {
		t.Errorf("truncated set without truncation: %v", d)
	}
	docs := node(d["tree"], 0)
	eq(t, "docs is_file", docs["is_file"], false)
	eq(t, "docs children", strs(docs["children"], "name"), []string{"api", "api.md", "intro.md"})
	api := node(docs["children"], 0)
	eq(t, "api full_path", api["full_path"], "docs/api")
	eq(t, "api children", strs(api["children"], "full_path"), []string{"docs/api/auth.md"})
	eq(t, "auth is_file", node(api["children"], 0)["is_file"], true)
	eq(t, "readme is_file", node(d["tree"], 2)["is_file"], true)
	if _, ok := node(d["tree"], 2)["children"]; ok {
		t.Errorf("a leaf has children: %v", node(d["tree"], 2))
	}

	// A path that is both a document and a parent.
	put(k, "docs", "the docs index")
	eq(t, "docs is a file", node(data(k, "membot_tree", nil)["tree"], 0)["is_file"], true)
}

// TestTreePrefixDepthItems: a prefix matches on a segment boundary and
// its children are the top level; deeper paths fold at max_depth into a
// node marked a file; max_items keeps that many per level and counts the
// rest.
func TestTreePrefixDepthItems(t *testing.T) {
	k := testkit.New(t)
	for _, p := range []string{"poems/a.md", "poems/b.md", "poems/c.md", "poems/deep/er/still.md", "poems-archive/old.md"} {
		put(k, p, "text of "+p)
	}
	d := data(k, "membot_tree", map[string]any{"prefix": "/poems/"})
	eq(t, "root", d["root"], "poems")
	eq(t, "top", strs(d["tree"], "full_path"), []string{"poems/a.md", "poems/b.md", "poems/c.md", "poems/deep"})

	d = data(k, "membot_tree", map[string]any{"prefix": "poems", "max_depth": 1})
	deep := node(d["tree"], 3)
	eq(t, "folded deep", deep["is_file"], true)
	if _, ok := deep["children"]; ok {
		t.Errorf("folded node keeps children: %v", deep)
	}

	d = data(k, "membot_tree", map[string]any{"prefix": "poems", "max_items": 2})
	eq(t, "kept", strs(d["tree"], "name"), []string{"a.md", "b.md"})
	eq(t, "truncated", d["truncated"], 2.0)

	d = data(k, "membot_tree", map[string]any{"max_items": 1})
	top := node(d["tree"], 0)
	eq(t, "top kept", top["name"], "poems")
	eq(t, "top truncated", d["truncated"], 1.0)
	eq(t, "children truncated", top["children_truncated"], 3.0)

	eq(t, "nothing under", len(data(k, "membot_tree", map[string]any{"prefix": "nope"})["tree"].([]any)), 0)
}

// TestTreeLimits: max_depth and max_items are bounded.
func TestTreeLimits(t *testing.T) {
	k := testkit.New(t)
	for _, args := range []map[string]any{{"max_depth": 0}, {"max_depth": 65}, {"max_items": 0}, {"max_items": 1001}} {
		failWith(k, "membot_tree", args, baton.ErrInvalidInput, "invalid_input")
	}
	s := specOf(t, "membot_tree").InputSchema()
	eq(t, "defaults", string(s.Properties["max_depth"].Default)+","+string(s.Properties["max_items"].Default), "6,20")
}
