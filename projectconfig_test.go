package baton

import (
	"slices"
	"strings"
	"testing"
)

func TestDefaultProjectConfig(t *testing.T) {
	c := DefaultProjectConfig("sym")
	if c.Version != 0 || c.Project != "sym" || len(c.Gates) != 0 || c.Gates == nil ||
		c.RiskThresholds != (RiskThresholds{LowLines: 20, HighLines: 100, LowFiles: 3, HighFiles: 8}) ||
		!slices.Equal(c.SensitivePaths, []string{"**/database/**", "**/migrate*", "**/*.config.*", "**/auth/**", "**/security/**", "**/.env*"}) {
		t.Fatalf("defaults = %+v", c)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("the defaults do not validate: %v", err)
	}
	c.SensitivePaths[0] = "changed"
	if DefaultProjectConfig("sym").SensitivePaths[0] != "**/database/**" {
		t.Fatal("the defaults share their list")
	}
}

// A patch replaces what it names, keeps what it leaves out, clears with an
// empty list, and replaces thresholds one by one.
func TestProjectConfigApply(t *testing.T) {
	base := DefaultProjectConfig("sym")
	base.Gates = []Gate{{Command: "go test ./...", Label: "Tests", Required: true}}
	base.WorkerInstructions = "keep it small"
	empty := []string{}
	high := 500
	n := base.Apply(ProjectConfigPatch{SensitivePaths: &empty, RiskThresholds: &RiskThresholdsPatch{HighLines: &high}})
	if len(n.SensitivePaths) != 0 || n.SensitivePaths == nil {
		t.Errorf("sensitive paths = %#v, want cleared", n.SensitivePaths)
	}
	if n.RiskThresholds != (RiskThresholds{LowLines: 20, HighLines: 500, LowFiles: 3, HighFiles: 8}) {
		t.Errorf("thresholds = %+v", n.RiskThresholds)
	}
	if len(n.Gates) != 1 || n.WorkerInstructions != "keep it small" {
		t.Errorf("kept fields changed: %+v", n)
	}
	if len(base.SensitivePaths) != 6 || base.RiskThresholds.HighLines != 100 {
		t.Error("Apply changed its receiver")
	}
	if !base.SameSettings(base.Apply(ProjectConfigPatch{})) || base.SameSettings(n) {
		t.Error("SameSettings is wrong")
	}
}

func TestProjectConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(c *ProjectConfig)
		field string
		msg   string
	}{
		{"lowLines not below highLines", func(c *ProjectConfig) { c.RiskThresholds.LowLines = 100 }, "risk_thresholds.lowLines",
			"risk_thresholds.lowLines (100) must be below highLines (100)"},
		{"lowFiles above highFiles", func(c *ProjectConfig) { c.RiskThresholds.LowFiles = 9 }, "risk_thresholds.lowFiles",
			"risk_thresholds.lowFiles (9) must be below highFiles (8)"},
		{"negative", func(c *ProjectConfig) { c.RiskThresholds.LowFiles = -1 }, "risk_thresholds.lowFiles", "must not be negative"},
		{"duplicate gate label", func(c *ProjectConfig) {
			c.Gates = []Gate{{Command: "a", Label: "Tests"}, {Command: "b", Label: " tests"}}
		}, "gates[1].label", "gates[0] and gates[1] share the label"},
		{"blank gate", func(c *ProjectConfig) { c.Gates = []Gate{{Command: " ", Label: "x"}} }, "gates[0]", "needs a command and a label"},
		{"bad glob", func(c *ProjectConfig) { c.SensitivePaths = []string{"ok/**", "src/[a-"} }, "sensitive_paths[1]", "is not a valid glob"},
		{"escaping glob", func(c *ProjectConfig) { c.SensitivePaths = []string{"../secrets/*"} }, "sensitive_paths[0]", "leaves the repository"},
		{"partial doublestar", func(c *ProjectConfig) { c.SensitivePaths = []string{"src/a**/x"} }, "sensitive_paths[0]", "whole path segment"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultProjectConfig("sym")
			tc.edit(c)
			e := AsError(c.Validate())
			if e == nil || e.Code != ErrConfigInvalid || e.Details["field"] != tc.field || !strings.Contains(e.Message, tc.msg) || e.Hint == "" {
				t.Fatalf("Validate = %v (details %v), want ERR_CONFIG_INVALID on %s saying %q", e, e.Details, tc.field, tc.msg)
			}
		})
	}
}

func TestMatchGlob(t *testing.T) {
	for _, tc := range []struct {
		pattern, path string
		want          bool
	}{
		{"**/database/**", "server/database/schema.sql", true},
		{"**/database/**", "database/x.sql", true},
		{"**/database/**", "server/databases/x.sql", false},
		{"**/migrate*", "db/migrate.go", true},
		{"**/migrate*", "db/migrate/001.sql", true}, // the directory matches, so what is inside does
		{"**/migrate*", "db/migrations/001.sql", false},
		{"**/*.config.*", "web/vite.config.ts", true},
		{"**/*.config.*", "web/config.ts", false},
		{"**/.env*", ".env.local", true},
		{".env*", "deploy/.env", true}, // a bare name matches at any depth
		{"/.env*", "deploy/.env", false},
		{"/.env*", ".env", true},
		{"server/database/*", "server/database/a.sql", true},
		{"server/database/*", "server/database/sub/a.sql", true}, // inside a matched directory
		{"server/database/*", "other/server/database/a.sql", false},
		{"server/", "server/api/x.go", true},
		{"docs/*.md", "docs/a.md", true},
		{"docs/*.md", "docs/sub/a.md", false},
		{"src/[ab].go", "src/a.go", true},
		{"src/[ab].go", "src/c.go", false},
		{"src/[a-", "src/a", false}, // malformed: matches nothing
		{"**", "anything/at/all", true},
	} {
		if got := MatchGlob(tc.pattern, tc.path); got != tc.want {
			t.Errorf("MatchGlob(%q, %q) = %v, want %v", tc.pattern, tc.path, got, tc.want)
		}
	}
	c := DefaultProjectConfig("sym")
	if got := c.SensitiveMatches("api/auth/login.go"); !slices.Equal(got, []string{"**/auth/**"}) {
		t.Errorf("SensitiveMatches = %v", got)
	}
	if got := c.SensitiveMatches("api/handler.go"); len(got) != 0 {
		t.Errorf("SensitiveMatches = %v", got)
	}
}
