package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportFromBeadsAndTaskmaster: baton import --from reads another
// tool's backlog into the database's only project, prints the report
// (--json: the report itself), creates nothing the second time, and a
// dry run writes nothing.
func TestImportFromBeadsAndTaskmaster(t *testing.T) {
	for _, c := range []struct{ from, file string }{
		{"beads", "beads_export.jsonl"},
		{"taskmaster", "taskmaster_tagged.json"},
	} {
		t.Run(c.from, func(t *testing.T) {
			dir := t.TempDir()
			env := map[string]string{"BATON_DB": filepath.Join(dir, ".baton", "baton.db")}
			if r := baton(t, env, "init", "--project", "web", "--prefix", "WEB", "--no-instructions"); r.code != 0 {
				t.Fatalf("init: %s", r.stderr)
			}
			file := filepath.Join("..", "importers", "testdata", c.file)
			var rep struct {
				DryRun          bool `json:"dry_run"`
				Imported        bool `json:"imported"`
				Created         int  `json:"created"`
				AlreadyImported int  `json:"already_imported"`
			}
			r := baton(t, env, "import", "--from", c.from, file, "--dry-run", "--json")
			if r.code != 0 || json.Unmarshal([]byte(r.stdout), &rep) != nil || !rep.DryRun || rep.Imported || rep.Created == 0 {
				t.Fatalf("dry run: %d %s %s", r.code, r.stdout, r.stderr)
			}
			if list := baton(t, env, "issues", "list_issues", "--json"); !strings.Contains(list.stdout, `"total_count":0`) {
				t.Fatalf("the dry run wrote items: %s", list.stdout)
			}
			wouldCreate := rep.Created
			r = baton(t, env, "import", "--from", c.from, file, "--json")
			if r.code != 0 || json.Unmarshal([]byte(r.stdout), &rep) != nil || !rep.Imported || rep.Created != wouldCreate {
				t.Fatalf("import: %d %s %s", r.code, r.stdout, r.stderr)
			}
			r = baton(t, env, "import", "--from", c.from, file)
			if r.code != 0 || !strings.Contains(r.stdout, c.from) {
				t.Fatalf("second import: %d %s %s", r.code, r.stdout, r.stderr)
			}
			r = baton(t, env, "import", "--from", c.from, file, "--json")
			if json.Unmarshal([]byte(r.stdout), &rep) != nil || rep.Created != 0 || rep.AlreadyImported != wouldCreate {
				t.Errorf("importing again created %d, found %d already imported; want 0 and %d", rep.Created, rep.AlreadyImported, wouldCreate)
			}
		})
	}
	r := baton(t, map[string]string{"BATON_DB": filepath.Join(t.TempDir(), "x.db")}, "import", "--from", "jira", "x.json")
	if r.code != 2 || !strings.Contains(r.stderr, "beads or taskmaster") {
		t.Errorf("--from jira: %d %s", r.code, r.stderr)
	}
}
