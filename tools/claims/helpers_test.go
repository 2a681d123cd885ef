package claims_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/claims"
	"github.com/baton-dev/baton/tools/tasks"
)

// epoch is where every test's clock starts; millisecond-aligned because
// the store keeps milliseconds.
var epoch = time.Date(2026, 4, 8, 22, 15, 30, 0, time.UTC)

// newKit is a testkit whose registry holds the claim tools and the task
// tools they work with, acting as agent-alice on a clock that stands still
// until a test moves it, so a test knows the exact "now" of every call.
func newKit(t *testing.T) (*testkit.Kit, *testkit.Clock) {
	t.Helper()
	clk := testkit.NewClock(epoch, 0)
	k := testkit.NewAt(t, clk)
	reg := tool.NewRegistry(claims.ClaimItem, claims.ClaimNext, claims.RenewClaim, claims.ReleaseClaim,
		tasks.Create, tasks.Update, tasks.Get, tasks.NextActions)
	k.Registry, k.Env.Registry = reg, reg
	return k, clk
}

type apiError = testkit.APIError

// fail calls a tool that must fail with code; claims' errors must also
// say what to do next.
func fail(k *testkit.Kit, name string, args any, code string) apiError {
	k.T.Helper()
	e := k.FailEnvelope(name, args, code)
	if e.Hint == "" {
		k.T.Errorf("%s: error without a hint: %+v", name, e)
	}
	return e
}

// invalid checks a call fails validation on field with the broken rule.
func invalid(k *testkit.Kit, name string, args any, field, rule string) {
	k.T.Helper()
	e := fail(k, name, args, baton.ErrInvalidInput)
	if e.Details["field"] != field || e.Details["constraint"] != rule {
		k.T.Errorf("%s(%s): details field/constraint = %v/%v, want %s/%s", name, testkit.Raw(k.T, args),
			e.Details["field"], e.Details["constraint"], field, rule)
	}
	if !strings.Contains(e.Message, field) {
		k.T.Errorf("%s: message %q does not name %s", name, e.Message, field)
	}
}

// task creates a task in colibri and drives it to todo, ready to claim.
func task(k *testkit.Kit, args map[string]any) string {
	k.T.Helper()
	a := map[string]any{"project": testkit.Project, "title": "task"}
	for key, v := range args {
		a[key] = v
	}
	id := k.OK("task_create", a)["task_id"].(string)
	k.OK("task_update", map[string]any{"task_id": id, "status": "todo"})
	return id
}

// update calls task_update on id with the fields of args.
func update(k *testkit.Kit, id string, args map[string]any) map[string]any {
	k.T.Helper()
	a := map[string]any{"task_id": id}
	for key, v := range args {
		a[key] = v
	}
	return k.OK("task_update", a)
}

func get(k *testkit.Kit, id string) map[string]any {
	k.T.Helper()
	return k.OK("task_get", map[string]any{"task_id": id})
}

func claim(k *testkit.Kit, id string, ttlSeconds int) map[string]any {
	k.T.Helper()
	args := map[string]any{"item_id": id}
	if ttlSeconds > 0 {
		args["ttl_seconds"] = ttlSeconds
	}
	return k.OK("claim_item", args)
}

// claimOf reads the item's stored claim (active or lapsed), nil if none.
func claimOf(k *testkit.Kit, id string) *baton.Claim {
	k.T.Helper()
	ctx := context.Background()
	var c *baton.Claim
	if err := k.Store.View(ctx, func(tx baton.Tx) (err error) {
		c, err = tx.ClaimOf(ctx, id)
		return err
	}); err != nil {
		k.T.Fatalf("ClaimOf(%s): %v", id, err)
	}
	return c
}

// stamp parses an output timestamp.
func stamp(t testing.TB, v any) time.Time {
	t.Helper()
	s, ok := v.(string)
	if !ok {
		t.Fatalf("timestamp %v (%T) is not a string", v, v)
	}
	ts, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("timestamp %q is not ISO-8601: %v", s, err)
	}
	if !strings.HasSuffix(s, "Z") {
		t.Errorf("timestamp %q is not UTC", s)
	}
	return ts
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

// sameTime compares a timestamp in any precision the API uses (errors
// carry seconds) with want.
func sameTime(t testing.TB, what string, got any, want time.Time) {
	t.Helper()
	if ts := stamp(t, got); !ts.Equal(want.Truncate(time.Second)) && !ts.Equal(want) {
		t.Errorf("%s = %v, want %s", what, got, want.Format(time.RFC3339Nano))
	}
}
