package membot

import (
	"context"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

type existsIn struct {
	LogicalPath string `json:"logical_path" jsonschema:"Path to check."`
}

type existsOut struct {
	IsError     bool   `json:"is_error" jsonschema:"Always false on success."`
	Exists      bool   `json:"exists" jsonschema:"Whether the path has a current version (false when missing or deleted)."`
	LogicalPath string `json:"logical_path" jsonschema:"The normalised path checked."`
}

// Exists is Botholomew's membot_exists: whether a path has a current
// version the session sees. Absence is an answer, never an error.
var Exists = tool.New(tool.Definition[existsIn, existsOut]{
	Name:    "membot_exists",
	Toolset: Toolset,
	Description: "`test -e`: check whether a path has a current (not deleted) version. Answers exists true or " +
		"false and never fails for absence. Use it before membot_write to avoid replacing a document.",
	Annotations: tool.Annotations{ReadOnly: true},
	Profiles:    tool.Profiles,
	Input:       tool.Rules{"logical_path": tool.Length(1, baton.MaxDocumentPath)},
	Args:        []string{"logical_path"},
	Execute: func(ctx context.Context, c *tool.Call, in existsIn) (existsOut, error) {
		key, err := resolve(ctx, c, in.LogicalPath, "")
		if err != nil {
			return existsOut{}, opError(err)
		}
		_, err = c.Tx.Document(ctx, key, "")
		switch {
		case err == nil:
			return existsOut{Exists: true, LogicalPath: key.Path}, nil
		case isNotFound(err):
			return existsOut{Exists: false, LogicalPath: key.Path}, nil
		}
		return existsOut{}, opError(err)
	},
})
