// Package vault holds Symphony's knowledge tools (symphony-mcp-tools.md,
// symphony-pipeline.md §12): search_knowledge, vault_retrieve, vault_update
// and vault_delete, over baton's one document store, the same documents
// Botholomew's membot tools read and write.
//
// Where documents live: searches cover the session's project space (its
// --project, a token's project, else the only project there is) and the
// global space; vault_update writes a file of the project's directory into
// the project's space, vault_delete tombstones a path of that space.
package vault

import (
	"context"
	"errors"
	"path"
	"path/filepath"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

// Toolset is the CLI group and toolset name of the vault tools.
const Toolset = "vault"

// All returns the vault tools, in the order clients list them.
func All() []tool.Tool {
	return []tool.Tool{SearchKnowledge, VaultRetrieve, VaultUpdate, VaultDelete}
}

// Limits of the vault tools' inputs.
const (
	maxQuery = 4000 // characters of a search query
	// maxPath is the longest path, in characters (the logical path is
	// then held to baton.MaxDocumentPath bytes).
	maxPath = baton.MaxDocumentPath
)

var (
	queryRule = tool.Length(1, maxQuery).NonBlank()
	pathRule  = tool.Length(1, maxPath).NonBlank()
)

// noProjectHint is what a session without a project is told.
const noProjectHint = "start baton with --project SLUG (or BATON_PROJECT), so the vault knows which project's directory and knowledge to use"

// sessionProject is the session's project: its own, else the only one.
func sessionProject(ctx context.Context, c *tool.Call, toolName string) (*baton.Project, error) {
	if slug := c.Principal.Project; slug != "" {
		p, err := c.Tx.Project(ctx, slug)
		if err != nil {
			return nil, hinted(err, "check the session's project with `baton project list`; "+noProjectHint)
		}
		return p, nil
	}
	ps, err := c.Tx.Projects(ctx)
	if err != nil {
		return nil, err
	}
	switch len(ps) {
	case 1:
		return ps[0], nil
	case 0:
		return nil, baton.Errorf(baton.ErrProjectNotFound, "%s needs a project, and there is none", toolName).
			WithHint("create one with `baton init --project SLUG --prefix P` in its repository")
	}
	return nil, baton.Errorf(baton.ErrInvalidInput, "%s needs a project: this session has none and there are %d", toolName, len(ps)).
		WithDetails("projects", len(ps)).WithHint(noProjectHint)
}

// docPath turns a path as a client gives it into the logical path the
// vault stores it at: slash-separated, cleaned, relative to the project
// root. It judges the path as written, touching no file: an absolute path
// must lie inside root (as configured, or with its symbolic links
// resolved) and is made relative; a path that climbs out with ".." is
// refused. So whether something exists outside the project is never
// revealed. Messages name p as the client gave it, never root.
func docPath(root, p string) (string, error) {
	if len(p) > baton.MaxDocumentPath {
		return "", baton.Errorf(baton.ErrInvalidInput, "path is %d bytes, over the limit of %d", len(p), baton.MaxDocumentPath).
			WithDetails("field", "path", "max_bytes", baton.MaxDocumentPath).WithHint("use a shorter path")
	}
	outside := baton.Errorf(baton.ErrInvalidInput, "path %q is outside the project directory", p).
		WithDetails("field", "path", "path", p).
		WithHint("give a path inside the project, relative to its root, e.g. docs/design.md")
	s := filepath.ToSlash(p)
	if filepath.IsAbs(p) || strings.HasPrefix(s, "/") {
		rel, ok := relativeTo(root, p)
		if !ok {
			return "", outside
		}
		s = filepath.ToSlash(rel)
	}
	s = path.Clean(strings.ReplaceAll(s, `\`, "/"))
	switch {
	case s == "..", strings.HasPrefix(s, "../"):
		return "", outside
	case s == ".":
		return "", baton.Errorf(baton.ErrInvalidInput, "path %q names the project directory, not a file", p).
			WithDetails("field", "path").WithHint("name one file, relative to the project root, e.g. docs/design.md")
	}
	return baton.NormalizeDocPath(s)
}

// relativeTo is the absolute path p relative to root, when p lies inside
// root as written or inside root with root's symbolic links resolved.
func relativeTo(root, p string) (string, bool) {
	if root == "" || !filepath.IsAbs(p) {
		return "", false
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", false
	}
	bases := []string{abs}
	if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
		bases = append(bases, real)
	}
	for _, b := range bases {
		rel, err := filepath.Rel(b, filepath.Clean(p))
		if err == nil && !filepath.IsAbs(rel) && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return rel, true
		}
	}
	return "", false
}

// writer is who a version is recorded as written by.
func writer(c *tool.Call) string {
	if c.Principal.Agent != "" {
		return c.Principal.Agent
	}
	return baton.User
}

// hinted returns err with hint when it is a baton error without one.
func hinted(err error, hint string) error {
	var e *baton.Error
	if !errors.As(err, &e) || e.Hint != "" {
		return err
	}
	c := *e
	c.Hint = hint
	return &c
}

func isNotFound(err error) bool {
	var e *baton.Error
	return errors.As(err, &e) && e.Code == baton.ErrNotFound
}
