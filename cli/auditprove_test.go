package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditProveAndVerifyProof: baton audit prove writes an action's
// inclusion proof under the latest checkpoint, verify-proof checks it with
// the log's key (and says the signature went unchecked without one), and
// a proof whose record was edited fails.
func TestAuditProveAndVerifyProof(t *testing.T) {
	env := trail(t)
	if r := baton(t, env, "audit", "prove", "2"); r.code == 0 || !strings.Contains(r.stderr, "no signed checkpoint") {
		t.Fatalf("prove before any checkpoint: %d %s", r.code, r.stderr)
	}
	if r := baton(t, env, "audit", "checkpoint"); r.code != 0 {
		t.Fatalf("checkpoint: %s", r.stderr)
	}
	key := strings.TrimSpace(baton(t, env, "audit", "key").stdout)
	r := baton(t, env, "audit", "prove", "2")
	if r.code != 0 || !strings.Contains(r.stdout, `"inclusion_path"`) {
		t.Fatalf("prove: %d %s %s", r.code, r.stdout, r.stderr)
	}
	file := filepath.Join(t.TempDir(), "proof.json")
	if err := os.WriteFile(file, []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	if v := baton(t, env, "audit", "verify-proof", file, "--key", key); v.code != 0 || !strings.Contains(v.stdout, "proof verifies: action 2") ||
		strings.Contains(v.stdout, "not checked") {
		t.Fatalf("verify-proof --key: %d %s %s", v.code, v.stdout, v.stderr)
	}
	if v := baton(t, env, "audit", "verify-proof", file); v.code != 0 || !strings.Contains(v.stdout, "signature was not checked") {
		t.Fatalf("verify-proof without a key: %d %s", v.code, v.stdout)
	}
	forged := strings.Replace(r.stdout, `"tool": "`, `"tool": "x`, 1)
	if forged == r.stdout {
		t.Fatalf("the proof has no tool field to edit:\n%s", r.stdout)
	}
	if err := os.WriteFile(file, []byte(forged), 0o644); err != nil {
		t.Fatal(err)
	}
	if v := baton(t, env, "audit", "verify-proof", file, "--key", key); v.code != 1 || !strings.Contains(v.stderr, "do not give its leaf hash") {
		t.Fatalf("an edited proof: %d %s %s", v.code, v.stdout, v.stderr)
	}
}
