package membot

import (
	"context"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

type infoIn struct {
	LogicalPath string `json:"logical_path" jsonschema:"Path of the document to inspect."`
	Version     string `json:"version,omitempty" jsonschema:"A version_id from membot_versions (a deletion included); omit for the current version."`
}

// infoOut is one version's metadata. Fields membot may leave null are
// absent when baton has no value for them (no nulls in baton's schemas);
// blob_sha256, downloader and downloader_args never have one in baton.
type infoOut struct {
	LogicalPath         string `json:"logical_path" jsonschema:"The normalised path."`
	VersionID           string `json:"version_id" jsonschema:"The version described."`
	VersionIsCurrent    bool   `json:"version_is_current" jsonschema:"Whether it is the path's current version."`
	SourceType          string `json:"source_type" jsonschema:"inline (written through a tool) or local (read from a project file)."`
	SourcePath          string `json:"source_path,omitempty" jsonschema:"The project file it was read from; absent for inline writes."`
	SourceSHA256        string `json:"source_sha256,omitempty" jsonschema:"sha256 of the bytes read from the source (for inline writes, of the content)."`
	ContentSHA256       string `json:"content_sha256" jsonschema:"sha256 of the stored text."`
	MimeType            string `json:"mime_type,omitempty" jsonschema:"Its mime type."`
	SizeBytes           int64  `json:"size_bytes" jsonschema:"UTF-8 size of the stored text."`
	Description         string `json:"description,omitempty" jsonschema:"The version's one-paragraph summary."`
	Fetcher             string `json:"fetcher" jsonschema:"How the content arrived: inline or local."`
	RefreshFrequencySec int64  `json:"refresh_frequency_sec,omitempty" jsonschema:"How often membot_refresh re-reads the source, in seconds; absent when never."`
	RefreshedAt         string `json:"refreshed_at,omitempty" jsonschema:"When it was last refreshed (ISO-8601 UTC); absent when never."`
	LastRefreshStatus   string `json:"last_refresh_status,omitempty" jsonschema:"What its last refresh found (ok, unchanged, failed:<message>); absent before any."`
	ChangeNote          string `json:"change_note,omitempty" jsonschema:"The note stored with the version."`
	CreatedAt           string `json:"created_at" jsonschema:"When this version was written (ISO-8601 UTC)."`
	Tombstone           bool   `json:"tombstone" jsonschema:"Whether this version is a deletion."`
}

// Info is membot_info: one version's metadata, without its content.
var Info = tool.New(tool.Definition[infoIn, Op[infoOut]]{
	Name:    "membot_info",
	Toolset: Toolset,
	Description: "`stat`: inspect a document version's metadata without its content: source, fetcher, refresh " +
		"schedule and last status, sha256 digests, size, change note, whether it is a deletion and whether it is " +
		"the current version. Use membot_read for the content.",
	Annotations: tool.Annotations{ReadOnly: true},
	Profiles:    tool.Profiles,
	Input: tool.Rules{
		"logical_path": tool.Length(1, baton.MaxDocumentPath),
		"version":      versionRule,
	},
	Output: tool.Rules{
		"data.fetcher": tool.Enum(baton.SourceInline, baton.SourceLocal),
	},
	Args: []string{"logical_path"},
	Execute: func(ctx context.Context, c *tool.Call, in infoIn) (Op[infoOut], error) {
		key, err := resolve(ctx, c, in.LogicalPath, in.Version)
		if err != nil {
			return fail[infoOut](err)
		}
		d, err := c.Tx.Document(ctx, key, in.Version)
		if err != nil {
			return fail[infoOut](err)
		}
		isCurrent := !d.Deleted
		if in.Version != "" {
			cur, err := c.Tx.Document(ctx, key, "")
			switch {
			case err == nil:
				isCurrent = cur.Version == d.Version
			case isNotFound(err):
				isCurrent = false
			default:
				return fail[infoOut](err)
			}
		}
		out := infoOut{LogicalPath: d.Path, VersionID: d.Version, VersionIsCurrent: isCurrent,
			SourceType: d.SourceType, SourcePath: d.SourcePath, SourceSHA256: d.SourceSHA256, ContentSHA256: d.SHA256,
			MimeType: d.ContentType, SizeBytes: d.Size, Description: d.Description, Fetcher: fetcher(d.SourceType),
			RefreshFrequencySec: d.RefreshFrequencySec, LastRefreshStatus: d.LastRefreshStatus, ChangeNote: d.ChangeNote,
			CreatedAt: baton.Timestamp(d.UpdatedAt), Tombstone: d.Deleted}
		if !d.RefreshedAt.IsZero() {
			out.RefreshedAt = baton.Timestamp(d.RefreshedAt)
		}
		return ok(out)
	},
})

// fetcher is membot's fetcher for a source type: baton fetches nothing
// remote, so it is the source type itself (inline or local).
func fetcher(sourceType string) string {
	if sourceType == baton.SourceLocal {
		return baton.SourceLocal
	}
	return baton.SourceInline
}
