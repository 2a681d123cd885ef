package reservations_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/sqlite"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools"
)

// epoch is where every test's clock starts; millisecond-aligned because
// the store keeps milliseconds.
var epoch = time.Date(2026, 4, 8, 22, 15, 30, 0, time.UTC)

// newKit is a testkit with every tool, acting as agent-alice on a clock
// that stands still until a test moves it, so a test knows the exact "now"
// of every call.
func newKit(t *testing.T) (*testkit.Kit, *testkit.Clock) {
	t.Helper()
	clk := testkit.NewClock(epoch, 0)
	return testkit.NewAt(t, clk), clk
}

// kitOn is a kit (real clock) on the named store, whatever testkit's
// selection: the race runs on both stores in one test run. PostgreSQL
// skips without BATON_TEST_POSTGRES_URL.
func kitOn(t *testing.T, backend string) *testkit.Kit {
	t.Helper()
	if backend == testkit.Backend() {
		return testkit.New(t)
	}
	ctx := context.Background()
	dir := t.TempDir()
	var s baton.Store
	path := ""
	if backend == "postgres" {
		s = testkit.OpenPostgres(t, nil)
	} else {
		path = filepath.Join(dir, "baton.db")
		ss, err := sqlite.Open(ctx, path, sqlite.Options{})
		if err != nil {
			t.Fatalf("open store: %v", err)
		}
		t.Cleanup(func() { ss.Close() })
		s = ss
	}
	if err := s.Update(ctx, func(tx baton.Tx) error {
		return tx.CreateProject(ctx, &baton.Project{Slug: testkit.Project, Prefix: testkit.Prefix})
	}); err != nil {
		t.Fatalf("create project: %v", err)
	}
	reg := tools.Registry()
	return &testkit.Kit{T: t, Store: s, Registry: reg, DBPath: path, Backend: backend,
		Env: &tool.Env{Store: s, Registry: reg, DataDir: dir, WorkDir: dir,
			Server: tool.ServerInfo{Version: "test", Mode: "TEST", Started: time.Now()}},
		Principal: baton.Principal{Agent: "agent-alice", Source: baton.SourceTest}}
}

type apiError = testkit.APIError

// fail calls a tool that must fail with code; every error of these tools
// must also say what to do next.
func fail(k *testkit.Kit, name string, args any, code string) apiError {
	k.T.Helper()
	e := k.FailEnvelope(name, args, code)
	if e.Hint == "" {
		k.T.Errorf("%s: error without a hint: %+v", name, e)
	}
	return e
}

// invalid checks a call fails validation on field with the broken rule.
func invalid(k *testkit.Kit, name string, args any, field, rule string) apiError {
	k.T.Helper()
	e := fail(k, name, args, baton.ErrInvalidInput)
	if e.Details["field"] != field || e.Details["constraint"] != rule {
		k.T.Errorf("%s(%s): details field/constraint = %v/%v, want %s/%s", name, testkit.Raw(k.T, args),
			e.Details["field"], e.Details["constraint"], field, rule)
	}
	if !strings.Contains(e.Message, strings.SplitN(field, "[", 2)[0]) {
		k.T.Errorf("%s: message %q does not name %s", name, e.Message, field)
	}
	return e
}

// reserve reserves paths as k's agent with the extra args, and returns
// the granted reservations.
func reserve(k *testkit.Kit, paths []string, args map[string]any) []map[string]any {
	k.T.Helper()
	a := map[string]any{"paths": paths}
	for key, v := range args {
		a[key] = v
	}
	out := k.OK("file_reservation_paths", a)
	if cs, ok := out["conflicts"].([]any); !ok || len(cs) != 0 {
		k.T.Errorf("conflicts = %v, want always [] on success", out["conflicts"])
	}
	return maps(k.T, out["granted"])
}

// task creates a todo task in colibri, ready to claim, and returns its id.
func task(k *testkit.Kit) string {
	k.T.Helper()
	id := k.OK("task_create", map[string]any{"project": testkit.Project, "title": "task"})["task_id"].(string)
	k.OK("task_update", map[string]any{"task_id": id, "status": "todo"})
	return id
}

// claimed creates a task and claims it as k's agent, for ttl seconds (0:
// the server's default).
func claimed(k *testkit.Kit, ttl int) string {
	k.T.Helper()
	id := task(k)
	args := map[string]any{"item_id": id}
	if ttl > 0 {
		args["ttl_seconds"] = ttl
	}
	k.OK("claim_item", args)
	return id
}

// stored reads every reservation of the store, newest first.
func stored(k *testkit.Kit) []*baton.FileReservation {
	k.T.Helper()
	ctx := context.Background()
	var rs []*baton.FileReservation
	if err := k.Store.View(ctx, func(tx baton.Tx) (err error) {
		rs, err = tx.Reservations(ctx, baton.ReservationFilter{All: true})
		return err
	}); err != nil {
		k.T.Fatalf("Reservations: %v", err)
	}
	return rs
}

// reservation reads one reservation from the store.
func reservation(k *testkit.Kit, id int64) *baton.FileReservation {
	k.T.Helper()
	ctx := context.Background()
	var r *baton.FileReservation
	if err := k.Store.View(ctx, func(tx baton.Tx) (err error) {
		r, err = tx.Reservation(ctx, id)
		return err
	}); err != nil {
		k.T.Fatalf("Reservation(%d): %v", id, err)
	}
	return r
}

// active counts the reservations active at now.
func active(k *testkit.Kit, now time.Time) int {
	k.T.Helper()
	n := 0
	for _, r := range stored(k) {
		if r.Active(now) {
			n++
		}
	}
	return n
}

// maps reads a JSON array of objects.
func maps(t testing.TB, v any) []map[string]any {
	t.Helper()
	list, ok := v.([]any)
	if !ok {
		t.Fatalf("%v (%T) is not an array", v, v)
	}
	out := make([]map[string]any, len(list))
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			t.Fatalf("element %d: %v (%T) is not an object", i, e, e)
		}
		out[i] = m
	}
	return out
}

// id reads a reservation id from JSON.
func id(t testing.TB, v any) int64 {
	t.Helper()
	f, ok := v.(float64)
	if !ok || f < 1 {
		t.Fatalf("file_reservation_id %v (%T) is not a positive number", v, v)
	}
	return int64(f)
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
	return ts
}

// presetTools names the tools of a preset in k's registry.
func presetTools(k *testkit.Kit, preset string) []string { return tool.PresetTools(k.Registry, preset) }
