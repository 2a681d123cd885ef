package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-dev/baton/cli"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/postgres"
	"github.com/baton-dev/baton/tools"
)

// exportDB is a database with some of everything the tools write, and a
// fixed generated_at for its exports.
func exportDB(t *testing.T) map[string]string {
	t.Helper()
	env := newDB(t)
	env["SOURCE_DATE_EPOCH"] = "1775044800"
	for _, args := range [][]string{
		{"tasks", "task_create", "--title", "Wire up", "--project", "colibri", "--labels", "a,b", "--estimate-hours", "4.5"},
		{"tasks", "task_create", "--title", "Second", "--project", "colibri"},
		{"issues", "add_dependency", "--issue-id", "COL-2", "--depends-on", "COL-1"},
		{"--agent", "builder", "messages", "send_message", "--to", "user", "--body", "tests pass", "--thread-id", "t-1"},
		{"--agent", "builder", "proposals", "create_proposal", "--title", "A", "--description", "Why: a", "--type", "product"},
		{"profile", "create", "reviewer", "--extends", "worker"},
		{"agent", "create", "worker-1", "--profile", "worker"},
		{"membot", "membot_write", "--logical-path", "notes/retry.md", "--content", "# Retries\n\nBack off exponentially.", "--project", "colibri"},
	} {
		if r := baton(t, env, args...); r.code != 0 {
			t.Fatalf("baton %v: %+v", args, r)
		}
	}
	return env
}

func with(env map[string]string, k, v string) map[string]string {
	out := map[string]string{}
	for a, b := range env {
		out[a] = b
	}
	out[k] = v
	return out
}

// TestExportImportCLI: export, import into a new database (which import
// creates), export again: the same bytes. A second import adds nothing.
func TestExportImportCLI(t *testing.T) {
	env := exportDB(t)
	dir := t.TempDir()
	first := filepath.Join(dir, "first.jsonl")
	r := baton(t, env, "export", first)
	if r.code != 0 || !strings.Contains(r.stdout, "exported ") || !strings.Contains(r.stdout, "of the whole server to "+first) {
		t.Fatalf("export = %+v", r)
	}
	target := with(env, "BATON_DB", filepath.Join(dir, "new", "b.db"))
	r = baton(t, target, "import", first, "--json")
	var rep struct {
		Imported  bool  `json:"imported"`
		Reindexed int   `json:"reindexed"`
		Added     int64 `json:"added"`
		Skipped   int64 `json:"skipped"`
		Records   int64 `json:"records"`
		Conflicts []struct {
			Line    int64          `json:"line"`
			Type    string         `json:"type"`
			Key     map[string]any `json:"key"`
			Columns []string       `json:"columns"`
		} `json:"conflicts"`
		Types []struct {
			Type  string `json:"type"`
			Added int64  `json:"added"`
		} `json:"types"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != 0 || !rep.Imported || rep.Added != rep.Records || rep.Records < 10 {
		t.Fatalf("import = %+v (%v)", r, err)
	}
	// The document's chunks and vectors were made after the import: search
	// finds it and nothing is left to re-index.
	if rep.Reindexed != 1 {
		t.Fatalf("import re-indexed %d documents, want 1", rep.Reindexed)
	}
	if r := baton(t, target, "knowledge", "reindex"); r.code != 0 || !strings.Contains(r.stdout, "nothing to re-index") {
		t.Fatalf("reindex after import = %+v", r)
	}
	if r := baton(t, target, "membot", "membot_search", "--query", "exponential back off", "--project", "colibri"); r.code != 0 ||
		!strings.Contains(r.stdout, "notes/retry.md") {
		t.Fatalf("search after import = %+v", r)
	}
	second := filepath.Join(dir, "second.jsonl")
	if r := baton(t, target, "export", second); r.code != 0 {
		t.Fatalf("export of the import = %+v", r)
	}
	a, _ := os.ReadFile(first)
	b, _ := os.ReadFile(second)
	if !bytes.Equal(a, b) {
		t.Fatalf("the export of the imported database differs:\n%s\n---\n%s", a, b)
	}
	if strings.Contains(string(a), `"type":"agent_token"`) || strings.Contains(string(a), "worker-1") {
		t.Fatal("an agent token reached the export")
	}
	r = baton(t, target, "import", first)
	if r.code != 0 || !strings.Contains(r.stdout, "0 added, "+itoa(rep.Records)+" already there, 0 in conflict") {
		t.Fatalf("second import = %+v", r)
	}
	// New work continues where the source left off.
	if r := baton(t, target, "tasks", "task_create", "--title", "Third", "--project", "colibri"); r.code != 0 || !strings.Contains(r.stdout, "COL-3") {
		t.Fatalf("a new task after import = %+v", r)
	}
	// The file is never overwritten by accident.
	if r := baton(t, env, "export", first); r.code != cli.ExitTool || !strings.Contains(r.stderr, "ERR_CONFLICT") || !strings.Contains(r.stderr, "--force") {
		t.Fatalf("export over an existing file = %+v", r)
	}
	if r := baton(t, env, "export", first, "--force"); r.code != 0 {
		t.Fatalf("export --force = %+v", r)
	}
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestImportConflictsCLI: a changed row makes the import exit 1, list
// every conflict with its line and columns, and write nothing.
func TestImportConflictsCLI(t *testing.T) {
	env := exportDB(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "x.jsonl")
	if r := baton(t, env, "export", file); r.code != 0 {
		t.Fatal(r)
	}
	if r := baton(t, env, "tasks", "task_update", "--task-id", "COL-1", "--progress", "20"); r.code != 0 {
		t.Fatal(r)
	}
	if r := baton(t, env, "tasks", "task_create", "--title", "Only here", "--project", "colibri"); r.code != 0 {
		t.Fatal(r)
	}
	before := filepath.Join(dir, "before.jsonl")
	baton(t, env, "export", before)
	r := baton(t, env, "import", file)
	if r.code != cli.ExitTool || !strings.Contains(r.stderr, "ERR_CONFLICT") || !strings.Contains(r.stderr, "nothing was imported") {
		t.Fatalf("import over changed rows = %+v", r)
	}
	if !strings.Contains(r.stdout, "conflict: line ") || !strings.Contains(r.stdout, "item COL-1 [progress, updated_at]") {
		t.Fatalf("the conflicts are not listed: %s", r.stdout)
	}
	r = baton(t, env, "import", file, "--json")
	var rep struct {
		Imported  bool `json:"imported"`
		Conflicts []struct {
			Line    int64          `json:"line"`
			Type    string         `json:"type"`
			Key     map[string]any `json:"key"`
			Columns []string       `json:"columns"`
		} `json:"conflicts"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != cli.ExitTool || rep.Imported || len(rep.Conflicts) == 0 {
		t.Fatalf("import --json over changed rows = %+v", r)
	}
	found := false
	for _, c := range rep.Conflicts {
		if c.Type == "item" && c.Key["id"] == "COL-1" && strings.Join(c.Columns, ",") == "progress,updated_at" && c.Line > 1 {
			found = true
		}
	}
	if !found {
		t.Fatalf("conflicts = %+v", rep.Conflicts)
	}
	after := filepath.Join(dir, "after.jsonl")
	baton(t, env, "export", after)
	x, _ := os.ReadFile(before)
	y, _ := os.ReadFile(after)
	if !bytes.Equal(x, y) {
		t.Fatal("a refused import changed the database")
	}
}

// TestImportDryRunCLI: a dry run reports and writes nothing, not even a
// new database file.
func TestImportDryRunCLI(t *testing.T) {
	env := exportDB(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "x.jsonl")
	baton(t, env, "export", file)
	target := filepath.Join(dir, "none", "b.db")
	r := baton(t, with(env, "BATON_DB", target), "import", file, "--dry-run")
	if r.code != 0 || !strings.Contains(r.stdout, "dry run, nothing written: would import") || !strings.Contains(r.stdout, "0 already there, 0 in conflict") {
		t.Fatalf("dry run = %+v", r)
	}
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Fatalf("a dry run created the database: %v", err)
	}
	r = baton(t, env, "import", file, "--dry-run", "--json")
	var rep struct {
		DryRun   bool  `json:"dry_run"`
		Imported bool  `json:"imported"`
		Skipped  int64 `json:"skipped"`
		Records  int64 `json:"records"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != 0 || !rep.DryRun || rep.Imported || rep.Skipped != rep.Records {
		t.Fatalf("dry run over the same rows = %+v", r)
	}
}

// TestExportImportStdio: export - writes the file to stdout, import -
// reads it from stdin.
func TestExportImportStdio(t *testing.T) {
	env := exportDB(t)
	r := baton(t, env, "export", "-")
	if r.code != 0 || !strings.HasPrefix(r.stdout, `{"type":"header","format":"baton-export/1",`) {
		t.Fatalf("export - = %.300s %s", r.stdout, r.stderr)
	}
	if r := baton(t, env, "export", "-", "--json"); r.code != cli.ExitUsage {
		t.Fatalf("export - --json = %+v", r)
	}
	target := with(env, "BATON_DB", filepath.Join(t.TempDir(), "b.db"))
	var out, errb bytes.Buffer
	app := &cli.App{Registry: tools.Registry(), Version: "test", Stdin: strings.NewReader(r.stdout), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return target[k] }}
	if code := app.Run(context.Background(), []string{"import", "-"}); code != 0 || !strings.Contains(out.String(), "imported ") {
		t.Fatalf("import - = %d %s %s", code, out.String(), errb.String())
	}
	if again := baton(t, target, "export", "-"); again.stdout != r.stdout {
		t.Fatal("stdin import then export - differs")
	}
}

// TestImportRefusesTamperedCLI: a changed line is refused with its
// number, before anything is written.
func TestImportRefusesTamperedCLI(t *testing.T) {
	env := exportDB(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "x.jsonl")
	baton(t, env, "export", file)
	b, _ := os.ReadFile(file)
	lines := strings.Split(string(b), "\n")
	n := 0
	for i, l := range lines {
		if strings.Contains(l, `"title":"Second"`) {
			n = i
		}
	}
	lines[n] = strings.Replace(lines[n], `"title":"Second"`, `"title":"Secxnd"`, 1)
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	target := with(env, "BATON_DB", filepath.Join(dir, "b.db"))
	r := baton(t, target, "import", file)
	if r.code != cli.ExitUsage || !strings.Contains(r.stderr, "ERR_INVALID_INPUT") || !strings.Contains(r.stderr, "line "+itoa(int64(n+1))+" is not the line the export wrote") {
		t.Fatalf("import of a changed file = %+v", r)
	}
	if _, err := os.Stat(target["BATON_DB"]); !os.IsNotExist(err) {
		t.Fatalf("a refused import created the database: %v", err)
	}
	if r := baton(t, target, "import", file, "--max-size", "1KiB"); r.code != cli.ExitUsage || !strings.Contains(r.stderr, "over the limit of 1024") {
		t.Fatalf("import over --max-size = %+v", r)
	}
	if r := baton(t, target, "import", file, "--max-size", "lots"); r.code != cli.ExitUsage || !strings.Contains(r.stderr, "--max-size") {
		t.Fatalf("import with a bad --max-size = %+v", r)
	}
}

// TestExportProjectCLI: --project limits the export to one project; the
// BATON_PROJECT default does not.
func TestExportProjectCLI(t *testing.T) {
	env := exportDB(t)
	if r := baton(t, env, "init", "--project", "other", "--prefix", "OTH"); r.code != 0 {
		t.Fatal(r)
	}
	all := baton(t, with(env, "BATON_PROJECT", "colibri"), "export", "-")
	if !strings.Contains(all.stdout, `"slug":"other"`) || !strings.Contains(all.stdout, `"project":null`) {
		t.Fatalf("BATON_PROJECT narrowed the export: %.300s", all.stdout)
	}
	one := baton(t, env, "export", "-", "--project", "colibri")
	if one.code != 0 || strings.Contains(one.stdout, `"slug":"other"`) || !strings.Contains(one.stdout, `"project":"colibri"`) ||
		strings.Contains(one.stdout, `"type":"profile"`) {
		t.Fatalf("export --project colibri = %.400s %s", one.stdout, one.stderr)
	}
	if r := baton(t, env, "export", "-", "--project", "nope"); r.code != cli.ExitTool || !strings.Contains(r.stderr, "ERR_PROJECT_NOT_FOUND") {
		t.Fatalf("export --project nope = %+v", r)
	}
}

// TestImportIntoPostgresCLI: the way from SQLite to PostgreSQL: a SQLite
// export imported with --db URL exports the same bytes from PostgreSQL.
func TestImportIntoPostgresCLI(t *testing.T) {
	pg := testkit.OpenPostgres(t, nil) // skips without BATON_TEST_POSTGRES_URL
	url, err := postgres.SchemaURL(os.Getenv("BATON_TEST_POSTGRES_URL"), pg.Schema())
	if err != nil {
		t.Fatal(err)
	}
	env := exportDB(t)
	file := filepath.Join(t.TempDir(), "team.jsonl")
	if r := baton(t, env, "export", file); r.code != 0 {
		t.Fatal(r)
	}
	if r := baton(t, env, "--db", url, "import", file); r.code != 0 || !strings.Contains(r.stdout, "imported ") {
		t.Fatalf("import into PostgreSQL = %+v", r)
	}
	r := baton(t, env, "--db", url, "export", "-")
	b, _ := os.ReadFile(file)
	if r.code != 0 || r.stdout != string(b) {
		t.Fatalf("PostgreSQL's export differs from SQLite's:\n%s\n---\n%s", b, r.stdout)
	}
	if r := baton(t, env, "--db", url, "audit", "verify"); r.code != 0 {
		t.Fatalf("audit verify on PostgreSQL after import = %+v", r)
	}
}
