package phases_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/orchestrator"
	"github.com/baton-dev/baton/phases"
	"github.com/baton-dev/baton/tool"
)

// TestCompletePhaseRecordsAClaim: a valid claim is recorded as an
// immutable phase_completion finding (pc-N) carrying the catalogue's
// fields, processed: false, with its event and action; get_issue shows it
// unprocessed, then processed once the tick took it up.
func TestCompletePhaseRecordsAClaim(t *testing.T) {
	f := newFixture(t)
	id, dir := f.issue(baton.PhaseResearch)
	a := f.agent("researcher-1", "researcher", id, dir)
	args := f.artifact(dir, id, baton.PhaseResearch, research)
	hash := args["artifact_hash"].(string)
	args["artifact_hash"] = "sha256:" + strings.ToUpper(hash) // as some tools print it
	args["open_questions"] = []string{"is 32 enough?"}
	args["promote_to"] = "docs/research/pool.md"
	out := a.OK("complete_phase", args)
	pc := out["finding_id"].(string)
	if !strings.HasPrefix(pc, "pc-") || out["category"] != "phase_completion" || out["processed"] != false ||
		out["artifact_hash"] != hash || out["issue_id"] != id || out["contract_version"] != float64(1) ||
		out["recommended_next_phase"] != "architecture" || !strings.Contains(out["message"].(string), "next tick") {
		t.Fatalf("output %v", out)
	}
	fs := f.findings(id)
	if len(fs) != 1 || fs[0].ID != pc || fs[0].Category != baton.CategoryPhaseCompletion || fs[0].CreatedBy != "researcher-1" ||
		len(fs[0].Files) != 1 || fs[0].Files[0] != "docs/tickets/"+id+"/research.md" {
		t.Fatalf("findings %+v", fs)
	}
	body, err := baton.CompletionOf(fs[0])
	if err != nil {
		t.Fatal(err)
	}
	if body.ArtifactHash != hash || body.Confidence != "medium" || body.PromoteTo == nil || *body.PromoteTo != "docs/research/pool.md" ||
		len(body.OpenQuestions) != 1 || body.ProjectPath != dir || body.Summary != "the research is done" {
		t.Errorf("claim body %+v", body)
	}
	if n := f.k.Count(`SELECT COUNT(*) FROM events WHERE type = 'phase.completed' AND subject = ?`, id); n != 1 {
		t.Errorf("%d phase.completed events, want 1", n)
	}
	if n := f.k.Count(`SELECT COUNT(*) FROM actions WHERE tool = 'complete_phase' AND agent = 'researcher-1'`); n != 1 {
		t.Errorf("%d complete_phase actions, want 1", n)
	}
	view := func() map[string]any {
		for _, x := range a.OK("get_issue", nil)["findings"].([]any) {
			if m := x.(map[string]any); m["id"] == pc {
				return m
			}
		}
		t.Fatalf("get_issue does not list %s", pc)
		return nil
	}
	if v := view(); v["processed"] != false || v["outcome"] != nil {
		t.Errorf("before the tick get_issue shows %v, want processed false", v)
	}
	f.tick()
	if v := view(); v["processed"] != true || v["outcome"] != baton.OutcomeAwaitingVerdict || v["processed_reason"] == "" {
		t.Errorf("after the tick get_issue shows %v, want processed with its outcome", v)
	}
}

// TestCompletePhaseValidationMessages: every refusal says what is wrong
// in the catalogue's words where it has them, names the field, and
// records nothing.
func TestCompletePhaseValidationMessages(t *testing.T) {
	f := newFixture(t)
	id, dir := f.issue(baton.PhaseResearch)
	archID, archDir := f.issue(baton.PhaseArchitecture)
	groomID, groomDir := f.issue(baton.PhaseGrooming)
	good := f.artifact(dir, id, baton.PhaseResearch, research)
	short := "# Notes\n" + strings.Repeat("x", 34) // 42 characters
	plain := strings.Repeat("Plain prose with no heading at all. ", 4)
	for _, tc := range []struct {
		name    string
		as      func() (string, map[string]any) // writes the artifact, returns the dir to call from and args
		code    string
		message string
		field   string
	}{
		{"TooShort", func() (string, map[string]any) {
			return dir, f.artifact(dir, id, baton.PhaseResearch, short)
		}, baton.ErrInvalidInput, "Artifact content too short (42 chars, minimum 100)", "artifact_path"},
		{"NotMarkdown", func() (string, map[string]any) {
			return dir, f.artifact(dir, id, baton.PhaseResearch, plain)
		}, baton.ErrInvalidInput, "Artifact does not appear to be Markdown — no headings found", "artifact_path"},
		{"MissingSections", func() (string, map[string]any) {
			return archDir, f.artifact(archDir, archID, baton.PhaseArchitecture,
				"# Design\n\n## Design\n\nA bounded queue in front of the connection pool, sized from the configuration file at start.\n")
		}, baton.ErrInvalidInput, "Artifact missing required sections: risks, recommendation", "artifact_path"},
		{"RequiredForPreReady", func() (string, map[string]any) {
			return dir, with(good, "contract_version", nil, "artifact_path", nil, "artifact_hash", nil, "recommended_next_phase", nil)
		}, baton.ErrInvalidInput, "contract_version, artifact_path, artifact_hash and recommended_next_phase are required to complete the research phase", "contract_version"},
		{"OutsideDocsTickets", func() (string, map[string]any) {
			return dir, with(good, "artifact_path", "notes/research.md")
		}, baton.ErrInvalidInput, `artifact_path must be inside docs/tickets/ (got "notes/research.md")`, "artifact_path"},
		{"ClimbsOutOfDocsTickets", func() (string, map[string]any) {
			return dir, with(good, "artifact_path", "docs/tickets/../../README.md")
		}, baton.ErrInvalidInput, "artifact_path must be inside docs/tickets/", "artifact_path"},
		{"NotThePhasesArtifact", func() (string, map[string]any) {
			return dir, with(good, "artifact_path", "docs/tickets/"+id+"/design.md")
		}, baton.ErrInvalidInput, "artifact_path must be docs/tickets/" + id + "/research.md, the research contract's artifact for " + id, "artifact_path"},
		{"HashMismatch", func() (string, map[string]any) {
			args := f.artifact(dir, id, baton.PhaseResearch, research)
			return dir, with(args, "artifact_hash", strings.Repeat("0", 64))
		}, baton.ErrInvalidInput, "artifact_hash does not match docs/tickets/" + id + "/research.md: the file's SHA-256 is " + phases.Hash([]byte(research)), "artifact_hash"},
		{"ArtifactMissing", func() (string, map[string]any) {
			return groomDir, map[string]any{"completed_phase": "grooming", "contract_version": 1, "artifact_path": "docs/tickets/" + groomID + "/grooming.md",
				"artifact_hash": phases.Hash([]byte("never written")), "summary": "planned", "recommended_next_phase": "ready", "project_path": groomDir}
		}, baton.ErrNotFound, "artifact docs/tickets/" + groomID + "/grooming.md does not exist", "artifact_path"},
		{"ContractVersion", func() (string, map[string]any) {
			return dir, with(good, "contract_version", 2)
		}, baton.ErrInvalidInput, "contract_version 2 does not match the research contract's version 1", "contract_version"},
		{"NextPhase", func() (string, map[string]any) {
			return dir, with(good, "recommended_next_phase", "grooming")
		}, baton.ErrInvalidInput, `recommended_next_phase "grooming" is not the research contract's next phase, architecture`, "recommended_next_phase"},
		{"NotTheIssuesPhase", func() (string, map[string]any) {
			return dir, with(good, "completed_phase", "architecture")
		}, baton.ErrInvalidTransition, id + " is in phase research, not architecture", "completed_phase"},
		{"ProjectPathRelative", func() (string, map[string]any) {
			return dir, with(good, "project_path", "repo")
		}, baton.ErrInvalidInput, `project_path must be an absolute path (got "repo")`, "project_path"},
		{"ProjectPathElsewhere", func() (string, map[string]any) {
			return dir, with(good, "project_path", t.TempDir())
		}, baton.ErrInvalidInput, "is neither the project's root nor a worktree of " + id, "project_path"},
		{"ContractsDirOutside", func() (string, map[string]any) {
			return dir, with(good, "contracts_dir", "../../elsewhere")
		}, baton.ErrInvalidInput, `contracts_dir "../../elsewhere" is outside the project`, "contracts_dir"},
		{"PromoteOutsideDocs", func() (string, map[string]any) {
			return dir, with(good, "promote_to", "src/research.md")
		}, baton.ErrInvalidInput, `promote_to must be a file path inside docs/ (got "src/research.md")`, "promote_to"},
		{"HashNotHex", func() (string, map[string]any) {
			return dir, with(good, "artifact_hash", "abc123")
		}, baton.ErrInvalidInput, "artifact_hash must match the pattern", "artifact_hash"},
		{"UnknownPhase", func() (string, map[string]any) {
			return dir, with(good, "completed_phase", "done")
		}, baton.ErrInvalidInput, "completed_phase must be one of research, architecture, grooming, ready", "completed_phase"},
		{"SummaryRequired", func() (string, map[string]any) {
			return dir, with(good, "summary", nil)
		}, baton.ErrInvalidInput, "summary is required", "summary"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			from, args := tc.as()
			issue := map[string]string{dir: id, archDir: archID, groomDir: groomID}[from]
			caller := f.agent("researcher-1", "researcher", issue, from).On(t)
			e := caller.FailEnvelope("complete_phase", args, tc.code)
			if !strings.Contains(e.Message, tc.message) {
				t.Errorf("message %q, want %q", e.Message, tc.message)
			}
			named := e.Details["field"] == tc.field
			if vs, ok := e.Details["violations"].([]any); ok {
				for _, v := range vs {
					if v.(map[string]any)["field"] == tc.field {
						named = true
					}
				}
			}
			if !named {
				t.Errorf("error does not name the field %s: %v", tc.field, e.Details)
			}
			if e.Hint == "" {
				t.Errorf("no next_action_hint: %+v", e)
			}
			if strings.Contains(e.Message, f.repo) && tc.field != "project_path" {
				t.Errorf("message %q quotes a server path", e.Message)
			}
		})
	}
	for _, issue := range []string{id, archID, groomID} {
		if fs := f.findings(issue); len(fs) != 0 {
			t.Errorf("refused claims recorded findings on %s: %+v", issue, fs)
		}
	}
}

// TestCompletePhaseChecksTheWorktreeFirst: an agent outside its worktree
// is told so before anything else is looked at, with the way back.
func TestCompletePhaseChecksTheWorktreeFirst(t *testing.T) {
	f := newFixture(t)
	id, dir := f.issue(baton.PhaseResearch)
	lost := f.agent("researcher-1", "researcher", id, f.repo) // in the main checkout, not the worktree
	e := lost.FailEnvelope("complete_phase", map[string]any{"completed_phase": "research", "summary": "done", "project_path": dir}, baton.ErrConflict)
	if e.Type != "workspace_invalid" || !strings.Contains(e.Message, "Recovery: run `cd "+dir+"`") {
		t.Errorf("error %+v, want workspace_invalid with the way back", e)
	}
	if fs := f.findings(id); len(fs) != 0 {
		t.Errorf("findings %+v", fs)
	}
}

// TestCompletePhaseReadyNeedsCommittedWork: the ready phase has no
// document; its claim is refused while the issue's branch has no commit
// against its base, and taken once it has.
func TestCompletePhaseReadyNeedsCommittedWork(t *testing.T) {
	f := newFixture(t)
	id, dir := f.issue(baton.PhaseReady)
	w := f.agent("worker-1", "worker", id, dir)
	args := map[string]any{"completed_phase": "ready", "summary": "pool raised", "project_path": dir}
	e := w.FailEnvelope("complete_phase", args, baton.ErrInvalidInput)
	if e.Type != "no_changes" || !strings.Contains(e.Message, "no committed changes: symphony/"+id+" has no commits against main") {
		t.Errorf("error %+v", e)
	}
	write(t, dir, "server/pool.go", "package server\n")
	e = w.FailEnvelope("complete_phase", args, baton.ErrInvalidInput) // written, not committed
	if e.Type != "no_changes" {
		t.Errorf("uncommitted work: %+v", e)
	}
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "pool")
	out := w.OK("complete_phase", args)
	if !strings.HasPrefix(out["finding_id"].(string), "pc-") || out["artifact_hash"] != nil || !strings.Contains(out["message"].(string), "builds the PR") {
		t.Errorf("ready claim output %v", out)
	}
	b, _ := json.Marshal(f.findings(id)[0])
	if !strings.Contains(string(b), `\"completed_phase\":\"ready\"`) {
		t.Errorf("stored ready claim %s", b)
	}
}

// TestPoint1ContractsComeFromTheProjectRootOnly: a worker that writes its
// own contract into its worktree (next_phase: ready, skipping architecture
// and grooming) gets nothing from it: complete_phase checks the claim
// against the project root's contract, and so does the tick for a claim
// recorded by any other way, which it sends back to rework.
func TestPoint1ContractsComeFromTheProjectRootOnly(t *testing.T) {
	f := newFixture(t)
	id, dir := f.issue(baton.PhaseResearch)
	own, err := phases.DefaultFile(baton.PhaseResearch)
	if err != nil {
		t.Fatal(err)
	}
	skip := strings.Replace(string(own), "next_phase: architecture", "next_phase: ready", 1)
	for _, d := range []string{"prompts/phases", "mine"} {
		write(t, dir, d+"/research.md", skip)
	}
	a := f.agent("researcher-1", "researcher", id, dir)
	args := with(f.artifact(dir, id, baton.PhaseResearch, research), "recommended_next_phase", "ready")
	for _, cd := range []string{"", "mine"} {
		in := args
		if cd != "" {
			in = with(args, "contracts_dir", cd)
		}
		e := a.FailEnvelope("complete_phase", in, baton.ErrInvalidInput)
		if cd == "" && !strings.Contains(e.Message, `recommended_next_phase "ready" is not the research contract's next phase, architecture`) {
			t.Errorf("own default contract: %q", e.Message)
		}
		if cd != "" && !strings.Contains(e.Message, `contracts_dir "mine" is not a directory of the project`) {
			t.Errorf("own contracts_dir: %q", e.Message)
		}
	}
	if fs := f.findings(id); len(fs) != 0 {
		t.Fatalf("refused claims recorded %+v", fs)
	}
	// A claim the tool did not check (written straight into the store)
	// is held to the root's contract by the tick too.
	spec, _ := phases.Builtin(baton.PhaseResearch)
	body := baton.PhaseCompletion{CompletedPhase: "research", ContractVersion: spec.Version, ArtifactPath: spec.Artifact(id),
		ArtifactHash: phases.Hash([]byte(research)), Summary: "done", OpenQuestions: []string{}, Confidence: "medium",
		RecommendedNextPhase: "ready", ProjectPath: dir}
	b, _ := json.Marshal(body)
	if err := f.k.Store.Update(f.ctx, func(tx baton.Tx) error {
		return tx.AddFinding(f.ctx, &baton.Finding{ItemID: id, Category: baton.CategoryPhaseCompletion, Summary: "done",
			Details: string(b), Files: []string{body.ArtifactPath}, CreatedBy: "researcher-1", CreatedAt: time.Now().UTC()})
	}); err != nil {
		t.Fatal(err)
	}
	f.tick()
	it := f.item(id)
	if it.Phase() != baton.PhaseResearch || !slices.Contains(it.Labels, orchestrator.NeedsRevision) {
		t.Errorf("after the tick %s is in %s with labels %v, want research with %s", id, it.Phase(), it.Labels, orchestrator.NeedsRevision)
	}
}

// TestPoint4ReadyCheckRunsGitOutsideTheWriteTransaction: while a ready
// claim's git check runs (held here by a git wrapper), another writer gets
// the store at once; the claim is then recorded with its action.
func TestPoint4ReadyCheckRunsGitOutsideTheWriteTransaction(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the git wrapper is a POSIX shell script")
	}
	f := newFixture(t)
	id, dir := f.issue(baton.PhaseReady)
	write(t, dir, "server/pool.go", "package server\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "pool")
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	started, release := filepath.Join(bin, "started"), filepath.Join(bin, "go")
	script := "#!/bin/sh\ncase \" $* \" in *\" rev-list \"*)\n  touch '" + started + "'\n  i=0\n" +
		"  while [ ! -f '" + release + "' ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done;;\nesac\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	w := f.agent("worker-1", "worker", id, dir)
	res := make(chan tool.Result, 1)
	go func() {
		res <- w.Call("complete_phase", map[string]any{"completed_phase": "ready", "summary": "pool raised", "project_path": dir})
	}()
	for i := 0; ; i++ {
		if _, err := os.Stat(started); err == nil {
			break
		}
		if i > 600 {
			_ = os.WriteFile(release, nil, 0o644)
			t.Fatalf("complete_phase never ran git rev-list: %+v", <-res)
		}
		time.Sleep(50 * time.Millisecond)
	}
	wrote := make(chan error, 1)
	go func() {
		wrote <- f.k.Store.Update(f.ctx, func(tx baton.Tx) error {
			return tx.CreateItem(f.ctx, &baton.Item{Project: "sym", Title: "written while git runs", Status: baton.StatusTodo, CreatedBy: "user"})
		})
	}()
	select {
	case err := <-wrote:
		if err != nil {
			t.Errorf("write while complete_phase's git runs: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Errorf("a store write waited for complete_phase's git: git runs inside the write transaction")
	}
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := <-res; r.Err != nil {
		t.Fatalf("complete_phase: %+v", r.Err)
	}
	if n := f.k.Count(`SELECT COUNT(*) FROM actions WHERE tool = 'complete_phase'`); n != 1 {
		t.Errorf("%d complete_phase actions, want 1", n)
	}
}
