package cli_test

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-dev/baton/cli"
)

func countRows(t *testing.T, env map[string]string, query string, args ...any) int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+env["BATON_DB"]+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func showJSON(t *testing.T, env map[string]string, args ...string) map[string]any {
	t.Helper()
	r := baton(t, env, append([]string{"project", "show", "--json"}, args...)...)
	if r.code != 0 {
		t.Fatalf("project show: %+v", r)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("project show --json: %v\n%s", err, r.stdout)
	}
	return out
}

// baton project configure sets what configure_project sets, as the user
// (no grant needed: it is the operator's own command), versioned, in the
// action log and the event stream; baton project show reads it back.
func TestProjectConfigureAndShow(t *testing.T) {
	env := newDB(t)
	out := showJSON(t, env)
	cfg := out["config"].(map[string]any)
	if cfg["version"] != 0.0 || len(cfg["sensitive_paths"].([]any)) != 6 || out["project"] != "colibri" {
		t.Fatalf("defaults = %v", out)
	}
	if ph := out["phases"].([]any); len(ph) != 4 || ph[1].(map[string]any)["artifact_path"] != "docs/tickets/<ID>/design.md" {
		t.Errorf("phases = %v", out["phases"])
	}

	r := baton(t, env, "project", "configure", "--gate", "Tests=go test ./...", "--optional-gate", "Lint = golangci-lint run",
		"--sensitive-paths", "server/database/**,.env*", "--low-lines", "30", "--high-files", "12",
		"--worker-instructions", "Small commits.", "--judge-instructions", "Reject without tests.")
	if r.code != 0 || !strings.Contains(r.stdout, "configuration version 1, by user") ||
		!strings.Contains(r.stdout, "Tests (required): go test ./...") || !strings.Contains(r.stdout, "Lint (optional): golangci-lint run") ||
		!strings.Contains(r.stdout, "medium above 30 lines or 3 files, high above 100 lines or 12 files") {
		t.Fatalf("configure = %+v", r)
	}
	cfg = showJSON(t, env, "colibri")["config"].(map[string]any)
	if cfg["version"] != 1.0 || cfg["worker_instructions"] != "Small commits." || cfg["judge_instructions"] != "Reject without tests." ||
		strings.Join(toStrings(cfg["sensitive_paths"]), ",") != "server/database/**,.env*" {
		t.Errorf("stored = %v", cfg)
	}

	// --input is configure_project's JSON; flags win over it.
	r = baton(t, env, "project", "configure", "--json", "--input", `{"risk_thresholds": {"lowFiles": 2, "highFiles": 4}, "judge_instructions": "from input"}`,
		"--judge-instructions", "from the flag")
	var got map[string]any
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &got) != nil {
		t.Fatalf("configure --input = %+v", r)
	}
	if got["version"] != 2.0 || got["changed"] != true || got["judge_instructions"] != "from the flag" ||
		got["risk_thresholds"].(map[string]any)["highFiles"] != 4.0 || len(got["gates"].([]any)) != 2 {
		t.Errorf("configure --input = %v", got)
	}
	r = baton(t, env, "project", "configure", "--judge-instructions", "from the flag")
	if r.code != 0 || !strings.Contains(r.stdout, "unchanged") {
		t.Errorf("repeat = %+v", r)
	}
	r = baton(t, env, "project", "configure", "--clear-gates", "--sensitive-paths", "")
	if cfg := showJSON(t, env)["config"].(map[string]any); r.code != 0 || len(cfg["gates"].([]any)) != 0 || len(cfg["sensitive_paths"].([]any)) != 0 {
		t.Errorf("clear = %+v / %v", r, cfg)
	}
	hist := showJSON(t, env, "--history")["history"].([]any)
	if len(hist) != 3 || hist[0].(map[string]any)["version"] != 3.0 {
		t.Errorf("history = %v", hist)
	}
	r = baton(t, env, "project", "show", "--history")
	if r.code != 0 || !strings.Contains(r.stdout, "version 2 by user") || !strings.Contains(r.stdout, "research      v1") {
		t.Errorf("show --history text = %s", r.stdout)
	}
	// Four commands changed or repeated the settings: four actions by the
	// user from the CLI, four events on the project's stream.
	if n := countRows(t, env, `SELECT COUNT(*) FROM actions WHERE tool = 'configure_project' AND agent = 'user' AND source = 'cli'`); n != 4 {
		t.Errorf("actions = %d, want 4", n)
	}
	if n := countRows(t, env, `SELECT COUNT(*) FROM events WHERE type = 'project.configured' AND project = 'colibri'`); n != 4 {
		t.Errorf("events = %d, want 4", n)
	}
}

// What configure refuses: the tool's own checks with its messages, usage
// mistakes, unknown projects; nothing is stored.
func TestProjectConfigureRefusals(t *testing.T) {
	env := newDB(t)
	for _, tc := range []struct {
		name string
		args []string
		exit int
		want string
	}{
		{"thresholds out of order", []string{"--low-lines", "300"}, cli.ExitTool, "ERR_CONFIG_INVALID: risk_thresholds.lowLines (300) must be below highLines (100)"},
		{"duplicate gate labels", []string{"--gate", "T=a", "--optional-gate", "t=b"}, cli.ExitTool, `share the label "t"`},
		{"bad glob", []string{"--sensitive-paths", "src/[a-"}, cli.ExitTool, "is not a valid glob"},
		{"negative threshold", []string{"--low-files", "-1"}, cli.ExitUsage, "ERR_INVALID_INPUT"},
		{"gate without =", []string{"--gate", "go test"}, cli.ExitUsage, "write LABEL=COMMAND"},
		{"gate without a command", []string{"--gate", "Tests="}, cli.ExitUsage, "ERR_INVALID_INPUT"},
		{"clear and set gates", []string{"--clear-gates", "--gate", "T=x"}, cli.ExitUsage, "--clear-gates removes every gate"},
		{"nothing", nil, cli.ExitUsage, "nothing to configure"},
		{"bad --input", []string{"--input", "[1]"}, cli.ExitUsage, "--input is not a JSON object"},
		{"unknown field in --input", []string{"--input", `{"gatez": []}`}, cli.ExitUsage, "gatez"},
		{"unknown project", []string{"nope", "--low-lines", "5"}, cli.ExitTool, "ERR_PROJECT_NOT_FOUND"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := baton(t, env, append([]string{"project", "configure"}, tc.args...)...)
			if r.code != tc.exit || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("configure %v = %+v, want exit %d saying %q", tc.args, r, tc.exit, tc.want)
			}
		})
	}
	if n := countRows(t, env, `SELECT COUNT(*) FROM project_configs`); n != 0 {
		t.Errorf("refused commands stored %d configurations", n)
	}
	if r := baton(t, env, "project", "show", "nope"); r.code != cli.ExitTool || !strings.Contains(r.stderr, "ERR_PROJECT_NOT_FOUND") {
		t.Errorf("show nope = %+v", r)
	}
}

// project show lists the contracts in force: the project's own files in
// prompts/phases/ beside the built-in ones, and says when one is broken.
func TestProjectShowPhaseContracts(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if r := baton(t, nil, "init", "--project", "shop", "--prefix", "SHO"); r.code != 0 {
		t.Fatalf("init = %+v", r)
	}
	contracts := filepath.Join(dir, "prompts", "phases")
	if err := os.MkdirAll(contracts, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(contracts, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("grooming.md", "---\nversion: 2\ndispatch_profile: planner\nartifact_path: plan.md\nrequired_sections: [Steps]\nnext_phase: ready\n---\nPlan it.\n")
	out := showJSON(t, nil)
	ph := out["phases"].([]any)[2].(map[string]any)
	if ph["version"] != 2.0 || ph["source"] != "prompts/phases/grooming.md" || ph["artifact_path"] != "docs/tickets/<ID>/plan.md" {
		t.Errorf("grooming = %v", ph)
	}
	if out["phases"].([]any)[0].(map[string]any)["source"] != "built-in" {
		t.Errorf("research = %v", out["phases"].([]any)[0])
	}
	// --write starts the project's own contracts from the built-in ones,
	// keeping the file it has.
	r := baton(t, nil, "project", "phases", "--write", "--json")
	var phasesOut struct {
		Phases []struct {
			Phase, Source, Body string
			Version             int
		}
		Written []string
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &phasesOut) != nil {
		t.Fatalf("phases --write = %+v", r)
	}
	if strings.Join(phasesOut.Written, ",") != "prompts/phases/research.md,prompts/phases/architecture.md,prompts/phases/ready.md" {
		t.Errorf("written = %v", phasesOut.Written)
	}
	for _, ph := range phasesOut.Phases {
		if ph.Source != "prompts/phases/"+ph.Phase+".md" || !strings.Contains(ph.Body, "Workspace Context") && ph.Phase != "grooming" {
			t.Errorf("%s after --write: source %s, body %.40q", ph.Phase, ph.Source, ph.Body)
		}
	}
	if phasesOut.Phases[2].Version != 2 || phasesOut.Phases[2].Body != "Plan it.\n" {
		t.Errorf("the project's grooming contract was overwritten: %+v", phasesOut.Phases[2])
	}
	if r := baton(t, nil, "project", "phases"); r.code != 0 || !strings.Contains(r.stdout, "=== architecture v1 (prompts/phases/architecture.md): researcher works on it, writes docs/tickets/<ID>/design.md") {
		t.Errorf("phases text = %s", r.stdout)
	}
	write("research.md", "---\nversion: one\n---\n")
	r = baton(t, nil, "project", "show")
	if r.code != 0 || !strings.Contains(r.stdout, "error: phase contract prompts/phases/research.md") || strings.Contains(r.stdout, dir) {
		t.Errorf("broken contract: %+v", r)
	}
}
