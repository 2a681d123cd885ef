package membot

import (
	"context"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

// On-conflict choices of membot_write (botholomew-tool-class.md, §7.0).
const (
	conflictError     = "error"
	conflictOverwrite = "overwrite"
)

type writeIn struct {
	LogicalPath      string `json:"logical_path" jsonschema:"Where to store the content, e.g. notes/meeting.md."`
	Content          string `json:"content" jsonschema:"The document, as Markdown (or any text)."`
	ChangeNote       string `json:"change_note,omitempty" jsonschema:"Why this version, stored with it."`
	RefreshFrequency string `json:"refresh_frequency,omitempty" jsonschema:"Refresh schedule, <n> and s, m, h or d; written content never changes on refresh."`
	OnConflict       string `json:"on_conflict,omitempty" jsonschema:"If the path exists: error refuses (path_conflict), overwrite adds a new version."`
}

type writeOut struct {
	LogicalPath string `json:"logical_path" jsonschema:"The normalised path written."`
	VersionID   string `json:"version_id" jsonschema:"The new version: its insertion instant, UTC, millisecond ISO-8601."`
	SizeBytes   int64  `json:"size_bytes" jsonschema:"UTF-8 byte length of the content."`
}

// Write is membot_write: content stored as a new inline version, chunked
// and embedded. It refuses a path that already has a current version
// unless on_conflict is "overwrite", as the catalogue says, so an agent
// does not replace a document it has not read by accident.
var Write = tool.New(tool.Definition[writeIn, Op[writeOut]]{
	Name:    "membot_write",
	Event:   "document.written",
	Toolset: Toolset,
	Description: "`tee`: write Markdown to a logical path as a new version, indexed for search. Fails with path_conflict " +
		"if the path exists, unless on_conflict=\"overwrite\" (old versions stay in membot_versions).",
	Profiles: tool.Profiles,
	Input: tool.Rules{
		"logical_path":      writeRules.path,
		"content":           tool.MaxLen(MaxWriteContent),
		"change_note":       writeRules.note,
		"refresh_frequency": writeRules.frequency,
		"on_conflict":       tool.Enum(conflictError, conflictOverwrite).WithDefault(conflictError),
	},
	Args: []string{"logical_path"},
	// The content is known before the transaction: chunk and embed it
	// there, so no write waits for the embedder.
	Prepare: func(ctx context.Context, c *tool.Call, in writeIn) (any, error) {
		return indexFor(ctx, c, in.LogicalPath, in.Content)
	},
	Execute: func(ctx context.Context, c *tool.Call, in writeIn) (Op[writeOut], error) {
		freq, err := parseFrequency(in.RefreshFrequency)
		if err != nil {
			return fail[writeOut](err)
		}
		key, err := writeKey(ctx, c, in.LogicalPath)
		if err != nil {
			return fail[writeOut](err)
		}
		if in.OnConflict != conflictOverwrite {
			cur, err := visibleDoc(ctx, c, key.Path)
			if err != nil {
				return fail[writeOut](err)
			}
			if cur != nil {
				return fail[writeOut](pathConflict(cur, key.DocSpace))
			}
		}
		d := &baton.Document{DocKey: key, Content: in.Content, ContentType: "text/markdown", SourceType: baton.SourceInline,
			ChangeNote: in.ChangeNote, RefreshFrequencySec: freq, LastRefreshStatus: "ok"}
		if freq > 0 {
			d.RefreshedAt = c.Now // the schedule starts now, not at once
		}
		if err := write(ctx, c, d, prepared(c)); err != nil {
			return fail[writeOut](err)
		}
		return ok(writeOut{LogicalPath: d.Path, VersionID: d.Version, SizeBytes: d.Size})
	},
})

// pathConflict is membot_write's refusal of a path that has a current
// version (cur, seen from a session writing in own).
func pathConflict(cur *baton.Document, own baton.DocSpace) error {
	where := ""
	if cur.DocSpace != own {
		where = " in the global knowledge (a write here stores a project copy that hides it)"
	}
	return baton.Errorf(baton.ErrConflict, "%s already exists%s: its current version is %s", cur.Path, where, cur.Version).
		WithType(baton.ErrorTypePathConflict).
		WithDetails("logical_path", cur.Path, "version_id", cur.Version).
		WithHint("read it first with membot_read, or retry with on_conflict: \"overwrite\" to write a new version over it")
}
