package issues

import (
	"context"
	"slices"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

// markFindings fills in the catalogue's processed flag of the phase
// findings among fs (phase_completion, phase_verdict): the orchestrator
// keeps it beside the immutable finding, as a mark with its outcome and
// reason, so an agent sees whether its claim was taken up and what came
// of it.
func markFindings(ctx context.Context, c *tool.Call, itemID string, fs []findingView) error {
	if !slices.ContainsFunc(fs, func(f findingView) bool {
		return f.Category == baton.CategoryPhaseCompletion || f.Category == baton.CategoryPhaseVerdict
	}) {
		return nil // no phase finding: nothing to mark
	}
	marks, err := c.Tx.PhaseMarks(ctx, itemID)
	if err != nil {
		return err
	}
	by := make(map[string]*baton.PhaseMark, len(marks))
	for _, m := range marks {
		by[m.FindingID] = m
	}
	for i := range fs {
		f := &fs[i]
		if f.Category != baton.CategoryPhaseCompletion && f.Category != baton.CategoryPhaseVerdict {
			continue
		}
		m := by[f.ID]
		processed := m != nil
		f.Processed = &processed
		if m != nil {
			f.Outcome, f.Reason = m.Outcome, m.Reason
		}
	}
	return nil
}
