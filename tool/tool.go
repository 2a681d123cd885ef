// Package tool is the framework every baton tool is written in. A tool is
// defined once, as a Definition; from it come the MCP tool (with input and
// output schema), the CLI subcommand and direct calls in tests, all through
// the same validation and the same pipeline.
package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"slices"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
	"github.com/baton-dev/baton/events"
	"github.com/google/jsonschema-go/jsonschema"
)

// Annotations describe how a tool behaves, for clients and for policy.
type Annotations struct {
	ReadOnly         bool // changes nothing
	Destructive      bool // may delete or overwrite what it cannot restore
	Idempotent       bool // repeating the same call changes nothing further
	Terminal         bool // ends the calling agent's loop
	Privileged       bool // only by explicit grant, never by default
	SchedulerBlocked bool // never in scheduler-initiated sessions
}

// Profiles are the built-in agent profiles.
var Profiles = []string{"worker", "researcher", "judge", "scanner", "architect", "planner", "intake"}

// TxMode says what transaction a tool runs in.
type TxMode int

// Transaction modes. TxAuto means View for read-only tools, Update otherwise.
const (
	TxAuto TxMode = iota
	TxNone        // the tool manages its own store access (or needs none)
)

// Definition is the single source of a tool.
type Definition[In, Out any] struct {
	Name        string
	Description string
	Toolset     string
	Annotations Annotations
	Profiles    []string // profiles that get the tool by default
	Input       Rules    // constraints on input properties
	Output      Rules    // constraints on output properties (documented, and checked)
	Transaction TxMode
	// Event is the type of the event a successful call publishes (e.g.
	// message.sent); empty means "tool.<name>". Read-only tools publish none.
	Event   string
	Execute func(ctx context.Context, c *Call, in In) (Out, error)
	// Then, if set, runs after the transaction committed and its events
	// were published, outside any transaction (c.Tx is nil): the place to
	// wait for what others will do about the change, without holding the
	// store. Its output is the call's output.
	Then func(ctx context.Context, c *Call, in In, out Out) (Out, error)
	// Text renders a successful output as plain text for MCP content and
	// the CLI; without it both show the JSON.
	Text func(Out) string
}

// Call is what Execute receives besides its input.
type Call struct {
	Principal baton.Principal
	Tx        baton.Tx // the call's one transaction; nil under TxNone
	Env       *Env
	Now       time.Time // one timestamp for everything the call writes

	published []string // projects with new events, announced after commit
}

// Env holds what tools may reach: the store, the clock and facts about the
// running server. It is the whole capability surface of a tool.
type Env struct {
	Store    baton.Store
	Clock    baton.Clock
	Registry *Registry
	Server   ServerInfo
	Log      *slog.Logger
	// DataDir holds baton's files beside the database (agent memory).
	DataDir string
	// WorkDir is the agent's working directory; empty means the process's.
	WorkDir string
	// ClaimTTL is the lease a claim gets unless the call asks for another;
	// zero means baton.DefaultClaimTTL.
	ClaimTTL time.Duration
	// Bus wakes subscribers after a call's events commit; may be nil.
	Bus *events.Bus
	// BusHearsAll says the bus also hears every other process writing to
	// the database (PostgreSQL's LISTEN/NOTIFY), so waiters need not look
	// at the store every second to catch their writes.
	BusHearsAll bool
}

// PollEvery is how often a waiter looks at the store besides the bus's
// wake-ups: every second when other processes may write unheard (baton
// mcp processes sharing a SQLite file), else only as a safety net.
func (e *Env) PollEvery() time.Duration {
	if e.BusHearsAll {
		return time.Minute
	}
	return time.Second
}

// Getwd returns the agent's working directory.
func (e *Env) Getwd() (string, error) {
	if e.WorkDir != "" {
		return e.WorkDir, nil
	}
	return os.Getwd()
}

// ServerInfo describes the running server for health reports.
type ServerInfo struct {
	Version string
	Mode    string // FULL, READONLY, TEST or MINIMAL
	Started time.Time
}

// Stages are the steps every call passes through, in order; server_health
// reports them.
var Stages = []string{"validate", "transaction", "execute", "validate_output", "audit", "event", "commit", "publish"}

func (e *Env) now() time.Time {
	if e.Clock != nil {
		return e.Clock().UTC()
	}
	return time.Now().UTC()
}

// Spec is the transport-neutral description of a tool.
type Spec struct {
	Name         string
	Description  string
	Toolset      string
	Annotations  Annotations
	Profiles     []string
	InputSchema  *jsonschema.Schema
	OutputSchema *jsonschema.Schema
	PlainText    bool // the tool renders its own text; otherwise text is the JSON
}

// Result is the outcome of a direct call.
type Result struct {
	Output any          // the typed output; nil on failure
	Err    *baton.Error // nil on success
	Text   string       // what a human or a text-only client reads
}

// Tool is a built Definition. Only this package implements it.
type Tool interface {
	Spec() *Spec
	// Invoke validates raw arguments and runs the tool as p.
	Invoke(ctx context.Context, env *Env, p baton.Principal, raw json.RawMessage) Result
	binder
}

// New builds a tool from its definition. It panics on a definition that
// contradicts itself (a rule for a missing field, a default that breaks its
// own rule): that is a programming error every test run catches.
func New[In, Out any](d Definition[In, Out]) Tool {
	in, err := inputSchema[In](d.Input)
	if err != nil {
		panic(fmt.Sprintf("tool %s: input: %v", d.Name, err))
	}
	out, err := outputSchema[Out](d.Output)
	if err != nil {
		panic(fmt.Sprintf("tool %s: output: %v", d.Name, err))
	}
	if d.Execute == nil || d.Name == "" || d.Toolset == "" || d.Description == "" {
		panic(fmt.Sprintf("tool %q: name, toolset, description and Execute are required", d.Name))
	}
	return &typed[In, Out]{def: d, spec: &Spec{
		Name: d.Name, Description: d.Description, Toolset: d.Toolset,
		Annotations: d.Annotations, Profiles: slices.Clone(d.Profiles),
		InputSchema: in, OutputSchema: out, PlainText: d.Text != nil,
	}}
}

type typed[In, Out any] struct {
	def  Definition[In, Out]
	spec *Spec
}

func (t *typed[In, Out]) Spec() *Spec { return t.spec }

func (t *typed[In, Out]) Invoke(ctx context.Context, env *Env, p baton.Principal, raw json.RawMessage) Result {
	norm, verr := Validate(t.spec.InputSchema, raw)
	if verr != nil {
		return failure(verr)
	}
	var in In
	if err := json.Unmarshal(norm, &in); err != nil {
		return failure(baton.Errorf(baton.ErrInvalidInput, "arguments do not fit %s: %v", t.spec.Name, err).
			WithHint("check the types against the tool's input schema"))
	}
	out, err := t.run(ctx, env, p, in)
	if err != nil {
		return failure(err)
	}
	return Result{Output: out, Text: t.text(out)}
}

func failure(err error) Result {
	e := baton.AsError(err)
	b, _ := json.Marshal(baton.Envelope{Error: e})
	return Result{Err: e, Text: string(b)}
}

func (t *typed[In, Out]) text(out Out) string {
	if t.def.Text != nil {
		return t.def.Text(out)
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// run is the pipeline after validation, shared by every transport: one
// transaction, Execute, the output checked against the output schema before
// commit, panics turned into ERR_INTERNAL.
func (t *typed[In, Out]) run(ctx context.Context, env *Env, p baton.Principal, in In) (out Out, err error) {
	c := &Call{Principal: p, Env: env, Now: env.now()}
	exec := func(tx baton.Tx) (err error) {
		defer func() {
			if r := recover(); r != nil {
				env.logger().Error("tool panicked", "tool", t.spec.Name, "panic", r, "stack", string(debug.Stack()))
				err = baton.Errorf(baton.ErrInternal, "%s failed unexpectedly: %v", t.spec.Name, r).
					WithHint("nothing was changed; this is a bug in baton, report it with the message")
			}
		}()
		c.Tx = tx
		o, err := t.def.Execute(ctx, c, in)
		if err != nil {
			return err
		}
		if err := t.checkOutput(o); err != nil {
			return err
		}
		if tx != nil && !t.spec.Annotations.ReadOnly {
			if err := t.log(ctx, c, in, o); err != nil {
				return err
			}
		}
		out = o
		return nil
	}
	switch {
	case t.def.Transaction == TxNone:
		err = exec(nil)
	case env.Store == nil:
		err = baton.Errorf(baton.ErrInitFailed, "%s needs the store, which is not open", t.spec.Name).
			WithHint("start baton with a database (--db or BATON_DB)")
	case t.spec.Annotations.ReadOnly:
		err = env.Store.View(ctx, exec)
	default:
		err = env.Store.Update(ctx, exec)
	}
	if err != nil {
		var zero Out
		return zero, baton.AsError(err)
	}
	// Subscribers read what committed, so they are woken only now.
	for _, p := range c.published {
		env.Bus.Publish(p)
	}
	if t.def.Then != nil {
		c.Tx = nil
		if out, err = t.def.Then(ctx, c, in, out); err == nil {
			err = t.checkOutput(out)
		}
		if err != nil {
			var zero Out
			return zero, baton.AsError(err)
		}
	}
	return out, nil
}

// log appends the call to the action log, in the call's transaction: a
// change and its record commit together or not at all.
func (t *typed[In, Out]) log(ctx context.Context, c *Call, in In, out Out) error {
	inDigest, err := audit.Digest(in)
	if err != nil {
		return err
	}
	outDigest, err := audit.Digest(out)
	if err != nil {
		return err
	}
	if err := c.Tx.AppendAction(ctx, &baton.Action{Agent: c.Principal.Agent, Source: string(c.Principal.Source),
		Tool: t.spec.Name, Subject: subject(c, in, out), InputDigest: inDigest, ResultDigest: outDigest, At: c.Now}); err != nil {
		return err
	}
	if err := t.publish(ctx, c, subject(c, in, out), out); err != nil {
		return err
	}
	// An agent that changes something is known from then on (messages can
	// reach it); the human is "user", not an agent.
	if c.Principal.Agent == "" || c.Principal.Agent == baton.User {
		return nil
	}
	return c.Tx.SeeAgent(ctx, c.Principal.Agent, c.Now)
}

// publish appends the call's event to its project's stream.
func (t *typed[In, Out]) publish(ctx context.Context, c *Call, subject string, out Out) error {
	typ := t.def.Event
	if typ == "" {
		typ = "tool." + t.spec.Name
	}
	data, err := json.Marshal(out)
	if err != nil {
		return err
	}
	e := &baton.Event{Project: eventProject(ctx, c, subject), Type: typ, Subject: subject, Agent: c.Principal.Agent,
		Data: data, At: c.Now}
	if err := c.Tx.AppendEvent(ctx, e); err != nil {
		return err
	}
	c.published = append(c.published, e.Project)
	return nil
}

// eventProject is the project whose stream an event joins: its work item's,
// else the session's, else the only project there is, else none ("").
func eventProject(ctx context.Context, c *Call, subject string) string {
	if subject != "" {
		if it, err := c.Tx.Item(ctx, subject); err == nil {
			return it.Project
		}
	}
	if c.Principal.Project != "" {
		return c.Principal.Project
	}
	if ps, err := c.Tx.Projects(ctx); err == nil && len(ps) == 1 {
		return ps[0].Slug
	}
	return ""
}

// subjectKeys name the work item a call is about, in the output (a create
// learns its id there) or the input.
var subjectKeys = []string{"task_id", "issue_id", "item_id", "id"}

// subject is the work item a call concerned: named in its output or input,
// else the session's bound issue.
func subject(c *Call, values ...any) string {
	for _, v := range values {
		b, err := json.Marshal(v)
		if err != nil {
			continue
		}
		var m map[string]any
		if json.Unmarshal(b, &m) != nil {
			continue
		}
		for _, k := range subjectKeys {
			if s, ok := m[k].(string); ok && s != "" {
				return s
			}
		}
	}
	return c.Principal.IssueID
}

func (t *typed[In, Out]) checkOutput(o Out) error {
	b, err := json.Marshal(o)
	if err != nil {
		return err
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return err
	}
	if vs := check(t.spec.OutputSchema, "", v); len(vs) > 0 {
		return baton.Errorf(baton.ErrInternal, "%s produced output that breaks its schema: %s", t.spec.Name, vs[0].Message).
			WithDetails("violations", vs).
			WithHint("nothing was changed; this is a bug in baton, report it with the message")
	}
	return nil
}

func (e *Env) logger() *slog.Logger {
	if e.Log != nil {
		return e.Log
	}
	return slog.Default()
}
