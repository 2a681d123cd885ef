package membot

import (
	"context"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

type pruneIn struct {
	Before         string `json:"before,omitempty" jsonschema:"Cutoff: a duration back from now (<n> and s, m, h or d, e.g. 30d) or an ISO-8601 timestamp."`
	StripBlobBytes bool   `json:"strip_blob_bytes,omitempty" jsonschema:"Drop stored original bytes; baton keeps none."`
	DryRun         bool   `json:"dry_run,omitempty" jsonschema:"Only report what would be removed."`
}

type pruneOut struct {
	Cutoff             string `json:"cutoff,omitempty" jsonschema:"The instant versions older than which are removed (ISO-8601, UTC); absent without before."`
	RemovedVersions    int    `json:"removed_versions" jsonschema:"Versions removed (in a dry run: that would be), with their chunks and vectors."`
	RemovedOrphanBlobs int    `json:"removed_orphan_blobs" jsonschema:"Always 0: baton stores no blobs."`
	StrippedBlobBytes  int64  `json:"stripped_blob_bytes" jsonschema:"Always 0: baton stores no blobs."`
	ReclaimedBytes     int64  `json:"reclaimed_bytes" jsonschema:"Content bytes of the removed versions (in a dry run: an estimate)."`
	DryRun             bool   `json:"dry_run" jsonschema:"Whether this was a dry run (nothing removed)."`
}

// Prune is membot_prune: it deletes the old versions of the session's own
// space (§3.3). A project session never prunes the global knowledge, which
// every project shares; a session whose space is the global one prunes it.
var Prune = tool.New(tool.Definition[pruneIn, Op[pruneOut]]{
	Name:    "membot_prune",
	Event:   "documents.pruned",
	Toolset: Toolset,
	Description: "Delete document versions older than before that are not the newest of their path. A dry run unless " +
		"dry_run is false.",
	Profiles:    []string{"worker"},
	Annotations: tool.Annotations{Destructive: true},
	Input: tool.Rules{
		"before":           tool.MaxLen(64),
		"strip_blob_bytes": tool.Field{}.WithDefault(false),
		"dry_run":          tool.Field{}.WithDefault(true),
	},
	Execute: func(ctx context.Context, c *tool.Call, in pruneIn) (Op[pruneOut], error) {
		if in.Before == "" && !in.StripBlobBytes {
			return fail[pruneOut](baton.Errorf(baton.ErrInvalidInput, "nothing to prune: give before, strip_blob_bytes, or both").
				WithDetails("field", "before").
				WithHint("e.g. before: \"30d\" removes versions older than 30 days; dry_run (the default) only reports them"))
		}
		out := pruneOut{DryRun: in.DryRun}
		if in.Before == "" {
			return ok(out)
		}
		cutoff, err := parseCutoff(in.Before, c.Now)
		if err != nil {
			return fail[pruneOut](err)
		}
		s, err := space(ctx, c)
		if err != nil {
			return fail[pruneOut](err)
		}
		res, err := c.Tx.PruneDocuments(ctx, []baton.DocSpace{s}, cutoff, in.DryRun)
		if err != nil {
			return fail[pruneOut](err)
		}
		out.Cutoff = cutoff.UTC().Format(baton.VersionLayout)
		out.RemovedVersions, out.ReclaimedBytes = res.RemovedVersions, res.ReclaimedBytes
		return ok(out)
	},
})
