package messaging_test

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/tool"
)

// The principals decide_proposal meets: the operator in the dashboard and
// at the CLI, and an agent.
var (
	webOperator = baton.Principal{Agent: baton.User, Source: baton.SourceWeb}
	cliHuman    = baton.Principal{Agent: baton.User, Source: baton.SourceCLI}
	worker      = baton.Principal{Agent: "agent-bob", Profile: "worker", AgentType: "worker", Source: baton.SourceStdio}
)

// as is k acting as p.
func as(k *testkit.Kit, p baton.Principal) *testkit.Kit {
	c := *k
	c.Principal = p
	return &c
}

// propose has agent-bob propose title and returns the proposal's id.
func propose(k *testkit.Kit, title, typ string) string {
	k.T.Helper()
	out := k.As("agent-bob").OK("create_proposal", map[string]any{"title": title, "description": "Why: " + title, "type": typ})
	return out["id"].(string)
}

// proposalStatus reads a proposal's status from the store.
func proposalStatus(k *testkit.Kit, id string) string {
	k.T.Helper()
	ctx := context.Background()
	var status string
	if err := k.Store.View(ctx, func(tx baton.Tx) error {
		ps, err := tx.Proposals(ctx, "", "", "")
		for _, p := range ps {
			if p.ID == id {
				status = p.Status
			}
		}
		return err
	}); err != nil {
		k.T.Fatal(err)
	}
	return status
}

// lastAction is the newest entry of the action log.
func lastAction(k *testkit.Kit) *baton.Action {
	k.T.Helper()
	ctx := context.Background()
	var last *baton.Action
	if err := k.Store.View(ctx, func(tx baton.Tx) error {
		as, err := tx.Actions(ctx, 0, 100000)
		if len(as) > 0 {
			last = as[len(as)-1]
		}
		return err
	}); err != nil {
		k.T.Fatal(err)
	}
	if last == nil {
		k.T.Fatal("the action log is empty")
	}
	return last
}

// countActions is the length of the action log.
func countActions(k *testkit.Kit) int64 { return lastAction(k).Position }

// TestDecideProposalAcceptCreatesItem: the operator accepts a proposal in
// the dashboard and makes work of it: a todo item with the proposal's
// title, labels and provenance, created by the user; the action log has
// the call as the user, from the web; the event says the decision.
func TestDecideProposalAcceptCreatesItem(t *testing.T) {
	k := testkit.New(t)
	id := propose(k, "Cache test fixtures", "engineering")
	out := as(k, webOperator).OK("decide_proposal", map[string]any{"id": id, "decision": "accepted", "create_item": true})
	want := map[string]any{"id": id, "status": "accepted", "created_item": map[string]any{"id": "COL-1", "title": "Cache test fixtures"}}
	if !reflect.DeepEqual(out, want) {
		t.Fatalf("output %v\nwant   %v", out, want)
	}
	if s := proposalStatus(k, id); s != "accepted" {
		t.Errorf("stored status %q, want accepted", s)
	}
	it := k.OK("task_get", map[string]any{"task_id": "COL-1"})
	if it["status"] != "todo" || it["created_by"] != baton.User || it["title"] != "Cache test fixtures" ||
		!strings.Contains(it["description"].(string), "From proposal "+id+" by agent-bob.") {
		t.Errorf("the created item: %v", it)
	}
	var labels []string
	for _, l := range it["labels"].([]any) {
		labels = append(labels, l.(string))
	}
	if !slices.Equal(labels, []string{"engineering", "proposal"}) && !slices.Equal(labels, []string{"proposal", "engineering"}) {
		t.Errorf("labels %v, want proposal and engineering", labels)
	}
	ctx := context.Background()
	var stored *baton.Item
	if err := k.Store.View(ctx, func(tx baton.Tx) (err error) { stored, err = tx.Item(ctx, "COL-1"); return err }); err != nil {
		t.Fatal(err)
	}
	if stored.Kind != baton.KindChore || stored.Priority != baton.PriorityNormal {
		t.Errorf("an engineering proposal became a %s of priority %d, want a chore of normal priority", stored.Kind, stored.Priority)
	}

	a := lastAction(k)
	if a.Agent != baton.User || a.Source != string(baton.SourceWeb) || a.Tool != "decide_proposal" {
		t.Errorf("action log: %+v, want decide_proposal by user from the web", a)
	}
	var events []*baton.Event
	if err := k.Store.View(ctx, func(tx baton.Tx) (err error) { events, err = tx.Events(ctx, testkit.Project, 0, 1000); return err }); err != nil {
		t.Fatal(err)
	}
	last := events[len(events)-1]
	var data map[string]any
	_ = json.Unmarshal(last.Data, &data)
	if last.Type != "proposal.decided" || last.Agent != baton.User || data["status"] != "accepted" {
		t.Errorf("event %s by %s with %s, want proposal.decided by user with status accepted", last.Type, last.Agent, last.Data)
	}
}

// TestDecideProposalDismiss: dismissing creates nothing; the proposal
// leaves the pending list; a product proposal accepted becomes a feature.
func TestDecideProposalDismiss(t *testing.T) {
	k := testkit.New(t)
	op := as(k, webOperator)
	dark := propose(k, "Dark mode", "product")
	keys := propose(k, "Keyboard shortcuts", "product")
	out := op.OK("decide_proposal", map[string]any{"id": dark, "decision": "dismissed"})
	if want := map[string]any{"id": dark, "status": "dismissed"}; !reflect.DeepEqual(out, want) {
		t.Errorf("output %v, want %v (no created_item)", out, want)
	}
	if n := len(list(t, k.OK("task_list", map[string]any{"project": testkit.Project}), "tasks")); n != 0 {
		t.Errorf("dismissing created %d items", n)
	}
	pending := list(t, k.OK("list_proposals", map[string]any{"status": "pending"}), "proposals")
	if ids := field(pending, "id"); !slices.Equal(ids, []string{keys}) {
		t.Errorf("pending after the dismissal: %v, want only %s", ids, keys)
	}
	// Accepting without create_item makes no work either.
	out = op.OK("decide_proposal", map[string]any{"id": keys, "decision": "accepted"})
	if _, ok := out["created_item"]; ok || out["status"] != "accepted" {
		t.Errorf("accept without create_item: %v", out)
	}
}

// TestDecideProposalTwice: a decided proposal stays decided: deciding it
// again, either way, is ERR_CONFLICT saying so, and changes nothing (no
// status, no item, no action).
func TestDecideProposalTwice(t *testing.T) {
	k := testkit.New(t)
	op := as(k, webOperator)
	id := propose(k, "Dark mode", "product")
	op.OK("decide_proposal", map[string]any{"id": id, "decision": "dismissed"})
	before := countActions(k)
	for _, args := range []map[string]any{
		{"id": id, "decision": "dismissed"},
		{"id": id, "decision": "accepted", "create_item": true},
	} {
		e := op.FailEnvelope("decide_proposal", args, baton.ErrConflict)
		if e.Type != "already_decided" || !strings.Contains(e.Message, "already dismissed") || e.Details["status"] != "dismissed" ||
			!strings.Contains(e.Hint, "pending") {
			t.Errorf("second decision %v: %+v", args, e)
		}
	}
	if s := proposalStatus(k, id); s != "dismissed" {
		t.Errorf("status %q after the refused decisions, want dismissed", s)
	}
	if n := len(list(t, k.OK("task_list", map[string]any{"project": testkit.Project}), "tasks")); n != 0 {
		t.Errorf("a refused accept created %d items", n)
	}
	if n := countActions(k); n != before {
		t.Errorf("refused decisions added %d actions", n-before)
	}
	e := op.FailEnvelope("decide_proposal", map[string]any{"id": "no-such-proposal", "decision": "accepted"}, baton.ErrNotFound)
	if e.Hint == "" {
		t.Errorf("unknown proposal without a hint: %+v", e)
	}
}

// TestDecideProposalInput: the schema's rules, and create_item only with
// accepted, refused before anything changes.
func TestDecideProposalInput(t *testing.T) {
	k := testkit.New(t)
	op := as(k, webOperator)
	id := propose(k, "Dark mode", "product")
	base := map[string]any{"id": id, "decision": "accepted"}
	c := func(extra map[string]any) map[string]any { return with(base, extra) }
	runLimitCases(t, op, "decide_proposal", []limitCase{
		{"id missing", c(map[string]any{"id": nil}), "id", "required"},
		{"id empty", c(map[string]any{"id": ""}), "id", "minLength"},
		{"id blank", c(map[string]any{"id": " "}), "id", "pattern"},
		{"id 65", c(map[string]any{"id": strings.Repeat("a", 65)}), "id", "maxLength"},
		{"decision missing", c(map[string]any{"decision": nil}), "decision", "required"},
		{"decision pending", c(map[string]any{"decision": "pending"}), "decision", "enum"},
		{"decision accept", c(map[string]any{"decision": "accept"}), "decision", "enum"},
		{"create_item string", c(map[string]any{"create_item": "yes"}), "create_item", "type"},
		{"project empty", c(map[string]any{"project": ""}), "project", "minLength"},
		{"status argument", c(map[string]any{"status": "accepted"}), "status", "additionalProperties"},
	})
	e := op.FailEnvelope("decide_proposal", map[string]any{"id": id, "decision": "dismissed", "create_item": true}, baton.ErrInvalidInput)
	if e.Details["field"] != "create_item" || e.Details["constraint"] != "requires_accepted" || !strings.Contains(e.Hint, "accepted") {
		t.Errorf("create_item with dismissed: %+v", e)
	}
	if s := proposalStatus(k, id); s != "pending" {
		t.Errorf("status %q after refused calls, want pending", s)
	}
}

// TestDecideProposalProject: the created item goes to the project named,
// else the proposal's; an unknown project refuses the whole decision; with
// several projects and a proposal of none, the project must be named.
func TestDecideProposalProject(t *testing.T) {
	k := testkit.New(t)
	op := as(k, webOperator)
	k.AddProject("shop", "SHOP")
	// Bob's session is in shop: his proposal belongs there.
	bob := as(k, baton.Principal{Agent: "agent-bob", Source: baton.SourceTest, Project: "shop"})
	inShop := bob.OK("create_proposal", map[string]any{"title": "Cache carts", "description": "Why: speed", "type": "product"})["id"].(string)
	out := op.OK("decide_proposal", map[string]any{"id": inShop, "decision": "accepted", "create_item": true})
	if item := out["created_item"].(map[string]any); item["id"] != "SHOP-1" {
		t.Errorf("an item from shop's proposal is %v, want SHOP-1", item)
	}

	// No project on the proposal (a session without one, two projects).
	loose := propose(k, "Dark mode", "product")
	e := op.FailEnvelope("decide_proposal", map[string]any{"id": loose, "decision": "accepted", "create_item": true}, baton.ErrInvalidInput)
	if e.Details["field"] != "project" || e.Hint == "" {
		t.Errorf("no project to put the item in: %+v", e)
	}
	op.FailEnvelope("decide_proposal", map[string]any{"id": loose, "decision": "accepted", "create_item": true, "project": "nope"},
		baton.ErrProjectNotFound)
	if s := proposalStatus(k, loose); s != "pending" {
		t.Errorf("a decision whose item failed left the proposal %s, want pending", s)
	}
	out = op.OK("decide_proposal", map[string]any{"id": loose, "decision": "accepted", "create_item": true, "project": testkit.Project})
	if item := out["created_item"].(map[string]any); item["id"] != "COL-1" {
		t.Errorf("the item is %v, want COL-1", item)
	}
}

// TestDecideProposalIsTheOperators: decide_proposal is privileged. A worker
// does not list it and is refused; a session that names no profile is
// refused too; the operator's web session has it, and so has the person
// at the CLI through the command made for it (a grant for that call).
func TestDecideProposalIsTheOperators(t *testing.T) {
	k := testkit.New(t)
	id := propose(k, "Dark mode", "product")
	args := map[string]any{"id": id, "decision": "accepted"}
	ctx := context.Background()

	s, err := k.Env.Scope(ctx, worker)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(s.Names(k.Registry), "decide_proposal") {
		t.Error("a worker lists decide_proposal")
	}
	for _, p := range []baton.Principal{worker, cliHuman, {Agent: "agent-bob", Source: baton.SourceStdio, Preset: tool.PresetFull}} {
		e := as(k, p).FailEnvelope("decide_proposal", args, baton.ErrPermissionDenied)
		if e.Details["tool"] != "decide_proposal" {
			t.Errorf("refusal of %s: %+v", p.Agent, e)
		}
	}
	if s := proposalStatus(k, id); s != "pending" {
		t.Fatalf("refused calls decided the proposal: %s", s)
	}

	granted := tool.WithGrant(ctx, "decide_proposal")
	res := k.Registry.Call(granted, k.Env, cliHuman, "decide_proposal", testkit.Raw(t, args))
	if res.Err != nil {
		t.Fatalf("the CLI's human command: %s", res.Text)
	}
	if a := lastAction(k); a.Agent != baton.User || a.Source != string(baton.SourceCLI) || a.Tool != "decide_proposal" {
		t.Errorf("action log: %+v, want decide_proposal by user from the CLI", a)
	}
	// The grant is for that tool only.
	res = k.Registry.Call(granted, k.Env, cliHuman, "merkle_finalize", testkit.Raw(t, map[string]any{"session_id": "A-1"}))
	if res.Err == nil || res.Err.Code != baton.ErrPermissionDenied {
		t.Errorf("a grant of decide_proposal let merkle_finalize through: %s", res.Text)
	}
}
