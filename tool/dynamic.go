package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DynamicFunc runs a dynamic tool: it receives the validated arguments
// (defaults applied) and returns the output as JSON. Output that is not a
// JSON object is shown as text only.
type DynamicFunc func(ctx context.Context, c *Call, in json.RawMessage) (json.RawMessage, error)

// NewDynamic builds a tool whose schemas are known only at run time (a
// plugin's tools, proxied from another MCP server). It goes through the
// pipeline of typed tools: the caller's scope and scheduler caps, input
// validation against its input schema (Spec.WithSchemas), the call, the
// output checked against its output schema when there is one, and, unless the tool is read-only,
// one action in the audit log and one event, committed together.
//
// Unlike a typed tool's Execute, call runs outside any store transaction:
// what it changes lives elsewhere and cannot roll back with baton's, and a
// round trip to another server must not hold baton's writer. The record is
// written after call succeeds, in a transaction of its own.
//
// The output subject (task_id, issue_id, ...) of a dynamic tool names an
// item of another server, so audit and events record it qualified by the
// toolset ("plugin:peer:COL-1"), never as one of this database's items.
func NewDynamic(spec Spec, call DynamicFunc) (Tool, error) {
	switch {
	case spec.Name == "" || spec.Toolset == "" || call == nil:
		return nil, fmt.Errorf("dynamic tool %q: name, toolset and call are required", spec.Name)
	case spec.InputSchema() == nil || spec.InputSchema().Type != "object":
		return nil, fmt.Errorf("dynamic tool %q: the input schema must be a JSON Schema of type object", spec.Name)
	}
	spec.Profiles = slices.Clone(spec.Profiles)
	spec.PlainText = false
	return &dynamic{spec: &spec, call: call}, nil
}

type dynamic struct {
	spec *Spec
	call DynamicFunc
}

func (d *dynamic) Spec() *Spec { return d.spec }

func (d *dynamic) Invoke(ctx context.Context, env *Env, p baton.Principal, raw json.RawMessage) Result {
	norm, verr := Validate(d.spec.InputSchema(), raw)
	if verr != nil {
		return failure(verr)
	}
	out, err := d.run(ctx, env, p, norm)
	if err != nil {
		return failure(env.clientError(err))
	}
	return Result{Output: out, Text: dynamicText(out)}
}

// run is the dynamic tool's pipeline after validation; see NewDynamic.
func (d *dynamic) run(ctx context.Context, env *Env, p baton.Principal, in json.RawMessage) (out json.RawMessage, err error) {
	release, err := env.admit(ctx, p, d.spec)
	if err != nil {
		return nil, baton.AsError(err)
	}
	defer func() {
		if err != nil {
			release()
		}
	}()
	if !d.spec.Annotations.ReadOnly && env.Store == nil {
		// Refuse before the call: a change nobody can record is not made.
		return nil, baton.Errorf(baton.ErrInitFailed, "%s needs the store, which is not open", d.spec.Name).
			WithHint("start baton with a database (--db or BATON_DB)")
	}
	c := &Call{Principal: p, Env: env, Now: env.now()}
	if out, err = d.invokeCall(ctx, c, in); err != nil {
		return nil, baton.AsError(err)
	}
	enc, err := d.checkOutput(out)
	if err != nil {
		return nil, err
	}
	if d.spec.Annotations.ReadOnly {
		return out, nil
	}
	// Everything the record needs of the input and the output is worked
	// out before the transaction, once however often a busy database
	// runs it.
	if enc.raw == nil { // no output schema: not decoded yet
		if enc, err = encode(out); err != nil {
			return nil, baton.AsError(err)
		}
	}
	inEnc, err := encode(in)
	if err != nil {
		return nil, baton.AsError(err)
	}
	inDigest, err := audit.DigestValue(inEnc.val)
	if err != nil {
		return nil, baton.AsError(err)
	}
	outDigest, err := audit.DigestValue(enc.val)
	if err != nil {
		return nil, baton.AsError(err)
	}
	subj := d.subject(c, inEnc.val, enc.val)
	err = env.Store.Update(ctx, func(tx baton.Tx) error {
		c.Tx, c.published, c.sawAgent = tx, nil, false // a busy database runs this again
		return record(ctx, c, d.spec, "", subj, inDigest, outDigest, enc.raw)
	})
	c.Tx = nil
	if err != nil {
		return nil, baton.AsError(err)
	}
	c.committed()
	return out, nil
}

func (d *dynamic) invokeCall(ctx context.Context, c *Call, in json.RawMessage) (out json.RawMessage, err error) {
	defer guard(c.Env, d.spec.Name, &err)
	out, err = d.call(ctx, c, in)
	if err == nil && len(bytes.TrimSpace(out)) == 0 {
		out = json.RawMessage("null")
	}
	return out, err
}

// checkOutput holds the provider to its own output schema. The change, if
// any, has been made elsewhere by then; what is refused is recording and
// passing on output that contradicts what the tool promised. With a
// schema, it returns the output encoded (for the record); without, none.
func (d *dynamic) checkOutput(out json.RawMessage) (encoded, error) {
	if d.spec.OutputSchema() == nil {
		return encoded{}, nil
	}
	enc, err := encode(out)
	if err != nil {
		return encoded{}, baton.Errorf(baton.ErrInternal, "%s returned output that is not JSON: %v", d.spec.Name, err).
			WithHint("the server behind %s answered with something baton cannot read; report it to whoever runs it", d.spec.Name)
	}
	if vs := outputViolations(d.spec, enc.val); len(vs) > 0 {
		return encoded{}, baton.Errorf(baton.ErrInternal, "%s returned output that breaks its output schema: %s", d.spec.Name, vs[0].Message).
			WithDetails("violations", vs).
			WithHint("the server behind %s broke its own schema; what it did was not recorded here, report it to whoever runs it", d.spec.Name)
	}
	return enc, nil
}

// subject is the item a call concerned (in and out decoded), qualified by
// the toolset because it lives on another server; without one, the
// session's bound issue.
func (d *dynamic) subject(c *Call, in, out any) string {
	remote := subject(&Call{}, out, in)
	if remote == "" {
		return c.Principal.IssueID
	}
	return d.spec.Toolset + ":" + remote
}

// dynamicText is what a text-only reader sees: a JSON string as its text,
// anything else as JSON.
func dynamicText(out json.RawMessage) string {
	var s string
	if json.Unmarshal(out, &s) == nil {
		return s
	}
	return string(out)
}

// Bind adds the tool with its run-time schemas through the server's raw
// AddTool: arguments arrive as JSON and are validated here, not by the SDK.
func (d *dynamic) Bind(s *mcp.Server, env *Env, who PrincipalFunc) {
	t := MCPTool(d.spec)
	if d.spec.OutputSchema() == nil {
		t.OutputSchema = nil // a nil *Schema in the interface would read as a schema
	}
	s.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var raw json.RawMessage
		if req.Params != nil {
			raw = req.Params.Arguments
		}
		p := who(ctx, req)
		r := d.Invoke(ctx, env, p, raw)
		if r.Err != nil {
			return ErrorResult(r.Err), nil
		}
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: env.parkText(ctx, p, d.spec.Name, r.Text)}}}
		if out, _ := r.Output.(json.RawMessage); bytes.HasPrefix(bytes.TrimSpace(out), []byte("{")) {
			res.StructuredContent = out
		}
		return res, nil
	})
}
