package membot

import (
	"context"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

type readIn struct {
	LogicalPath string `json:"logical_path" jsonschema:"Path of the document to read."`
	Version     string `json:"version,omitempty" jsonschema:"A version_id from membot_versions, to read that version (also of a since deleted path); omit for the current one."`
	Bytes       bool   `json:"bytes,omitempty" jsonschema:"Return the original bytes instead of the text. baton keeps the text only, so this always fails with not_found."`
	Offset      int    `json:"offset,omitempty" jsonschema:"1-based first line to return."`
	Limit       int    `json:"limit,omitempty" jsonschema:"Lines to return from offset; omit for the rest."`
	Raw         bool   `json:"raw,omitempty" jsonschema:"CLI rendering only; no effect on the result."`
}

type readOut struct {
	LogicalPath      string `json:"logical_path" jsonschema:"The normalised path read."`
	VersionID        string `json:"version_id" jsonschema:"The version read."`
	MimeType         string `json:"mime_type,omitempty" jsonschema:"Its mime type."`
	SizeBytes        int64  `json:"size_bytes" jsonschema:"UTF-8 size of the whole version (not of the lines returned)."`
	VersionIsCurrent bool   `json:"version_is_current" jsonschema:"Whether it is the path's current version."`
	Content          string `json:"content" jsonschema:"The requested lines (split on newline), or the whole text."`
	Description      string `json:"description,omitempty" jsonschema:"The version's one-paragraph summary."`
	BlobAvailable    bool   `json:"blob_available" jsonschema:"Whether original bytes are stored: always false, baton stores text only."`
	BytesSkipped     bool   `json:"bytes_skipped" jsonschema:"Whether original bytes were deliberately not kept: always false (there are none to skip)."`
}

// maxLine bounds line numbers: no document has more lines than bytes.
const maxLine = baton.MaxDocumentBytes + 1

// versionRule bounds a version_id argument: an ISO-8601 instant is about
// 24 characters; some room for other spellings of the same instant.
var versionRule = tool.MaxLen(64)

// Read is membot_read: a version's text, whole or a range of lines.
var Read = tool.New(tool.Definition[readIn, Op[readOut]]{
	Name:    "membot_read",
	Toolset: Toolset,
	Description: "`cat`: read a stored document's text, the current version or the version_id given " +
		"(membot_versions lists them), whole or offset/limit lines of it. " +
		"To find content across many documents use membot_search rather than reading them one by one.",
	Annotations: tool.Annotations{ReadOnly: true},
	Profiles:    tool.Profiles,
	Input: tool.Rules{
		"logical_path": tool.Length(1, baton.MaxDocumentPath),
		"version":      versionRule,
		"offset":       tool.Range(1, maxLine).WithDefault(1),
		"limit":        tool.Range(1, maxLine),
	},
	Args: []string{"logical_path"},
	Execute: func(ctx context.Context, c *tool.Call, in readIn) (Op[readOut], error) {
		d, isCurrent, err := version(ctx, c, in.LogicalPath, in.Version)
		if err != nil {
			return fail[readOut](err)
		}
		if in.Bytes {
			return fail[readOut](baton.Errorf(baton.ErrNotFound, "no original bytes for %s@%s: baton stores the text only", d.Path, d.Version).
				WithDetails("logical_path", d.Path, "version", d.Version).
				WithHint("omit bytes=true to read the text"))
		}
		return ok(readOut{LogicalPath: d.Path, VersionID: d.Version, MimeType: d.ContentType, SizeBytes: d.Size,
			VersionIsCurrent: isCurrent, Content: lineRange(d.Content, in.Offset, in.Limit), Description: d.Description})
	},
})

// version finds the version of path the session reads (its current one
// when v is empty; the project's space over the global one) and whether
// it is current. A tombstone is no version to read: naming one is
// not_found, as is a path without a current version.
func version(ctx context.Context, c *tool.Call, path, v string) (*baton.Document, bool, error) {
	key, err := resolve(ctx, c, path, v)
	if err != nil {
		return nil, false, err
	}
	d, err := c.Tx.Document(ctx, key, v)
	if err != nil {
		return nil, false, err
	}
	if d.Deleted {
		return nil, false, baton.Errorf(baton.ErrNotFound, "version %s of %s is a deletion (it holds no content)", d.Version, d.Path).
			WithDetails("logical_path", d.Path, "version", d.Version).
			WithHint("list the versions of this path with membot_versions and pick one before the deletion")
	}
	if v == "" {
		return d, true, nil
	}
	cur, err := c.Tx.Document(ctx, key, "")
	switch {
	case err == nil:
		return d, cur.Version == d.Version, nil
	case isNotFound(err):
		return d, false, nil // the path was deleted since
	}
	return nil, false, err
}

// lineRange is lines offset.. (1-based) of text split on "\n", at most
// limit of them (0: to the end); past the end it is empty.
func lineRange(text string, offset, limit int) string {
	if offset <= 1 && limit <= 0 {
		return text
	}
	lines := strings.Split(text, "\n")
	start := min(max(offset-1, 0), len(lines))
	end := len(lines)
	if limit > 0 {
		end = min(start+limit, end)
	}
	return strings.Join(lines[start:end], "\n")
}
