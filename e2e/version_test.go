package e2e

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// TestVersionNamesCommit: `baton version` says which commit the binary was
// built from, the way Go stamps a build made inside a git checkout.
func TestVersionNamesCommit(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed, so the build carries no commit to compare with")
	}
	commit := builtFrom
	if commit == "" {
		t.Skip("not inside a git checkout: the build carries no commit")
	}
	out, code := cliRun(t, "version")
	if code != 0 || !strings.HasPrefix(out, "baton ") || !strings.Contains(out, "commit "+commit) {
		t.Fatalf("baton version = %q (exit %d), want the commit %s", out, code, commit)
	}
	out, code = cliRun(t, "version", "--json")
	var bi struct {
		Version, Commit, Go, Platform string
	}
	if code != 0 || json.Unmarshal([]byte(out), &bi) != nil || bi.Commit != commit || bi.Version == "" || bi.Go == "" || bi.Platform == "" {
		t.Fatalf("baton version --json = %q (exit %d)", out, code)
	}
}
