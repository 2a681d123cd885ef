package orchestrator

import (
	"context"

	"github.com/baton-dev/baton"
)

// ClaimState is where one phase_completion claim of an item stands: its
// body, how the tick processed it, and the verdict a judge recorded on it.
// complete_phase's verdict tools and the tick read claims through it.
type ClaimState struct {
	Claim *baton.Finding
	Body  *baton.PhaseCompletion
	// Mark is how the tick processed the claim; nil while it waits.
	Mark *baton.PhaseMark
	// Verdict is the first verdict recorded on the claim, if any, and
	// VerdictMark how the tick processed it.
	Verdict     *baton.Finding
	VerdictBody *baton.PhaseVerdict
	VerdictMark *baton.PhaseMark
	// Superseded names a later claim of the same item, if there is one:
	// the latest claim is the one under review.
	Superseded string
}

// Awaiting reports whether the claim passed the tick's checks and still
// waits for a judge's verdict to be applied, with no later claim.
func (s *ClaimState) Awaiting() bool {
	return s.Mark != nil && s.Mark.Outcome == baton.OutcomeAwaitingVerdict && s.Superseded == "" && s.VerdictMark == nil
}

// claims reads every phase claim and verdict of an item with their marks,
// oldest first.
type claims struct {
	findings []*baton.Finding
	marks    map[string]*baton.PhaseMark
}

func loadClaims(ctx context.Context, tx baton.Tx, itemID string) (*claims, error) {
	fs, err := tx.Findings(ctx, itemID, 0)
	if err != nil {
		return nil, err
	}
	ms, err := tx.PhaseMarks(ctx, itemID)
	if err != nil {
		return nil, err
	}
	c := &claims{marks: map[string]*baton.PhaseMark{}}
	for _, f := range fs {
		if f.Category == baton.CategoryPhaseCompletion || f.Category == baton.CategoryPhaseVerdict {
			c.findings = append(c.findings, f)
		}
	}
	for _, m := range ms {
		c.marks[m.FindingID] = m
	}
	return c, nil
}

// state returns the state of the claim with id, or nil when the item has
// no such claim.
func (c *claims) state(id string) *ClaimState {
	var s *ClaimState
	for _, f := range c.findings {
		switch {
		case f.Category == baton.CategoryPhaseCompletion && f.ID == id:
			body, err := baton.CompletionOf(f)
			if err != nil {
				return nil
			}
			s = &ClaimState{Claim: f, Body: body, Mark: c.marks[f.ID]}
		case s == nil:
		case f.Category == baton.CategoryPhaseCompletion && s.Superseded == "":
			s.Superseded = f.ID
		case f.Category == baton.CategoryPhaseVerdict:
			v, err := baton.VerdictOf(f)
			if err != nil || v.ClaimID != s.Claim.ID {
				continue
			}
			// The first verdict the tick did not ignore decides; one it
			// has not processed yet counts as recorded.
			m := c.marks[f.ID]
			if (m == nil || m.Outcome != baton.OutcomeIgnored) && s.Verdict == nil {
				s.Verdict, s.VerdictBody, s.VerdictMark = f, v, m
			}
		}
	}
	return s
}

// latest returns the state of the item's latest claim of phase, or nil.
func (c *claims) latest(phase baton.Phase) *ClaimState {
	for i := len(c.findings) - 1; i >= 0; i-- {
		f := c.findings[i]
		if f.Category != baton.CategoryPhaseCompletion {
			continue
		}
		body, err := baton.CompletionOf(f)
		if err == nil && body.CompletedPhase == string(phase) {
			return c.state(f.ID)
		}
	}
	return nil
}

// LatestClaim returns the state of an item's latest claim of phase, or
// nil when it has none.
func LatestClaim(ctx context.Context, tx baton.Tx, itemID string, phase baton.Phase) (*ClaimState, error) {
	c, err := loadClaims(ctx, tx, itemID)
	if err != nil {
		return nil, err
	}
	return c.latest(phase), nil
}

// rejections counts the phase's rejections of an item since it last
// advanced or was escalated to a human: the marks of rejected claims and
// applied rejections, newest first until such a reset.
func rejections(marks []*baton.PhaseMark, phase baton.Phase) int {
	n := 0
	for i := len(marks) - 1; i >= 0; i-- {
		m := marks[i]
		if m.Phase != string(phase) {
			continue
		}
		switch m.Outcome {
		case baton.OutcomeAdvanced, baton.OutcomeEscalated:
			return n
		case baton.OutcomeRejected:
			n++
		}
	}
	return n
}
