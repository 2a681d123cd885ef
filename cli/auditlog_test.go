package cli_test

import (
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/baton-dev/baton/audit"
	"github.com/baton-dev/baton/cli"
	"github.com/baton-dev/baton/tlog"
)

// The tests here cover the action log as a transparency log from the
// command line: the key init makes, `baton audit key`, `baton audit
// checkpoint`, `baton audit verify --checkpoint/--key/--bundle`, the
// signed bundle of `baton audit export`, the [audit] table's witness file
// and the key file's guards.

// auditDirEnv is an environment whose database is DIR/.baton/baton.db,
// so the log's key goes to DIR/.baton/audit.key.
func auditDirEnv(t *testing.T) (keyFile string, env map[string]string) {
	t.Helper()
	dir := t.TempDir()
	return filepath.Join(dir, ".baton", audit.KeyFile), map[string]string{"BATON_DB": filepath.Join(dir, ".baton", "baton.db")}
}

// auditLogKey is what `baton audit key` prints, trimmed.
func auditLogKey(t *testing.T, env map[string]string) string {
	t.Helper()
	r := baton(t, env, "audit", "key")
	if r.code != 0 || strings.TrimSpace(r.stdout) == "" {
		t.Fatalf("audit key: %+v", r)
	}
	return strings.TrimSpace(r.stdout)
}

// checkpointJSON is `baton audit checkpoint --json`.
type checkpointJSON struct {
	Size    int64  `json:"size"`
	Root    string `json:"root"`
	Note    string `json:"note"`
	New     bool   `json:"new"`
	Witness bool   `json:"witness"`
}

func auditCheckpointJSON(t *testing.T, env map[string]string) checkpointJSON {
	t.Helper()
	r := baton(t, env, "audit", "checkpoint", "--json")
	var got checkpointJSON
	if r.code != 0 {
		t.Fatalf("audit checkpoint --json: %+v", r)
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("audit checkpoint --json: %v\n%s", err, r.stdout)
	}
	return got
}

// verifyJSON is `baton audit verify --json`.
type verifyJSON struct {
	OK           bool   `json:"ok"`
	KeySource    string `json:"key_source"`
	Actions      int64  `json:"actions"`
	Root         string `json:"root"`
	ActionBreaks []struct {
		Position int64  `json:"position"`
		Reason   string `json:"reason"`
	} `json:"action_breaks"`
	Checkpoints []audit.CheckpointCheck `json:"checkpoints"`
}

// auditVerifyJSON runs `baton audit verify ... --json` and wants exit
// code want.
func auditVerifyJSON(t *testing.T, env map[string]string, want int, args ...string) verifyJSON {
	t.Helper()
	r := baton(t, env, append(append([]string{"audit", "verify"}, args...), "--json")...)
	var got verifyJSON
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("audit verify %v --json: %v\n%+v", args, err, r)
	}
	if r.code != want {
		t.Fatalf("audit verify %v --json: exit %d, want %d\n%s", args, r.code, want, r.stdout)
	}
	if got.OK != (want == 0) {
		t.Fatalf("audit verify %v --json: ok = %v with exit %d\n%s", args, got.OK, r.code, r.stdout)
	}
	return got
}

// checkpointFrom is the report's only checkpoint from source.
func checkpointFrom(t *testing.T, v verifyJSON, source string) audit.CheckpointCheck {
	t.Helper()
	var found []audit.CheckpointCheck
	for _, c := range v.Checkpoints {
		if c.Source == source {
			found = append(found, c)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d checkpoints from %s, want one: %+v", len(found), source, v.Checkpoints)
	}
	return found[0]
}

// errorEnvelope is a --json failure.
type errorEnvelope struct {
	Error struct {
		Code    string         `json:"code"`
		Message string         `json:"message"`
		Details map[string]any `json:"details"`
	} `json:"error"`
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestAuditKeyMadeByInit: init makes the log's key file, mode 0600, and
// `baton audit key` prints its public key, the one init --json names,
// every time.
func TestAuditKeyMadeByInit(t *testing.T) {
	keyFile, env := auditDirEnv(t)
	r := baton(t, env, "init", "--project", "colibri", "--prefix", "COL", "--json")
	var initOut struct {
		AuditKey string `json:"audit_key"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &initOut) != nil || initOut.AuditKey == "" {
		t.Fatalf("init --json: %+v", r)
	}
	fi, err := os.Stat(keyFile)
	if err != nil {
		t.Fatalf("init made no key file at %s: %v", keyFile, err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %#o, want 0600", keyFile, fi.Mode().Perm())
	}

	key := auditLogKey(t, env)
	if key != initOut.AuditKey {
		t.Errorf("audit key = %q, init --json's audit_key = %q", key, initOut.AuditKey)
	}
	r = baton(t, env, "audit", "key", "--json")
	var kj struct {
		Origin    string `json:"origin"`
		PublicKey string `json:"public_key"`
		KeyFile   string `json:"key_file"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &kj) != nil {
		t.Fatalf("audit key --json: %+v", r)
	}
	if kj.PublicKey != key {
		t.Errorf("audit key --json public_key = %q, audit key printed %q", kj.PublicKey, key)
	}
	if kj.KeyFile != keyFile {
		t.Errorf("audit key --json key_file = %q, want %q", kj.KeyFile, keyFile)
	}
	if kj.Origin == "" || !strings.HasPrefix(key, kj.Origin+"+") {
		t.Errorf("audit key --json origin = %q; the key %q is not named by it", kj.Origin, key)
	}
	if again := auditLogKey(t, env); again != key {
		t.Errorf("a second audit key printed %q, the first %q", again, key)
	}
	// A second init keeps the key.
	r = baton(t, env, "init", "--project", "colibri", "--prefix", "COL", "--json")
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &initOut) != nil || initOut.AuditKey != key {
		t.Errorf("second init --json: audit_key %q, want %q (%+v)", initOut.AuditKey, key, r)
	}
}

// TestAuditCheckpointNote: the checkpoint is a signed note whose size
// line is the number of actions; with nothing new the same one is printed
// again and --json says it is not new.
func TestAuditCheckpointNote(t *testing.T) {
	env := trail(t)
	key := auditLogKey(t, env)
	n := countRows(t, env, "SELECT COUNT(*) FROM actions")
	if n == 0 {
		t.Fatal("the trail recorded no action")
	}

	r := baton(t, env, "audit", "checkpoint")
	if r.code != 0 {
		t.Fatalf("audit checkpoint: %+v", r)
	}
	note := r.stdout
	lines := strings.Split(note, "\n")
	if len(lines) < 5 || lines[1] != strconv.Itoa(n) {
		t.Fatalf("checkpoint note's second line is not the number of actions, %d:\n%s", n, note)
	}
	if !strings.HasPrefix(key, lines[0]+"+") {
		t.Errorf("the note's origin %q is not the key's name (%s)", lines[0], key)
	}
	cp, err := tlog.Open([]byte(note), key)
	if err != nil {
		t.Fatalf("the printed note does not verify with the printed key: %v\n%s", err, note)
	}
	if cp.Size != uint64(n) {
		t.Errorf("the note signs size %d, want %d", cp.Size, n)
	}
	if got := countRows(t, env, "SELECT COUNT(*) FROM actions"); got != n {
		t.Errorf("audit checkpoint changed the number of actions: %d, was %d", got, n)
	}

	r = baton(t, env, "audit", "checkpoint")
	if r.code != 0 || r.stdout != note {
		t.Fatalf("second audit checkpoint with nothing new printed another note:\n%s\nwant\n%s\n%+v", r.stdout, note, r)
	}
	if !strings.Contains(r.stderr, "no record since the latest checkpoint") {
		t.Errorf("second audit checkpoint does not say nothing is new: stderr %q", r.stderr)
	}
	again := auditCheckpointJSON(t, env)
	if again.New || again.Note != note || again.Size != int64(n) || again.Witness {
		t.Errorf("audit checkpoint --json with nothing new = %+v; want new=false, size %d, the same note, no witness", again, n)
	}
	if got := countRows(t, env, "SELECT COUNT(*) FROM audit_checkpoints"); got != 1 {
		t.Errorf("%d checkpoints stored, want 1", got)
	}

	if r := baton(t, env, "tasks", "task_create", "--title", "one more", "--project", "colibri"); r.code != 0 {
		t.Fatalf("task_create: %+v", r)
	}
	next := auditCheckpointJSON(t, env)
	m := countRows(t, env, "SELECT COUNT(*) FROM actions")
	if !next.New || next.Size != int64(m) || m <= n || next.Note == note || strings.Split(next.Note, "\n")[1] != strconv.Itoa(m) {
		t.Errorf("audit checkpoint --json after a call = %+v; want a new one at size %d", next, m)
	}
	if _, err := tlog.Open([]byte(next.Note), key); err != nil {
		t.Errorf("the new note does not verify: %v", err)
	}
}

// TestAuditVerifyCheckpointCatchesTruncation: an attacker deletes the
// newest action and the log's own checkpoints; the log alone still
// verifies, but a checkpoint note kept outside the database says it was
// cut short, and where. --key checks that note's signature with the key
// given (as the key or as a file holding it); another log's key finds it
// unsigned.
func TestAuditVerifyCheckpointCatchesTruncation(t *testing.T) {
	env := trail(t)
	key := auditLogKey(t, env)
	dir := t.TempDir()
	keyPath := filepath.Join(dir, "log.pub")
	writeFile(t, keyPath, key+"\n")
	other := auditLogKey(t, newDB(t))
	if other == key {
		t.Fatal("two logs share a key")
	}

	r := baton(t, env, "audit", "checkpoint")
	if r.code != 0 {
		t.Fatalf("audit checkpoint: %+v", r)
	}
	saved := filepath.Join(dir, "checkpoint.txt")
	writeFile(t, saved, r.stdout)
	n := int64(countRows(t, env, "SELECT COUNT(*) FROM actions"))

	// Before the attack: consistent, whichever way the key is given.
	for _, args := range [][]string{
		{"--checkpoint", saved},
		{"--checkpoint", saved, "--key", key},
		{"--checkpoint", saved, "--key", keyPath},
	} {
		v := auditVerifyJSON(t, env, 0, args...)
		c := checkpointFrom(t, v, saved)
		if c.Status != "consistent" || c.Signature != "verified" || c.Size != n {
			t.Errorf("verify %v before the attack: saved checkpoint %+v", args, c)
		}
		wantSource := "log"
		if len(args) > 2 {
			wantSource = "--key"
		}
		if v.KeySource != wantSource {
			t.Errorf("verify %v: key_source %q, want %q", args, v.KeySource, wantSource)
		}
	}

	tamper(t, env, `DELETE FROM actions WHERE position = (SELECT MAX(position) FROM actions)`, `DELETE FROM audit_checkpoints`)
	if got := int64(countRows(t, env, "SELECT COUNT(*) FROM actions")); got != n-1 {
		t.Fatalf("%d actions after deleting the newest, want %d", got, n-1)
	}

	// The log alone cannot tell: its chain is whole and its checkpoints gone.
	if r := baton(t, env, "audit", "verify"); r.code != 0 {
		t.Fatalf("audit verify of the cut log with no checkpoint: exit %d, want 0 (nothing left to catch it)\n%s%s", r.code, r.stdout, r.stderr)
	}
	if v := auditVerifyJSON(t, env, 0); len(v.Checkpoints) != 0 || v.Actions != n-1 {
		t.Fatalf("audit verify --json of the cut log: %+v", v)
	}

	// The saved note catches it, naming the first missing position.
	r = baton(t, env, "audit", "verify", "--checkpoint", saved)
	if r.code != cli.ExitTool || !strings.Contains(r.stdout, "truncated") {
		t.Fatalf("audit verify --checkpoint of the cut log: %+v", r)
	}
	for _, args := range [][]string{
		{"--checkpoint", saved},
		{"--checkpoint", saved, "--key", key},
		{"--checkpoint", saved, "--key", keyPath},
	} {
		v := auditVerifyJSON(t, env, cli.ExitTool, args...)
		c := checkpointFrom(t, v, saved)
		if c.Status != "truncated" || c.Position != n || c.Size != n || c.Signature != "verified" {
			t.Errorf("verify %v: saved checkpoint %+v; want truncated at position %d, size %d, signature verified", args, c, n, n)
		}
		if len(v.ActionBreaks) != 0 {
			t.Errorf("verify %v: action breaks %+v in a chain whose newest record was cut", args, v.ActionBreaks)
		}
	}

	// Another log's key: the saved note's signature is not by it.
	for _, k := range []string{other, writeKey(t, dir, other)} {
		v := auditVerifyJSON(t, env, cli.ExitTool, "--checkpoint", saved, "--key", k)
		c := checkpointFrom(t, v, saved)
		if c.Signature != "invalid" || c.Status != "unsigned" {
			t.Errorf("verify with another log's key %s: saved checkpoint %+v; want signature invalid, status unsigned", k, c)
		}
		if v.KeySource != "--key" {
			t.Errorf("key_source %q, want --key", v.KeySource)
		}
	}
	// Not a key at all.
	if r := baton(t, env, "audit", "verify", "--checkpoint", saved, "--key", "not-a-key"); r.code == 0 {
		t.Errorf("verify --key not-a-key: %+v", r)
	}
}

// writeKey writes k to a new file in dir and returns its path.
func writeKey(t *testing.T, dir, k string) string {
	t.Helper()
	f, err := os.CreateTemp(dir, "key-*.pub")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(k + "\n"); err != nil {
		t.Fatal(err)
	}
	return f.Name()
}

// TestAuditBundleIsSigned: the exported bundle (format 3) verifies with
// the log's key and with its own; a bundle with an action rewritten and
// every hash after it recomputed does not, because its root is not the
// signed one; an older format is refused.
func TestAuditBundleIsSigned(t *testing.T) {
	env := trail(t)
	key := auditLogKey(t, env)
	other := auditLogKey(t, newDB(t))
	dir := t.TempDir()
	path := filepath.Join(dir, "b.json")
	if r := baton(t, env, "audit", "checkpoint"); r.code != 0 {
		t.Fatalf("audit checkpoint: %+v", r)
	}
	if r := baton(t, env, "tasks", "task_create", "--title", "after the checkpoint", "--project", "colibri"); r.code != 0 {
		t.Fatalf("task_create: %+v", r)
	}
	r := baton(t, env, "audit", "export", path)
	if r.code != 0 || !strings.Contains(r.stdout, key) {
		t.Fatalf("audit export: %+v", r)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var b audit.Bundle
	if err := json.Unmarshal(raw, &b); err != nil {
		t.Fatal(err)
	}
	n := countRows(t, env, "SELECT COUNT(*) FROM actions")
	if audit.BundleFormat != "baton-audit-bundle/3" {
		t.Errorf("audit.BundleFormat = %q, the documented format is baton-audit-bundle/3", audit.BundleFormat)
	}
	if b.Format != audit.BundleFormat || b.PublicKey != key || len(b.Actions) != n ||
		len(b.Consistency) != 1 {
		t.Fatalf("bundle: format %q, key %q, %d actions (want %d), %d consistency proofs (want 1)", b.Format, b.PublicKey,
			len(b.Actions), n, len(b.Consistency))
	}
	if _, err := tlog.Open([]byte(b.Checkpoint), key); err != nil {
		t.Fatalf("the bundle's checkpoint does not verify with the log's key: %v", err)
	}

	nodb := filepath.Join(t.TempDir(), "none", "x.db") // no database is needed, or made
	verify := func(t *testing.T, want int, args ...string) verifyJSON {
		t.Helper()
		return auditVerifyJSON(t, nil, want, append([]string{"--db", nodb, "--bundle", path}, args...)...)
	}
	v := verify(t, 0, "--key", key)
	if v.KeySource != "--key" || int(v.Actions) != n || len(v.Checkpoints) != 2 {
		t.Errorf("verify --bundle --key: %+v", v)
	}
	for _, c := range v.Checkpoints {
		if c.Status != "consistent" || c.Signature != "verified" {
			t.Errorf("verify --bundle --key: checkpoint %+v", c)
		}
	}
	if v := verify(t, 0); v.KeySource != "bundle" {
		t.Errorf("verify --bundle without --key: key_source %q, want bundle", v.KeySource)
	}
	if r := baton(t, nil, "--db", nodb, "audit", "verify", "--bundle", path); r.code != 0 || !strings.Contains(r.stdout, "key from bundle") {
		t.Errorf("verify --bundle without --key says nothing of where the key came from: %+v", r)
	}
	if _, err := os.Stat(filepath.Dir(nodb)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("verify --bundle made a database directory (%v)", err)
	}
	// Another log's key does not sign this bundle.
	if v := verify(t, cli.ExitTool, "--key", other); v.Checkpoints[0].Signature != "invalid" {
		t.Errorf("verify --bundle --key OTHER: %+v", v.Checkpoints)
	}

	write := func(b *audit.Bundle) {
		t.Helper()
		out, err := json.MarshalIndent(b, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, path, string(out))
	}
	// Control: the bundle read and written back unchanged still verifies.
	write(&b)
	verify(t, 0, "--key", key)

	// Rewrite the second action's agent and recompute every hash and link
	// after it, so the chain verifies.
	forged := b
	forged.Actions = append([]audit.BundleAction(nil), b.Actions...)
	const at = 1
	forged.Actions[at].Agent = "mallory"
	for i := at; i < len(forged.Actions); i++ {
		if i > at {
			forged.Actions[i].PreviousHash = forged.Actions[i-1].Hash
		}
		forged.Actions[i].Hash = forged.Actions[i].ActionFields.Hash()
	}
	if forged.Actions[len(forged.Actions)-1].Hash == b.Actions[len(b.Actions)-1].Hash {
		t.Fatal("the forgery changed no hash")
	}
	write(&forged)
	for _, args := range [][]string{{"--key", key}, nil} {
		v := verify(t, cli.ExitTool, args...)
		if len(v.ActionBreaks) != 0 {
			t.Errorf("verify %v: the relinked chain has breaks %+v; the checkpoint should be what fails", args, v.ActionBreaks)
		}
		if c := v.Checkpoints[0]; c.Source != "bundle" || c.Status != "diverged" || c.Signature != "verified" {
			t.Errorf("verify %v of the forged bundle: its checkpoint %+v; want diverged with a verified signature", args, c)
		}
	}
	if r := baton(t, nil, "--db", nodb, "audit", "verify", "--bundle", path, "--key", key); r.code != cli.ExitTool ||
		!strings.Contains(r.stdout, "diverged") {
		t.Errorf("verify of the forged bundle: %+v", r)
	}

	// A bundle of the previous format is refused, saying which it is.
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	m["format"] = "baton-audit-bundle/2"
	old, _ := json.Marshal(m)
	writeFile(t, path, string(old))
	r = baton(t, nil, "--db", nodb, "audit", "verify", "--bundle", path, "--key", key)
	if r.code != cli.ExitUsage || !strings.Contains(r.stderr, `"baton-audit-bundle/2"`) || !strings.Contains(r.stderr, `"baton-audit-bundle/3"`) {
		t.Errorf("verify of a v2 bundle: %+v; want exit %d naming both formats", r, cli.ExitUsage)
	}
	r = baton(t, nil, "--db", nodb, "audit", "verify", "--bundle", path, "--json")
	var e errorEnvelope
	if r.code != cli.ExitUsage || json.Unmarshal([]byte(r.stdout), &e) != nil || e.Error.Code != "ERR_INVALID_INPUT" ||
		!strings.Contains(e.Error.Message, "baton-audit-bundle/2") {
		t.Errorf("verify --json of a v2 bundle: %+v", r)
	}
}

// TestAuditWitnessFile: with [audit] witness_file every new checkpoint is
// appended to the file, which then serves as --checkpoint. The config is
// found through BATON_CONFIG, --config and ./baton.toml.
func TestAuditWitnessFile(t *testing.T) {
	for _, how := range []string{"BATON_CONFIG", "--config", "./baton.toml"} {
		t.Run(how, func(t *testing.T) {
			env := trail(t)
			cfgDir := t.TempDir()
			cfg := filepath.Join(cfgDir, "baton.toml")
			writeFile(t, cfg, "[audit]\nwitness_file = \"witness/checkpoints\"\n") // relative to the file's directory
			witness := filepath.Join(cfgDir, "witness", "checkpoints")
			var extra []string
			switch how {
			case "BATON_CONFIG":
				env["BATON_CONFIG"] = cfg
			case "--config":
				extra = []string{"--config", cfg}
			default:
				t.Chdir(cfgDir)
			}
			checkpoint := func() checkpointJSON {
				t.Helper()
				r := baton(t, env, append([]string{"audit", "checkpoint", "--json"}, extra...)...)
				var got checkpointJSON
				if r.code != 0 || json.Unmarshal([]byte(r.stdout), &got) != nil {
					t.Fatalf("audit checkpoint: %+v", r)
				}
				return got
			}
			first := checkpoint()
			if !first.New || !first.Witness {
				t.Fatalf("first checkpoint %+v: want new, with a witness", first)
			}
			if r := baton(t, env, "tasks", "task_create", "--title", "between", "--project", "colibri"); r.code != 0 {
				t.Fatalf("task_create: %+v", r)
			}
			second := checkpoint()
			if !second.New || !second.Witness || second.Size != first.Size+1 {
				t.Fatalf("second checkpoint %+v: want new at size %d", second, first.Size+1)
			}
			// Nothing new: nothing more is given to the witness.
			if again := checkpoint(); again.New || again.Note != second.Note {
				t.Fatalf("third checkpoint %+v: want the second again", again)
			}

			raw, err := os.ReadFile(witness)
			if err != nil {
				t.Fatalf("no witness file: %v", err)
			}
			notes, err := tlog.Split(raw)
			if err != nil {
				t.Fatalf("tlog.Split(witness): %v\n%s", err, raw)
			}
			if len(notes) != 2 || string(notes[0]) != first.Note || string(notes[1]) != second.Note {
				t.Fatalf("the witness holds %d notes, want the two checkpoints:\n%s", len(notes), raw)
			}

			v := auditVerifyJSON(t, env, 0, "--checkpoint", witness)
			n := 0
			for _, c := range v.Checkpoints {
				if c.Source != witness {
					continue
				}
				n++
				if c.Status != "consistent" || c.Signature != "verified" {
					t.Errorf("witness checkpoint %+v", c)
				}
			}
			if n != 2 {
				t.Errorf("%d checkpoints from the witness file checked, want 2: %+v", n, v.Checkpoints)
			}
		})
	}
}

// TestAuditConfigInvalid: a broken [audit] table is ERR_CONFIG_INVALID
// naming the field, and nothing is signed.
func TestAuditConfigInvalid(t *testing.T) {
	cases := []struct {
		body, field string
		// detail is details.field: the field, except for a value of the
		// wrong type, which tomlconf.Decoding reports as the table (the
		// message names the key).
		detail string
	}{
		{"[audit]\ncheckpoint_every = \"soon\"\n", "checkpoint_every", "checkpoint_every"},
		{"[audit]\ncheckpoint_every = \"1ms\"\n", "checkpoint_every", "checkpoint_every"},
		{"[audit]\ncolour = \"red\"\n", "colour", "colour"},
		{"[audit]\ncheckpoint_records = -3\n", "checkpoint_records", "checkpoint_records"},
		{"[audit]\nwitness_file = 7\n", "witness_file", "audit"},
	}
	for _, c := range cases {
		t.Run(c.field+"/"+strings.ReplaceAll(strings.Split(c.body, "\n")[1], " ", ""), func(t *testing.T) {
			env := newDB(t)
			cfg := filepath.Join(t.TempDir(), "baton.toml")
			writeFile(t, cfg, c.body)
			env["BATON_CONFIG"] = cfg
			r := baton(t, env, "audit", "checkpoint")
			if r.code != cli.ExitTool || !strings.Contains(r.stderr, "ERR_CONFIG_INVALID") || !strings.Contains(r.stderr, c.field) {
				t.Errorf("audit checkpoint with %q: %+v; want ERR_CONFIG_INVALID naming %s", c.body, r, c.field)
			}
			r = baton(t, env, "audit", "checkpoint", "--json")
			var e errorEnvelope
			if r.code != cli.ExitTool || json.Unmarshal([]byte(r.stdout), &e) != nil || e.Error.Code != "ERR_CONFIG_INVALID" ||
				e.Error.Details["field"] != c.detail || e.Error.Details["file"] != cfg || !strings.Contains(e.Error.Message, c.field) {
				t.Errorf("audit checkpoint --json with %q: %+v; want details.field %s", c.body, r, c.detail)
			}
			if n := countRows(t, env, "SELECT COUNT(*) FROM audit_checkpoints"); n != 0 {
				t.Errorf("%d checkpoints signed under a broken config", n)
			}
		})
	}
	// Several faults: each is listed.
	env := newDB(t)
	cfg := filepath.Join(t.TempDir(), "baton.toml")
	writeFile(t, cfg, "[audit]\ncheckpoint_every = \"soon\"\ncolour = \"red\"\n")
	env["BATON_CONFIG"] = cfg
	r := baton(t, env, "audit", "checkpoint", "--json")
	var e errorEnvelope
	if r.code != cli.ExitTool || json.Unmarshal([]byte(r.stdout), &e) != nil || e.Error.Code != "ERR_CONFIG_INVALID" {
		t.Fatalf("two faults: %+v", r)
	}
	vs, _ := json.Marshal(e.Error.Details["violations"])
	for _, f := range []string{"checkpoint_every", "colour"} {
		if !strings.Contains(string(vs), `"`+f+`"`) {
			t.Errorf("two faults: violations %s do not name %s", vs, f)
		}
	}
	// A config named but missing is an error too, not the defaults.
	env["BATON_CONFIG"] = filepath.Join(t.TempDir(), "missing.toml")
	if r := baton(t, env, "audit", "checkpoint"); r.code == 0 || !strings.Contains(r.stderr, "ERR_CONFIG_INVALID") {
		t.Errorf("a named config that does not exist: %+v", r)
	}
}

// TestAuditKeyFileGuarded: a key file others can read is refused, and a
// missing one is reported and never replaced by a new key.
func TestAuditKeyFileGuarded(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file modes")
	}
	keyFile, env := auditDirEnv(t)
	if r := baton(t, env, "init", "--project", "colibri", "--prefix", "COL"); r.code != 0 {
		t.Fatalf("init: %+v", r)
	}
	key := auditLogKey(t, env)

	if err := os.Chmod(keyFile, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"audit", "checkpoint"}, {"audit", "key"}} {
		if r := baton(t, env, args...); r.code == 0 || !strings.Contains(r.stderr, "chmod 600") {
			t.Errorf("%v with the key file mode 0644: %+v; want a failure saying chmod 600", args, r)
		}
	}
	if n := countRows(t, env, "SELECT COUNT(*) FROM audit_checkpoints"); n != 0 {
		t.Errorf("%d checkpoints signed with a key file others can read", n)
	}
	if err := os.Chmod(keyFile, 0o600); err != nil {
		t.Fatal(err)
	}
	if r := baton(t, env, "audit", "checkpoint"); r.code != 0 {
		t.Fatalf("audit checkpoint after chmod 600: %+v", r)
	}

	if err := os.Remove(keyFile); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"audit", "checkpoint"},
		{"audit", "key"},
		{"audit", "export", filepath.Join(t.TempDir(), "b.json")},
		{"init", "--project", "colibri", "--prefix", "COL"},
	} {
		r := baton(t, env, args...)
		if r.code == 0 || !strings.Contains(r.stderr, "key file") || !strings.Contains(r.stderr, "is missing") ||
			!strings.Contains(r.stderr, keyFile) || !strings.Contains(r.stderr, key) {
			t.Errorf("%v with the key file removed: %+v; want a failure saying %s is missing", args, r, keyFile)
		}
		if _, err := os.Stat(keyFile); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%v made a new key file (%v)", args, err)
		}
	}
	// The log itself still verifies with the key the database names.
	if r := baton(t, env, "audit", "verify"); r.code != 0 {
		t.Errorf("audit verify with the key file gone: %+v", r)
	}
}

// rehashActions recomputes every action's previous_hash and hash from its
// content with the log's own rule, as a careful attacker with the
// database file would after changing a record.
func rehashActions(t *testing.T, env map[string]string) {
	t.Helper()
	db, err := sql.Open("sqlite", env["BATON_DB"])
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT position, agent, source, tool, subject, input_digest, result_digest, at FROM actions ORDER BY position`)
	if err != nil {
		t.Fatal(err)
	}
	var fs []audit.ActionFields
	for rows.Next() {
		var f audit.ActionFields
		if err := rows.Scan(&f.Position, &f.Agent, &f.Source, &f.Tool, &f.Subject, &f.InputDigest, &f.ResultDigest, &f.At); err != nil {
			t.Fatal(err)
		}
		fs = append(fs, f)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	prev := audit.Genesis
	for _, f := range fs {
		f.PreviousHash = prev
		h := f.Hash()
		if _, err := db.Exec(`UPDATE actions SET previous_hash = ?, hash = ? WHERE position = ?`, prev, h, f.Position); err != nil {
			t.Fatal(err)
		}
		prev = h
	}
}

// TestAuditExportRefusesABrokenLog: "A log that does not verify is not
// exported" (baton audit export --help) and "A log that is broken there is
// never signed" (docs/audit.md). A log whose newest record was deleted
// under its latest checkpoint, or whose records were rewritten and
// re-hashed up to exactly its latest checkpoint's size, fails
// `baton audit verify` (truncated, diverged) and `baton audit checkpoint`
// refuses to sign it; export must refuse too, rather than sign a
// checkpoint over it with the log's key and write a bundle that verifies.
func TestAuditExportRefusesABrokenLog(t *testing.T) {
	cases := []struct {
		name   string
		attack func(t *testing.T, env map[string]string)
		status string
	}{
		{"newest record deleted", func(t *testing.T, env map[string]string) {
			tamper(t, env, `DELETE FROM actions WHERE position = (SELECT MAX(position) FROM actions)`)
		}, "truncated"},
		{"record rewritten and re-hashed", func(t *testing.T, env map[string]string) {
			tamper(t, env, `UPDATE actions SET agent = 'mallory' WHERE position = 2`)
			rehashActions(t, env)
		}, "diverged"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := trail(t)
			if r := baton(t, env, "audit", "checkpoint"); r.code != 0 {
				t.Fatalf("audit checkpoint: %+v", r)
			}
			c.attack(t, env)
			v := auditVerifyJSON(t, env, cli.ExitTool)
			if len(v.ActionBreaks) != 0 || len(v.Checkpoints) != 1 || v.Checkpoints[0].Status != c.status {
				t.Fatalf("audit verify after the attack: %+v; want only the checkpoint %s", v, c.status)
			}
			if r := baton(t, env, "audit", "checkpoint"); r.code == 0 {
				t.Fatalf("audit checkpoint signs the broken log: %+v", r)
			}
			path := filepath.Join(t.TempDir(), "b.json")
			r := baton(t, env, "audit", "export", path)
			if r.code == 0 {
				vr := baton(t, nil, "audit", "verify", "--bundle", path)
				t.Errorf("audit export of a log whose checkpoint is %s succeeded:\n%s\nand the bundle verifies (exit %d):\n%s",
					c.status, r.stdout, vr.code, vr.stdout)
			}
			if n := countRows(t, env, "SELECT COUNT(*) FROM audit_checkpoints"); n != 1 {
				t.Errorf("%d checkpoints stored after exporting the broken log, want the 1 from before", n)
			}
		})
	}
}

// TestAuditWitnessGetsACheckpointItMissed: docs/audit.md says every
// checkpoint is appended to witness_file. When the witness cannot be
// written, `baton audit checkpoint` fails, but the checkpoint is stored
// already (MakeCheckpoint, then Witness.Add, in Checkpointer.Once); once
// the witness is writable again, the next `baton audit checkpoint` finds
// nothing new, reports {"new": false, "witness": true} and never gives the
// witness the note it missed.
func TestAuditWitnessGetsACheckpointItMissed(t *testing.T) {
	env := trail(t)
	dir := t.TempDir()
	blocker := filepath.Join(dir, "blocker")
	writeFile(t, blocker, "a file where the witness's directory should be\n")
	cfg := filepath.Join(dir, "baton.toml")
	writeFile(t, cfg, "[audit]\nwitness_file = \"blocker/checkpoints\"\n")
	env["BATON_CONFIG"] = cfg
	if r := baton(t, env, "audit", "checkpoint"); r.code == 0 {
		t.Fatalf("audit checkpoint with an unwritable witness: %+v", r)
	}
	if err := os.Remove(blocker); err != nil {
		t.Fatal(err)
	}
	got := auditCheckpointJSON(t, env)
	raw, _ := os.ReadFile(filepath.Join(blocker, "checkpoints"))
	notes, _ := tlog.Split(raw)
	if len(notes) != 1 || string(notes[0]) != got.Note {
		t.Errorf("after the witness is writable again, audit checkpoint = %+v, and the witness holds %d notes; want the stored checkpoint in it",
			got, len(notes))
	}
}
