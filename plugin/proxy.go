package plugin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolNameRE is MCP's rule for tool names; a proxied name must keep to it.
var toolNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`) })

// proxies turns the remote tools the allowlist keeps into baton tools.
func (c *client) proxies(remote []*mcp.Tool) ([]tool.Tool, error) {
	var out []tool.Tool
	listed := map[string]bool{}
	for _, rt := range remote {
		listed[rt.Name] = true
		if len(c.p.Tools) > 0 && !slices.Contains(c.p.Tools, rt.Name) {
			continue
		}
		name := c.p.Name + "_" + rt.Name
		if !toolNameRE().MatchString(name) {
			c.opts.Log.Warn("plugin tool skipped: its name is not a valid MCP tool name", "plugin", c.p.Name, "tool", rt.Name)
			continue
		}
		spec, err := c.spec(name, rt)
		if err != nil {
			return nil, baton.Errorf(baton.ErrInitFailed, "plugin %s: tool %s: %v", c.p.Name, rt.Name, err).
				WithDetails("plugin", c.p.Name, "tool", rt.Name).
				WithHint("leave %s out with the plugin's tools allowlist, or fix its schema on the server", rt.Name)
		}
		remoteName := rt.Name
		t, err := tool.NewDynamic(spec, func(ctx context.Context, _ *tool.Call, in json.RawMessage) (json.RawMessage, error) {
			return c.call(ctx, name, remoteName, in)
		})
		if err != nil {
			return nil, baton.Errorf(baton.ErrInitFailed, "plugin %s: tool %s: %v", c.p.Name, rt.Name, err).
				WithDetails("plugin", c.p.Name, "tool", rt.Name)
		}
		out = append(out, t)
	}
	for _, want := range c.p.Tools {
		if !listed[want] {
			return nil, baton.Errorf(baton.ErrConfigInvalid, "plugin %s: tools names %q, which %s does not offer", c.p.Name, want, c.where()).
				WithDetails("plugin", c.p.Name, "field", "tools", "rule", "enum", "tool", want).
				WithHint("list only tools the server offers in tools/list, or drop the tools key to proxy all of them")
		}
	}
	return out, nil
}

// spec describes a remote tool as baton's: prefixed name and description,
// the plugin's toolset, its annotations as MCP defines their defaults, and
// the config's profiles and privilege.
func (c *client) spec(name string, rt *mcp.Tool) (tool.Spec, error) {
	in, err := asSchema(rt.InputSchema)
	if err != nil {
		return tool.Spec{}, fmt.Errorf("input schema: %w", err)
	}
	if in == nil {
		in = &jsonschema.Schema{}
	}
	if in.Type == "" && len(in.Types) == 0 {
		in.Type = "object" // MCP requires an object; some servers leave the type out
	}
	out, err := asSchema(rt.OutputSchema)
	if err != nil {
		return tool.Spec{}, fmt.Errorf("output schema: %w", err)
	}
	ann := tool.Annotations{Privileged: c.p.Privileged, SchedulerBlocked: c.p.SchedulerBlocked}
	if a := rt.Annotations; a != nil {
		ann.ReadOnly = a.ReadOnlyHint
		ann.Idempotent = a.IdempotentHint
		// MCP's default for destructiveHint is true.
		ann.Destructive = !a.ReadOnlyHint && (a.DestructiveHint == nil || *a.DestructiveHint)
	} else {
		ann.Destructive = true
	}
	profiles := c.p.Profiles
	if profiles == nil {
		profiles = baton.BuiltinProfiles
	}
	return tool.Spec{
		Name: name, Description: "[" + c.p.Name + "] " + rt.Description, Toolset: "plugin:" + c.p.Name,
		Annotations: ann, Profiles: slices.Clone(profiles), SchedulerCap: c.p.SchedulerCap,
	}.WithSchemas(in, out), nil
}

// asSchema reads a schema as the client received it (a JSON object).
func asSchema(v any) (*jsonschema.Schema, error) {
	if v == nil {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if string(b) == "null" {
		return nil, nil
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// call runs the remote tool. A refusal keeps the remote's envelope when it
// sent baton's; a broken session is ERR_INTERNAL naming the plugin, and the
// next call opens a new one.
func (c *client) call(ctx context.Context, name, remote string, in json.RawMessage) (json.RawMessage, error) {
	cs, err := c.session(ctx)
	if err != nil {
		return nil, c.lost(name, err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: remote, Arguments: in})
	var rpc *jsonrpc.Error
	switch {
	case err == nil:
	case errors.As(err, &rpc) && !transportCodes[rpc.Code]:
		if e := envelope(rpc.Data); e != nil {
			return nil, e
		}
		return nil, c.refused(name, rpc.Message)
	case ctx.Err() != nil:
		return nil, baton.Errorf(baton.ErrInternal, "%s was cancelled before plugin %s answered", name, c.p.Name).
			WithDetails("plugin", c.p.Name).WithHint("retry the call if it is still wanted")
	default:
		c.drop(cs)
		return nil, c.lost(name, err)
	}
	if res.IsError {
		if e := envelope(res.StructuredContent); e != nil {
			return nil, e
		}
		return nil, c.refused(name, text(res))
	}
	if res.StructuredContent != nil {
		return json.Marshal(res.StructuredContent)
	}
	return json.Marshal(text(res))
}

// transportCodes are the JSON-RPC codes the SDK's own transport uses for
// a request that never got an answer (connection closing, HTTP failure):
// the session is broken, the server did not refuse the call.
var transportCodes = map[int64]bool{-32001: true, -32003: true, -32004: true, -32005: true}

// lost is the error of a plugin that cannot be reached.
func (c *client) lost(name string, err error) *baton.Error {
	return baton.Errorf(baton.ErrInternal, "%s failed: the connection to plugin %s is lost: %v", name, c.p.Name, err).
		WithType("plugin_unavailable").WithDetails("plugin", c.p.Name, "server", c.where()).
		WithHint("plugin %s (%s) stopped answering; baton reconnects on the next call, so retry once it runs again", c.p.Name, c.where())
}

// refused is the error of a remote failure that did not come in baton's
// envelope.
func (c *client) refused(name, msg string) *baton.Error {
	return baton.Errorf(baton.ErrInternal, "plugin %s refused %s: %s", c.p.Name, name, msg).
		WithType("plugin_error").WithDetails("plugin", c.p.Name).
		WithHint("read the plugin's message; the call may succeed with other arguments")
}

// envelope is the baton error a remote sent, if v is baton's envelope.
func envelope(v any) *baton.Error {
	if v == nil {
		return nil
	}
	var b []byte
	switch x := v.(type) {
	case json.RawMessage:
		b = x
	default:
		b, _ = json.Marshal(v)
	}
	var env baton.Envelope
	if json.Unmarshal(b, &env) != nil || env.Error == nil || env.Error.Code == "" || env.Error.Message == "" {
		return nil
	}
	if env.Error.Type == "" {
		env.Error.Type = strings.ToLower(strings.TrimPrefix(env.Error.Code, "ERR_"))
	}
	return env.Error
}

// text is a result's text content, joined.
func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, ct := range res.Content {
		if t, ok := ct.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// headers adds the config's headers to every request of an HTTP plugin.
type headers struct {
	h    map[string]string
	next http.RoundTripper
}

func (t *headers) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.h {
		r.Header.Set(k, v)
	}
	return t.next.RoundTrip(r)
}
