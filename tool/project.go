package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"

	"github.com/baton-dev/baton"
	"github.com/google/jsonschema-go/jsonschema"
)

// fillProject gives a call that leaves out its project field the session's
// project (--project, BATON_PROJECT, a token's project) or, when the field
// is required and the database holds exactly one project, that one, so
// nobody has to repeat what baton already knows. It runs before
// validation, on every transport, so "required" still holds for what the
// tool receives; a named project always wins.
func (e *Env) fillProject(ctx context.Context, s *jsonschema.Schema, p baton.Principal, raw json.RawMessage) json.RawMessage {
	prop, ok := s.Properties["project"]
	if !ok || prop.Type != "string" || len(raw) > MaxArguments {
		return raw // an oversized payload is refused by Validate, undecoded
	}
	trimmed := bytes.TrimSpace(raw)
	var args map[string]json.RawMessage
	if len(trimmed) == 0 || string(trimmed) == "null" {
		args = map[string]json.RawMessage{}
	} else if json.Unmarshal(trimmed, &args) != nil {
		return raw // not an object: validation says so
	}
	if _, named := args["project"]; named {
		return raw
	}
	slug := p.Project
	if slug == "" && slices.Contains(s.Required, "project") && e.Store != nil {
		_ = e.Store.View(ctx, func(tx baton.Tx) error {
			ps, err := tx.Projects(ctx)
			if err == nil && len(ps) == 1 {
				slug = ps[0].Slug
			}
			return err
		})
	}
	if slug == "" {
		return raw
	}
	args["project"], _ = json.Marshal(slug)
	out, err := json.Marshal(args)
	if err != nil {
		return raw
	}
	return out
}

// Arguments are raw arguments as a tool of spec receives them from p
// before validation: with the session's project filled in (fillProject).
// A tool that checks another tool's arguments itself (membot_pipe) uses it
// to judge them as a direct call would.
func (e *Env) Arguments(ctx context.Context, spec *Spec, p baton.Principal, raw json.RawMessage) json.RawMessage {
	return e.fillProject(ctx, spec.InputSchema(), p, raw)
}
