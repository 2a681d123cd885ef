package membot

import (
	"context"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

type countLinesIn struct {
	LogicalPath string `json:"logical_path" jsonschema:"Path of the document to count."`
}

type countLinesOut struct {
	IsError     bool   `json:"is_error" jsonschema:"Always false on success."`
	LogicalPath string `json:"logical_path" jsonschema:"The normalised path."`
	LineCount   int    `json:"line_count" jsonschema:"Lines of its current text: 0 when empty, else the newline-separated pieces (a trailing newline adds one empty line)."`
	SizeBytes   int64  `json:"size_bytes" jsonschema:"UTF-8 size of its text."`
}

// CountLines is Botholomew's membot_count_lines: the line count of a
// path's current text, as membot_read's offset and limit count lines.
var CountLines = tool.New(tool.Definition[countLinesIn, countLinesOut]{
	Name:    "membot_count_lines",
	Toolset: Toolset,
	Description: "`wc -l`: count the lines of a document's current text. Use it before a large membot_read or a " +
		"membot_edit to decide whether to read it whole or page through it with offset and limit.",
	Annotations: tool.Annotations{ReadOnly: true},
	Profiles:    tool.Profiles,
	Input:       tool.Rules{"logical_path": tool.Length(1, baton.MaxDocumentPath)},
	Args:        []string{"logical_path"},
	Execute: func(ctx context.Context, c *tool.Call, in countLinesIn) (countLinesOut, error) {
		d, _, err := version(ctx, c, in.LogicalPath, "")
		if err != nil {
			return countLinesOut{}, opError(err)
		}
		return countLinesOut{LogicalPath: d.Path, LineCount: lineCount(d.Content), SizeBytes: d.Size}, nil
	},
})

// lineCount is how many lines membot_read splits text into, except that
// empty text has none.
func lineCount(text string) int {
	if text == "" {
		return 0
	}
	return strings.Count(text, "\n") + 1
}
