package membot

import (
	"context"
	"maps"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/knowledge"
	"github.com/baton-dev/baton/tool"
)

type editIn struct {
	LogicalPath string      `json:"logical_path" jsonschema:"The document to patch; it must have a current version."`
	Patches     []LinePatch `json:"patches" jsonschema:"Line-range patches."`
	ChangeNote  string      `json:"change_note,omitempty" jsonschema:"Why this version, stored with it."`
}

type editOut struct {
	IsError     bool   `json:"is_error" jsonschema:"Always false on success (a failure is the error envelope with error_type)."`
	LogicalPath string `json:"logical_path" jsonschema:"The normalised path written."`
	VersionID   string `json:"version_id" jsonschema:"The new version."`
	SizeBytes   int64  `json:"size_bytes" jsonschema:"UTF-8 byte length of the patched content."`
}

// edited is a document and what the patches make of it.
type edited struct {
	key     baton.DocKey // where the new version goes
	cur     *baton.Document
	content string
}

// Edit is Botholomew's membot_edit: line patches applied to the current
// version, written as a new inline version (overwriting by design: the
// caller read what it patches). Editing a global document from a project
// session writes the project's copy, which then hides it.
var Edit = tool.New(tool.Definition[editIn, editOut]{
	Name:    "membot_edit",
	Event:   "document.written",
	Toolset: Toolset,
	Description: "`patch`: apply line-range patches to a document and store the result as a new version. Line numbers " +
		"refer to the current version; read it with membot_read first.",
	Profiles: tool.Profiles,
	Input: unionRules(tool.Rules{
		"logical_path": writeRules.path,
		"change_note":  writeRules.note,
	}, LinePatchRules("patches")),
	Args: []string{"logical_path"},
	// Patch and index before the transaction, so no write waits for the
	// embedder; Execute patches again what is current then, and uses
	// this work only if it still fits.
	Prepare: func(ctx context.Context, c *tool.Call, in editIn) (any, error) {
		var e *edited
		if err := c.View(ctx, func() (err error) {
			e, err = patchCurrent(ctx, c, in)
			return err
		}); err != nil {
			return nil, opError(err)
		}
		return indexAs(ctx, c, e.key.Path, e.content, e.cur.ContentType)
	},
	Execute: func(ctx context.Context, c *tool.Call, in editIn) (editOut, error) {
		e, err := patchCurrent(ctx, c, in)
		if err != nil {
			return editOut{}, opError(err)
		}
		d := &baton.Document{DocKey: e.key, Content: e.content, ContentType: e.cur.ContentType, SourceType: baton.SourceInline,
			ChangeNote: in.ChangeNote, LastRefreshStatus: "ok"}
		ix, _ := c.Prepared.(*knowledge.Indexed)
		if err := write(ctx, c, d, ix); err != nil {
			return editOut{}, opError(err)
		}
		return editOut{LogicalPath: d.Path, VersionID: d.Version, SizeBytes: d.Size}, nil
	},
})

// patchCurrent reads the current version the session sees at the path and
// applies the patches to it.
func patchCurrent(ctx context.Context, c *tool.Call, in editIn) (*edited, error) {
	key, err := writeKey(ctx, c, in.LogicalPath)
	if err != nil {
		return nil, err
	}
	cur, err := visibleDoc(ctx, c, key.Path)
	if err != nil {
		return nil, err
	}
	if cur == nil {
		return nil, baton.Errorf(baton.ErrNotFound, "no current document at %s", key.Path).
			WithDetails("logical_path", key.Path).
			WithHint("check the path with membot_exists or membot_list; create it with membot_write")
	}
	content, err := ApplyLinePatches(cur.Content, in.Patches)
	if err != nil {
		return nil, err
	}
	if len(content) > baton.MaxDocumentBytes {
		return nil, baton.Errorf(baton.ErrInvalidInput, "the patched document would be %d bytes, over the limit of %d", len(content), baton.MaxDocumentBytes).
			WithDetails("max_bytes", baton.MaxDocumentBytes).WithHint("split the document into smaller ones")
	}
	return &edited{key: key, cur: cur, content: content}, nil
}

// unionRules is the union of rule sets (later ones win a shared path).
func unionRules(rs ...tool.Rules) tool.Rules {
	out := tool.Rules{}
	for _, r := range rs {
		maps.Copy(out, r)
	}
	return out
}
