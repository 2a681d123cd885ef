package cli_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestOrchestratorTickCommand: `baton orchestrator tick` processes the
// phase claims and verdicts recorded through the CLI once: a research
// claim goes to review for a judge, the judge's approval advances the
// issue to architecture; a tick with nothing to do says so; --json gives
// the report.
func TestOrchestratorTickCommand(t *testing.T) {
	env, repo := repoDB(t)
	r := baton(t, env, "issues", "create_issue", "--title", "Slow claims", "--labels", "phase:research", "--project", "colibri", "--json")
	var created map[string]any
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &created) != nil {
		t.Fatalf("create_issue: %+v", r)
	}
	id := created["issue_id"].(string)
	if r := baton(t, env, "worktree", "create", id); r.code != 0 {
		t.Fatalf("worktree create: %+v", r)
	}
	wt := filepath.Join(repo, ".symphony-workspaces", id)
	body := "# Research\n\n## Problem Statement\n\nClaims time out under load: the pool is too small.\n\n## Recommendation\n\nRaise it to 32.\n"
	rel := "docs/tickets/" + id + "/research.md"
	if err := os.MkdirAll(filepath.Join(wt, "docs", "tickets", id), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wt, filepath.FromSlash(rel)), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(body))
	hash := hex.EncodeToString(sum[:])
	r = baton(t, env, "--agent", "researcher-1", "phases", "complete_phase", "--issue-id", id, "--completed-phase", "research",
		"--contract-version", "1", "--artifact-path", rel, "--artifact-hash", hash, "--summary", "pool too small",
		"--recommended-next-phase", "architecture", "--project-path", wt, "--json")
	if r.code != 0 {
		t.Fatalf("complete_phase: %+v", r)
	}
	r = baton(t, env, "orchestrator", "tick", "--json")
	var report struct {
		Projects    int
		Transitions []struct {
			FindingID string `json:"finding_id"`
			IssueID   string `json:"issue_id"`
			Outcome   string
			Status    string
		}
		Errors []string
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &report) != nil {
		t.Fatalf("tick --json: %+v", r)
	}
	if len(report.Transitions) != 1 || report.Transitions[0].Outcome != "awaiting_verdict" || report.Transitions[0].IssueID != id ||
		report.Transitions[0].Status != "review" || report.Projects != 1 {
		t.Fatalf("report %+v", report)
	}
	if r := baton(t, env, "orchestrator", "tick"); r.code != 0 || r.stdout != "nothing to process\n" {
		t.Errorf("second tick: %+v", r)
	}
	if r := baton(t, env, "--agent", "judge-1", "phases", "approve_phase", "--issue-id", id, "--phase", "research",
		"--artifact-hash", hash, "--reason", "clear"); r.code != 0 {
		t.Fatalf("approve_phase: %+v", r)
	}
	r = baton(t, env, "orchestrator", "tick")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], "FINDING") ||
		!strings.Contains(lines[1], id) || !strings.Contains(lines[1], "advanced") || !strings.Contains(lines[1], "research -> architecture") {
		t.Fatalf("tick: %+v", r)
	}
	r = baton(t, env, "issues", "get_issue", "--issue-id", id, "--json")
	var issue map[string]any
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &issue) != nil {
		t.Fatalf("get_issue: %+v", r)
	}
	if labels := toStrings(issue["labels"]); !slices.Contains(labels, "phase:architecture") || issue["status"] != "todo" {
		t.Errorf("issue after the approval: %v %v", issue["status"], labels)
	}
	if acts := actionsOf(t, env); !slices.Contains(acts, "orchestrator_tick "+id+" orchestrator") {
		t.Errorf("the action log lacks the tick's actions: %v", acts)
	}
	// Every change reaches baton watch: the claim, the tick's, the verdict.
	var types []string
	for _, e := range eventsOf(t, env, "phase.", 4) {
		if typ, _ := e["type"].(string); strings.HasPrefix(typ, "phase.") {
			types = append(types, typ)
		}
	}
	if want := []string{"phase.completed", "phase.awaiting_verdict", "phase.verdict", "phase.advanced"}; !slices.Equal(types, want) {
		t.Errorf("baton watch shows %v, want %v", types, want)
	}
}
