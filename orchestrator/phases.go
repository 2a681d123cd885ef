package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
	"github.com/baton-dev/baton/events"
	"github.com/baton-dev/baton/phases"
	"github.com/baton-dev/baton/review"
)

// Defaults of the phase tick.
const (
	// DefaultTickEvery is Symphony's poll_interval_ms.
	DefaultTickEvery = 5 * time.Second
	// DefaultMaxRejections is how many rejections of one phase send the
	// issue to a human (blocked) instead of back to its agent.
	DefaultMaxRejections = 3
	// Agent is who the tick acts as: the author of its comments, marks,
	// actions and events.
	Agent = "orchestrator"
	// NeedsRevision is the label a rejected phase carries until it is
	// approved.
	NeedsRevision = "needs-revision"
)

// SourceOrchestrator is the source of the tick's actions in the action log.
const SourceOrchestrator = "orchestrator"

// Phases is the orchestrator's tick of Symphony's phase pipeline (its
// step 1, "phase transitions"): it reads the phase_completion and
// phase_verdict findings no tick has processed, validates each claim again
// on its own, advances the phase label on a judge's approval, returns the
// issue for rework on a rejection (blocked, with a message to the human,
// once a phase was rejected MaxRejections times), opens the PR of a ready
// claim from the issue's branch, promotes an approved artifact when the
// claim asked for it, and marks each finding processed.
//
// Each finding is processed in a transaction of its own, which first
// checks the finding is still unprocessed: a second tick, here or on
// another replica, finds nothing left to do, so ticks are idempotent.
// On PostgreSQL a tick also takes an advisory lock per project, so one
// replica ticks a project at a time (git and gate commands run outside
// any transaction, and only once); SQLite's single writer serialises the
// rest.
type Phases struct {
	Store baton.Store
	Clock baton.Clock
	Log   *slog.Logger
	// Bus wakes subscribers (baton watch, SSE) after each change; may be nil.
	Bus   *events.Bus
	Every time.Duration // DefaultTickEvery when zero
	// MaxRejections is DefaultMaxRejections when zero.
	MaxRejections int
	// GateTimeout bounds each gate command of an auto-created PR;
	// review.DefaultGateTimeout when zero.
	GateTimeout time.Duration
}

// Transition is what the tick did with one finding.
type Transition struct {
	FindingID string `json:"finding_id"`
	IssueID   string `json:"issue_id"`
	Project   string `json:"project"`
	Phase     string `json:"phase"`
	// Outcome is one of baton's Outcome constants.
	Outcome string `json:"outcome"`
	Reason  string `json:"reason"`
	// NextPhase is where an approval took the issue.
	NextPhase string `json:"next_phase,omitempty"`
	// Status is the issue's status after the change ("" when unchanged).
	Status     string `json:"status,omitempty"`
	PRID       string `json:"pr_id,omitempty"`
	PromotedTo string `json:"promoted_to,omitempty"`
	Rejections int    `json:"rejections,omitempty"`
	MessageID  string `json:"message_id,omitempty"`
}

// TickReport is what one tick did.
type TickReport struct {
	// Projects counts the projects with unprocessed findings this tick
	// processed.
	Projects    int          `json:"projects"`
	Skipped     []string     `json:"skipped"` // projects another replica was ticking
	Transitions []Transition `json:"transitions"`
	// Waiting counts verdicts left for a later tick: their claim is not
	// processed yet.
	Waiting int `json:"waiting"`
	// Errors are the findings that failed to process (they stay pending).
	Errors []string `json:"errors"`
}

func (p *Phases) now() time.Time {
	if p.Clock != nil {
		return p.Clock().UTC()
	}
	return time.Now().UTC()
}

func (p *Phases) log() *slog.Logger {
	if p.Log != nil {
		return p.Log
	}
	return slog.Default()
}

func (p *Phases) maxRejections() int {
	if p.MaxRejections > 0 {
		return p.MaxRejections
	}
	return DefaultMaxRejections
}

// Run ticks every Every until ctx ends.
func (p *Phases) Run(ctx context.Context) {
	every := p.Every
	if every <= 0 {
		every = DefaultTickEvery
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := p.Once(ctx); err != nil && ctx.Err() == nil {
				p.log().Warn("orchestrator tick", "err", err)
			}
		}
	}
}

// locker is a store that can hold a named lock across transactions
// (postgres.Store): the tick's one-replica-per-project lock.
type locker interface {
	TryLock(ctx context.Context, name string) (unlock func(), ok bool, err error)
}

// Once runs one tick over every project with unprocessed phase findings.
func (p *Phases) Once(ctx context.Context) (*TickReport, error) {
	r := &TickReport{Skipped: []string{}, Transitions: []Transition{}, Errors: []string{}}
	// Which projects have work: an idle tick takes no lock (on PostgreSQL
	// a lock is a connection of its own) and writes nothing.
	var projects []string
	if err := p.Store.View(ctx, func(tx baton.Tx) error {
		pending, err := tx.PendingPhaseFindings(ctx, "")
		if err != nil {
			return err
		}
		for _, f := range pending {
			it, err := tx.Item(ctx, f.ItemID)
			if err != nil {
				return err
			}
			if !slices.Contains(projects, it.Project) {
				projects = append(projects, it.Project)
			}
		}
		return nil
	}); err != nil {
		return r, err
	}
	slices.Sort(projects)
	var errs []error
	for _, slug := range projects {
		if err := p.project(ctx, slug, r); err != nil {
			errs = append(errs, fmt.Errorf("project %s: %w", slug, err))
		}
	}
	return r, errors.Join(errs...)
}

// project ticks one project under its lock.
func (p *Phases) project(ctx context.Context, slug string, r *TickReport) error {
	if l, ok := p.Store.(locker); ok {
		unlock, got, err := l.TryLock(ctx, "orchestrator.tick:"+slug)
		if err != nil {
			return err
		}
		if !got {
			r.Skipped = append(r.Skipped, slug)
			return nil
		}
		defer unlock()
	}
	r.Projects++
	// Read again under the lock: another replica may have just finished.
	var pending []*baton.Finding
	if err := p.Store.View(ctx, func(tx baton.Tx) (err error) {
		pending, err = tx.PendingPhaseFindings(ctx, slug)
		return err
	}); err != nil {
		return err
	}
	for _, f := range pending {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		t, err := p.process(ctx, f)
		switch {
		case err != nil:
			// The finding stays pending: the next tick tries again.
			p.log().Error("processing a phase finding", "finding", f.ID, "issue", f.ItemID, "err", err)
			r.Errors = append(r.Errors, f.ID+": "+err.Error())
		case t == nil:
			r.Waiting++
		case t.Outcome != "":
			r.Transitions = append(r.Transitions, *t)
		}
	}
	return nil
}

// process handles one finding: a ready claim's PR is drafted from git
// first, outside any transaction; then one transaction checks the finding
// is still unprocessed and applies it. A nil transition means "not yet"
// (a verdict on a claim not processed yet); an empty outcome, that
// another tick processed it meanwhile.
func (p *Phases) process(ctx context.Context, f *baton.Finding) (*Transition, error) {
	var prep *prepared
	if f.Category == baton.CategoryPhaseCompletion {
		var err error
		if prep, err = p.prepare(ctx, f); err != nil {
			return nil, err
		}
	}
	var t *Transition
	var undo func()
	var project string
	err := p.Store.Update(ctx, func(tx baton.Tx) error {
		// A retried transaction starts over: undo the files of the
		// abandoned attempt.
		if undo != nil {
			undo()
			undo = nil
		}
		a := &apply{p: p, tx: tx, ctx: ctx, now: p.now(), f: f}
		var err error
		t, err = a.run(prep)
		undo, project = a.undo, a.project
		return err
	})
	if err != nil {
		if undo != nil {
			undo()
		}
		return nil, err
	}
	if t != nil && t.Outcome != "" {
		if p.Bus != nil {
			p.Bus.Publish(project)
		}
		p.logTransition(t)
	}
	return t, nil
}

func (p *Phases) logTransition(t *Transition) {
	args := []any{"finding", t.FindingID, "issue", t.IssueID, "phase", t.Phase, "outcome", t.Outcome, "reason", t.Reason}
	switch t.Outcome {
	case baton.OutcomeStale, baton.OutcomeIgnored:
		p.log().Info("phase finding dropped", args...)
	case baton.OutcomeRejected, baton.OutcomeEscalated:
		p.log().Warn("phase claim rejected", args...)
	default:
		p.log().Info("phase finding processed", args...)
	}
}

// prepared is what a ready claim's PR needs from outside the transaction:
// git's snapshot of the branch and the gates run on it, or why there is
// none.
type prepared struct {
	draft *review.Draft
	err   error
}

// prepare drafts the PR of a ready claim whose issue is (still) in the
// ready phase. Other findings need nothing prepared.
func (p *Phases) prepare(ctx context.Context, f *baton.Finding) (*prepared, error) {
	body, err := baton.CompletionOf(f)
	if err != nil || body.CompletedPhase != string(baton.PhaseReady) {
		return nil, nil
	}
	var it *baton.Item
	var proj *baton.Project
	var cfg review.Config
	if err := p.Store.View(ctx, func(tx baton.Tx) (err error) {
		if m, err := tx.PhaseMark(ctx, f.ID); err != nil || m != nil {
			return err
		}
		if it, err = tx.Item(ctx, f.ItemID); err != nil {
			return err
		}
		if proj, err = tx.Project(ctx, it.Project); err != nil {
			return err
		}
		cfg, err = review.LoadConfig(ctx, tx, it.Project)
		return err
	}); err != nil {
		return nil, err
	}
	if it == nil || it.Status.Terminal() || it.Phase() != baton.PhaseReady {
		return nil, nil // processed meanwhile, or stale: the transaction says which
	}
	t := ReadyTarget(ctx, proj, it, body.ProjectPath)
	if t == nil {
		return &prepared{err: baton.Errorf(baton.ErrInvalidInput, "no git branch found for %s: it has no worktree and project_path is no git checkout", it.ID).
			WithHint("create the issue's worktree (baton worktree create %s), commit the work on its branch and complete the phase again", it.ID)}, nil
	}
	d, err := review.Prepare(ctx, t.Dir, t.Base, t.Branch, cfg, cfg != nil && len(cfg.Gates) > 0, p.GateTimeout)
	if err != nil {
		if be := (*baton.Error)(nil); errors.As(err, &be) && be.Code != baton.ErrInternal {
			return &prepared{err: be}, nil
		}
		return nil, err
	}
	return &prepared{draft: d}, nil
}

// apply is one finding's transaction.
type apply struct {
	p       *Phases
	tx      baton.Tx
	ctx     context.Context
	now     time.Time
	f       *baton.Finding
	it      *baton.Item
	proj    *baton.Project
	project string
	undo    func()
}

func (a *apply) run(prep *prepared) (*Transition, error) {
	if m, err := a.tx.PhaseMark(a.ctx, a.f.ID); err != nil {
		return nil, err
	} else if m != nil {
		return &Transition{}, nil // another tick was first
	}
	var err error
	if a.it, err = a.tx.Item(a.ctx, a.f.ItemID); err != nil {
		return nil, err
	}
	if a.proj, err = a.tx.Project(a.ctx, a.it.Project); err != nil {
		return nil, err
	}
	a.project = a.it.Project
	if a.f.Category == baton.CategoryPhaseVerdict {
		return a.verdict()
	}
	return a.completion(prep)
}

// completion processes a claim: stage 1 drops a claim whose phase the
// issue has left (stale: not counted), stage 2 checks it against its
// contract and the artifact again; a pre-ready claim that passes waits
// for a judge (the issue goes to review), a ready one becomes a PR.
func (a *apply) completion(prep *prepared) (*Transition, error) {
	body, err := baton.CompletionOf(a.f)
	if err != nil {
		return a.rework(baton.Phase(""), "the claim cannot be read: "+err.Error(), true)
	}
	phase := baton.Phase(body.CompletedPhase)
	if a.it.Status.Terminal() {
		return a.mark(phase, baton.OutcomeStale, fmt.Sprintf("stale claim: %s is %s", a.it.ID, a.it.Status), nil)
	}
	if cur := a.it.Phase(); cur != phase {
		return a.mark(phase, baton.OutcomeStale, fmt.Sprintf("stale claim: %s is in phase %s, not %s", a.it.ID, cur, phase), nil)
	}
	if phase == baton.PhaseReady {
		return a.ready(prep)
	}
	if _, _, err := a.check(body); err != nil {
		return a.rework(phase, baton.AsError(err).Message, true)
	}
	if err := a.leave(); err != nil {
		return nil, err
	}
	if err := a.toStatus(baton.StatusReview); err != nil {
		return nil, err
	}
	t, err := a.mark(phase, baton.OutcomeAwaitingVerdict,
		fmt.Sprintf("%s checked (sha256 %s): waiting for a judge's verdict", body.ArtifactPath, shortHash(body.ArtifactHash)), nil)
	if err != nil {
		return nil, err
	}
	t.Status = string(a.it.Status)
	return t, nil
}

// check validates a pre-ready claim again: the contract (the project
// root's, never the claimant's folder: a worker must not bring its own
// contract to skip phases) and the artifact, read under the first of the
// claim's folder, the issue's worktree and the project root that has it.
// It returns the folder the artifact was read under and the contract.
func (a *apply) check(body *baton.PhaseCompletion) (string, *phases.Spec, error) {
	phase := baton.Phase(body.CompletedPhase)
	spec, err := phases.Load(a.proj.Root, body.ContractsDir, phase)
	if err != nil {
		return "", nil, err
	}
	roots := artifactRoots(a.proj, a.it, body)
	if len(roots) == 0 {
		return "", nil, baton.Errorf(baton.ErrNotFound, "artifact not found: neither the claim's project_path, the issue's worktree nor the project root is a folder here")
	}
	for _, root := range roots {
		err = CheckClaim(spec, a.it.ID, body, root)
		switch {
		case err == nil:
			return root, spec, nil
		case baton.ErrorCode(err) == baton.ErrNotFound:
			continue // not in this folder: the next one
		}
		if be := baton.AsError(err); be.Details["constraint"] == "sha256" {
			return "", nil, baton.Errorf(be.Code, "artifact changed since the claim: %s", be.Message)
		}
		return "", nil, err
	}
	return "", nil, baton.Errorf(baton.ErrNotFound, "artifact not found: %s exists neither in the claim's folder, the issue's worktree nor the project root", body.ArtifactPath)
}

// ready turns a ready claim into a PR record: the draft made outside the
// transaction, recorded by review.Open (the issue moves to review). A
// required gate that failed sends the issue back to todo at once with the
// gate output (the PR is rejected by the orchestrator), as no judge
// should review it.
func (a *apply) ready(prep *prepared) (*Transition, error) {
	if prep == nil {
		// Drafting found the issue outside the ready phase or processed,
		// and the transaction sees otherwise: the next tick drafts again.
		return nil, nil
	}
	if prep.err != nil {
		return a.rework(baton.PhaseReady, baton.AsError(prep.err).Message, true)
	}
	o, err := review.Open(a.ctx, a.tx, review.OpenInput{ItemID: a.it.ID, Draft: prep.draft, Creator: a.f.CreatedBy, Actor: Agent, Now: a.now})
	if err != nil {
		be := baton.AsError(err)
		switch {
		case be.Type == "pr_open":
			// A PR of the issue is under review: this claim adds nothing
			// a judge could act on, and the review must not be disturbed.
			return a.mark(baton.PhaseReady, baton.OutcomeStale, "stale claim: "+be.Message, nil)
		case be.Code != baton.ErrInternal:
			return a.rework(baton.PhaseReady, be.Message, true)
		}
		return nil, err
	}
	a.it = o.Item
	pr := o.PR
	if err := a.event("pr.created", map[string]any{"pr_id": pr.ID, "issue_id": a.it.ID, "status": string(pr.Status),
		"risk": pr.Risk.Level, "files_changed": len(pr.Files), "lines_added": pr.LinesAdded(), "lines_removed": pr.LinesRemoved(),
		"blocking_gates": gateLabels(o.Blocking), "superseded": o.Superseded}); err != nil {
		return nil, err
	}
	if len(o.Blocking) > 0 {
		reason := fmt.Sprintf("required gate %s failed on %s", strings.Join(gateLabels(o.Blocking), ", "), pr.ID)
		var fix strings.Builder
		for _, g := range o.Blocking {
			fmt.Fprintf(&fix, "%s (`%s`) exited %d:\n%s\n", g.Label, g.Command, g.ExitCode, g.Output)
		}
		it, _, err := review.Decide(a.ctx, a.tx, pr, review.Verdict{Reason: reason, FixInstructions: strings.TrimSpace(fix.String()),
			Reviewer: Agent, Now: a.now})
		if err != nil {
			return nil, err
		}
		a.it = it
		t, err := a.rework(baton.PhaseReady, reason, false)
		if t != nil {
			t.PRID = pr.ID
		}
		return t, err
	}
	t, err := a.mark(baton.PhaseReady, baton.OutcomePRCreated,
		fmt.Sprintf("%s opened from %s (%d files, risk %s); the issue waits in review for a judge", pr.ID, pr.BranchName, len(pr.Files), pr.Risk.Level), nil)
	if t != nil {
		t.PRID, t.Status = pr.ID, string(a.it.Status)
	}
	return t, err
}

func gateLabels(gs []baton.GateResult) []string {
	out := []string{}
	for _, g := range gs {
		out = append(out, g.Label)
	}
	return out
}

// verdict applies a judge's verdict to the claim it judged, if that claim
// still awaits one; otherwise the verdict is marked ignored.
func (a *apply) verdict() (*Transition, error) {
	v, err := baton.VerdictOf(a.f)
	if err != nil {
		return a.mark(baton.Phase(""), baton.OutcomeIgnored, "the verdict cannot be read: "+err.Error(), nil)
	}
	phase := baton.Phase(v.Phase)
	cl, err := loadClaims(a.ctx, a.tx, a.it.ID)
	if err != nil {
		return nil, err
	}
	st := cl.state(v.ClaimID)
	ignore := func(format string, args ...any) (*Transition, error) {
		return a.mark(phase, baton.OutcomeIgnored, fmt.Sprintf(format, args...), nil)
	}
	switch {
	case st == nil:
		return ignore("claim %s does not exist on %s", v.ClaimID, a.it.ID)
	case st.Mark == nil:
		return nil, nil // the claim is processed first; this verdict waits
	case a.it.Status.Terminal():
		return ignore("%s is %s", a.it.ID, a.it.Status)
	case a.it.Phase() != phase:
		return ignore("%s is in phase %s, not %s", a.it.ID, a.it.Phase(), phase)
	case st.Superseded != "":
		return ignore("claim %s was superseded by %s", st.Claim.ID, st.Superseded)
	case st.Mark.Outcome != baton.OutcomeAwaitingVerdict:
		return ignore("claim %s awaits no verdict (%s)", st.Claim.ID, st.Mark.Outcome)
	case st.Verdict == nil || st.Verdict.ID != a.f.ID:
		return ignore("claim %s was judged already", st.Claim.ID)
	case v.ArtifactHash != st.Body.ArtifactHash:
		return ignore("the verdict's hash %s is not the claim's %s", shortHash(v.ArtifactHash), shortHash(st.Body.ArtifactHash))
	}
	if v.Verdict != baton.VerdictApproved {
		return a.rework(phase, "judge "+a.f.CreatedBy+" rejected it: "+v.Reason, false)
	}
	return a.advance(st, v)
}

// advance moves the issue to the claim's next phase on an approval, after
// checking the artifact is still what the judge approved, and promotes the
// artifact when the claim asked for it.
func (a *apply) advance(st *ClaimState, v *baton.PhaseVerdict) (*Transition, error) {
	phase := baton.Phase(st.Body.CompletedPhase)
	root, spec, err := a.check(st.Body)
	if err != nil {
		return a.rework(phase, "the artifact no longer passes since the judge approved it: "+baton.AsError(err).Message, true)
	}
	// The project root's contract decides where the issue goes (check
	// made the claim's recommended_next_phase equal to it); the claim's own
	// word is never trusted beyond that.
	next := spec.NextPhase
	if !next.Valid() || next.Index() <= phase.Index() {
		next, _ = phase.Next()
	}
	promoted := ""
	if st.Body.PromoteTo != nil && *st.Body.PromoteTo != "" {
		if promoted, err = a.promote(root, st.Body.ArtifactPath, *st.Body.PromoteTo); err != nil {
			if be := baton.AsError(err); be.Code != baton.ErrInternal {
				// The agent's promote_to, not the artifact, is at fault:
				// the phase is done again with another one.
				return a.rework(phase, "the approved artifact cannot be promoted: "+be.Message, true)
			}
			return nil, err
		}
	}
	if err := a.leave(); err != nil {
		return nil, err
	}
	a.it.Labels = slices.DeleteFunc(baton.WithPhase(a.it.Labels, next), func(l string) bool { return l == NeedsRevision })
	if err := a.toStatus(baton.StatusTodo); err != nil {
		return nil, err
	}
	body := fmt.Sprintf("Phase %s approved by %s (%s)", phase, a.f.CreatedBy, a.f.ID)
	if v.Reason != "" {
		body += ": " + v.Reason
	}
	body += fmt.Sprintf(". %s moves to phase:%s.", a.it.ID, next)
	if promoted != "" {
		body += " The artifact was promoted to " + promoted + "."
	}
	if err := a.comment(body); err != nil {
		return nil, err
	}
	t, err := a.mark(phase, baton.OutcomeAdvanced, fmt.Sprintf("approved by %s: %s -> %s", a.f.CreatedBy, phase, next),
		map[string]any{"next_phase": string(next), "promoted_to": promoted, "claim_id": st.Claim.ID})
	if t != nil {
		t.NextPhase, t.PromotedTo, t.Status = string(next), promoted, string(a.it.Status)
	}
	return t, err
}

// rework returns the issue to its phase's agent after a rejection: the
// needs-revision label, status todo and, when the orchestrator itself
// found the fault (withComment), a comment saying what to fix. The
// MaxRejections-th rejection of a phase since it last advanced blocks the
// issue instead and tells the human.
func (a *apply) rework(phase baton.Phase, reason string, withComment bool) (*Transition, error) {
	marks, err := a.tx.PhaseMarks(a.ctx, a.it.ID)
	if err != nil {
		return nil, err
	}
	n := rejections(marks, phase) + 1
	if err := a.leave(); err != nil {
		return nil, err
	}
	if !slices.Contains(a.it.Labels, NeedsRevision) {
		a.it.Labels = append(slices.Clone(a.it.Labels), NeedsRevision)
	}
	if withComment {
		what := "Fix the artifact, recompute its hash and call complete_phase again."
		if phase == baton.PhaseReady {
			what = "Fix it, commit on the issue's branch and call complete_phase again."
		}
		if err := a.comment(fmt.Sprintf("The orchestrator rejected claim %s of phase %s: %s. %s", a.f.ID, phase, reason, what)); err != nil {
			return nil, err
		}
	}
	if n >= a.p.maxRejections() {
		blocked := fmt.Sprintf("phase %s rejected %d times", phase, n)
		a.it.BlockedReason = blocked
		if err := a.toStatus(baton.StatusBlocked); err != nil {
			return nil, err
		}
		msg := &baton.Message{Project: a.it.Project, AgentID: Agent, Recipient: baton.User, Role: baton.RoleAgent,
			Body: fmt.Sprintf("%s (%s) needs you: %s. The last rejection: %s. It is blocked until you decide: "+
				"unblock it for another attempt, change the phase's contract or the issue, or cancel it.", a.it.ID, a.it.Title, blocked, reason),
			ThreadID: "phase-" + a.it.ID, EventType: "blocker", CreatedAt: a.now}
		if err := a.tx.SendMessage(a.ctx, msg); err != nil {
			return nil, err
		}
		t, err := a.mark(phase, baton.OutcomeEscalated, reason, map[string]any{"rejections": n, "message_id": msg.ID})
		if t != nil {
			t.Status, t.Rejections, t.MessageID = string(a.it.Status), n, msg.ID
		}
		return t, err
	}
	if err := a.toStatus(baton.StatusTodo); err != nil {
		return nil, err
	}
	t, err := a.mark(phase, baton.OutcomeRejected, reason, map[string]any{"rejections": n})
	if t != nil {
		t.Status, t.Rejections = string(a.it.Status), n
	}
	return t, err
}

// leave ends whatever claim the issue has: the phase's work leaves the
// agent that held it (to a judge, back to the queue, or to a human).
func (a *apply) leave() error {
	cl, err := a.tx.ClaimOf(a.ctx, a.it.ID)
	if err != nil || cl == nil {
		return err
	}
	if err := a.tx.ReleaseClaim(a.ctx, a.it.ID, cl.Holder, a.now); err != nil && baton.ErrorCode(err) != baton.ErrNotFound {
		return err
	}
	labels := a.it.Labels
	it, err := a.tx.Item(a.ctx, a.it.ID)
	if err != nil {
		return err
	}
	it.Labels = labels
	a.it = it
	return nil
}

// toStatus writes the issue with status s: the pipeline's own moves, which
// the state machine's table does not list (review -> todo for rework, as
// reject_pr does). An issue its sub-tasks block keeps waiting for them.
func (a *apply) toStatus(s baton.Status) error {
	it := a.it
	if !(it.Status == baton.StatusBlocked && it.ResumeStatus != "") {
		it.Status = s
		if s != baton.StatusBlocked {
			it.BlockedReason = ""
		}
	}
	it.UpdatedBy, it.UpdatedAt = Agent, a.now
	return a.tx.UpdateItem(a.ctx, it)
}

func (a *apply) comment(body string) error {
	return a.tx.AddComment(a.ctx, &baton.Comment{ItemID: a.it.ID, Body: body, CreatedBy: Agent, CreatedAt: a.now})
}

// mark records the finding processed, with its action in the action log
// and its event (phase.<outcome>) on the project's stream, and returns the
// transition.
func (a *apply) mark(phase baton.Phase, outcome, reason string, extra map[string]any) (*Transition, error) {
	m := &baton.PhaseMark{FindingID: a.f.ID, Phase: string(phase), Outcome: outcome, Reason: reason, ProcessedBy: Agent, ProcessedAt: a.now}
	if err := a.tx.MarkPhaseFinding(a.ctx, m); err != nil {
		return nil, err
	}
	t := &Transition{FindingID: a.f.ID, IssueID: a.it.ID, Project: a.it.Project, Phase: string(phase), Outcome: outcome, Reason: reason}
	data := map[string]any{"finding_id": a.f.ID, "issue_id": a.it.ID, "phase": string(phase), "outcome": outcome,
		"reason": reason, "status": string(a.it.Status), "labels": a.it.Labels, "processed": true}
	for k, v := range extra {
		data[k] = v
	}
	if err := a.event("phase."+outcome, data); err != nil {
		return nil, err
	}
	return t, nil
}

// event appends an action and an event for what the tick did, in its
// transaction: the tick's changes are in the action log and reach
// baton watch and SSE like every tool call's.
func (a *apply) event(typ string, data map[string]any) error {
	return audit.Record(a.ctx, a.tx, audit.Change{Agent: Agent, Source: SourceOrchestrator, Tool: "orchestrator_tick",
		Subject: a.it.ID, In: map[string]any{"finding_id": a.f.ID, "event": typ}, Out: data, At: a.now,
		Event: typ, Project: a.it.Project})
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
