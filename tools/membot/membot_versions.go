package membot

import (
	"context"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

type versionsIn struct {
	LogicalPath string `json:"logical_path" jsonschema:"Path whose versions to list."`
}

type versionEntry struct {
	VersionID         string `json:"version_id" jsonschema:"The version's id: pass it as version to membot_read or membot_info, or as a or b to membot_diff."`
	ContentSHA256     string `json:"content_sha256" jsonschema:"sha256 of its text."`
	SourceSHA256      string `json:"source_sha256,omitempty" jsonschema:"sha256 of the bytes read from its source; absent for a deletion."`
	SizeBytes         int64  `json:"size_bytes" jsonschema:"UTF-8 size of its text."`
	ChangeNote        string `json:"change_note,omitempty" jsonschema:"The note stored with it."`
	LastRefreshStatus string `json:"last_refresh_status,omitempty" jsonschema:"What its last refresh found; absent before any."`
	Tombstone         bool   `json:"tombstone" jsonschema:"Whether it is a deletion."`
	CreatedAt         string `json:"created_at" jsonschema:"When it was written (ISO-8601 UTC)."`
}

type versionsOut struct {
	LogicalPath string         `json:"logical_path" jsonschema:"The normalised path."`
	Versions    []versionEntry `json:"versions" jsonschema:"Every kept version, newest first, deletions included; empty for an unknown path."`
}

// Versions is membot_versions: a path's history, newest first. An unknown
// path has an empty history, not an error.
var Versions = tool.New(tool.Definition[versionsIn, Op[versionsOut]]{
	Name:    "membot_versions",
	Toolset: Toolset,
	Description: "List every kept version of a document, newest first, with version_id, content sha256, size, " +
		"change note and refresh status; deletions are included and flagged. Use it to find the version_id " +
		"to pass to membot_read, membot_info or membot_diff.",
	Annotations: tool.Annotations{ReadOnly: true},
	Profiles:    tool.Profiles,
	Input:       tool.Rules{"logical_path": tool.Length(1, baton.MaxDocumentPath)},
	Args:        []string{"logical_path"},
	Execute: func(ctx context.Context, c *tool.Call, in versionsIn) (Op[versionsOut], error) {
		key, vs, err := history(ctx, c, in.LogicalPath)
		if err != nil {
			return fail[versionsOut](err)
		}
		out := versionsOut{LogicalPath: key.Path, Versions: make([]versionEntry, 0, len(vs))}
		for _, v := range vs {
			out.Versions = append(out.Versions, versionEntry{VersionID: v.Version, ContentSHA256: v.SHA256,
				SourceSHA256: v.SourceSHA256, SizeBytes: v.Size, ChangeNote: v.ChangeNote,
				LastRefreshStatus: v.LastRefreshStatus, Tombstone: v.Deleted, CreatedAt: baton.Timestamp(v.CreatedAt)})
		}
		return ok(out)
	},
})

// history is the versions of path the session sees: those of the space
// reads resolve it to (the one with a current version, the project's
// first), else of the first space that has any history of it; none when
// no space has.
func history(ctx context.Context, c *tool.Call, path string) (baton.DocKey, []*baton.DocumentVersion, error) {
	key, err := resolve(ctx, c, path, "")
	if err != nil {
		return key, nil, err
	}
	vs, err := c.Tx.DocumentVersions(ctx, key)
	if err == nil || !isNotFound(err) {
		return key, vs, err
	}
	spaces, err := Spaces(ctx, c)
	if err != nil {
		return key, nil, err
	}
	for _, s := range spaces {
		k := baton.DocKey{DocSpace: s, Path: key.Path}
		if k == key {
			continue
		}
		vs, err := c.Tx.DocumentVersions(ctx, k)
		if err == nil {
			return k, vs, nil
		}
		if !isNotFound(err) {
			return key, nil, err
		}
	}
	return key, nil, nil
}
