package cli_test

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-dev/baton/cli"
	_ "modernc.org/sqlite"
)

// trail builds an audit trail through the CLI: a task, an audit session,
// three thought records and the actions of every call.
func trail(t *testing.T) map[string]string {
	env := newDB(t)
	steps := [][]string{
		{"tasks", "task_create", "--title", "Audit me", "--project", "colibri"},
		{"audit", "audit_session_start", "--task-id", "COL-1", "--auditor-id", "auditor"},
		{"audit", "thought_record", "--task-id", "COL-1", "--type", "decision", "--content", "first"},
		{"audit", "thought_record", "--task-id", "COL-1", "--type", "risk", "--content", "second"},
		{"audit", "thought_record", "--task-id", "COL-1", "--type", "discovery", "--content", "third"},
		{"tasks", "task_update", "--task-id", "COL-1", "--status", "todo"},
	}
	for _, s := range steps {
		if r := baton(t, env, s...); r.code != 0 {
			t.Fatalf("%v: %+v", s, r)
		}
	}
	return env
}

// finalize seals an audit session from the CLI the way a person has to:
// merkle_finalize is privileged, so the CLI without a profile lacks it
// (issue 12, point 1); an operator grants it to a profile, and the person
// acts with that profile.
func finalize(t *testing.T, env map[string]string, session string) run {
	t.Helper()
	if r := baton(t, env, "audit", "merkle_finalize", "--session-id", session); r.code == 0 || !strings.Contains(r.stderr, "ERR_PERMISSION_DENIED") {
		t.Fatalf("merkle_finalize without a grant: %+v", r)
	}
	if r := baton(t, env, "profile", "allow", "judge", "merkle_finalize"); r.code != 0 {
		t.Fatalf("grant: %+v", r)
	}
	return baton(t, env, "--agent-type", "judge", "audit", "merkle_finalize", "--session-id", session)
}

func tamper(t *testing.T, env map[string]string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", env["BATON_DB"])
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// TestAuditVerifyFindsTampering edits the database file directly, as an
// attacker with the file would, and checks that verification names the
// exact place.
func TestAuditVerifyFindsTampering(t *testing.T) {
	cases := []struct {
		name  string
		stmts []string
		want  []string
	}{
		{"intact", nil, []string{"every link verifies"}},
		{"changed action", []string{`UPDATE actions SET agent = 'mallory' WHERE position = 3`},
			[]string{"broken at position 3: the record's content no longer gives its stored hash"}},
		{"changed thought", []string{`UPDATE thoughts SET content = 'rewritten' WHERE position = 2`},
			[]string{"COL-1 broken at position 2: the record's content no longer gives its stored hash"}},
		// The action log numbers its records without gaps: a deleted one
		// shows as the next one coming where it should have been.
		{"deleted action", []string{`DELETE FROM actions WHERE position = 4`},
			[]string{"broken at position 5: the record at position 5 comes where position 4 should"}},
		{"deleted thought", []string{`DELETE FROM thoughts WHERE position = 2`},
			[]string{"COL-1 broken at position 3: previous_hash does not match the record before it"}},
		{"deleted first thought", []string{`DELETE FROM thoughts WHERE position = 1`},
			[]string{"COL-1 broken at position 2: the first record of the chain does not start it", "(expected none, found "}},
		{"reordered actions", []string{
			`UPDATE actions SET position = -2 WHERE position = 2`, `UPDATE actions SET position = 2 WHERE position = 5`,
			`UPDATE actions SET position = 5 WHERE position = -2`},
			[]string{"broken at position 2: previous_hash does not match the record before it"}},
		{"rehashed without relinking", []string{
			`UPDATE actions SET hash = 'ffff' WHERE position = 2`},
			[]string{"broken at position 2: the record's content no longer gives its stored hash", "broken at position 3: previous_hash does not match"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := trail(t)
			tamper(t, env, c.stmts...)
			r := baton(t, env, "audit", "verify")
			wantCode := 1
			if c.stmts == nil {
				wantCode = 0
			}
			if r.code != wantCode {
				t.Fatalf("exit %d, want %d:\n%s", r.code, wantCode, r.stdout)
			}
			for _, w := range c.want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("output lacks %q:\n%s", w, r.stdout)
				}
			}
		})
	}
}

// TestAuditSessionTampering: the session's own verification and its
// Merkle proofs notice a changed record too.
func TestAuditSessionTampering(t *testing.T) {
	env := trail(t)
	if r := finalize(t, env, "A-0001"); r.code != 0 {
		t.Fatalf("finalize: %+v", r)
	}
	r := baton(t, env, "audit", "merkle_proof", "--session-id", "A-0001", "--record-id", "Θ-0002", "--json")
	proof := filepath.Join(t.TempDir(), "proof.json")
	if err := os.WriteFile(proof, []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := baton(t, nil, "audit", "verify-proof", proof); r.code != 0 || !strings.Contains(r.stdout, "proof verifies") {
		t.Fatalf("verify-proof: %+v", r)
	}
	var p map[string]any
	_ = json.Unmarshal([]byte(r.stdout), &p)
	bad := strings.Replace(r.stdout, `"side":"left"`, `"side":"right"`, 1)
	if bad == r.stdout {
		bad = strings.Replace(r.stdout, `"side":"right"`, `"side":"left"`, 1)
	}
	_ = os.WriteFile(proof, []byte(bad), 0o644)
	if r := baton(t, nil, "audit", "verify-proof", proof); r.code != cli.ExitTool || !strings.Contains(r.stderr, "does not verify") {
		t.Fatalf("a forged proof: %+v", r)
	}

	tamper(t, env, `UPDATE thoughts SET content = 'rewritten' WHERE id = 'Θ-0002'`)
	r = baton(t, env, "audit", "audit_verify_chain", "--session-id", "A-0001", "--json")
	var v struct {
		ChainValid  bool `json:"chain_valid"`
		BrokenLinks []struct {
			Position     int    `json:"position"`
			ExpectedHash string `json:"expected_hash"`
			ActualHash   string `json:"actual_hash"`
		} `json:"broken_links"`
		IntegrityScore int `json:"integrity_score"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Fatalf("verify output %q", r.stdout)
	}
	if v.ChainValid || len(v.BrokenLinks) != 1 || v.BrokenLinks[0].ExpectedHash == v.BrokenLinks[0].ActualHash || v.IntegrityScore == 100 {
		t.Fatalf("session verification = %+v", v)
	}
	if r := baton(t, env, "audit", "merkle_proof", "--session-id", "A-0001", "--record-id", "Θ-0002"); r.code != 1 ||
		!strings.Contains(r.stderr, "no longer give its frozen root") {
		t.Fatalf("proof after tampering: %+v", r)
	}
}

// TestAuditExportVerifiesElsewhere: the exported bundle verifies with no
// database, and a bundle edited afterwards does not.
func TestAuditExportVerifiesElsewhere(t *testing.T) {
	env := trail(t)
	if r := finalize(t, env, "A-0001"); r.code != 0 {
		t.Fatalf("finalize: %+v", r)
	}
	path := filepath.Join(t.TempDir(), "bundle.json")
	if r := baton(t, env, "audit", "export", path); r.code != 0 || !strings.Contains(r.stdout, "1 finalized sessions") {
		t.Fatalf("export: %+v", r)
	}
	if r := baton(t, nil, "--db", filepath.Join(t.TempDir(), "none", "x.db"), "audit", "verify", "--bundle", path); r.code != 0 {
		t.Fatalf("bundle verify: %+v", r)
	}
	raw, _ := os.ReadFile(path)
	_ = os.WriteFile(path, []byte(strings.Replace(string(raw), `"content": "second"`, `"content": "forged"`, 1)), 0o644)
	if r := baton(t, nil, "audit", "verify", "--bundle", path); r.code != 1 || !strings.Contains(r.stdout, "COL-1 broken at position 2") {
		t.Fatalf("edited bundle: %+v", r)
	}
}
