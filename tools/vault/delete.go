package vault

import (
	"context"
	"fmt"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

type deleteIn struct {
	Path string `json:"path" jsonschema:"Path of the knowledge entry to remove from the vault: its logical path, as search results give it as source or path (for a file, its path relative to the project root)."`
}

type deleteOut struct {
	Path            string `json:"path" jsonschema:"The logical path removed."`
	Project         string `json:"project" jsonschema:"The project whose knowledge held it."`
	Deleted         bool   `json:"deleted" jsonschema:"Always true: the entry is gone from searches."`
	VersionID       string `json:"version_id" jsonschema:"The tombstone version that records the removal."`
	PreviousVersion string `json:"previous_version_id" jsonschema:"The version that was current; it stays in the history (membot_versions) until pruned, but is no longer searched."`
}

// VaultDelete is vault_delete: tombstone a path of the project's knowledge.
var VaultDelete = tool.New(tool.Definition[deleteIn, deleteOut]{
	Name:    "vault_delete",
	Event:   "document.deleted",
	Toolset: Toolset,
	Description: "Remove a knowledge entry and all associated vectors from the Knowledge Vault: the path's current version " +
		"is tombstoned, so neither search_knowledge nor vault_retrieve finds it any more. Use when content is obsolete or " +
		"incorrect. Only the project's own knowledge can be removed, not the global knowledge.",
	Annotations: tool.Annotations{Destructive: true},
	Profiles:    []string{"worker"},
	Args:        []string{"path"},
	Input:       tool.Rules{"path": pathRule},
	Execute: func(ctx context.Context, c *tool.Call, in deleteIn) (deleteOut, error) {
		proj, err := sessionProject(ctx, c, "vault_delete")
		if err != nil {
			return deleteOut{}, err
		}
		p, err := docPath(proj.Root, in.Path)
		if err != nil {
			return deleteOut{}, err
		}
		key := baton.DocKey{DocSpace: baton.DocSpace{Scope: baton.ScopeProject, Project: proj.Slug}, Path: p}
		cur, err := c.Tx.Document(ctx, key, "")
		switch {
		case isNotFound(err):
			return deleteOut{}, notInVault(ctx, c, p, proj.Slug)
		case err != nil:
			return deleteOut{}, err
		}
		v, err := c.Tx.DeleteDocument(ctx, key, "vault_delete", writer(c))
		if isNotFound(err) {
			return deleteOut{}, notInVault(ctx, c, p, proj.Slug)
		}
		if err != nil {
			return deleteOut{}, err
		}
		// "Remove a knowledge entry and all associated vectors": its
		// history stays readable, but is no longer found by meaning.
		if _, err := c.Tx.DropVectors(ctx, key); err != nil {
			return deleteOut{}, err
		}
		return deleteOut{Path: p, Project: proj.Slug, Deleted: true, VersionID: v.Version, PreviousVersion: cur.Version}, nil
	},
	Text: func(o deleteOut) string {
		return fmt.Sprintf("deleted %s (project %s; was version %s)\n", o.Path, o.Project, o.PreviousVersion)
	},
})

// notInVault is the ERR_NOT_FOUND of a path the project's knowledge does
// not hold, with a hint that says why when the global knowledge holds it.
func notInVault(ctx context.Context, c *tool.Call, p, project string) error {
	e := baton.Errorf(baton.ErrNotFound, "no knowledge entry %q in project %s", p, project).
		WithDetails("path", p, "project", project)
	g := baton.DocKey{DocSpace: baton.DocSpace{Scope: baton.ScopeGlobal}, Path: p}
	if _, err := c.Tx.Document(ctx, g, ""); err == nil {
		return e.WithDetails("scope", baton.ScopeGlobal).
			WithHint("%q is global knowledge, shared by every project; vault_delete removes only the project's own entries", p)
	}
	return e.WithHint("give the path as search_knowledge reports it in source (or vault_retrieve in path); it may already be deleted")
}
