// Package tool is the framework every baton tool is written in. A tool is
// defined once, as a Definition; from it come the MCP tool (with input and
// output schema), the CLI subcommand and direct calls in tests, all through
// the same validation and the same pipeline.
package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"reflect"
	"runtime/debug"
	"slices"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
	"github.com/baton-dev/baton/embedding"
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
var Profiles = baton.BuiltinProfiles

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
	// SchedulerCap is the scheduler-session cap its successful calls count
	// against (CapIssues, CapComments, ...); empty for none.
	SchedulerCap string
	Input        Rules // constraints on input properties
	Output       Rules // constraints on output properties (documented, and checked)
	Transaction  TxMode
	// Event is the type of the event a successful call publishes (e.g.
	// message.sent); empty means "tool.<name>". Read-only tools publish none.
	Event   string
	Execute func(ctx context.Context, c *Call, in In) (Out, error)
	// Prepare, if set, runs before the transaction and outside it (c.Tx
	// is nil; c.View reads the store): the place for slow work such as
	// git, so that no write transaction waits for it. Execute finds its
	// result in c.Prepared and still writes, with the action and event,
	// in the call's one transaction. A Prepare error fails the call with
	// nothing written.
	Prepare func(ctx context.Context, c *Call, in In) (any, error)
	// Then, if set, runs after the transaction committed and its events
	// were published, outside any transaction (c.Tx is nil): the place to
	// wait for what others will do about the change, without holding the
	// store. Its output is the call's output.
	Then func(ctx context.Context, c *Call, in In, out Out) (Out, error)
	// Text renders a successful output as plain text for MCP content and
	// the CLI; without it both show the JSON.
	Text func(Out) string
	// Args names the input properties the CLI takes as positional
	// arguments, in order, as the product's CLI shows them (`baton membot
	// read notes/x.md`); an array property, last, takes the rest.
	Args []string
	// AliasOf names the tool this one is an old name of (membot_delete of
	// membot_remove): a session may call it exactly when it may call that
	// tool, and tools/list leaves it out, so prompts written against the
	// old name work without the list growing.
	AliasOf string
	// Verbs are further CLI names of the tool besides its name, its
	// kebab-case and its name without the toolset's prefix (membot_read
	// is also `baton membot read`), e.g. membot's `ls`, `mv`, `rm`.
	Verbs []string
}

// Call is what Execute receives besides its input.
type Call struct {
	Principal baton.Principal
	Tx        baton.Tx // the call's one transaction; nil under TxNone
	Env       *Env
	Now       time.Time // one timestamp for everything the call writes
	// Prepared is what the definition's Prepare returned (nil without).
	Prepared any

	published []string // projects with new events, announced after commit
	sawAgent  bool     // this attempt recorded the agent's presence (record)
	undo      []func() // what OnRollback registered in this attempt
}

// OnRollback registers f to run if the call's transaction does not commit:
// how a tool that changes files inside its transaction undoes them, so a
// failed call changes nothing, files included. A store that retries a busy
// transaction runs the undos of each abandoned attempt before the next.
func (c *Call) OnRollback(f func()) { c.undo = append(c.undo, f) }

// View runs fn in a read-only transaction with c.Tx set to it, for a
// Prepare hook that reads the store; c.Tx is nil again afterwards.
func (c *Call) View(ctx context.Context, fn func() error) error {
	if c.Env.Store == nil {
		return baton.Errorf(baton.ErrInitFailed, "the store is not open").
			WithHint("start baton with a database (--db or BATON_DB)")
	}
	defer func() { c.Tx = nil }()
	return c.Env.Store.View(ctx, func(tx baton.Tx) error {
		c.Tx = tx
		return fn()
	})
}

// rollback runs the registered undos, newest first, and forgets them.
func (c *Call) rollback() {
	for i := len(c.undo) - 1; i >= 0; i-- {
		c.undo[i]()
	}
	c.undo = nil
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
	// Embedder embeds knowledge chunks and queries; nil means the
	// built-in local one (Embed).
	Embedder baton.Embedder
	// Bus wakes subscribers after a call's events commit; may be nil.
	Bus *events.Bus
	// BusHearsAll says the bus also hears every other process writing to
	// the database (PostgreSQL's LISTEN/NOTIFY), so waiters need not look
	// at the store every second to catch their writes.
	BusHearsAll bool

	scopes  scopes     // computed tool scopes per principal
	session Session    // scheduler caps of calls that come with no session
	seen    seenAgents // agents whose presence was recorded lately
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

// Embed is the embedder knowledge tools use: the configured one, else the
// built-in local embedder, which needs no network and no key.
func (e *Env) Embed() baton.Embedder {
	if e.Embedder != nil {
		return e.Embedder
	}
	return builtinEmbedder
}

var builtinEmbedder = embedding.NewBuiltin()

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
	SchedulerCap string
	PlainText    bool // the tool renders its own text; otherwise text is the JSON
	// Args and Verbs are the CLI's positional arguments and further
	// command names (Definition.Args, Definition.Verbs).
	Args, Verbs []string
	// AliasOf is Definition.AliasOf.
	AliasOf string

	// schemas are the input and output schemas (InputSchema,
	// OutputSchema): a typed tool's are built on first use, a dynamic
	// tool's are given (WithSchemas). Shared by copies of the Spec.
	schemas *schemas
}

// Result is the outcome of a direct call.
type Result struct {
	Output any          // the typed output; nil on failure
	JSON   []byte       // Output as JSON (marshalled once, in the pipeline); nil on failure
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

// New builds a tool from its definition. Its schemas are built on first
// use (a call, tools/list without precomputed JSON, docs), not here: New
// runs when a tools package initialises, for every tool baton has, and a
// session uses a few of them. New panics at once on a definition without
// name, toolset, description or Execute; a definition that contradicts
// itself (a rule for a missing field, a default that breaks its own rule,
// a positional argument that is no property) panics when its schemas are
// built, which TestBuildEverySchema (package tools) does for every tool:
// a programming error every test run catches.
//
// Only the few lines that know In and Out are generic (the closures
// below): the pipeline is one non-generic piece of code. Generic code is
// compiled once per type shape, and every tool has its own shapes; with
// the whole pipeline generic, baton carried about 75 copies of it (1.9 MB
// of machine code), and starting the server touched each copy's pages.
func New[In, Out any](d Definition[In, Out]) Tool {
	if d.Execute == nil || d.Name == "" || d.Toolset == "" || d.Description == "" {
		panic(fmt.Sprintf("tool %q: name, toolset, description and Execute are required", d.Name))
	}
	t := &typed{
		spec: &Spec{
			Name: d.Name, Description: d.Description, Toolset: d.Toolset,
			Annotations: d.Annotations, Profiles: slices.Clone(d.Profiles), SchedulerCap: d.SchedulerCap,
			PlainText: d.Text != nil, Args: slices.Clone(d.Args), Verbs: slices.Clone(d.Verbs), AliasOf: d.AliasOf,
		},
		tx: d.Transaction, event: d.Event,
		decode: func(b []byte) (any, error) {
			var in In
			err := json.Unmarshal(b, &in)
			return in, err
		},
		execute: func(ctx context.Context, c *Call, in any) (any, error) {
			return d.Execute(ctx, c, as[In](in))
		},
	}
	if d.Prepare != nil {
		t.prepare = func(ctx context.Context, c *Call, in any) (any, error) {
			return d.Prepare(ctx, c, as[In](in))
		}
	}
	if d.Then != nil {
		t.then = func(ctx context.Context, c *Call, in, out any) (any, error) {
			return d.Then(ctx, c, as[In](in), as[Out](out))
		}
	}
	if d.Text != nil {
		t.render = func(out any) string { return d.Text(as[Out](out)) }
	}
	inType, outType, input, output, args := reflect.TypeFor[In](), reflect.TypeFor[Out](), d.Input, d.Output, d.Args
	t.spec.schemas = &schemas{build: func() (in, out *jsonschema.Schema, err error) {
		return buildSchemas(t.spec.Name, inType, outType, input, output, args)
	}}
	return t
}

// as is v as a T: the value a typed closure boxed, or T's zero value for
// a nil interface (a definition whose type is itself an interface).
func as[T any](v any) T {
	t, _ := v.(T)
	return t
}

// buildSchemas makes a tool's input and output schemas from its types and
// rules, and checks its positional arguments against the input.
func buildSchemas(name string, inType, outType reflect.Type, input, output Rules, args []string) (in, out *jsonschema.Schema, err error) {
	if in, err = inputSchema(inType, input); err != nil {
		return nil, nil, fmt.Errorf("tool %s: input: %v", name, err)
	}
	if out, err = outputSchema(outType, output); err != nil {
		return nil, nil, fmt.Errorf("tool %s: output: %v", name, err)
	}
	for i, a := range args {
		ps, ok := in.Properties[a]
		if !ok || (ps.Type == "array" && i != len(args)-1) {
			return nil, nil, fmt.Errorf("tool %s: positional argument %q is not an input property (or an array before the last)", name, a)
		}
	}
	return in, out, nil
}

// typed is a tool built by New: its spec, and its definition's hooks with
// their types boxed (an In or Out travels as any between them).
type typed struct {
	spec    *Spec
	tx      TxMode
	event   string
	decode  func([]byte) (any, error) // validated arguments to an In
	execute func(ctx context.Context, c *Call, in any) (any, error)
	prepare func(ctx context.Context, c *Call, in any) (any, error)      // nil without Prepare
	then    func(ctx context.Context, c *Call, in, out any) (any, error) // nil without Then
	render  func(out any) string                                         // nil without Text
}

func (t *typed) Spec() *Spec { return t.spec }

func (t *typed) Invoke(ctx context.Context, env *Env, p baton.Principal, raw json.RawMessage) Result {
	out, js, err := t.invoke(ctx, env, p, raw)
	if err != nil {
		return failure(err)
	}
	return Result{Output: out, JSON: js, Text: t.text(out, js)}
}

// invoke is every transport's way in: the scope, then the arguments
// (validated, defaults applied), then the pipeline. What fails leaves as
// the client may see it (clientError).
func (t *typed) invoke(ctx context.Context, env *Env, p baton.Principal, raw json.RawMessage) (out any, js []byte, err error) {
	defer func() {
		if err != nil {
			err = env.clientError(err)
		}
	}()
	// Out of scope is out of scope, whatever the arguments.
	if err := env.permit(ctx, p, t.spec.Name); err != nil {
		return nil, nil, err
	}
	raw = env.fillProject(ctx, t.spec.InputSchema(), p, raw)
	norm, verr := Validate(t.spec.InputSchema(), raw)
	if verr != nil {
		return nil, nil, verr
	}
	in, err := t.decode(norm)
	if err != nil {
		return nil, nil, baton.Errorf(baton.ErrInvalidInput, "arguments do not fit %s: %v", t.spec.Name, err).
			WithHint("check the types against the tool's input schema")
	}
	return t.run(ctx, env, p, in)
}

func failure(err error) Result {
	e := baton.AsError(err)
	b, _ := json.Marshal(baton.Envelope{Error: e})
	return Result{Err: e, Text: string(b)}
}

// text is what a text-only reader sees of out, whose JSON is js.
func (t *typed) text(out any, js []byte) string {
	if t.render != nil {
		return t.render(out)
	}
	return string(js)
}

// run is the pipeline after validation, shared by every transport: one
// transaction, Execute, the output checked against the output schema before
// commit, panics turned into ERR_INTERNAL. js is the output's JSON,
// marshalled once for the check, the record and the response.
func (t *typed) run(ctx context.Context, env *Env, p baton.Principal, in any) (out any, js []byte, err error) {
	release, err := env.admit(ctx, p, t.spec)
	if err != nil {
		return nil, nil, baton.AsError(err)
	}
	defer func() {
		if err != nil {
			release()
		}
	}()
	c := &Call{Principal: p, Env: env, Now: env.now()}
	if t.prepare != nil {
		if err := func() (err error) {
			defer guard(env, t.spec.Name, &err)
			c.Prepared, err = t.prepare(ctx, c, in)
			return err
		}(); err != nil {
			return nil, nil, baton.AsError(err)
		}
	}
	writes := t.tx != TxNone && !t.spec.Annotations.ReadOnly
	var input recorded
	if writes && env.Store != nil {
		// The input's digest and subject do not depend on the
		// transaction: worked out here, they cost the writer nothing.
		input = recordInput(in)
	}
	exec := func(tx baton.Tx) (err error) {
		defer guard(env, t.spec.Name, &err)
		// A store runs exec again when the database was busy (see
		// sqlcore.RetryBusy): only the last, committed run announces, and
		// the files of an abandoned run are undone before the next.
		c.rollback()
		c.Tx, c.published, c.sawAgent = tx, nil, false
		if tx != nil && writes {
			c.Tx = &itemMemo{Tx: tx}
		}
		o, err := t.execute(ctx, c, in)
		if err != nil {
			return err
		}
		e, err := t.checkOutput(o)
		if err != nil {
			return err
		}
		if tx != nil && writes {
			if input.err != nil {
				return input.err
			}
			outDigest, err := audit.DigestValue(e.val)
			if err != nil {
				return err
			}
			subj := input.subject
			if subj == "" {
				subj = subject(c, e.val)
			}
			if err := record(ctx, c, t.spec, t.event, subj, input.digest, outDigest, e.raw); err != nil {
				return err
			}
		}
		out, js = o, e.raw
		return nil
	}
	switch {
	case t.tx == TxNone:
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
		c.rollback()
		return nil, nil, baton.AsError(err)
	}
	c.undo = nil // committed: nothing to undo
	c.committed()
	if t.then != nil {
		c.Tx = nil
		var e encoded
		if out, err = t.then(ctx, c, in, out); err == nil {
			e, err = t.checkOutput(out)
		}
		if err != nil {
			return nil, nil, baton.AsError(err)
		}
		js = e.raw
	}
	return out, js, nil
}

// MaxEventData is the most of a call's output an event carries; a larger
// output is recorded as {"truncated": true, "bytes": n}.
const MaxEventData = 64 << 10

// committed is what follows a call's commit: the agent's presence, if
// the call recorded it, is remembered (see seenWindow), and the
// subscribers of the projects the call wrote events to are woken.
func (c *Call) committed() {
	if c.sawAgent {
		c.Env.seen.mark(c.Principal.Agent, c.Now)
	}
	c.announce()
}

// announce wakes the subscribers of the projects the call wrote events to.
// Subscribers read what committed, so it runs only after the commit.
func (c *Call) announce() {
	for _, p := range c.published {
		c.Env.Bus.Publish(p)
	}
}

// admit lets a call through when the tool is in p's scope and a scheduler
// session has cap left for it. Permission comes first: a call outside the
// caller's scope learns nothing, not even whether its arguments were right.
// release gives the cap back when the call then fails.
func (e *Env) admit(ctx context.Context, p baton.Principal, spec *Spec) (release func(), err error) {
	if err := e.permit(ctx, p, spec.Name); err != nil {
		return nil, err
	}
	return e.reserve(ctx, p, spec)
}

// guard turns a panic of the tool named into ERR_INTERNAL in *err. Defer it
// directly: recover works only there.
func guard(env *Env, name string, err *error) {
	if r := recover(); r != nil {
		env.logger().Error("tool panicked", "tool", name, "panic", r, "stack", string(debug.Stack()))
		*err = baton.Errorf(baton.ErrInternal, "%s failed unexpectedly: %v", name, r).
			WithHint("nothing was changed; this is a bug in baton, report it with the message")
	}
}

// checkOutput marshals o once and holds it to the output schema; the
// encoding it returns is what the record and the response use.
func (t *typed) checkOutput(o any) (encoded, error) {
	e, err := encode(o)
	if err != nil {
		return encoded{}, err
	}
	if vs := outputViolations(t.spec, e.val); len(vs) > 0 {
		return encoded{}, baton.Errorf(baton.ErrInternal, "%s produced output that breaks its schema: %s", t.spec.Name, vs[0].Message).
			WithDetails("violations", vs).
			WithHint("nothing was changed; this is a bug in baton, report it with the message")
	}
	return e, nil
}

// outputViolations are the rules of spec's output schema that the output,
// decoded (encode), breaks.
func outputViolations(spec *Spec, v any) []Violation {
	return check(spec.OutputSchema(), "", v)
}

func (e *Env) logger() *slog.Logger {
	if e.Log != nil {
		return e.Log
	}
	return slog.Default()
}
