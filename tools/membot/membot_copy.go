package membot

import (
	"context"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/knowledge"
	"github.com/baton-dev/baton/tool"
)

type copyIn struct {
	FromLogicalPath string `json:"from_logical_path" jsonschema:"The document to copy; its current version is read."`
	ToLogicalPath   string `json:"to_logical_path" jsonschema:"Where the copy goes; an existing document there gets a new version."`
	ChangeNote      string `json:"change_note,omitempty" jsonschema:"Stored with the copy; default 'copied from <from_logical_path>'."`
}

type copyOut struct {
	IsError         bool   `json:"is_error" jsonschema:"Always false on success (a failure is the error envelope with error_type)."`
	FromLogicalPath string `json:"from_logical_path" jsonschema:"The source path, as given."`
	ToLogicalPath   string `json:"to_logical_path" jsonschema:"The normalised destination path."`
	NewVersionID    string `json:"new_version_id" jsonschema:"The destination's new version."`
}

// Copy is Botholomew's membot_copy: the source's current content written
// at the destination as a new inline version (a copy has no refresh source
// of its own). As upstream, an existing destination simply gets a new
// version; the source is untouched. A global document copied from a
// project session lands in the project.
var Copy = tool.New(tool.Definition[copyIn, copyOut]{
	Name:        "membot_copy",
	Event:       "document.written",
	Toolset:     Toolset,
	Description: "`cp`: copy a document's current content to another path as a new version there (overwrites; history kept).",
	Profiles:    tool.Profiles,
	Input: tool.Rules{
		"from_logical_path": writeRules.path,
		"to_logical_path":   writeRules.path,
		"change_note":       writeRules.note,
	},
	Args:  []string{"from_logical_path", "to_logical_path"},
	Verbs: []string{"cp"},
	// Index the copy before the transaction; Execute reads the source
	// again and uses this work only if the content is still the same.
	Prepare: func(ctx context.Context, c *tool.Call, in copyIn) (any, error) {
		var src *baton.Document
		var to baton.DocKey
		if err := c.View(ctx, func() (err error) {
			src, to, err = copySource(ctx, c, in)
			return err
		}); err != nil {
			return nil, opError(err)
		}
		return indexAs(ctx, c, to.Path, src.Content, src.ContentType)
	},
	Execute: func(ctx context.Context, c *tool.Call, in copyIn) (copyOut, error) {
		src, to, err := copySource(ctx, c, in)
		if err != nil {
			return copyOut{}, opError(err)
		}
		note := in.ChangeNote
		if note == "" {
			note = "copied from " + src.Path
		}
		d := &baton.Document{DocKey: to, Content: src.Content, ContentType: src.ContentType, SourceType: baton.SourceInline,
			ChangeNote: note, LastRefreshStatus: "ok"}
		ix, _ := c.Prepared.(*knowledge.Indexed)
		if err := write(ctx, c, d, ix); err != nil {
			return copyOut{}, opError(err)
		}
		return copyOut{FromLogicalPath: in.FromLogicalPath, ToLogicalPath: d.Path, NewVersionID: d.Version}, nil
	},
})

// copySource is the current version the session sees at the source and
// the key the copy is written at.
func copySource(ctx context.Context, c *tool.Call, in copyIn) (*baton.Document, baton.DocKey, error) {
	to, err := writeKey(ctx, c, in.ToLogicalPath)
	if err != nil {
		return nil, to, err
	}
	from, err := baton.NormalizeDocPath(in.FromLogicalPath)
	if err != nil {
		return nil, to, err
	}
	src, err := visibleDoc(ctx, c, from)
	if err != nil {
		return nil, to, err
	}
	if src == nil {
		return nil, to, baton.Errorf(baton.ErrNotFound, "no current document at %s to copy", from).
			WithDetails("from_logical_path", from).
			WithHint("check the path with membot_exists or membot_list; a deleted document's versions show in membot_versions")
	}
	return src, to, nil
}
