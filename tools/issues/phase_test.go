package issues_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// as returns a copy of k acting with a profile.
func as(k *testkit.Kit, profile string) *testkit.Kit {
	c := *k
	c.Principal.Profile = profile
	return &c
}

// Every Symphony issue starts with exactly one phase label: the one its
// labels name, research when a researcher or scanner (or a profile
// extending one) files it, ready otherwise; sub-tasks are ready work.
func TestCreateIssueInitialPhase(t *testing.T) {
	k := testkit.New(t)
	if err := k.Store.Update(context.Background(), func(tx baton.Tx) error {
		return tx.PutProfile(context.Background(), &baton.Profile{Name: "deep-researcher", Extends: "researcher"})
	}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		profile string
		labels  []string
		want    []string
	}{
		{"by hand", "", nil, []string{"phase:ready"}},
		{"worker", "worker", []string{"bug"}, []string{"bug", "phase:ready"}},
		{"intake", "intake", nil, []string{"phase:ready"}},
		{"researcher", "researcher", []string{"perf"}, []string{"perf", "phase:research"}},
		{"scanner", "scanner", nil, []string{"phase:research"}},
		{"custom researcher", "deep-researcher", nil, []string{"phase:research"}},
		{"named phase wins", "researcher", []string{"phase:grooming", "ui"}, []string{"phase:grooming", "ui"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := map[string]any{"title": tc.name}
			if tc.labels != nil {
				args["labels"] = tc.labels
			}
			out := as(k.On(t), tc.profile).OK("create_issue", args)
			equal(t, "labels", strs(t, out, "labels"), tc.want)
			if got := getIssue(k.On(t), out["issue_id"].(string)); got["phase"] != string(baton.PhaseOf(tc.want)) {
				t.Errorf("get_issue phase = %v", got["phase"])
			}
		})
	}
	e := fail(k, "create_issue", map[string]any{"title": "two", "labels": []string{"phase:research", "phase:ready"}}, baton.ErrInvalidInput)
	if e.Details["constraint"] != "one_phase_label" || !strings.Contains(e.Message, "exactly one phase label") {
		t.Errorf("two phase labels: %+v", e)
	}
	parent := issue(k, map[string]any{"labels": []string{"phase:grooming"}})
	sub := bound(k, parent).OK("create_subtask", map[string]any{"title": "piece"})
	equal(t, "subtask labels", strs(t, sub, "labels"), []string{"phase:ready"})
	sub = bound(k, parent).OK("create_subtask", map[string]any{"title": "spike", "labels": []string{"phase:research"}})
	equal(t, "subtask labels", strs(t, sub, "labels"), []string{"phase:research"})
}

// get_issue shows the issue's phase, its phase's contract (the project's
// own file when it has one) and the project's settings.
func TestGetIssueShowsPhaseContractAndSettings(t *testing.T) {
	k := testkit.New(t)
	root := t.TempDir()
	ctx := context.Background()
	if err := k.Store.Update(ctx, func(tx baton.Tx) error {
		if err := tx.CreateProject(ctx, &baton.Project{Slug: "shop", Prefix: "SHO", Root: root}); err != nil {
			return err
		}
		c := baton.DefaultProjectConfig("shop")
		c.Gates = []baton.Gate{{Command: "go test ./...", Label: "Tests", Required: true}}
		c.WorkerInstructions, c.JudgeInstructions = "Small commits.", "Check the migrations."
		c.UpdatedBy = "user"
		return tx.PutProjectConfig(ctx, c)
	}); err != nil {
		t.Fatal(err)
	}
	id := issue(k, map[string]any{"project": "shop", "labels": []string{"phase:architecture"}})
	got := getIssue(k, id)
	if got["phase"] != "architecture" {
		t.Fatalf("phase = %v", got["phase"])
	}
	pc, _ := got["phase_contract"].(map[string]any)
	if pc["version"] != 1.0 || pc["artifact_path"] != "docs/tickets/"+id+"/design.md" || pc["next_phase"] != "grooming" ||
		pc["source"] != "built-in" || pc["dispatch_profile"] != "researcher" {
		t.Errorf("phase_contract = %v", pc)
	}
	equal(t, "required_sections", strs(t, pc, "required_sections"), []string{"Design", "Risks", "Recommendation"})
	cfg, _ := got["project_config"].(map[string]any)
	if cfg["version"] != 1.0 || cfg["worker_instructions"] != "Small commits." || cfg["judge_instructions"] != "Check the migrations." {
		t.Errorf("project_config = %v", cfg)
	}
	if gates, _ := cfg["gates"].([]any); len(gates) != 1 || gates[0].(map[string]any)["label"] != "Tests" {
		t.Errorf("gates = %v", cfg["gates"])
	}

	// The project's own contract replaces the built-in one.
	dir := filepath.Join(root, "prompts", "phases")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	contract := "---\nversion: 3\ndispatch_profile: architect\nartifact_path: adr.md\nrequired_sections: [Context, Decision]\nnext_phase: ready\n---\nbody\n"
	if err := os.WriteFile(filepath.Join(dir, "architecture.md"), []byte(contract), 0o644); err != nil {
		t.Fatal(err)
	}
	pc, _ = getIssue(k, id)["phase_contract"].(map[string]any)
	if pc["version"] != 3.0 || pc["artifact_path"] != "docs/tickets/"+id+"/adr.md" || pc["source"] != "prompts/phases/architecture.md" ||
		pc["next_phase"] != "ready" || pc["dispatch_profile"] != "architect" {
		t.Errorf("project contract = %v", pc)
	}
	// A broken contract does not hide the issue: get_issue says what is wrong.
	if err := os.WriteFile(filepath.Join(dir, "architecture.md"), []byte("---\nversion: x\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got = getIssue(k, id)
	if got["phase_contract"] != nil || !strings.Contains(got["phase_contract_error"].(string), "prompts/phases/architecture.md") ||
		strings.Contains(got["phase_contract_error"].(string), root) {
		t.Errorf("broken contract: %v / %v", got["phase_contract"], got["phase_contract_error"])
	}

	// An issue of another vocabulary without a phase label is ready, and
	// a project never configured shows the defaults as version 0.
	task := k.OK("task_create", map[string]any{"title": "t", "project": "colibri"})["task_id"].(string)
	got = getIssue(k, task)
	cfg, _ = got["project_config"].(map[string]any)
	if got["phase"] != "ready" || cfg["version"] != 0.0 || cfg["risk_thresholds"].(map[string]any)["highLines"] != 100.0 {
		t.Errorf("task: phase %v, project_config %v", got["phase"], cfg)
	}
	pc, _ = got["phase_contract"].(map[string]any)
	if pc["validation"] != "gates" || pc["artifact_path"] != nil {
		t.Errorf("ready contract = %v", pc)
	}
}

// Replacing labels through task_update keeps the phase; naming another
// phase is refused and changes nothing.
func TestTaskUpdateKeepsPhase(t *testing.T) {
	k := testkit.New(t)
	id := issue(k, map[string]any{"labels": []string{"phase:research", "perf"}})
	k.OK("task_update", map[string]any{"task_id": id, "labels": []string{"perf", "db"}})
	equal(t, "labels", strs(t, taskGet(k, id), "labels"), []string{"perf", "db", "phase:research"})
	e := fail(k, "task_update", map[string]any{"task_id": id, "labels": []string{"phase:ready"}}, baton.ErrInvalidInput)
	if e.Details["constraint"] != "phase_change" || !strings.Contains(e.Message, "is in phase research") {
		t.Errorf("phase change: %+v", e)
	}
	equal(t, "labels after the refusal", strs(t, taskGet(k, id), "labels"), []string{"perf", "db", "phase:research"})
	k.OK("task_update", map[string]any{"task_id": id, "labels": []string{"phase:research"}})
	equal(t, "same phase", strs(t, taskGet(k, id), "labels"), []string{"phase:research"})
}

// Pre-ready issues are not ready work: task_next_actions lists them with
// the reason and claim_next passes them over, unless asked for the phase.
func TestPreReadyIssuesOutOfTheQueue(t *testing.T) {
	k := testkit.New(t)
	research := issueIn(k, "todo", map[string]any{"title": "research", "priority": 1, "labels": []string{"phase:research"}})
	ready := issueIn(k, "todo", map[string]any{"title": "ready", "priority": 4})
	next := k.OK("task_next_actions", map[string]any{"project": "colibri", "include_blocked": true})
	if acts := list(t, next, "next_actions"); len(acts) != 1 || acts[0]["task_id"] != ready {
		t.Errorf("next_actions = %v, want only %s", acts, ready)
	}
	blocked := list(t, next, "blocked")
	if len(blocked) != 1 || blocked[0]["task_id"] != research ||
		!strings.Contains(blocked[0]["blocked_reason"].(string), "in phase research") {
		t.Errorf("blocked = %v", blocked)
	}
	if got := k.OK("claim_next", map[string]any{}); got["item_id"] != ready {
		t.Errorf("claim_next took %v, want %s", got["item_id"], ready)
	}
	if got := k.OK("claim_next", map[string]any{}); got["claimed"] != false {
		t.Errorf("claim_next took %v with only pre-ready work left", got["item_id"])
	}
	got := as(k, "researcher").OK("claim_next", map[string]any{"label": "phase:research"})
	if got["item_id"] != research {
		t.Errorf("claim_next(label phase:research) = %v, want %s", got, research)
	}
}
