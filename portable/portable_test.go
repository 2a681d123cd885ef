package portable_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
	"github.com/baton-dev/baton/internal/testkit"
	"github.com/baton-dev/baton/portable"
	"github.com/baton-dev/baton/postgres"
	"github.com/baton-dev/baton/sqlite"
	"github.com/baton-dev/baton/tlog"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools"
)

// db is one store under test with a second way in for raw SQL.
type db struct {
	t       *testing.T
	backend string
	s       baton.Store
	p       portable.Porter
	raw     *sql.DB
	dir     string
	clock   *testkit.Clock
	env     *tool.Env
}

var epoch = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

func newClock() *testkit.Clock { return testkit.NewClock(epoch, time.Millisecond) }

func openSQLite(t *testing.T) *db {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "baton.db")
	c := newClock()
	s, err := sqlite.Open(context.Background(), path, sqlite.Options{Clock: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	raw, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?_pragma=busy_timeout(5000)&_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	return newDB(t, "sqlite", s, s, raw, dir, c)
}

func openPostgres(t *testing.T) *db {
	t.Helper()
	c := newClock()
	s := testkit.OpenPostgres(t, c.Now) // skips without BATON_TEST_POSTGRES_URL
	return newDB(t, "postgres", s, s, s.DB(), t.TempDir(), c)
}

func newDB(t *testing.T, backend string, s baton.Store, p portable.Porter, raw *sql.DB, dir string, c *testkit.Clock) *db {
	reg := tools.Registry()
	return &db{t: t, backend: backend, s: s, p: p, raw: raw, dir: dir, clock: c,
		env: &tool.Env{Store: s, Registry: reg, Clock: c.Now, DataDir: dir, WorkDir: dir,
			Server: tool.ServerInfo{Version: "test", Mode: "TEST", Started: epoch}}}
}

func (d *db) rebind(q string) string {
	if d.backend == "postgres" {
		return postgres.Rebind(q)
	}
	return q
}

func (d *db) exec(q string, args ...any) {
	d.t.Helper()
	if _, err := d.raw.Exec(d.rebind(q), args...); err != nil {
		d.t.Fatalf("%s: %v", q, err)
	}
}

func (d *db) count(q string, args ...any) int {
	d.t.Helper()
	var n int
	if err := d.raw.QueryRow(d.rebind(q), args...).Scan(&n); err != nil {
		d.t.Fatalf("%s: %v", q, err)
	}
	return n
}

// call runs a tool as agent, failing the test on an error.
func (d *db) call(agent, name string, args any) map[string]any {
	d.t.Helper()
	res := d.env.Registry.Call(context.Background(), d.env, baton.Principal{Agent: agent, Project: "colibri", Source: baton.SourceTest}, name, testkit.Raw(d.t, args))
	if res.Err != nil {
		d.t.Fatalf("%s(%s): %s", name, testkit.Raw(d.t, args), res.Text)
	}
	return testkit.Decode(d.t, res.Output)
}

func (d *db) update(fn func(tx baton.Tx) error) {
	d.t.Helper()
	if err := d.s.Update(context.Background(), fn); err != nil {
		d.t.Fatal(err)
	}
}

// fill writes rows into every exported table: through the tools where one
// writes them (so triggers and indexes are the real ones), through the
// store or plain SQL for the rest.
func (d *db) fill() {
	d.t.Helper()
	ctx := context.Background()
	d.update(func(tx baton.Tx) error {
		if err := tx.CreateProject(ctx, &baton.Project{Slug: "colibri", Prefix: "COL", Name: "Colibri"}); err != nil {
			return err
		}
		return tx.CreateProject(ctx, &baton.Project{Slug: "other", Prefix: "OTH"})
	})
	d.call("agent-alice", "task_create", map[string]any{"title": "Wire up the parser", "project": "colibri", "priority": "high",
		"labels": []string{"parser", "needs-review"}, "estimate_hours": 4.5, "description": "Ünïcode \"quotes\"\nand\ttabs \u2028 <html> &"})
	d.call("agent-alice", "task_create", map[string]any{"title": "Retry the uploads", "project": "colibri", "priority": "low"})
	d.call("agent-alice", "create_subtask", map[string]any{"issue_id": "COL-1", "title": "Lexer part"})
	d.call("agent-alice", "task_create", map[string]any{"title": "Goes elsewhere", "project": "colibri", "labels": []string{"cross-project"}})
	d.call("agent-alice", "move_issue", map[string]any{"issue_id": "COL-4", "target_project_id": "other", "reason": "routing"})
	d.call("agent-alice", "add_dependency", map[string]any{"issue_id": "COL-2", "depends_on": "COL-1"})
	d.call("agent-alice", "add_finding", map[string]any{"issue_id": "COL-1", "category": "bug", "summary": "retries never stop",
		"files": []string{"a.go"}})
	d.call("agent-alice", "add_comment", map[string]any{"issue_id": "COL-1", "content": "looks good"})
	d.call("agent-bob", "add_learning", map[string]any{"issue_id": "COL-1", "pattern": "Exponential backoff beats fixed retries when the upload server is overloaded",
		"context": "The uploads failed for an hour because every client retried every second; backing off exponentially let the server recover.", "applies_to": []string{"uploader", "http client"}})
	d.call("agent-bob", "record_test_health", map[string]any{"issue_id": "COL-1", "test_count": 150})
	d.call("agent-bob", "record_coverage", map[string]any{"file_path": "server/x.ts", "concept": "retries",
		"status": "covered"})
	d.call("agent-bob", "claim_item", map[string]any{"item_id": "COL-2"})
	d.call("agent-carol", "claim_item", map[string]any{"item_id": "COL-3"})
	d.call("user", "force_release_claim", map[string]any{"item_id": "COL-3", "reason": "gone"})
	d.call("agent-alice", "thought_record", map[string]any{"task_id": "COL-1", "type": "decision", "content": "Use backoff"})
	sid := d.call("auditor", "audit_session_start", map[string]any{"task_id": "COL-1", "auditor_id": "auditor-x"})["session_id"].(string)
	d.call("agent-alice", "thought_record", map[string]any{"task_id": "COL-1", "type": "discovery", "content": "Then jitter"})
	d.call("auditor", "merkle_finalize", map[string]any{"session_id": sid})
	d.call("agent-bob", "send_message", map[string]any{"to": "user", "body": "deployment finished"})
	d.call("agent-bob", "create_proposal", map[string]any{"title": "Cache the schema", "description": "It is rebuilt per call.", "type": "engineering"})
	d.call("agent-bob", "membot_write", map[string]any{"logical_path": "notes/retry.md", "content": "# Retries\n\nBack off exponentially.\n"})
	d.call("agent-bob", "set_status", map[string]any{"status": "working", "task": "uploads"})
	// Names that sort differently by bytes and ignoring case (agents.name
	// is NOCASE on both): the export orders by bytes everywhere.
	d.call("Zed", "set_status", map[string]any{"status": "idle"})
	d.call("adam", "set_status", map[string]any{"status": "idle"})
	d.call("user", "configure_project", map[string]any{"project": "colibri", "sensitive_paths": []string{"secrets/**"}})
	d.update(func(tx baton.Tx) error {
		if err := tx.PutProfile(ctx, &baton.Profile{Name: "reviewer", Extends: "worker", AllowedTools: []string{"get_issue"},
			Description: "reviews", UpdatedAt: d.clock.Now()}); err != nil {
			return err
		}
		if err := tx.CreateToken(ctx, &baton.AgentToken{ID: "tok_secret", Agent: "worker-1", Profile: "worker",
			Hash: strings.Repeat("ab", 32), CreatedAt: d.clock.Now()}); err != nil {
			return err
		}
		if err := tx.TouchSession(ctx, &baton.SessionPresence{ID: "sess-1", Agent: "agent-bob", ConnectedAt: d.clock.Now(), LastSeen: d.clock.Now()}); err != nil {
			return err
		}
		if err := tx.AppendEvent(ctx, &baton.Event{Project: "colibri", Type: "issue.created", Subject: "COL-1", Data: []byte(`{"x":1}`)}); err != nil {
			return err
		}
		if err := tx.AddReservation(ctx, &baton.FileReservation{Project: "colibri", Agent: "agent-bob", Pattern: "src/**", Exclusive: true,
			Item: "COL-2", CreatedAt: d.clock.Now(), ExpiresAt: d.clock.Now().Add(time.Hour)}); err != nil {
			return err
		}
		if err := tx.AddReservation(ctx, &baton.FileReservation{Project: "colibri", Agent: "agent-carol", Pattern: "docs/*.md",
			CreatedAt: d.clock.Now(), ExpiresAt: d.clock.Now().Add(time.Hour)}); err != nil {
			return err
		}
		code := 0
		if err := tx.CreateRun(ctx, &baton.Run{ID: "R-1", ItemID: "COL-1", Agent: "agent-bob", Status: baton.RunSucceeded, CostUSD: 0.25,
			DurationMS: 1000, Model: "m", StartedAt: d.clock.Now(), EndedAt: d.clock.Now(), ExitCode: &code},
			[]baton.RunEvent{{Type: "system", Subtype: "init", Data: json.RawMessage(`{"model":"m"}`)}}); err != nil {
			return err
		}
		return tx.CreatePR(ctx, &baton.PR{ItemID: "COL-1", BranchName: "col-1", BaseBranch: "main", Diff: "+x\n", DiffTruncated: true,
			Status: baton.PROpen, Risk: baton.RiskScore{Level: "low"}, CreatedBy: "agent-bob"})
	})
	at := d.clock.Now().UnixMilli()
	d.exec(`INSERT INTO run_output (run_id, stdout, stderr, stdout_dropped, stderr_dropped) VALUES ('R-1', 'out', 'err', 3, 0)`)
	d.exec(`INSERT INTO dispatch_retries (item_id, attempts, next_at, last_error, updated_at) VALUES ('COL-2', 2, ?, 'exit 1', ?)`, at, at)
	d.exec(`INSERT INTO phase_marks (finding_id, item_id, category, phase, outcome, reason, processed_by, processed_at)
		SELECT id, item_id, category, 'build', 'advanced', '', 'orchestrator', ? FROM findings WHERE id = (SELECT MIN(id) FROM findings)`, at)
	// A parent newer than its child: the child's line comes first.
	d.exec(`UPDATE items SET parent_id = 'COL-3' WHERE id = 'COL-2'`)
	d.exec(`INSERT INTO action_rechain (id, pending, records, old_head, first_break, position, at) VALUES (1, 0, 0, '', 0, 0, '')`)
	// Two identical test reports: a table keyed by its whole row.
	for range 2 {
		d.exec(`INSERT INTO test_health (item_id, agent, test_count, tests_added, created_at) VALUES ('COL-2', 'agent-bob', 7, NULL, ?)`, at)
	}
	key, err := audit.OpenKey(ctx, d.s, filepath.Join(d.dir, "audit.key"), true, d.clock.Now())
	if err != nil {
		d.t.Fatal(err)
	}
	if _, _, err := audit.MakeCheckpoint(ctx, d.s, key, d.clock.Now()); err != nil {
		d.t.Fatal(err)
	}
	d.call("agent-alice", "add_comment", map[string]any{"issue_id": "COL-2", "content": "after the checkpoint"})
	for _, tb := range portable.Tables() {
		if n := d.count(`SELECT COUNT(*) FROM ` + tb.Name); n == 0 {
			d.t.Fatalf("the fixture leaves %s empty: give it a row", tb.Name)
		}
	}
}

var fixed = portable.ExportOptions{Now: time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)}

func (d *db) export(opts portable.ExportOptions) []byte {
	d.t.Helper()
	var b bytes.Buffer
	if _, err := d.p.Export(context.Background(), &b, opts); err != nil {
		d.t.Fatalf("export: %v", err)
	}
	return b.Bytes()
}

func (d *db) importFile(b []byte, opts portable.ImportOptions) (*portable.Report, error) {
	return d.p.Import(context.Background(), bytes.NewReader(b), opts)
}

func (d *db) mustImport(b []byte) *portable.Report {
	d.t.Helper()
	rep, err := d.importFile(b, portable.ImportOptions{})
	if err != nil {
		d.t.Fatalf("import: %v (%+v)", err, rep)
	}
	return rep
}

func backends(t *testing.T) map[string]func(*testing.T) *db {
	return map[string]func(*testing.T) *db{"sqlite": openSQLite, "postgres": openPostgres}
}

// TestRoundTrip: export, import into an empty database, export again: the
// same bytes, on each store and from each to the other.
func TestRoundTrip(t *testing.T) {
	for _, pair := range [][2]string{{"sqlite", "sqlite"}, {"postgres", "postgres"}, {"sqlite", "postgres"}, {"postgres", "sqlite"}} {
		t.Run(pair[0]+"_to_"+pair[1], func(t *testing.T) {
			src := backends(t)[pair[0]](t)
			dst := backends(t)[pair[1]](t)
			src.fill()
			first := src.export(fixed)
			rep := dst.mustImport(first)
			if !rep.Imported || rep.Added != rep.Records || rep.Skipped != 0 || len(rep.Conflicts) != 0 {
				t.Fatalf("import report: %+v", rep)
			}
			second := dst.export(fixed)
			if !bytes.Equal(first, second) {
				t.Fatalf("the second export differs:\n%s", firstDiff(first, second))
			}
			checkRestored(t, src, dst)
		})
	}
}

// firstDiff shows the first line where two exports differ.
func firstDiff(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	n := max(len(la), len(lb))
	for k := range n {
		i := (k + 1) % n // the records first: the header differs whenever they do

		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n- %.400s\n+ %.400s", i+1, x, y)
		}
	}
	return "(no line differs)"
}

// checkRestored: what the import must make again besides the rows works
// on the target: the audit trail verifies, counts kept by triggers are
// right, full-text search finds the rows, and new rows get fresh ids.
func checkRestored(t *testing.T, src, dst *db) {
	ctx := context.Background()
	rep, err := audit.VerifyStore(ctx, dst.s)
	if err != nil || !rep.OK() || rep.Actions == 0 || len(rep.Checkpoints) == 0 {
		t.Fatalf("audit trail after import: %+v %v", rep, err)
	}
	for _, c := range rep.Checkpoints {
		if c.Status != "consistent" || c.Signature != "verified" {
			t.Fatalf("checkpoint after import: %+v", c)
		}
	}
	for _, project := range []string{"colibri", "other"} {
		want := src.call("user", "list_issues", map[string]any{"project": project})
		got := dst.call("user", "list_issues", map[string]any{"project": project})
		if want["total_count"] == nil || fmt.Sprint(want["total_count"]) != fmt.Sprint(got["total_count"]) {
			t.Fatalf("list_issues %s total: %v after import, %v before", project, got["total_count"], want["total_count"])
		}
		var wantIDs, gotIDs []string
		for _, x := range want["issues"].([]any) {
			wantIDs = append(wantIDs, x.(map[string]any)["id"].(string))
		}
		for _, x := range got["issues"].([]any) {
			gotIDs = append(gotIDs, x.(map[string]any)["id"].(string))
		}
		if !slices.Equal(wantIDs, gotIDs) {
			t.Fatalf("list_issues %s order: %v after import, %v before", project, gotIDs, wantIDs)
		}
	}
	if n := dst.count(`SELECT COALESCE(SUM(n), 0) FROM item_counts WHERE project = 'colibri'`); n != 3 {
		t.Fatalf("item_counts holds %d colibri items after import, want 3", n)
	}
	// Full-text search: stemmed and prefix, on each indexed field.
	for q, want := range map[string]string{"backoffs": "pattern", "recovering": "context", "http": "applies_to"} {
		hits := dst.call("user", "search_learnings", map[string]any{"query": q})
		if res := hits["results"].([]any); len(res) != 1 || res[0].(map[string]any)["matched_field"] != want {
			t.Fatalf("search_learnings %q after import: %v", q, hits)
		}
	}
	if msgs := dst.call("user", "search_messages", map[string]any{"query": "deploy"}); fmt.Sprint(msgs["count"]) != "1" {
		t.Fatalf("search_messages after import: %v", msgs)
	}
	if tasks := dst.call("user", "task_list", map[string]any{"search": "lex*"}); fmt.Sprint(tasks["total_count"]) != "1" {
		t.Fatalf("task_list search after import: %v", tasks)
	}
	// New rows after the imported ones: the project's next item number,
	// the next claim token, the next file reservation id.
	if id := dst.call("agent-alice", "task_create", map[string]any{"title": "After import", "project": "colibri"})["task_id"]; id != "COL-5" {
		t.Fatalf("a new item after import is %v, want COL-5", id)
	}
	if id := dst.call("agent-alice", "task_create", map[string]any{"title": "After import", "project": "other"})["task_id"]; id != "OTH-2" {
		t.Fatalf("a new item in other after import is %v, want OTH-2", id)
	}
	src.call("agent-carol", "claim_item", map[string]any{"item_id": "COL-3"})
	dst.call("agent-carol", "claim_item", map[string]any{"item_id": "COL-3"})
	tok := `SELECT token FROM claims WHERE item_id = 'COL-3'`
	if a, b := src.count(tok), dst.count(tok); a != b || b < 2 {
		t.Fatalf("claim token after import %d, in the source %d", b, a)
	}
	var id int64
	if err := dst.s.Update(ctx, func(tx baton.Tx) error {
		r := &baton.FileReservation{Project: "colibri", Agent: "x", Pattern: "y/**", CreatedAt: epoch, ExpiresAt: epoch.Add(time.Hour)}
		err := tx.AddReservation(ctx, r)
		id = r.ID
		return err
	}); err != nil {
		t.Fatalf("a new file reservation after import: %v", err)
	}
	if max := dst.count(`SELECT MAX(id) FROM file_reservations WHERE id <> ?`, id); id != int64(max)+1 {
		t.Fatalf("a new file reservation after import got id %d, want %d", id, max+1)
	}
	if n := dst.count(`SELECT COUNT(*) FROM agent_tokens`); n != 0 {
		t.Fatalf("agent tokens were imported: %d", n)
	}
	if n := dst.count(`SELECT gen FROM knowledge_state`); n < 1 {
		t.Fatalf("the knowledge generation did not move on: %d", n)
	}
}

// TestExportHeader: the header says what follows, the records keep the
// canonical order, and tokens stay out.
func TestExportHeader(t *testing.T) {
	d := openSQLite(t)
	d.fill()
	b := d.export(fixed)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	var h struct {
		SchemaVersion int64            `json:"schema_version"`
		Records       int64            `json:"records"`
		Counts        map[string]int64 `json:"counts"`
		MerkleRoot    string           `json:"merkle_root"`
	}
	dec := json.NewDecoder(strings.NewReader(lines[0]))
	if err := dec.Decode(&h); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(lines[0], `{"type":"header","format":"baton-export/1","schema_version":`) ||
		!strings.Contains(lines[0], `"generated_at":"2026-04-01T12:00:00.000Z","project":null,`) {
		t.Fatalf("header = %.300s", lines[0])
	}
	if h.Records != int64(len(lines)-1) || h.SchemaVersion < 29 {
		t.Fatalf("header records %d schema %d, file has %d records", h.Records, h.SchemaVersion, len(lines)-1)
	}
	var leaves [][]byte
	var sum int64
	for _, l := range lines[1:] {
		leaves = append(leaves, tlog.LeafHash([]byte(l)))
	}
	for _, n := range h.Counts {
		sum += n
	}
	if sum != h.Records || h.Counts["item"] != 4 || h.Counts["project"] != 2 || h.Counts["test_health"] != 3 {
		t.Fatalf("counts = %v", h.Counts)
	}
	if root := h.MerkleRoot; root != hex.EncodeToString(tlog.Root(leaves)) {
		t.Fatalf("merkle_root %s is not the RFC 6962 root of the record lines", root)
	}
	if strings.Contains(string(b), "tok_secret") || strings.Contains(string(b), strings.Repeat("ab", 32)) {
		t.Fatal("an agent token reached the export")
	}
	// Type order and the canonical key order of one record.
	if !strings.HasPrefix(lines[1], `{"type":"project","slug":"colibri","prefix":"COL","name":"Colibri","next_seq":5,`) {
		t.Fatalf("first record = %s", lines[1])
	}
	// Strings as RFC 8785 writes them: U+2028 as it is, not escaped.
	if !strings.Contains(string(b), `\"quotes\"\nand\ttabs `+"\u2028"+` <html> &"`) {
		t.Fatal("text is not escaped the canonical way")
	}
	if !strings.Contains(string(b), `"exclusive":true`) || !strings.Contains(string(b), `"estimate_hours":4.5`) {
		t.Fatal("booleans or floats are not written canonically")
	}
}

// TestImportTwiceIsANoOp: the second import adds nothing and changes
// nothing.
func TestImportTwiceIsANoOp(t *testing.T) {
	src, dst := openSQLite(t), openSQLite(t)
	src.fill()
	b := src.export(fixed)
	dst.mustImport(b)
	again := dst.mustImport(b)
	if again.Added != 0 || again.Skipped != again.Records || !again.Imported {
		t.Fatalf("second import: %+v", again)
	}
	for _, tr := range again.Types {
		if tr.Skipped != tr.Records || tr.Added != 0 {
			t.Fatalf("second import of %s: %+v", tr.Type, tr)
		}
	}
	if got := dst.export(fixed); !bytes.Equal(got, b) {
		t.Fatalf("the second import changed the database:\n%s", firstDiff(b, got))
	}
	if n := dst.count(`SELECT COUNT(*) FROM test_health`); n != 3 {
		t.Fatalf("test_health rows after two imports: %d, want 3", n)
	}
	// One of two identical rows gone: the import puts back just that one.
	dst.exec(`DELETE FROM test_health WHERE rid = (SELECT MAX(rid) FROM test_health WHERE test_count = 7)`)
	dst.exec(`DELETE FROM item_labels WHERE label = 'parser'`)
	third := dst.mustImport(b)
	if third.Added != 2 || dst.count(`SELECT COUNT(*) FROM test_health WHERE test_count = 7`) != 2 {
		t.Fatalf("import over a database missing two rows: %+v", third)
	}
	if got := dst.export(fixed); !bytes.Equal(got, b) {
		t.Fatalf("the rows put back differ:\n%s", firstDiff(b, got))
	}
}

// TestConflictsWriteNothing: a record whose key the database holds with
// other values is reported with the columns that differ, every one of
// them, and nothing is written, not even the records that were new.
func TestConflictsWriteNothing(t *testing.T) {
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			src, dst := open(t), open(t)
			src.fill()
			b := src.export(fixed)
			dst.mustImport(b)
			dst.exec(`UPDATE items SET title = 'Changed', priority = 0 WHERE id = 'COL-2'`)
			dst.exec(`UPDATE profiles SET description = 'other' WHERE name = 'reviewer'`)
			dst.exec(`DELETE FROM comments WHERE body = 'after the checkpoint'`)
			before := dst.export(fixed)
			rep, err := dst.importFile(b, portable.ImportOptions{})
			if baton.ErrorCode(err) != baton.ErrConflict || rep == nil || rep.Imported {
				t.Fatalf("import over changed rows = %v, %+v", err, rep)
			}
			if len(rep.Conflicts) != 2 {
				t.Fatalf("conflicts = %+v", rep.Conflicts)
			}
			c := rep.Conflicts[0]
			if c.Type != "item" || c.Key["id"] != "COL-2" || !slices.Equal(c.Columns, []string{"title", "priority"}) || c.Line < 2 {
				t.Fatalf("first conflict = %+v", c)
			}
			if c := rep.Conflicts[1]; c.Type != "profile" || !slices.Equal(c.Columns, []string{"description"}) {
				t.Fatalf("second conflict = %+v", c)
			}
			if rep.Added != 1 {
				t.Fatalf("the report should count the comment that would be added: %+v", rep)
			}
			if after := dst.export(fixed); !bytes.Equal(before, after) {
				t.Fatalf("a refused import changed the database:\n%s", firstDiff(before, after))
			}
			// A unique column taken by another row is a conflict too.
			empty := open(t)
			empty.update(func(tx baton.Tx) error {
				return tx.CreateProject(context.Background(), &baton.Project{Slug: "elsewhere", Prefix: "COL"})
			})
			rep, err = empty.importFile(b, portable.ImportOptions{})
			if baton.ErrorCode(err) != baton.ErrConflict || len(rep.Conflicts) < 2 || !slices.Equal(rep.Conflicts[0].Columns, []string{"prefix"}) ||
				!strings.Contains(rep.Conflicts[0].Reason, "elsewhere") {
				t.Fatalf("import over a taken prefix = %v, %+v", err, rep)
			}
			// The colibri rows that need the project are reported too, and
			// the rest of the file was still read: other's item is added.
			if c := rep.Conflicts[1]; c.Type != "project_config" || !strings.Contains(c.Reason, "refers to a record in conflict") {
				t.Fatalf("second conflict = %+v", c)
			}
			if rep.Added == 0 || rep.Types[0].Type != "project" || rep.Types[0].Added != 1 || rep.Types[0].Conflicts != 1 {
				t.Fatalf("report = %+v", rep.Types)
			}
			if n := empty.count(`SELECT COUNT(*) FROM items`); n != 0 {
				t.Fatalf("a refused import wrote %d items", n)
			}
		})
	}
}

// TestDryRunWritesNothing: the report of a dry run is the real import's,
// and the database stays as it was.
func TestDryRunWritesNothing(t *testing.T) {
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			src, dst := open(t), open(t)
			src.fill()
			b := src.export(fixed)
			rep, err := dst.importFile(b, portable.ImportOptions{DryRun: true})
			if err != nil || !rep.DryRun || rep.Imported || rep.Added != rep.Records || rep.Records == 0 {
				t.Fatalf("dry run = %v, %+v", err, rep)
			}
			for _, tb := range portable.Tables() {
				if n := dst.count(`SELECT COUNT(*) FROM ` + tb.Name); n != 0 && tb.Name != "knowledge_state" {
					t.Fatalf("a dry run wrote %d rows into %s", n, tb.Name)
				}
			}
			if n := dst.count(`SELECT COALESCE(SUM(n), 0) FROM item_counts`); n != 0 {
				t.Fatalf("a dry run left item counts: %d", n)
			}
			real := dst.mustImport(b)
			if real.Added != rep.Added {
				t.Fatalf("the dry run said %d added, the import added %d", rep.Added, real.Added)
			}
			rep, err = dst.importFile(b, portable.ImportOptions{DryRun: true})
			if err != nil || rep.Skipped != rep.Records || rep.Added != 0 {
				t.Fatalf("dry run over the imported rows = %v, %+v", err, rep)
			}
		})
	}
}

// reseal rewrites the header of an edited export so its root and line
// hashes match the lines: what a file with a bad record but an honest
// header looks like.
func reseal(t *testing.T, b []byte) []byte {
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	var header map[string]any
	dec := json.NewDecoder(strings.NewReader(lines[0]))
	dec.UseNumber()
	if err := dec.Decode(&header); err != nil {
		t.Fatal(err)
	}
	var leaves [][]byte
	var prefixes []byte
	for _, l := range lines[1:] {
		h := tlog.LeafHash([]byte(l))
		leaves = append(leaves, h)
		prefixes = append(prefixes, h[:3]...)
	}
	header["merkle_root"] = hex.EncodeToString(tlog.Root(leaves))
	header["line_hashes"] = base64.StdEncoding.EncodeToString(prefixes)
	head, _ := json.Marshal(header)
	return []byte(string(head) + "\n" + strings.Join(lines[1:], "\n") + "\n")
}

// editLine replaces line n (1-based) of b.
func editLine(b []byte, n int, f func(string) string) []byte {
	lines := strings.Split(string(b), "\n")
	lines[n-1] = f(lines[n-1])
	return []byte(strings.Join(lines, "\n"))
}

// lineOf is the number of the first line of b containing s.
func lineOf(t *testing.T, b []byte, s string) int {
	for i, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, s) {
			return i + 1
		}
	}
	t.Fatalf("no line holds %q", s)
	return 0
}

// TestRefusedFiles: a changed, added or dropped line, a cut file, an
// unknown record type or column, a line or file over its limit: each is
// refused before anything is written, naming the line.
func TestRefusedFiles(t *testing.T) {
	src := openSQLite(t)
	src.fill()
	b := src.export(fixed)
	n := lineOf(t, b, `"looks good"`)
	cases := []struct {
		name string
		file []byte
		opts portable.ImportOptions
		want string
		line int
	}{
		{"changed line", editLine(b, n, func(l string) string { return strings.Replace(l, "looks good", "looks bad!", 1) }), portable.ImportOptions{},
			fmt.Sprintf("line %d is not the line the export wrote", n), n},
		{"dropped line", nil, portable.ImportOptions{}, "", 0}, // below
		{"cut short", cutLines(b, 2), portable.ImportOptions{}, "cut short at line", 0},
		{"cut mid-line", b[:len(b)-20], portable.ImportOptions{}, "is not the line the export wrote there", 0},
		{"added line", append(append([]byte{}, b...), []byte(`{"type":"comment"}`+"\n")...), portable.ImportOptions{}, "lines were added", 0},
		{"unknown type", reseal(t, editLine(b, n, func(l string) string { return strings.Replace(l, `"type":"comment"`, `"type":"gossip"`, 1) })),
			portable.ImportOptions{}, fmt.Sprintf(`line %d: unknown record type "gossip"`, n), n},
		{"unknown column", reseal(t, editLine(b, n, func(l string) string { return strings.TrimSuffix(l, "}") + `,"mood":"happy"}` })),
			portable.ImportOptions{}, fmt.Sprintf(`line %d: unknown column "mood" in a comment record`, n), n},
		{"missing column", reseal(t, editLine(b, n, func(l string) string { return l[:strings.Index(l, `,"created_at"`)] + "}" })),
			portable.ImportOptions{}, fmt.Sprintf(`line %d: comment record without column "created_at"`, n), n},
		{"wrong type", reseal(t, editLine(b, n, func(l string) string { return strings.Replace(l, `"created_at":`, `"created_at":"x`, 1) })),
			portable.ImportOptions{}, fmt.Sprintf(`line %d:`, n), n},
		{"not canonical", reseal(t, editLine(b, n, func(l string) string { return strings.Replace(l, `"body":`, `"body": `, 1) })),
			portable.ImportOptions{}, fmt.Sprintf(`line %d: not written the way baton export writes it`, n), n},
		{"out of order", reseal(t, moveLine(b, 2, n)), portable.ImportOptions{}, "an export holds its records a type at a time", 0},
		{"too large", b, portable.ImportOptions{MaxBytes: int64(len(b) - 10)}, "larger than the limit", 0},
		{"not an export", []byte("hello\n"), portable.ImportOptions{}, "line 1: not the header of a baton export", 1},
		{"other format", bytes.Replace(b, []byte(`"baton-export/1"`), []byte(`"baton-export/9"`), 1), portable.ImportOptions{},
			`the file's format is "baton-export/9"`, 1},
		{"header counts", bytes.Replace(b, []byte(`"comment":3`), []byte(`"comment":9`), 1), portable.ImportOptions{},
			"the header counts 9 comment records, the file holds 3", 1},
		{"empty", nil, portable.ImportOptions{}, "the file is empty", 0},
	}
	// The dropped line: remove line n entirely.
	lines := strings.Split(string(b), "\n")
	cases[1].file = []byte(strings.Join(append(slices.Clone(lines[:n-1]), lines[n:]...), "\n"))
	cases[1].want = fmt.Sprintf("line %d is not the line the export wrote there", n)
	cases[1].line = n
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dst := openSQLite(t)
			_, err := dst.importFile(c.file, c.opts)
			if baton.ErrorCode(err) != baton.ErrInvalidInput || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("import = %v, want ERR_INVALID_INPUT with %q", err, c.want)
			}
			if c.line > 0 {
				if got := baton.AsError(err).Details["line"]; fmt.Sprint(got) != fmt.Sprint(c.line) {
					t.Fatalf("details line = %v, want %d", got, c.line)
				}
			}
			if n := dst.count(`SELECT COUNT(*) FROM projects`); n != 0 {
				t.Fatalf("a refused file wrote %d projects", n)
			}
		})
	}
	t.Run("line too long", func(t *testing.T) {
		long := strings.Replace(lines[n-1], "looks good", strings.Repeat("x", portable.MaxLineBytes), 1)
		f := reseal(t, []byte(strings.Join(append(append(slices.Clone(lines[:n-1]), long), lines[n:]...), "\n")))
		_, err := openSQLite(t).importFile(f, portable.ImportOptions{})
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("line %d is longer than the limit", n)) {
			t.Fatalf("import = %v", err)
		}
	})
}

// cutLines drops the last n lines of b.
func cutLines(b []byte, n int) []byte {
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	return []byte(strings.Join(lines[:len(lines)-n], "\n") + "\n")
}

// moveLine moves line from to just after line to.
func moveLine(b []byte, from, to int) []byte {
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	l := lines[from-1]
	rest := append(slices.Clone(lines[:from-1]), lines[from:]...)
	rest = slices.Insert(rest, to-1, l)
	return []byte(strings.Join(rest, "\n") + "\n")
}

// TestProjectExport: --project exports one project's rows and none of the
// server's own tables; it imports into an empty database and round trips.
func TestProjectExport(t *testing.T) {
	src := openSQLite(t)
	src.fill()
	opts := fixed
	opts.Project = "colibri"
	b := src.export(opts)
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
		for _, global := range []string{`"type":"profile"`, `"type":"agent"`, `"type":"action"`, `"type":"audit_log"`, `"type":"agent_session"`} {
			if strings.HasPrefix(l, `{`+global+`,`) {
				t.Fatalf("a project export holds %s", l)
			}
		}
		if strings.Contains(l, `"OTH-1"`) || strings.Contains(l, `"slug":"other"`) {
			t.Fatalf("a colibri export holds another project's row: %s", l)
		}
	}
	if !strings.Contains(string(b), `"project":"colibri"`) || !strings.Contains(string(b), `"type":"item","id":"COL-1"`) {
		t.Fatal("the project's rows are missing")
	}
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			dst := open(t)
			dst.mustImport(b)
			if got := dst.export(opts); !bytes.Equal(got, b) {
				t.Fatalf("project round trip differs:\n%s", firstDiff(b, got))
			}
			if id := dst.call("agent-alice", "task_create", map[string]any{"title": "next", "project": "colibri"})["task_id"]; id != "COL-5" {
				t.Fatalf("new item = %v", id)
			}
		})
	}
	var buf bytes.Buffer
	if _, err := src.p.Export(context.Background(), &buf, portable.ExportOptions{Project: "nope"}); baton.ErrorCode(err) != baton.ErrProjectNotFound {
		t.Fatalf("export of an unknown project = %v", err)
	}
}

// TestMissingReferenceIsNamed: a project export whose item depends on an
// item of another project does not import alone; the error names the line
// and nothing is written.
func TestMissingReferenceIsNamed(t *testing.T) {
	src := openSQLite(t)
	src.fill()
	src.call("agent-alice", "add_dependency", map[string]any{"issue_id": "COL-1", "depends_on": "OTH-1"})
	opts := fixed
	opts.Project = "colibri"
	b := src.export(opts)
	dst := openSQLite(t)
	_, err := dst.importFile(b, portable.ImportOptions{})
	line := lineOf(t, b, `"depends_on":"OTH-1"`)
	if baton.ErrorCode(err) != baton.ErrInvalidInput || !strings.Contains(err.Error(), fmt.Sprintf("line %d (item_dependency COL-1 / OTH-1)", line)) {
		t.Fatalf("import = %v", err)
	}
	if n := dst.count(`SELECT COUNT(*) FROM items`); n != 0 {
		t.Fatalf("a failed import wrote %d items", n)
	}
}

// TestSchemaCoverage: every table of the live schema is exported or
// excluded with a reason, and every column of an exported table is
// exported or skipped with a reason. A migration that adds a table or a
// column fails here until portable.Tables or portable.Excluded says what
// becomes of it.
func TestSchemaCoverage(t *testing.T) {
	queries := map[string][2]string{
		"sqlite": {`SELECT name FROM pragma_table_list WHERE schema = 'main' AND type IN ('table', 'virtual') AND name NOT LIKE 'sqlite_%'`,
			`SELECT name FROM pragma_table_xinfo(?)`},
		"postgres": {`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
			`SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?`},
	}
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			d := open(t)
			q := queries[name]
			tables := strings.Split(strings.Join(d.strings(q[0]), ","), ",")
			if len(tables) < 30 {
				t.Fatalf("only %d tables: %v", len(tables), tables)
			}
			live := map[string][]string{}
			for _, tb := range tables {
				live[tb] = d.strings(q[1], tb)
			}
			for _, p := range portable.Coverage(live) {
				t.Error(p)
			}
			// The check itself: a new table, a new column and a lost
			// column are each caught.
			live["brand_new"] = []string{"id"}
			live["items"] = append(slices.Clone(live["items"]), "new_column")
			live["comments"] = slices.DeleteFunc(slices.Clone(live["comments"]), func(c string) bool { return c == "body" })
			got := strings.Join(portable.Coverage(live), "\n")
			for _, want := range []string{"table brand_new is neither exported nor excluded", "column items.new_column is neither exported nor skipped",
				"column comments.body is exported but the database has no such column"} {
				if !strings.Contains(got, want) {
					t.Errorf("Coverage misses %q in:\n%s", want, got)
				}
			}
		})
	}
}

func (d *db) strings(q string, args ...any) []string {
	d.t.Helper()
	rows, err := d.raw.Query(d.rebind(q), args...)
	if err != nil {
		d.t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			d.t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}
