package membot

import (
	"context"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/knowledge"
	"github.com/baton-dev/baton/tool"
)

// MaxWriteContent is the longest content membot_write takes, in
// characters. The framework bounds a whole call at tool.MaxArguments (2 MiB
// of JSON, counted as if every character were a six-byte escape), so this
// is the largest round number that keeps a call within it; larger
// documents come in as project files through membot_add (up to
// baton.MaxDocumentBytes).
const MaxWriteContent = 300_000

// writeRules are the limits of the inputs the write tools share.
var writeRules = struct {
	path, note, frequency tool.Field
}{
	path:      tool.Length(1, baton.MaxDocumentPath),
	note:      tool.MaxLen(1000),
	frequency: tool.MaxLen(32),
}

// visibleDoc is the current version at path that the session reads (its space's,
// else the global space's), or nil when it sees none.
func visibleDoc(ctx context.Context, c *tool.Call, path string) (*baton.Document, error) {
	key, err := resolve(ctx, c, path, "")
	if err != nil {
		return nil, err
	}
	d, err := c.Tx.Document(ctx, key, "")
	if isNotFound(err) {
		return nil, nil
	}
	return d, err
}

// inOwnSpace says whether d lives in the space the session writes.
func inOwnSpace(ctx context.Context, c *tool.Call, d *baton.Document) (bool, error) {
	s, err := space(ctx, c)
	return err == nil && s == d.DocSpace, err
}

// indexAs is indexFor for content of a given mime type (a copy or an edit
// keeps its source's type; a project file has its own).
func indexAs(ctx context.Context, c *tool.Call, path, content, mime string) (*knowledge.Indexed, error) {
	ix, err := knowledge.Index(ctx, c.Env.Embed(), path, content, mime)
	if err != nil {
		return nil, opError(err)
	}
	return ix, nil
}

// mayReadFiles says whether the caller is a person (the CLI, the dashboard) or
// Go code calling directly, rather than an agent: only they may have baton
// read files of the project directory.
func mayReadFiles(p baton.Principal) bool {
	return p.Source == baton.SourceCLI || p.Source == baton.SourceWeb || p.Source == baton.SourceTest
}
