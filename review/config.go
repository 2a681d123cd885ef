package review

import (
	"context"
	"strings"

	"github.com/baton-dev/baton"
)

// Config is the project settings a review goes by, as LoadConfig reads
// them (configure_project's gates, sensitive paths and thresholds).
type Config = *baton.ProjectConfig

// LoadConfig reads the project settings a review goes by (configure_project):
// gates, sensitive paths and risk thresholds; Symphony's defaults for a
// project never configured.
func LoadConfig(ctx context.Context, tx baton.Tx, project string) (Config, error) {
	return tx.ProjectConfig(ctx, project)
}

// configuredGate returns the gate of cfg a reported result names, by label
// (case-insensitively, as labels are unique that way) then by command.
func configuredGate(cfg *baton.ProjectConfig, label, command string) (baton.Gate, bool) {
	if cfg == nil {
		return baton.Gate{}, false
	}
	for _, g := range cfg.Gates {
		if strings.EqualFold(strings.TrimSpace(g.Label), strings.TrimSpace(label)) {
			return g, true
		}
	}
	for _, g := range cfg.Gates {
		if g.Command == command {
			return g, true
		}
	}
	return baton.Gate{}, false
}
