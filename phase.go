package baton

import (
	"slices"
	"strings"
)

// Phase is a work item's readiness in Symphony's pipeline, independent of
// its status: research -> architecture -> grooming -> ready. It is stored
// as exactly one label phase:<name>.
type Phase string

// The four phases, in pipeline order.
const (
	PhaseResearch     Phase = "research"
	PhaseArchitecture Phase = "architecture"
	PhaseGrooming     Phase = "grooming"
	PhaseReady        Phase = "ready"
)

// Phases lists every phase in pipeline order.
var Phases = []Phase{PhaseResearch, PhaseArchitecture, PhaseGrooming, PhaseReady}

// PhaseLabelPrefix starts every phase label.
const PhaseLabelPrefix = "phase:"

// Valid reports whether p is one of the four phases.
func (p Phase) Valid() bool { return slices.Contains(Phases, p) }

// Label is p as a label: phase:<p>.
func (p Phase) Label() string { return PhaseLabelPrefix + string(p) }

// PreReady reports whether p is any phase but ready: an item in such a
// phase is researched, designed or groomed (or sits in a custom
// pipeline's phase), never taken from the ready queue.
func (p Phase) PreReady() bool { return p != PhaseReady }

// Index is p's position in Phases, or -1.
func (p Phase) Index() int { return slices.Index(Phases, p) }

// Next is the phase after p in the full pipeline; ready has none.
func (p Phase) Next() (Phase, bool) {
	i := p.Index()
	if i < 0 || i == len(Phases)-1 {
		return "", false
	}
	return Phases[i+1], true
}

// PhaseNames lists the phases as strings, for messages and enums.
func PhaseNames() []string {
	out := make([]string, len(Phases))
	for i, p := range Phases {
		out[i] = string(p)
	}
	return out
}

// IsPhaseLabel reports whether label is a phase:* label, known or not.
func IsPhaseLabel(label string) bool { return strings.HasPrefix(label, PhaseLabelPrefix) }

// PhaseOf reads an item's phase from its labels. An item without a phase
// label is ready: Symphony's "migration mode", which is also how items
// created in the other vocabularies (tasks, beads) are read.
func PhaseOf(labels []string) Phase {
	for _, l := range labels {
		if v, ok := strings.CutPrefix(l, PhaseLabelPrefix); ok {
			return Phase(v)
		}
	}
	return PhaseReady
}

// Phase is the item's phase (see PhaseOf).
func (it *Item) Phase() Phase { return PhaseOf(it.Labels) }

// WithPhase returns labels with every phase label replaced by the one of p,
// where the first stood (appended when there was none): how a phase
// advances without disturbing the other labels.
func WithPhase(labels []string, p Phase) []string {
	out := make([]string, 0, len(labels)+1)
	placed := false
	for _, l := range labels {
		if !IsPhaseLabel(l) {
			out = append(out, l)
			continue
		}
		if !placed {
			out = append(out, p.Label())
			placed = true
		}
	}
	if !placed {
		out = append(out, p.Label())
	}
	return out
}

// CheckPhaseLabels refuses labels that would put one item in two phases.
// Every store write of an item's labels passes here, so no vocabulary can
// leave an item in two phases. A phase outside the four (a custom
// pipeline's) is allowed: move_issue resets it when the item moves.
func CheckPhaseLabels(labels []string) error {
	var seen []string
	for _, l := range labels {
		if IsPhaseLabel(l) && !slices.Contains(seen, l) {
			seen = append(seen, l)
		}
	}
	if len(seen) > 1 {
		return Errorf(ErrInvalidInput, "an item carries exactly one phase label, not %d (%s)", len(seen), strings.Join(seen, ", ")).
			WithDetails("field", "labels", "constraint", "one_phase_label", "labels", seen).
			WithHint("keep one phase:* label; the orchestrator advances it when a judge approves the phase")
	}
	return nil
}

// KeepPhase is how a call that replaces an item's labels treats its phase,
// which only the orchestrator's tick advances: new labels without a phase
// label keep the item's current one, and new labels naming another phase
// are refused. An item that had no phase label takes what new names.
func KeepPhase(id string, old, new []string) ([]string, error) {
	if err := CheckPhaseLabels(new); err != nil {
		return nil, err
	}
	hasOld := slices.ContainsFunc(old, IsPhaseLabel)
	hasNew := slices.ContainsFunc(new, IsPhaseLabel)
	switch {
	case !hasOld:
		return new, nil
	case !hasNew:
		return WithPhase(new, PhaseOf(old)), nil
	case PhaseOf(old) != PhaseOf(new):
		return nil, Errorf(ErrInvalidInput, "%s is in phase %s: labels cannot move it to %s", id, PhaseOf(old), PhaseOf(new)).
			WithDetails("field", "labels", "constraint", "phase_change", "task_id", id,
				"phase", string(PhaseOf(old)), "requested", string(PhaseOf(new))).
			WithHint("a phase advances when its agent calls complete_phase and a judge approves; leave the phase label out to keep it")
	}
	return new, nil
}
