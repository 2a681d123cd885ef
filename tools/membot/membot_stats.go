package membot

import (
	"cmp"
	"context"
	"maps"
	"slices"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

type statsIn struct {
	Prefix string `json:"prefix,omitempty" jsonschema:"Only paths starting with this raw string prefix (e.g. docs/api/); omit for the whole store."`
}

type statsFiles struct {
	Current         int    `json:"current" jsonschema:"Paths with a current version."`
	TombstonedPaths int    `json:"tombstoned_paths" jsonschema:"Paths whose newest version is a deletion."`
	TotalVersions   int    `json:"total_versions" jsonschema:"Every kept version, deletions included."`
	DistinctPaths   int    `json:"distinct_paths" jsonschema:"Every path with a kept version."`
	BySourceType    counts `json:"by_source_type" jsonschema:"Current versions by source type (inline, local)."`
	ByDownloader    counts `json:"by_downloader" jsonschema:"Current versions by downloader plugin: always empty, baton has none."`
	ByMimeType      counts `json:"by_mime_type" jsonschema:"Current versions by mime type: the 10 largest groups, the rest under (other)."`
}

type statsContent struct {
	TotalBytes         int64 `json:"total_bytes" jsonschema:"Text bytes of the current versions."`
	TotalVersionsBytes int64 `json:"total_versions_bytes" jsonschema:"Text bytes of every kept version."`
}

type statsChunks struct {
	Current int `json:"current" jsonschema:"Chunks of the current versions."`
	Total   int `json:"total" jsonschema:"Chunks of every kept version."`
}

type statsBlobs struct {
	Count      int   `json:"count" jsonschema:"Stored original files: always 0, baton keeps text only."`
	TotalBytes int64 `json:"total_bytes" jsonschema:"Their bytes: always 0."`
}

type statsRefresh struct {
	Scheduled  int    `json:"scheduled" jsonschema:"Current versions with a refresh frequency."`
	DueNow     int    `json:"due_now" jsonschema:"Of those, the ones whose refresh is due now."`
	LastStatus counts `json:"last_status" jsonschema:"Current versions by last refresh status."`
}

type statsOut struct {
	Prefix      string       `json:"prefix,omitempty" jsonschema:"The prefix counted under; absent for the whole store."`
	DBPath      string       `json:"db_path" jsonschema:"The store's driver (sqlite or postgres); never a host path."`
	DBSizeBytes int64        `json:"db_size_bytes" jsonschema:"Text bytes of every kept version in the spaces counted, whatever the prefix (the database file's size is the server's business)."`
	Files       statsFiles   `json:"files" jsonschema:"Paths and versions."`
	Content     statsContent `json:"content" jsonschema:"Text sizes."`
	Chunks      statsChunks  `json:"chunks" jsonschema:"Indexed chunks."`
	Blobs       statsBlobs   `json:"blobs" jsonschema:"Original files: baton keeps none."`
	Refresh     statsRefresh `json:"refresh" jsonschema:"Refresh health."`
}

// mimeGroups is how many mime types membot_stats names; the rest are
// summed under otherGroup.
const (
	mimeGroups = 10
	otherGroup = "(other)"
)

// Stats is membot_stats: counts of what the session's spaces hold (its
// project's and the global one, every stored path of both).
var Stats = tool.New(tool.Definition[statsIn, Op[statsOut]]{
	Name:    "membot_stats",
	Toolset: Toolset,
	Description: "`du -sh`: summarise the document store, or the paths under a prefix: documents, versions and " +
		"chunks, text sizes, refresh health, and counts by source type and mime type. Use it as a first call to " +
		"see whether the store holds anything, or before membot_prune to gauge what there is to drop.",
	Annotations: tool.Annotations{ReadOnly: true},
	Profiles:    tool.Profiles,
	Input:       tool.Rules{"prefix": tool.MaxLen(baton.MaxDocumentPath)},
	Args:        []string{"prefix"},
	Execute: func(ctx context.Context, c *tool.Call, in statsIn) (Op[statsOut], error) {
		spaces, err := Spaces(ctx, c)
		if err != nil {
			return fail[statsOut](err)
		}
		prefix := normPrefix(in.Prefix)
		st, err := c.Tx.KnowledgeStats(ctx, spaces, prefix, c.Now)
		if err != nil {
			return fail[statsOut](err)
		}
		size := st.TotalVersionsBytes
		if prefix != "" {
			all, err := c.Tx.KnowledgeStats(ctx, spaces, "", c.Now)
			if err != nil {
				return fail[statsOut](err)
			}
			size = all.TotalVersionsBytes
		}
		return ok(statsOut{
			Prefix: prefix, DBPath: c.Env.Store.Info(ctx).Driver, DBSizeBytes: size,
			Files: statsFiles{Current: st.CurrentFiles, TombstonedPaths: st.TombstonedPaths, TotalVersions: st.TotalVersions,
				DistinctPaths: st.DistinctPaths, BySourceType: countsOf(st.BySourceType), ByDownloader: counts{},
				ByMimeType: topGroups(st.ByMimeType, mimeGroups)},
			Content: statsContent{TotalBytes: st.CurrentBytes, TotalVersionsBytes: st.TotalVersionsBytes},
			Chunks:  statsChunks{Current: st.CurrentChunks, Total: st.TotalChunks},
			Blobs:   statsBlobs{},
			Refresh: statsRefresh{Scheduled: st.RefreshScheduled, DueNow: st.RefreshDue, LastStatus: countsOf(st.LastRefreshStatus)},
		})
	},
})

// counts are counts by a key (a JSON object of integers). Typed as any:
// the schema generator cannot describe the values of a typed map, and every
// schema node needs a description.
type counts = map[string]any

// topGroups keeps the n largest groups of counts (ties by name) and sums
// the rest under otherGroup.
func topGroups(groups map[string]int, n int) counts {
	keys := slices.Collect(maps.Keys(groups))
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(cmp.Compare(groups[b], groups[a]), cmp.Compare(a, b)) })
	out := counts{}
	other := 0
	for i, k := range keys {
		if i < n {
			out[k] = groups[k]
		} else {
			other += groups[k]
		}
	}
	if other > 0 {
		out[otherGroup] = other
	}
	return out
}

// countsOf is groups as counts: an object, never null.
func countsOf(groups map[string]int) counts {
	out := counts{}
	for k, n := range groups {
		out[k] = n
	}
	return out
}
