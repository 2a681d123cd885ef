package messaging_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// epoch is the first instant a fakeClock reports.
var epoch = time.Date(2026, 4, 8, 22, 15, 30, 0, time.UTC)

// withClock makes every call of k read a fake clock that starts at epoch
// and moves by step per call (0: every call ties).
func withClock(k *testkit.Kit, step time.Duration) *testkit.Clock {
	return k.UseClock(testkit.NewClock(epoch, step))
}

func on(k *testkit.Kit, t testing.TB) *testkit.Kit { return k.On(t) }

type apiError = testkit.APIError

func fail(k *testkit.Kit, name string, args any, code string) apiError {
	k.T.Helper()
	return k.FailEnvelope(name, args, code)
}

// violations lists details.violations as "field:rule", sorted.
func violations(t testing.TB, e apiError) []string {
	t.Helper()
	raw, ok := e.Details["violations"].([]any)
	if !ok {
		t.Fatalf("details.violations missing or not a list: %v", e.Details)
	}
	out := make([]string, 0, len(raw))
	for _, v := range raw {
		m := v.(map[string]any)
		out = append(out, fmt.Sprintf("%v:%v", m["field"], m["rule"]))
	}
	sort.Strings(out)
	return out
}

// checkInvalid asserts that e names field and constraint and that its
// violations list exactly that one broken rule.
func checkInvalid(t testing.TB, e apiError, field, constraint string) {
	t.Helper()
	if e.Details["field"] != field || e.Details["constraint"] != constraint {
		t.Errorf("details field/constraint = %v/%v, want %s/%s (message %q)",
			e.Details["field"], e.Details["constraint"], field, constraint, e.Message)
	}
	if got, want := violations(t, e), []string{field + ":" + constraint}; !slices.Equal(got, want) {
		t.Errorf("violations = %v, want %v", got, want)
	}
	if !strings.Contains(e.Message, field) {
		t.Errorf("message %q does not name the field %s", e.Message, field)
	}
}

// limitCase is one boundary probe: args for tool, and either success
// (field == "") or ERR_INVALID_INPUT naming field and constraint.
type limitCase struct {
	name       string
	args       map[string]any
	field      string
	constraint string
}

// runLimitCases calls tool with each case's args as k.
func runLimitCases(t *testing.T, k *testkit.Kit, tool string, cases []limitCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k := on(k, t)
			if tc.field == "" {
				k.OK(tool, tc.args)
				return
			}
			e := fail(k, tool, tc.args, baton.ErrInvalidInput)
			checkInvalid(t, e, tc.field, tc.constraint)
		})
	}
}

// with returns base with extra's keys added (nil values delete keys).
func with(base map[string]any, extra map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(extra))
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

// known makes agents known recipients the way they become known in
// production: each does something (set_status idle).
func known(k *testkit.Kit, names ...string) {
	k.T.Helper()
	for _, n := range names {
		k.As(n).OK("set_status", map[string]any{"status": "idle"})
	}
}

// send makes k's agent send body to to (with extra fields) and returns the
// new message's id.
func send(k *testkit.Kit, to, body string, extra map[string]any) string {
	k.T.Helper()
	out := k.OK("send_message", with(map[string]any{"to": to, "body": body}, extra))
	id, _ := out["messageId"].(string)
	if id == "" {
		k.T.Fatalf("send_message returned no messageId: %v", out)
	}
	return id
}

// read calls read_messages as k and returns the messages.
func read(k *testkit.Kit, args map[string]any) []map[string]any {
	k.T.Helper()
	return list(k.T, k.OK("read_messages", args), "messages")
}

// list returns out[field] as a list of objects; null or missing fails.
func list(t testing.TB, out map[string]any, field string) []map[string]any {
	t.Helper()
	raw, ok := out[field].([]any)
	if !ok {
		t.Fatalf("%s is not a list (null or missing?): %v", field, out[field])
	}
	res := make([]map[string]any, len(raw))
	for i, e := range raw {
		res[i] = e.(map[string]any)
	}
	return res
}

// field returns the string values of key across ms.
func field(ms []map[string]any, key string) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i], _ = m[key].(string)
	}
	return out
}

// find returns the message with id in ms, failing when absent.
func find(t testing.TB, ms []map[string]any, id string) map[string]any {
	t.Helper()
	for _, m := range ms {
		if m["id"] == id {
			return m
		}
	}
	t.Fatalf("message %s not among %v", id, field(ms, "id"))
	return nil
}

// peek reads a message straight from the store, without anybody reading
// it (no delivery, no agent recorded).
func peek(k *testkit.Kit, id string) *baton.Message {
	k.T.Helper()
	ctx := context.Background()
	var found *baton.Message
	if err := k.Store.View(ctx, func(tx baton.Tx) error {
		ms, err := tx.ReadMessages(ctx, "", baton.MessageFilter{Limit: 100000})
		for _, m := range ms {
			if m.ID == id {
				found = m
			}
		}
		return err
	}); err != nil {
		k.T.Fatalf("peek %s: %v", id, err)
	}
	if found == nil {
		k.T.Fatalf("message %s is not stored", id)
	}
	return found
}

// agentState reads an agent's recorded state from the store.
func agentState(k *testkit.Kit, name string) *baton.AgentState {
	k.T.Helper()
	ctx := context.Background()
	var a *baton.AgentState
	if err := k.Store.View(ctx, func(tx baton.Tx) error {
		var err error
		a, err = tx.Agent(ctx, name)
		return err
	}); err != nil {
		k.T.Fatalf("agent %s: %v", name, err)
	}
	return a
}

// agentNames lists every agent the store knows.
func agentNames(k *testkit.Kit) []string {
	k.T.Helper()
	ctx := context.Background()
	var names []string
	if err := k.Store.View(ctx, func(tx baton.Tx) error {
		as, err := tx.Agents(ctx)
		for _, a := range as {
			names = append(names, a.Name)
		}
		return err
	}); err != nil {
		k.T.Fatalf("agents: %v", err)
	}
	return names
}

// strs turns a JSON list of strings into a []string.
func strs(t testing.TB, v any) []string {
	t.Helper()
	raw, ok := v.([]any)
	if !ok {
		t.Fatalf("%v (%T) is not a list", v, v)
	}
	out := make([]string, len(raw))
	for i, e := range raw {
		out[i] = e.(string)
	}
	return out
}

// keys returns the sorted keys of m.
func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// num reads a JSON number as an int.
func num(t testing.TB, v any) int {
	t.Helper()
	f, ok := v.(float64)
	if !ok {
		t.Fatalf("%v (%T) is not a number", v, v)
	}
	return int(f)
}

// uuidV4 is the form of message and proposal ids.
var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// stampRE is baton's one timestamp format: milliseconds, UTC.
var stampRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)

// stamp is t as baton writes it.
func stamp(t time.Time) string { return baton.Timestamp(t) }
