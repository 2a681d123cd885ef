package dispatch

import (
	"context"
	"fmt"

	"github.com/baton-dev/baton"
)

// snapshot is what of an item changes when an agent hands its work in: a
// run that exits 0 without changing any of it produced nothing (Symphony
// retries a run "without producing work" like a failed one).
type snapshot struct {
	Status  baton.Status
	Phase   baton.Phase
	Handins int    // phase claims and verdicts (complete_phase, approve_phase, reject_phase)
	PR      string // the latest PR's id and status
}

func snap(ctx context.Context, tx baton.Tx, itemID string) (snapshot, error) {
	it, err := tx.Item(ctx, itemID)
	if err != nil {
		return snapshot{}, err
	}
	fs, err := tx.Findings(ctx, itemID, 0)
	if err != nil {
		return snapshot{}, err
	}
	s := snapshot{Status: it.Status, Phase: it.Phase()}
	for _, f := range fs {
		if f.Category == baton.CategoryPhaseCompletion || f.Category == baton.CategoryPhaseVerdict {
			s.Handins++
		}
	}
	pr, err := latestPR(ctx, tx, itemID)
	if err != nil {
		return snapshot{}, err
	}
	if pr != nil {
		s.PR = pr.ID + ":" + string(pr.Status)
	}
	return s, nil
}

// handedIn reports whether the item moved on between before and after:
// a phase claim or verdict recorded, its PR opened or decided, its phase
// changed, or its status moved on (to review, blocked for a person, done
// or cancelled). Giving the work back (todo) or only taking notes is not
// handing it in.
func handedIn(before, after snapshot) bool {
	switch {
	case after.Handins != before.Handins, after.PR != before.PR, after.Phase != before.Phase:
		return true
	case after.Status != before.Status:
		return after.Status != baton.StatusTodo && after.Status != baton.StatusInProgress
	}
	return false
}

// outcome decides how a run ended: the dispatcher's own stop first, then
// the process's exit code, then the stream's result line, then whether the
// work was handed in.
func (a *agent) outcome(ctx context.Context, tx baton.Tx, stopped stopKind, stopWhy string, startErr error, code *int) (status, why string, err error) {
	res := a.parser.Run()
	switch {
	case stopped == stopTimeout:
		return baton.RunTimedOut, stopWhy, nil
	case stopped != stopNone:
		return baton.RunCancelled, stopWhy, nil
	case startErr != nil:
		return baton.RunFailed, explain(startErr), nil
	case code == nil:
		return baton.RunFailed, "the agent did not start", nil
	case *code != 0:
		why := fmt.Sprintf("the agent exited with status %d", *code)
		if l := a.stderr.LastLine(); l != "" {
			why += ": " + l
		}
		return baton.RunFailed, why, nil
	case a.parser.SawResult && res.Status != baton.RunSucceeded:
		return baton.RunFailed, res.Error, nil
	}
	now, err := snap(ctx, tx, a.item.ID)
	if err != nil {
		return "", "", err
	}
	if !handedIn(a.state, now) {
		return baton.RunFailed, fmt.Sprintf("the agent exited without handing its work in: %s is %s with no phase claim, verdict or PR change",
			a.item.ID, now.Status), nil
	}
	return baton.RunSucceeded, "", nil
}
