package membot

import (
	"context"

	"github.com/baton-dev/baton/tool"
)

type sourcesIn struct{}

type source struct {
	Name           string   `json:"name" jsonschema:"The source's id."`
	Description    string   `json:"description" jsonschema:"What it ingests."`
	Notes          string   `json:"notes,omitempty" jsonschema:"Caveats and limits."`
	MatchKind      string   `json:"match_kind" jsonschema:"How membot_add recognises it: scheme (a prefix like inline:), url, or dynamic (anything else it accepts, here a project path)."`
	Scheme         string   `json:"scheme,omitempty" jsonschema:"The prefix of a scheme source, e.g. inline:; absent otherwise."`
	AuthKind       string   `json:"auth_kind" jsonschema:"api_key when it needs a credential, else none."`
	RequiresAPIKey bool     `json:"requires_api_key" jsonschema:"Whether it needs a credential."`
	Platform       []string `json:"platform,omitempty" jsonschema:"Platforms it works on; absent for all."`
	Examples       []string `json:"examples" jsonschema:"Sources to pass to membot_add."`
}

type sourcesOut struct {
	Sources []source `json:"sources" jsonschema:"What membot_add can ingest."`
	Total   int      `json:"total" jsonschema:"How many sources there are."`
}

// sources are what baton's membot_add ingests: text given inline, and the
// project's own files. Remote sources (URLs, scheme plugins with keys) are
// not configured in baton, so none is listed.
var sources = []source{
	{
		Name:        "inline",
		Description: "Text given in the call itself: inline:<text> stores <text> as a new version.",
		Notes:       "Give logical_path; without it the text lands at inline/<timestamp>.md.",
		MatchKind:   "scheme", Scheme: "inline:", AuthKind: "none",
		Examples: []string{"inline:# Meeting notes\n\n- ship on Friday"},
	},
	{
		Name: "file",
		Description: "UTF-8 text files of the project directory, named by a path relative to the project root: " +
			"a file, a directory (walked recursively) or a glob.",
		Notes: "Read for the operator only (the CLI, the dashboard): an agent reads the file itself and stores it with " +
			"membot_write or inline:<text>. Paths outside the project (by .. or a link), binary files and files over " +
			"10 MiB are refused. URLs are not fetched: remote ingest is not configured.",
		MatchKind: "dynamic", AuthKind: "none",
		Examples: []string{"docs/design.md", "docs/", "notes/**/*.md"},
	},
}

// Sources is membot_sources: what membot_add accepts.
var Sources = tool.New(tool.Definition[sourcesIn, Op[sourcesOut]]{
	Name:    "membot_sources",
	Toolset: Toolset,
	Description: "List the sources membot_add can ingest, how each is recognised, what credential it needs and " +
		"example inputs. Call it before membot_add when unsure what input is supported.",
	Annotations: tool.Annotations{ReadOnly: true, Idempotent: true},
	Profiles:    tool.Profiles,
	Output: tool.Rules{
		"data.sources.match_kind": tool.Enum("url", "scheme", "dynamic"),
		"data.sources.auth_kind":  tool.Enum("api_key", "none"),
	},
	Transaction: tool.TxNone,
	Execute: func(ctx context.Context, c *tool.Call, _ sourcesIn) (Op[sourcesOut], error) {
		return ok(sourcesOut{Sources: sources, Total: len(sources)})
	},
})
