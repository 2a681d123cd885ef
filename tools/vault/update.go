package vault

import (
	"context"
	"fmt"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/knowledge"
	"github.com/baton-dev/baton/tool"
)

type updateIn struct {
	Path string `json:"path" jsonschema:"Path to the file to re-index, relative to the project root (an absolute path must lie inside the project)."`
}

type updateOut struct {
	Path            string `json:"path" jsonschema:"The logical path the file is stored at: its cleaned path relative to the project root."`
	Project         string `json:"project" jsonschema:"The project whose knowledge holds it."`
	Status          string `json:"status" jsonschema:"created: the path had no current version; updated: the content changed, a new version was written; unchanged: the content is the current version's, which was re-chunked and re-embedded in place."`
	VersionID       string `json:"version_id" jsonschema:"The current version after the call."`
	PreviousVersion string `json:"previous_version_id,omitempty" jsonschema:"The version that was current before, when a new version replaced it."`
	MIME            string `json:"mime" jsonschema:"The content type, from the file's extension."`
	Size            int64  `json:"size" jsonschema:"Bytes of content."`
	Chunks          int    `json:"chunks" jsonschema:"Chunks the content was split into."`
	Embedded        bool   `json:"embedded" jsonschema:"Every chunk has a vector of the current embedding model."`
	Model           string `json:"model" jsonschema:"The embedding model, empty when none embedded the chunks."`
}

// Statuses of vault_update.
const (
	statusCreated   = "created"
	statusUpdated   = "updated"
	statusUnchanged = "unchanged"
)

// updatePrep is what vault_update's Prepare leaves for Execute: the file,
// read and indexed outside the transaction.
type updatePrep struct {
	project string
	path    string // logical path
	file    *knowledge.ProjectFile
	ix      *knowledge.Indexed
}

// VaultUpdate is vault_update: (re-)ingest one file of the project
// directory.
var VaultUpdate = tool.New(tool.Definition[updateIn, updateOut]{
	Name:    "vault_update",
	Event:   "document.written",
	Toolset: Toolset,
	Description: "Re-read, re-extract, and re-embed a file of the project directory in the Knowledge Vault. Use when a file " +
		"has changed and the vault entry is stale, or to add a file. Changed content becomes a new version (older ones " +
		"stay in the history); unchanged content is re-chunked and re-embedded in place.",
	Annotations: tool.Annotations{Idempotent: true},
	Profiles:    []string{"worker", "researcher"},
	Args:        []string{"path"},
	Input:       tool.Rules{"path": pathRule},
	Output:      tool.Rules{"status": tool.Enum(statusCreated, statusUpdated, statusUnchanged)},
	// Reading the file and embedding it happen before the transaction:
	// no writer waits for the disk or the embedder.
	Prepare: func(ctx context.Context, c *tool.Call, in updateIn) (any, error) {
		var proj *baton.Project
		if err := c.View(ctx, func() (err error) {
			proj, err = sessionProject(ctx, c, "vault_update")
			return err
		}); err != nil {
			return nil, err
		}
		if proj.Root == "" {
			return nil, baton.Errorf(baton.ErrInvalidInput, "project %s has no directory to read %q from", proj.Slug, in.Path).
				WithDetails("project", proj.Slug).
				WithHint("set the project's directory (run `baton init` in its repository), or write the content with membot_write")
		}
		// The path is judged as written first, so nothing outside the
		// project is ever looked at; the read then refuses what leaves
		// it through a symbolic link.
		logical, err := docPath(proj.Root, in.Path)
		if err != nil {
			return nil, err
		}
		f, err := knowledge.ReadProjectFile(proj.Root, logical)
		if err != nil {
			return nil, err
		}
		ix, err := knowledge.Index(ctx, c.Env.Embed(), logical, f.Content, f.MIME)
		if err != nil {
			return nil, hinted(err, "check the embedder's configuration ([embedding] in baton.toml) and retry; nothing was written")
		}
		return &updatePrep{project: proj.Slug, path: logical, file: f, ix: ix}, nil
	},
	Execute: func(ctx context.Context, c *tool.Call, in updateIn) (updateOut, error) {
		p, _ := c.Prepared.(*updatePrep)
		if p == nil {
			return updateOut{}, baton.Errorf(baton.ErrInternal, "vault_update ran without the file it read").
				WithHint("nothing was changed; this is a bug in baton, report it with the message")
		}
		proj, err := sessionProject(ctx, c, "vault_update")
		if err != nil {
			return updateOut{}, err
		}
		if proj.Slug != p.project {
			return updateOut{}, baton.Errorf(baton.ErrConflict, "the session's project changed from %s to %s while %q was read", p.project, proj.Slug, in.Path).
				WithHint("call vault_update again")
		}
		key := baton.DocKey{DocSpace: baton.DocSpace{Scope: baton.ScopeProject, Project: p.project}, Path: p.path}
		cur, err := c.Tx.Document(ctx, key, "")
		switch {
		case isNotFound(err):
			cur = nil
		case err != nil:
			return updateOut{}, err
		}
		out := updateOut{Path: p.path, Project: p.project, MIME: p.file.MIME, Chunks: len(p.ix.Chunks),
			Embedded: len(p.ix.Vectors) == len(p.ix.Chunks) && p.ix.Model != "", Model: p.ix.Model}
		if cur != nil && cur.SHA256 == p.ix.SHA256 && cur.ContentType == p.file.MIME &&
			cur.SourceType == baton.SourceLocal && cur.SourcePath == p.path {
			// Same content from the same file: re-extract and re-embed the
			// current version rather than repeat it as a new one.
			if err := reindex(ctx, c, key, cur.Version, p.ix); err != nil {
				return updateOut{}, err
			}
			out.Status, out.VersionID, out.Size = statusUnchanged, cur.Version, cur.Size
			return out, nil
		}
		d := &baton.Document{DocKey: key, Content: p.file.Content, ContentType: p.file.MIME, SourcePath: p.path,
			SourceSHA256: p.ix.SHA256, SourceType: baton.SourceLocal, UpdatedBy: writer(c),
			ChangeNote: "vault_update from " + p.path}
		out.Status = statusCreated
		if cur != nil {
			out.Status, out.PreviousVersion = statusUpdated, cur.Version
			if cur.SourceType == baton.SourceLocal {
				d.RefreshFrequencySec = cur.RefreshFrequencySec
			}
		}
		if err := knowledge.Write(ctx, c.Tx, c.Env.Embed(), d, p.ix); err != nil {
			return updateOut{}, hinted(err, "check the path and retry; nothing was written")
		}
		out.VersionID, out.Size = d.Version, d.Size
		return out, nil
	},
	Text: func(o updateOut) string {
		return fmt.Sprintf("%s %s (project %s, version %s, %d chunks)\n", o.Status, o.Path, o.Project, o.VersionID, o.Chunks)
	},
})

// reindex replaces the chunks and vectors of an existing version with
// ix's and records the refresh that found nothing new.
func reindex(ctx context.Context, c *tool.Call, key baton.DocKey, version string, ix *knowledge.Indexed) error {
	if err := c.Tx.ReplaceChunks(ctx, key, version, ix.Chunks); err != nil {
		return err
	}
	if len(ix.Vectors) > 0 {
		vs := make([]baton.ChunkVector, len(ix.Chunks))
		for i, ch := range ix.Chunks {
			vs[i] = baton.ChunkVector{ChunkID: ch.ID, Model: ix.Model, Vector: ix.Vectors[i]}
		}
		if err := c.Tx.PutVectors(ctx, vs); err != nil {
			return err
		}
	}
	return c.Tx.MarkRefreshed(ctx, key, version, statusUnchanged, c.Now)
}
