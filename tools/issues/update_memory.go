package issues

import (
	"context"
	"os"
	"path/filepath"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/memory"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/session"
)

type memoryIn struct {
	Scope    string `json:"scope" jsonschema:"project (specific to this project) or global (applies across all projects)."`
	Filename string `json:"filename" jsonschema:"Memory file name (e.g., codebase-notes.md). Must end in .md. Alphanumeric, hyphens, and underscores only."`
	Content  string `json:"content" jsonschema:"Full content to write. Overwrites existing file. Max 10,000 characters."`
}

type memoryOut struct {
	Path     string `json:"path" jsonschema:"Where the file was written, relative to baton's data directory."`
	Scope    string `json:"scope" jsonschema:"project or global."`
	Filename string `json:"filename" jsonschema:"The file name."`
	Profile  string `json:"profile" jsonschema:"The agent profile the memory belongs to."`
	Chars    int    `json:"chars" jsonschema:"Characters written."`
}

// UpdateMemory is update_memory.
var UpdateMemory = tool.New(tool.Definition[memoryIn, memoryOut]{
	Name:    "update_memory",
	Event:   "memory.updated",
	Toolset: Toolset,
	Description: "Persist knowledge for your profile's future runs. Unlike add_learning (issue-scoped, shared), memory is private " +
		"to the agent's profile and injected into its prompt on every run. The file is replaced atomically.",
	Profiles: []string{"worker", "researcher", "judge", "architect", "planner"},
	Input: tool.Rules{
		"scope":    tool.Enum("project", "global"),
		"filename": tool.Field{MaxLength: new(memory.MaxFilename), Pattern: memory.FilenameExpr},
		"content":  tool.MaxLen(memory.MaxContent),
	},
	Execute: func(ctx context.Context, c *tool.Call, in memoryIn) (memoryOut, error) {
		profile := c.Principal.Profile
		if profile == "" {
			profile = c.Principal.AgentType
		}
		if profile == "" {
			return memoryOut{}, baton.Errorf(baton.ErrInvalidInput, "this session has no agent profile, so its memory has no place").
				WithDetails("field", "profile", "constraint", "required").
				WithHint("start baton mcp with --agent-type (worker, researcher, ...)")
		}
		if c.Env.DataDir == "" {
			return memoryOut{}, baton.Errorf(baton.ErrInitFailed, "baton has no data directory for memory files").
				WithHint("start baton with a database file (--db); memory lives beside it")
		}
		project := ""
		if in.Scope == "project" {
			p, err := session.Project(ctx, c, "")
			if err != nil {
				return memoryOut{}, err
			}
			project = p.Slug
		}
		// What the file held before, to put back if the call does not
		// commit: a failed call changes nothing, files included.
		var undo func()
		if dir, err := memory.Dir(c.Env.DataDir, project, profile); err == nil {
			target := filepath.Join(dir, in.Filename)
			if old, err := os.ReadFile(target); err == nil {
				undo = func() { _ = os.WriteFile(target, old, 0o644) }
			} else {
				undo = func() { _ = os.Remove(target) }
			}
		}
		path, err := memory.Write(c.Env.DataDir, project, profile, in.Filename, in.Content)
		if err != nil {
			return memoryOut{}, err
		}
		if undo != nil {
			c.OnRollback(undo)
		}
		// The server's absolute paths are none of the client's business
		// (over HTTP it is another machine's); the layout under the data
		// directory is the catalogue's (memory/<project>/<profile>/).
		if rel, err := filepath.Rel(c.Env.DataDir, path); err == nil {
			path = filepath.ToSlash(rel)
		}
		return memoryOut{Path: path, Scope: in.Scope, Filename: in.Filename, Profile: profile, Chars: len([]rune(in.Content))}, nil
	},
})
