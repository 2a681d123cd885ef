package membot

import (
	"context"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

type listIn struct {
	Prefix string `json:"prefix,omitempty" jsonschema:"Only paths starting with this raw string prefix (poems also matches poems-archive/x); omit for every path."`
	Limit  int    `json:"limit,omitempty" jsonschema:"Most entries to return."`
	Offset int    `json:"offset,omitempty" jsonschema:"Entries to skip first, to page through a long listing."`
}

type listEntry struct {
	LogicalPath         string `json:"logical_path" jsonschema:"The document's path."`
	VersionID           string `json:"version_id" jsonschema:"Its current version."`
	SizeBytes           int64  `json:"size_bytes" jsonschema:"UTF-8 size of its content."`
	MimeType            string `json:"mime_type,omitempty" jsonschema:"Its mime type, e.g. text/markdown."`
	RefreshFrequencySec int64  `json:"refresh_frequency_sec,omitempty" jsonschema:"How often membot_refresh re-reads its source, in seconds; absent when never."`
	LastRefreshStatus   string `json:"last_refresh_status,omitempty" jsonschema:"What its last refresh found (ok, unchanged, failed:<message>); absent before any."`
	RefreshedAt         string `json:"refreshed_at,omitempty" jsonschema:"When it was last refreshed (ISO-8601 UTC); absent when never."`
	Description         string `json:"description,omitempty" jsonschema:"Its one-paragraph summary."`
}

type listOut struct {
	Entries []listEntry `json:"entries" jsonschema:"Current documents, by path."`
	Count   int         `json:"count" jsonschema:"Entries returned (not a total: page with offset while count equals limit)."`
}

// List is membot_list: the current documents the session sees under a
// prefix, by path, one row per path (its project's space over the global
// one), without content.
var List = tool.New(tool.Definition[listIn, Op[listOut]]{
	Name:    "membot_list",
	Toolset: Toolset,
	Description: "`ls`: list current documents under an optional path prefix, by path, with size, mime type, " +
		"refresh schedule and status and description (one row per path, current version only, no content). " +
		"Pair with membot_tree for the shape and membot_search to find content.",
	Annotations: tool.Annotations{ReadOnly: true},
	Profiles:    tool.Profiles,
	Input: tool.Rules{
		"prefix": tool.MaxLen(baton.MaxDocumentPath),
		"limit":  tool.Range(1, maxList).WithDefault(maxList),
		"offset": tool.Range(0, maxOffset).WithDefault(0),
	},
	Args:  []string{"prefix"},
	Verbs: []string{"ls"},
	Execute: func(ctx context.Context, c *tool.Call, in listIn) (Op[listOut], error) {
		ds, err := current(ctx, c, normPrefix(in.Prefix))
		if err != nil {
			return fail[listOut](err)
		}
		// current already merged the two spaces by path, so paging is a
		// slice of it: a page never shows a path twice or skips one.
		ds = ds[min(in.Offset, len(ds)):]
		ds = ds[:min(in.Limit, len(ds))]
		out := listOut{Entries: make([]listEntry, 0, len(ds))}
		for _, d := range ds {
			e := listEntry{LogicalPath: d.Path, VersionID: d.Version, SizeBytes: d.Size, MimeType: d.ContentType,
				RefreshFrequencySec: d.RefreshFrequencySec, LastRefreshStatus: d.LastRefreshStatus, Description: d.Description}
			if !d.RefreshedAt.IsZero() {
				e.RefreshedAt = baton.Timestamp(d.RefreshedAt)
			}
			out.Entries = append(out.Entries, e)
		}
		out.Count = len(out.Entries)
		return ok(out)
	},
})

// Limits of the listing tools.
const (
	maxList   = 1000          // membot_list's most rows per call
	maxOffset = 1_000_000_000 // far past any store, still a bounded number
)

// normPrefix applies membot's path normalisation to a prefix (§4): every \
// becomes /, leading / go. Nothing else: a prefix is a raw string prefix,
// so it may end in / or stop mid-segment.
func normPrefix(p string) string {
	return strings.TrimLeft(strings.ReplaceAll(p, `\`, "/"), "/")
}
