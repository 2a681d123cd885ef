package membot

import (
	"context"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/knowledge"
	"github.com/baton-dev/baton/tool"
)

type pipeIn struct {
	ToolName    string         `json:"tool_name" jsonschema:"The tool to run, e.g. search_learnings."`
	ToolInput   map[string]any `json:"tool_input" jsonschema:"Its arguments, as you would pass them to it directly."`
	LogicalPath string         `json:"logical_path" jsonschema:"Where to store its whole output; every call writes a new version."`
	ChangeNote  string         `json:"change_note,omitempty" jsonschema:"Why, stored with the version."`
}

type pipeOut struct {
	IsError      bool   `json:"is_error" jsonschema:"Always false on success."`
	LogicalPath  string `json:"logical_path" jsonschema:"The normalised path the output was stored at."`
	VersionID    string `json:"version_id" jsonschema:"The new version."`
	BytesWritten int    `json:"bytes_written" jsonschema:"UTF-8 size of the stored output."`
	Preview      string `json:"preview" jsonschema:"Its first 200 characters."`
}

// pipeRun is what Prepare found: the inner tool's output, indexed for
// storing.
type pipeRun struct {
	content string
	ix      *knowledge.Indexed
}

// innerErrorChars is how much of an inner failure the pipe's message keeps.
const innerErrorChars = 2000

// Pipe is membot_pipe: it runs another tool, as the caller and through the
// caller's own scope, and stores its whole output as a document, so a large
// result becomes searchable without passing through the model's context.
// The inner call runs (and, if it writes, commits) in its own transaction
// before the pipe's write, which is the document alone: an inner failure
// writes nothing.
var Pipe = tool.New(tool.Definition[pipeIn, pipeOut]{
	Name:    "membot_pipe",
	Event:   "document.written",
	Toolset: Toolset,
	Description: "`cmd > file`: run another tool and store its full output under logical_path (chunked, indexed, searchable), " +
		"returning only the path, bytes written and a 200-character preview. Terminal tools and membot_pipe itself cannot be piped.",
	Profiles: tool.Profiles,
	Input: tool.Rules{
		"tool_name":    tool.Length(1, 128),
		"logical_path": tool.Length(1, baton.MaxDocumentPath),
		"change_note":  tool.MaxLen(1000),
	},
	Args: []string{"tool_name", "logical_path"},
	Prepare: func(ctx context.Context, c *tool.Call, in pipeIn) (any, error) {
		if _, err := baton.NormalizeDocPath(in.LogicalPath); err != nil {
			return nil, opError(err)
		}
		reg := c.Env.Registry
		inner, ok := reg.Get(in.ToolName)
		if !ok {
			return nil, baton.Errorf(baton.ErrNotFound, "there is no tool %q to pipe", in.ToolName).
				WithType("unknown_tool").WithDetails("tool_name", in.ToolName).
				WithHint("name one of the tools your session lists")
		}
		spec := inner.Spec()
		if spec.Annotations.Terminal || spec.Name == "membot_pipe" {
			return nil, baton.Errorf(baton.ErrPermissionDenied, "%s cannot be piped: %s", spec.Name, forbiddenWhy(spec)).
				WithType("forbidden_tool").WithDetails("tool_name", spec.Name).
				WithHint("call %s directly", spec.Name)
		}
		raw, err := json.Marshal(in.ToolInput)
		if err != nil {
			return nil, err
		}
		if in.ToolInput == nil {
			raw = []byte("{}")
		}
		// The inner schema first, so bad arguments come back field by
		// field (after the session's project is filled in, as for a
		// direct call); the scope is checked by the inner call itself,
		// which is the same door a direct call goes through.
		if _, verr := tool.Validate(spec.InputSchema(), c.Env.Arguments(ctx, spec, c.Principal, raw)); verr != nil {
			e := *verr
			e.Type = "invalid_input"
			e.Message = "tool_input does not fit " + spec.Name + ": " + verr.Message
			return nil, &e
		}
		res := inner.Invoke(ctx, c.Env, c.Principal, raw)
		if res.Err != nil {
			if res.Err.Code == baton.ErrPermissionDenied {
				e := *res.Err
				e.Type = "forbidden_tool"
				return nil, &e
			}
			return nil, baton.Errorf(baton.ErrInvalidInput, "%s failed: %s", spec.Name, truncated(res.Text, innerErrorChars)).
				WithType("inner_tool_error").
				WithDetails("tool_name", spec.Name, "inner_tool_is_error", true, "inner_error_code", res.Err.Code).
				WithHint("nothing was written; fix the arguments of %s and retry", spec.Name)
		}
		content := res.Text
		if !spec.PlainText {
			b, err := json.Marshal(res.Output)
			if err != nil {
				return nil, err
			}
			content = string(b)
		}
		ix, err := knowledge.Index(ctx, c.Env.Embed(), in.LogicalPath, content, "text/markdown")
		if err != nil {
			return nil, writeFailed(err)
		}
		return &pipeRun{content: content, ix: ix}, nil
	},
	Execute: func(ctx context.Context, c *tool.Call, in pipeIn) (pipeOut, error) {
		run := c.Prepared.(*pipeRun)
		key, err := writeKey(ctx, c, in.LogicalPath)
		if err != nil {
			return pipeOut{}, opError(err)
		}
		note := in.ChangeNote
		if note == "" {
			note = "piped from " + in.ToolName
		}
		d := &baton.Document{DocKey: key, Content: run.content, ChangeNote: note}
		if err := write(ctx, c, d, run.ix); err != nil {
			return pipeOut{}, writeFailed(err)
		}
		return pipeOut{LogicalPath: d.Path, VersionID: d.Version, BytesWritten: len(run.content),
			Preview: prefixChars(run.content, 200)}, nil
	},
})

func forbiddenWhy(s *tool.Spec) string {
	if s.Annotations.Terminal {
		return "it is terminal, and piping it would end your run without its result reaching you"
	}
	return "a pipe into a pipe stores nothing more"
}

// writeFailed is membot_pipe's write_failed, keeping the store's hint.
func writeFailed(err error) error {
	e := baton.AsError(opError(err))
	c := *e
	if c.Code != baton.ErrInternal {
		c.Type = "write_failed"
	}
	return &c
}

// prefixChars is s's first n characters.
func prefixChars(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// truncated keeps the first n characters of s, saying how many it cut.
func truncated(s string, n int) string {
	total := utf8.RuneCountInString(s)
	if total <= n {
		return s
	}
	return fmt.Sprintf("%s[truncated, %d more chars]", prefixChars(s, n), total-n)
}
