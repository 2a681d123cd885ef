package system_test

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/tool"
)

func stamp(t *testing.T, v any) time.Time {
	t.Helper()
	s, ok := v.(string)
	if !ok {
		t.Fatalf("timestamp %v is not a string", v)
	}
	ts, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatalf("timestamp %q is not RFC 3339: %v", s, err)
	}
	if !strings.HasSuffix(s, "Z") {
		t.Errorf("timestamp %q is not UTC", s)
	}
	return ts
}

func obj(t *testing.T, out map[string]any, key string) map[string]any {
	t.Helper()
	m, ok := out[key].(map[string]any)
	if !ok {
		t.Fatalf("%s is not an object: %#v", key, out[key])
	}
	return m
}

func TestPing(t *testing.T) {
	k := testkit.New(t)
	before := time.Now().UTC().Truncate(time.Second)
	out := k.OK("server_ping", `{}`)
	if out["ok"] != true {
		t.Errorf("ok = %v, want true", out["ok"])
	}
	if ts := stamp(t, out["timestamp"]); ts.Before(before) || ts.After(time.Now().Add(time.Second)) {
		t.Errorf("timestamp %v is not now", ts)
	}
	if got := slices.Sorted(maps.Keys(out)); !slices.Equal(got, []string{"ok", "timestamp"}) {
		t.Errorf("fields = %v", got)
	}
	// No arguments at all is the same as {}; unknown arguments are refused.
	k.OK("server_ping", nil)
	if res := k.Call("server_ping", `{"verbose": true}`); res.Err == nil || res.Err.Code != "ERR_INVALID_INPUT" {
		t.Errorf("unknown argument: %s", res.Text)
	}
}

func TestPingUsesTheServerClock(t *testing.T) {
	k := testkit.New(t)
	at := time.Date(2026, 4, 8, 22, 15, 30, 0, time.UTC)
	k.Env.Clock = func() time.Time { return at }
	out := k.OK("server_ping", `{}`)
	if ts := stamp(t, out["timestamp"]); !ts.Equal(at) {
		t.Errorf("timestamp = %v, want %v", ts, at)
	}
}

func TestHealth(t *testing.T) {
	k := testkit.New(t)
	out := k.OK("server_health", `{}`)
	if out["status"] != "ok" {
		t.Errorf("status = %v, want ok", out["status"])
	}
	if out["mode"] != "TEST" {
		t.Errorf("mode = %v, want TEST", out["mode"])
	}
	if out["version"] != "test" {
		t.Errorf("version = %v, want test", out["version"])
	}
	db := obj(t, out, "db")
	if db["open"] != true {
		t.Errorf("db.open = %v, want true", db["open"])
	}
	if v, _ := db["user_version"].(float64); v < 1 {
		t.Errorf("db.user_version = %v, want >= 1", db["user_version"])
	}
	checkDB(t, k, db)
	if n, _ := obj(t, out, "tools")["registered"].(float64); int(n) != k.Registry.Len() || n == 0 {
		t.Errorf("tools.registered = %v, want %d", obj(t, out, "tools")["registered"], k.Registry.Len())
	}
	st, ok := obj(t, out, "middleware")["stages"].([]any)
	if !ok || len(st) == 0 {
		t.Errorf("middleware.stages = %#v, want a non-empty list", obj(t, out, "middleware")["stages"])
	}
	for i, s := range st {
		if i >= len(tool.Stages) || s != tool.Stages[i] {
			t.Errorf("middleware.stages = %v, want %v", st, tool.Stages)
			break
		}
	}
	if u, ok := out["uptime_ms"].(float64); !ok || u < 0 {
		t.Errorf("uptime_ms = %v, want >= 0", out["uptime_ms"])
	}
	stamp(t, out["timestamp"])
	p := obj(t, out, "process")
	if p["pid"] != float64(os.Getpid()) || p["go_version"] != runtime.Version() {
		t.Errorf("process = %v", p)
	}
	if g, _ := p["goroutines"].(float64); g < 1 {
		t.Errorf("process.goroutines = %v", p["goroutines"])
	}
	if h, _ := p["heap_bytes"].(float64); h <= 0 {
		t.Errorf("process.heap_bytes = %v", p["heap_bytes"])
	}
}

func TestHealthUptime(t *testing.T) {
	k := testkit.New(t)
	now := time.Date(2026, 4, 8, 22, 15, 30, 0, time.UTC)
	k.Env.Clock = func() time.Time { return now }
	k.Env.Server.Started = now.Add(-1500 * time.Millisecond)
	out := k.OK("server_health", `{}`)
	if out["uptime_ms"] != 1500.0 {
		t.Errorf("uptime_ms = %v, want 1500", out["uptime_ms"])
	}
	if ts := stamp(t, out["timestamp"]); !ts.Equal(now) {
		t.Errorf("timestamp = %v, want %v", ts, now)
	}
}

func TestHealthModes(t *testing.T) {
	for _, tc := range []struct{ set, want string }{
		{"FULL", "FULL"}, {"READONLY", "READONLY"}, {"TEST", "TEST"}, {"MINIMAL", "MINIMAL"}, {"", "FULL"},
	} {
		t.Run("mode "+tc.set, func(t *testing.T) {
			k := testkit.New(t)
			k.Env.Server.Mode = tc.set
			if got := k.OK("server_health", `{}`)["mode"]; got != tc.want {
				t.Errorf("mode = %v, want %s", got, tc.want)
			}
		})
	}
}

// checkDB checks the store's description: the absolute file on SQLite,
// the URL on PostgreSQL (postgres.TestInfoHidesPassword checks redaction).
func checkDB(t *testing.T, k *testkit.Kit, db map[string]any) {
	t.Helper()
	if db["driver"] != k.Backend {
		t.Errorf("db.driver = %v, want %s", db["driver"], k.Backend)
	}
	if k.Backend == "postgres" {
		if path, _ := db["path"].(string); !strings.HasPrefix(path, "postgres://") {
			t.Errorf("db.path = %q, want the postgres:// URL", path)
		}
		return
	}
	if db["path"] != k.DBPath || !filepath.IsAbs(k.DBPath) {
		t.Errorf("db.path = %v, want the absolute %s", db["path"], k.DBPath)
	}
}

func TestHealthAfterStoreCloses(t *testing.T) {
	k := testkit.New(t)
	if err := k.Store.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	out := k.OK("server_health", `{}`)
	if out["status"] != "degraded" {
		t.Errorf("status = %v, want degraded", out["status"])
	}
	db := obj(t, out, "db")
	if db["open"] != false {
		t.Errorf("db.open = %v, want false", db["open"])
	}
	checkDB(t, k, db)
	// Ping does not need the store.
	if ok := k.OK("server_ping", `{}`)["ok"]; ok != true {
		t.Errorf("ping after close: ok = %v", ok)
	}
}

func TestHealthWithoutStore(t *testing.T) {
	k := testkit.New(t)
	k.Env.Store = nil
	out := k.OK("server_health", `{}`)
	if out["status"] != "degraded" || obj(t, out, "db")["open"] != false {
		t.Errorf("without a store: status %v db %v, want degraded and closed", out["status"], out["db"])
	}
}

func TestHealthOutputIsJSONOfTheResult(t *testing.T) {
	k := testkit.New(t)
	res := k.Call("server_health", `{}`)
	if res.Err != nil {
		t.Fatalf("health: %s", res.Text)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(res.Text), &m); err != nil {
		t.Fatalf("text is not JSON: %v", err)
	}
	if m["status"] != "ok" {
		t.Errorf("text status = %v", m["status"])
	}
}
