package membot

import (
	"context"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

type moveIn struct {
	FromLogicalPath string `json:"from_logical_path" jsonschema:"The document to move; it must have a current version."`
	ToLogicalPath   string `json:"to_logical_path" jsonschema:"Its new path; must not have a current version."`
}

type moveOut struct {
	FromLogicalPath string `json:"from_logical_path" jsonschema:"The normalised source path, now deleted (a tombstone version 'moved to <dest>')."`
	ToLogicalPath   string `json:"to_logical_path" jsonschema:"The normalised destination path."`
	NewVersionID    string `json:"new_version_id" jsonschema:"The destination's new version, carrying the source's content, chunks and fields."`
}

// Move is membot_move. It moves within the session's own space: a
// document the session only reads from the global knowledge is not its to
// move (membot_copy makes a project copy), and a destination the session
// sees in the global knowledge counts as taken, as a write would hide it.
var Move = tool.New(tool.Definition[moveIn, Op[moveOut]]{
	Name:    "membot_move",
	Event:   "document.moved",
	Toolset: Toolset,
	Description: "`mv`: move a document to a new path (the source gets a tombstone; history stays under both names). " +
		"Fails if the destination exists.",
	Profiles:    []string{"worker"},
	Annotations: tool.Annotations{Destructive: true},
	Input: tool.Rules{
		"from_logical_path": writeRules.path,
		"to_logical_path":   writeRules.path,
	},
	Args:  []string{"from_logical_path", "to_logical_path"},
	Verbs: []string{"mv"},
	Execute: func(ctx context.Context, c *tool.Call, in moveIn) (Op[moveOut], error) {
		from, err := writeKey(ctx, c, in.FromLogicalPath)
		if err != nil {
			return fail[moveOut](err)
		}
		to, err := writeKey(ctx, c, in.ToLogicalPath)
		if err != nil {
			return fail[moveOut](err)
		}
		if _, err := c.Tx.Document(ctx, from, ""); isNotFound(err) {
			if g, _ := visibleDoc(ctx, c, from.Path); g != nil && g.DocSpace != from.DocSpace {
				return fail[moveOut](baton.Errorf(baton.ErrNotFound, "%s is in the global knowledge, which this session does not move", from.Path).
					WithDetails("logical_path", from.Path).
					WithHint("copy it into this project with membot_copy instead"))
			}
			return fail[moveOut](baton.AsError(err).WithHint("list the documents with membot_list to find the path, or membot_versions if it was deleted"))
		} else if err != nil {
			return fail[moveOut](err)
		}
		if cur, err := visibleDoc(ctx, c, to.Path); err != nil {
			return fail[moveOut](err)
		} else if cur != nil && cur.DocSpace != to.DocSpace {
			return fail[moveOut](baton.Errorf(baton.ErrConflict, "%s already exists in the global knowledge", to.Path).
				WithDetails("to_logical_path", to.Path).
				WithHint("pick another destination: a document moved there would hide the global one"))
		}
		d, err := c.Tx.MoveDocument(ctx, from, to.Path, writer(c))
		if err != nil {
			return fail[moveOut](err)
		}
		return ok(moveOut{FromLogicalPath: from.Path, ToLogicalPath: d.Path, NewVersionID: d.Version})
	},
})
