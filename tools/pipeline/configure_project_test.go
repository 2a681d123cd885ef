package pipeline_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// operator is a kit whose principal may call configure_project: a custom
// profile granted the privileged tool, as `baton profile allow` does.
func operator(t *testing.T) *testkit.Kit {
	t.Helper()
	k := testkit.New(t)
	ctx := context.Background()
	if err := k.Store.Update(ctx, func(tx baton.Tx) error {
		return tx.PutProfile(ctx, &baton.Profile{Name: "setup", Extends: "intake", AllowedTools: []string{"configure_project", "get_issue"}})
	}); err != nil {
		t.Fatal(err)
	}
	k.Principal.Profile = "setup"
	k.Principal.Project = testkit.Project
	return k
}

func config(t *testing.T, k *testkit.Kit) *baton.ProjectConfig {
	t.Helper()
	var c *baton.ProjectConfig
	if err := k.Store.View(context.Background(), func(tx baton.Tx) (err error) {
		c, err = tx.ProjectConfig(context.Background(), testkit.Project)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return c
}

func gateLabels(out map[string]any) []string {
	var labels []string
	for _, g := range out["gates"].([]any) {
		labels = append(labels, g.(map[string]any)["label"].(string))
	}
	return labels
}

// The catalogue's example, then the merge rules: a field given replaces,
// a field left out stays, [] clears, thresholds merge one by one; every
// change is a version, a call that changes nothing is not.
func TestConfigureProjectMergesAndVersions(t *testing.T) {
	k := operator(t)
	out := k.OK("configure_project", `{
		"gates": [
			{ "command": "npx vitest run", "label": "Tests", "required": true },
			{ "command": "npx nuxt build", "label": "Build", "required": true }
		],
		"sensitive_paths": ["server/database/*", ".env*"],
		"risk_thresholds": { "lowLines": 50, "highLines": 500, "lowFiles": 3, "highFiles": 15 }
	}`)
	if out["version"] != 1.0 || out["changed"] != true || out["project"] != "colibri" || out["updated_by"] != "agent-alice" {
		t.Fatalf("first configuration = %v", out)
	}
	if got := gateLabels(out); !slices.Equal(got, []string{"Tests", "Build"}) {
		t.Errorf("gates = %v", got)
	}
	th := out["risk_thresholds"].(map[string]any)
	if th["lowLines"] != 50.0 || th["highLines"] != 500.0 || th["lowFiles"] != 3.0 || th["highFiles"] != 15.0 {
		t.Errorf("thresholds = %v", th)
	}

	out = k.OK("configure_project", map[string]any{"worker_instructions": "Run go vet too.", "risk_thresholds": map[string]any{"highFiles": 20}})
	c := config(t, k)
	if out["version"] != 2.0 || c.Version != 2 || c.WorkerInstructions != "Run go vet too." || len(c.Gates) != 2 ||
		!slices.Equal(c.SensitivePaths, []string{"server/database/*", ".env*"}) ||
		c.RiskThresholds != (baton.RiskThresholds{LowLines: 50, HighLines: 500, LowFiles: 3, HighFiles: 20}) {
		t.Errorf("after a partial change: %+v", c)
	}

	// The same again changes nothing and makes no version.
	out = k.OK("configure_project", map[string]any{"worker_instructions": "Run go vet too."})
	if out["version"] != 2.0 || out["changed"] != false {
		t.Errorf("repeat = %v", out)
	}

	out = k.OK("configure_project", map[string]any{"gates": []any{}, "sensitive_paths": []any{}, "worker_instructions": ""})
	c = config(t, k)
	if out["version"] != 3.0 || len(c.Gates) != 0 || len(c.SensitivePaths) != 0 || c.WorkerInstructions != "" {
		t.Errorf("cleared = %+v", c)
	}
	var history []*baton.ProjectConfig
	if err := k.Store.View(context.Background(), func(tx baton.Tx) (err error) {
		history, err = tx.ProjectConfigHistory(context.Background(), testkit.Project)
		return err
	}); err != nil || len(history) != 3 || history[2].WorkerInstructions != "" || len(history[2].Gates) != 2 {
		t.Errorf("history = %v, %v", history, err)
	}
	// Two mutating calls changed something, one repeated: each call is in
	// the action log and each reached the project's event stream.
	if n := k.Count(`SELECT COUNT(*) FROM actions WHERE tool = 'configure_project'`); n != 4 {
		t.Errorf("actions = %d, want 4", n)
	}
	if n := k.Count(`SELECT COUNT(*) FROM events WHERE type = 'project.configured' AND project = ?`, testkit.Project); n != 4 {
		t.Errorf("project.configured events = %d, want 4", n)
	}
}

// A session configuring another project tells that project's stream.
func TestConfigureAnotherProjectEmitsThere(t *testing.T) {
	k := operator(t)
	k.AddProject("shop", "SHO")
	out := k.OK("configure_project", map[string]any{"project": "shop", "judge_instructions": "Strict."})
	if out["project"] != "shop" || out["version"] != 1.0 {
		t.Fatalf("out = %v", out)
	}
	if n := k.Count(`SELECT COUNT(*) FROM events WHERE type = 'project.configured' AND project = 'shop'`); n != 1 {
		t.Errorf("shop's events = %d, want 1", n)
	}
	if c := config(t, k); c.Version != 0 {
		t.Errorf("colibri was configured too: %+v", c)
	}
	e := k.FailEnvelope("configure_project", map[string]any{"project": "nope", "judge_instructions": "x"}, baton.ErrProjectNotFound)
	if e.Details["project"] != "nope" {
		t.Errorf("details = %v", e.Details)
	}
}

// configure_project is privileged: no profile has it by default, a grant
// gives it, and the operator's web session has it.
func TestConfigureProjectIsPrivileged(t *testing.T) {
	k := testkit.New(t)
	for _, profile := range baton.BuiltinProfiles {
		w := *k
		w.Principal.Profile = profile
		w.Principal.Source = baton.SourceStdio
		e := w.FailEnvelope("configure_project", map[string]any{"judge_instructions": "x"}, baton.ErrPermissionDenied)
		if e.Hint == "" {
			t.Errorf("%s: refusal without a hint", profile)
		}
	}
	cli := *k
	cli.Principal.Source = baton.SourceCLI // naming no profile: every tool but the privileged ones
	cli.FailEnvelope("configure_project", map[string]any{"judge_instructions": "x"}, baton.ErrPermissionDenied)
	web := *k
	web.Principal.Source = baton.SourceWeb
	if out := web.OK("configure_project", map[string]any{"judge_instructions": "x"}); out["version"] != 1.0 {
		t.Errorf("web operator: %v", out)
	}
	if n := k.Count(`SELECT COUNT(*) FROM project_configs`); n != 1 {
		t.Errorf("refused calls stored configurations: %d rows", n)
	}
}

// Every validation message: the schema's (ERR_INVALID_INPUT, naming the
// field) and the settings' own (ERR_CONFIG_INVALID); a refused call stores
// nothing and logs nothing.
func TestConfigureProjectValidation(t *testing.T) {
	k := operator(t)
	k.OK("configure_project", map[string]any{"risk_thresholds": map[string]any{"lowLines": 10, "highLines": 40}})
	many := make([]map[string]any, 21)
	for i := range many {
		many[i] = map[string]any{"command": "true", "label": strings.Repeat("g", i+1), "required": false}
	}
	for _, tc := range []struct {
		name  string
		args  string
		code  string
		field string
		msg   string
	}{
		{"nothing given", `{}`, baton.ErrInvalidInput, "arguments", "nothing to configure"},
		{"lowLines not below highLines", `{"risk_thresholds": {"lowLines": 40}}`, baton.ErrConfigInvalid, "risk_thresholds.lowLines",
			"risk_thresholds.lowLines (40) must be below highLines (40)"},
		{"highLines below the stored lowLines", `{"risk_thresholds": {"highLines": 5}}`, baton.ErrConfigInvalid, "risk_thresholds.lowLines",
			"risk_thresholds.lowLines (10) must be below highLines (5)"},
		{"lowFiles above highFiles", `{"risk_thresholds": {"lowFiles": 9, "highFiles": 4}}`, baton.ErrConfigInvalid, "risk_thresholds.lowFiles",
			"risk_thresholds.lowFiles (9) must be below highFiles (4)"},
		{"negative threshold", `{"risk_thresholds": {"lowFiles": -1}}`, baton.ErrInvalidInput, "risk_thresholds.lowFiles", "risk_thresholds.lowFiles"},
		{"fractional threshold", `{"risk_thresholds": {"lowFiles": 1.5}}`, baton.ErrInvalidInput, "risk_thresholds.lowFiles", "risk_thresholds.lowFiles"},
		{"unknown threshold", `{"risk_thresholds": {"midLines": 3}}`, baton.ErrInvalidInput, "risk_thresholds", "midLines"},
		{"gate without required", `{"gates": [{"command": "make", "label": "Build"}]}`, baton.ErrInvalidInput, "gates", "required"},
		{"gate with a blank command", `{"gates": [{"command": "  ", "label": "Build", "required": true}]}`, baton.ErrInvalidInput, "gates", "command"},
		{"duplicate gate labels", `{"gates": [{"command": "a", "label": "Tests", "required": true}, {"command": "b", "label": "tests", "required": false}]}`,
			baton.ErrConfigInvalid, "gates[1].label", `gates[0] and gates[1] share the label "tests"`},
		{"too many gates", string(mustJSON(t, map[string]any{"gates": many})), baton.ErrInvalidInput, "gates", "gates"},
		{"bad glob", `{"sensitive_paths": ["ok/**", "src/[a-"]}`, baton.ErrConfigInvalid, "sensitive_paths[1]", `sensitive_paths[1] "src/[a-" is not a valid glob`},
		{"glob leaving the repository", `{"sensitive_paths": ["../secrets"]}`, baton.ErrConfigInvalid, "sensitive_paths[0]", "leaves the repository"},
		{"blank glob", `{"sensitive_paths": [" "]}`, baton.ErrInvalidInput, "sensitive_paths", "sensitive_paths"},
		{"instructions too long", string(mustJSON(t, map[string]any{"worker_instructions": strings.Repeat("x", 8001)})), baton.ErrInvalidInput,
			"worker_instructions", "worker_instructions"},
		{"unknown field", `{"gate": []}`, baton.ErrInvalidInput, "gate", "gate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := k.On(t)
			before := k.Count(`SELECT COUNT(*) FROM actions`)
			e := k.FailEnvelope("configure_project", tc.args, tc.code)
			field, _ := e.Details["field"].(string)
			if vs, ok := e.Details["violations"].([]any); ok && field == "" {
				field, _ = vs[0].(map[string]any)["field"].(string)
			}
			if !strings.HasPrefix(field, tc.field) || !strings.Contains(e.Message, tc.msg) || e.Hint == "" {
				t.Errorf("got %s %q (field %q, hint %q), want field %s and %q", e.Code, e.Message, field, e.Hint, tc.field, tc.msg)
			}
			if c := config(t, k); c.Version != 1 {
				t.Errorf("a refused call stored version %d", c.Version)
			}
			if after := k.Count(`SELECT COUNT(*) FROM actions`); after != before {
				t.Errorf("a refused call was logged (%d -> %d actions)", before, after)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Workers and judges read the settings in get_issue.
func TestConfiguredSettingsReachAgents(t *testing.T) {
	k := operator(t)
	k.OK("configure_project", map[string]any{"worker_instructions": "Keep PRs under 200 lines.", "judge_instructions": "Reject without tests.",
		"gates": []any{map[string]any{"command": "go test ./...", "label": "Tests", "required": true}}})
	direct := *k // Go code calling the registry: every tool
	direct.Principal = baton.Principal{Agent: "agent-alice", Source: baton.SourceTest}
	id := direct.OK("create_issue", map[string]any{"title": "work"})["issue_id"].(string)
	for _, profile := range []string{"worker", "judge"} {
		agent := *k
		agent.Principal.Profile, agent.Principal.Source = profile, baton.SourceStdio
		cfg := agent.OK("get_issue", map[string]any{"issue_id": id})["project_config"].(map[string]any)
		if cfg["worker_instructions"] != "Keep PRs under 200 lines." || cfg["judge_instructions"] != "Reject without tests." ||
			cfg["version"] != 1.0 || len(cfg["gates"].([]any)) != 1 {
			t.Errorf("%s reads project_config = %v", profile, cfg)
		}
	}
}
