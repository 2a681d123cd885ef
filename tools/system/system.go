// Package system holds the liveness and health tools.
package system

import (
	"context"
	"os"
	"runtime"
	"time"

	"github.com/baton-dev/baton/tool"
)

// Toolset is the CLI group and toolset name of these tools.
const Toolset = "system"

type empty struct{}

type pingOut struct {
	OK        bool   `json:"ok" jsonschema:"Always true: the server answered."`
	Timestamp string `json:"timestamp" jsonschema:"Server time, ISO-8601 UTC."`
}

// Ping is server_ping.
var Ping = tool.New(tool.Definition[empty, pingOut]{
	Name:        "server_ping",
	Toolset:     Toolset,
	Description: "Liveness check: answers {ok: true} with the server time.",
	Profiles:    tool.Profiles,
	Annotations: tool.Annotations{ReadOnly: true, Idempotent: true},
	Transaction: tool.TxNone,
	Execute: func(_ context.Context, c *tool.Call, _ empty) (pingOut, error) {
		return pingOut{OK: true, Timestamp: c.Now.Format(time.RFC3339Nano)}, nil
	},
})

type dbHealth struct {
	Open        bool   `json:"open" jsonschema:"Whether the store answers queries."`
	UserVersion int64  `json:"user_version" jsonschema:"Schema version: the latest applied migration."`
	Path        string `json:"path" jsonschema:"Database file (or redacted URL)."`
	Driver      string `json:"driver" jsonschema:"sqlite or postgres."`
}

type stages struct {
	Stages []string `json:"stages" jsonschema:"The steps every tool call passes through, in order."`
}

type toolCount struct {
	Registered int `json:"registered" jsonschema:"Tools registered in this server."`
}

type processHealth struct {
	PID        int    `json:"pid" jsonschema:"Process id."`
	Goroutines int    `json:"goroutines" jsonschema:"Live goroutines."`
	HeapBytes  uint64 `json:"heap_bytes" jsonschema:"Bytes of allocated heap objects."`
	GoVersion  string `json:"go_version" jsonschema:"Go runtime version."`
}

type healthOut struct {
	Status     string        `json:"status" jsonschema:"ok, or degraded when the store is not open."`
	Mode       string        `json:"mode" jsonschema:"Runtime mode."`
	UptimeMS   int64         `json:"uptime_ms" jsonschema:"Milliseconds since the server started."`
	DB         dbHealth      `json:"db" jsonschema:"The store."`
	Middleware stages        `json:"middleware" jsonschema:"The call pipeline."`
	Tools      toolCount     `json:"tools" jsonschema:"Registered tools."`
	Version    string        `json:"version" jsonschema:"baton version."`
	Timestamp  string        `json:"timestamp" jsonschema:"Server time, ISO-8601 UTC."`
	Process    processHealth `json:"process" jsonschema:"A light set of process metrics."`
}

// Modes are the runtime modes server_health reports.
var Modes = []string{"FULL", "READONLY", "TEST", "MINIMAL"}

// Health is server_health.
var Health = tool.New(tool.Definition[empty, healthOut]{
	Name:        "server_health",
	Toolset:     Toolset,
	Description: "Detailed health report: store state and schema version, runtime mode, call pipeline stages, registered tool count, uptime and process metrics.",
	Profiles:    tool.Profiles,
	Annotations: tool.Annotations{ReadOnly: true, Idempotent: true},
	Transaction: tool.TxNone,
	Output:      tool.Rules{"status": tool.Enum("ok", "degraded"), "mode": tool.Enum(Modes...)},
	Execute: func(ctx context.Context, c *tool.Call, _ empty) (healthOut, error) {
		var mem runtime.MemStats
		runtime.ReadMemStats(&mem)
		out := healthOut{
			Status: "ok", Mode: c.Env.Server.Mode, Version: c.Env.Server.Version,
			UptimeMS:   c.Now.Sub(c.Env.Server.Started).Milliseconds(),
			Middleware: stages{Stages: tool.Stages},
			Timestamp:  c.Now.Format(time.RFC3339Nano),
			Process: processHealth{PID: os.Getpid(), Goroutines: runtime.NumGoroutine(),
				HeapBytes: mem.HeapAlloc, GoVersion: runtime.Version()},
		}
		if out.Mode == "" {
			out.Mode = "FULL"
		}
		if c.Env.Registry != nil {
			out.Tools.Registered = c.Env.Registry.Len()
		}
		if c.Env.Store != nil {
			info := c.Env.Store.Info(ctx)
			out.DB = dbHealth{Open: info.Open, UserVersion: info.SchemaVersion, Path: info.Path, Driver: info.Driver}
		}
		if !out.DB.Open {
			out.Status = "degraded"
		}
		return out, nil
	},
})
