package beads_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/beads"
	"github.com/baton-dev/baton/tools/tasks"
)

// kit is a testkit store and environment with a registry of the bead tools
// and the task tools, so a test can write in one vocabulary and read in
// the other. testkit's own registry does not hold the bead tools.
type kit struct {
	*testkit.Kit
	t   testing.TB
	reg *tool.Registry
}

func newKit(t testing.TB) *kit {
	t.Helper()
	k := testkit.New(t)
	reg := tool.NewRegistry(beads.CreateBead, beads.UpdateBead, beads.CloseBead, beads.ListBeads, beads.ShowBead,
		tasks.Create, tasks.Get, tasks.Update, tasks.List)
	return &kit{Kit: k, t: t, reg: reg}
}

// on returns k reporting failures to t: a kit built by a parent test must
// not call Fatal on the parent from a subtest.
func (k *kit) on(t testing.TB) *kit {
	c := *k
	c.t = t
	kk := *k.Kit
	kk.T = t
	c.Kit = &kk
	return &c
}

// as returns k acting as another agent.
func (k *kit) as(agent string) *kit {
	c := *k
	kk := *k.Kit
	kk.Principal.Agent = agent
	c.Kit = &kk
	return &c
}

// inProject returns k with the session's default project set.
func (k *kit) inProject(slug string) *kit {
	c := *k
	kk := *k.Kit
	kk.Principal.Project = slug
	c.Kit = &kk
	return &c
}

func (k *kit) call(name string, args any) tool.Result {
	k.t.Helper()
	return k.reg.Call(context.Background(), k.Env, k.Principal, name, testkit.Raw(k.t, args))
}

// ok calls a tool that must succeed and returns its structured output (as
// a client decodes it) and its text.
func (k *kit) ok(name string, args any) (map[string]any, string) {
	k.t.Helper()
	res := k.call(name, args)
	if res.Err != nil {
		k.t.Fatalf("%s(%s): unexpected error %s", name, testkit.Raw(k.t, args), res.Text)
	}
	return testkit.Decode(k.t, res.Output), res.Text
}

// fail calls a tool that must fail with code and returns the error.
func (k *kit) fail(name string, args any, code string) *baton.Error {
	k.t.Helper()
	res := k.call(name, args)
	if res.Err == nil {
		k.t.Fatalf("%s(%s): want %s, got success %s", name, testkit.Raw(k.t, args), code, res.Text)
	}
	if res.Err.Code != code {
		k.t.Fatalf("%s(%s): want %s, got %s", name, testkit.Raw(k.t, args), code, res.Text)
	}
	var env map[string]json.RawMessage
	if err := json.Unmarshal([]byte(res.Text), &env); err != nil || env["error"] == nil {
		k.t.Fatalf("%s: error text is not the envelope: %s", name, res.Text)
	}
	return res.Err
}

// create makes a bead (task, P2, "bead" unless args say otherwise) and
// returns its id.
func (k *kit) create(args map[string]any) string {
	k.t.Helper()
	a := map[string]any{"title": "bead", "description": "", "type": "task", "priority": 2}
	for key, v := range args {
		a[key] = v
	}
	out, _ := k.ok("create_bead", a)
	return out["id"].(string)
}

func (k *kit) show(id string) map[string]any {
	k.t.Helper()
	out, _ := k.ok("show_bead", map[string]any{"id": id})
	return out
}

// item reads the canonical row, bypassing every vocabulary.
func (k *kit) item(id string) *baton.Item {
	k.t.Helper()
	ctx := context.Background()
	var it *baton.Item
	if err := k.Store.View(ctx, func(tx baton.Tx) (err error) { it, err = tx.Item(ctx, id); return err }); err != nil {
		k.t.Fatalf("item %s: %v", id, err)
	}
	return it
}

// withStatus creates an item of kind and status, optionally under parent.
func (k *kit) withStatus(kind baton.Kind, status baton.Status, parent string) string {
	k.t.Helper()
	return k.StoreItem(&baton.Item{Kind: kind, Status: status, ParentID: parent, Title: fmt.Sprintf("%s %s", kind, status)})
}

// checkInvalid asserts e is ERR_INVALID_INPUT naming field and constraint,
// with exactly that one violation.
func checkInvalid(t testing.TB, e *baton.Error, field, constraint string) {
	t.Helper()
	if e.Details["field"] != field || e.Details["constraint"] != constraint {
		t.Errorf("details field/constraint = %v/%v, want %s/%s (message %q)",
			e.Details["field"], e.Details["constraint"], field, constraint, e.Message)
	}
	if vs, ok := e.Details["violations"].([]tool.Violation); !ok || len(vs) != 1 {
		t.Errorf("violations = %v, want exactly one", e.Details["violations"])
	}
	if !strings.Contains(e.Message, field) {
		t.Errorf("message %q does not name the field %s", e.Message, field)
	}
}

// limitCase is one boundary probe: args for tool, and either success
// (field == "") or ERR_INVALID_INPUT naming field and constraint.
type limitCase struct {
	name       string
	tool       string
	args       map[string]any
	field      string
	constraint string
}

func runLimitCases(t *testing.T, k *kit, cases []limitCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k := k.on(t)
			if tc.field == "" {
				k.ok(tc.tool, tc.args)
				return
			}
			checkInvalid(t, k.fail(tc.tool, tc.args, baton.ErrInvalidInput), tc.field, tc.constraint)
		})
	}
}

// with returns base with extra's keys set (nil deletes a key).
func with(base, extra map[string]any) map[string]any {
	out := map[string]any{}
	for key, v := range base {
		out[key] = v
	}
	for key, v := range extra {
		if v == nil {
			delete(out, key)
			continue
		}
		out[key] = v
	}
	return out
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// strs reads a JSON list of strings.
func strs(t testing.TB, v any) []string {
	t.Helper()
	if v == nil {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		t.Fatalf("%v (%T) is not a list", v, v)
	}
	out := make([]string, len(list))
	for i, e := range list {
		out[i] = e.(string)
	}
	return out
}

// beadIDs returns the ids of list_beads' structured output, in order.
func beadIDs(t testing.TB, out map[string]any) []string {
	t.Helper()
	list, ok := out["beads"].([]any)
	if !ok {
		t.Fatalf("beads is not a list: %v", out["beads"])
	}
	ids := make([]string, len(list))
	for i, b := range list {
		ids[i] = b.(map[string]any)["id"].(string)
	}
	return ids
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// nonTerminal are the canonical statuses close_bead closes from.
var nonTerminal = []baton.Status{baton.StatusBacklog, baton.StatusTodo, baton.StatusInProgress, baton.StatusBlocked, baton.StatusReview}
