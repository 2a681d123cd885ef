package tool

import (
	"slices"
	"sort"

	"github.com/baton-dev/baton"
)

// Presets choose the vocabulary a session speaks. A session that names
// none gets Core: the work loop in one vocabulary, small enough to leave an
// agent's context for its work. Each product's preset is that product's
// catalogue exactly (the tools of it baton has), so a prompt written for
// the product works unchanged; Full is everything. Profiles, grants and
// scope files apply on top (ComputeScope).
const (
	PresetCore       = "core"
	PresetSymphony   = "symphony"
	PresetColibri    = "colibri"
	PresetAdjutant   = "adjutant"
	PresetBotholomew = "botholomew"
	PresetFull       = "full"
)

// presetTools names each preset's tools. A name baton does not have (yet)
// is skipped when the preset is resolved against a registry.
var presetTools = map[string][]string{
	// The loop: find ready work, claim it, reserve the files it edits,
	// read it, update it, record findings and learnings, message and ask
	// the human, report status; all in the issue vocabulary plus baton's
	// claims and file reservations (forcing others' is full's).
	PresetCore: {
		"claim_next", "claim_item", "renew_claim", "release_claim",
		"file_reservation_paths", "renew_file_reservations", "release_file_reservations", "list_file_reservations",
		"list_issues", "get_issue", "create_issue", "update_issue_status", "add_comment",
		"add_finding", "add_learning", "search_learnings",
		"send_message", "read_messages", "wait_for_messages", "ask_owner",
		"set_status", "report_progress",
	},
	// symphony-mcp-tools.md.
	PresetSymphony: {
		"get_issue", "get_issue_status", "update_issue_status", "add_finding", "add_learning", "add_comment",
		"create_issue", "create_subtask", "list_issues", "search_learnings", "move_issue", "verify_workspace",
		"record_test_health", "record_coverage", "update_memory", "query_run_events",
		"create_pr", "approve_pr", "reject_pr", "configure_project", "complete_phase", "approve_phase", "reject_phase",
		"search_knowledge", "vault_retrieve", "vault_update", "vault_delete",
	},
	// colibri-mcp-tools-phase0.md: the 14 shipped tools.
	PresetColibri: {
		"server_ping", "server_health", "skill_list", "task_create", "task_list", "task_get", "task_update",
		"task_next_actions", "thought_record", "thought_record_list", "audit_session_start", "audit_verify_chain",
		"merkle_finalize", "merkle_root",
	},
	// adjutant-mcp-tool-catalog.md.
	PresetAdjutant: {
		"send_message", "read_messages", "list_threads", "mark_read", "set_status", "report_progress", "announce",
		"create_bead", "update_bead", "close_bead", "list_beads", "show_bead", "create_proposal", "list_proposals",
		"list_agents", "get_project_state", "search_messages",
	},
	// botholomew-tool-class.md and membot-operations.md §1.
	PresetBotholomew: {
		"membot_add", "membot_list", "membot_tree", "membot_read", "membot_search", "membot_info", "membot_stats",
		"membot_versions", "membot_diff", "membot_write", "membot_move", "membot_remove", "membot_refresh",
		"membot_prune", "membot_sources", "membot_edit", "membot_copy", "membot_exists", "membot_count_lines",
		"membot_pipe", "membot_query", "read_large_result", "complete_task", "fail_task", "wait_task",
		"capabilities_refresh",
	},
}

// PresetNames lists the presets, core first.
func PresetNames() []string {
	return []string{PresetCore, PresetSymphony, PresetColibri, PresetAdjutant, PresetBotholomew, PresetFull}
}

// IsPreset says whether name is a preset.
func IsPreset(name string) bool { return slices.Contains(PresetNames(), name) }

// PresetTools returns the tools of a preset that reg has, sorted; every
// tool of reg for Full. An unknown preset has none.
func PresetTools(reg *Registry, name string) []string {
	var out []string
	if name == PresetFull {
		for _, t := range reg.All() {
			out = append(out, t.Spec().Name)
		}
	} else {
		for _, n := range presetTools[name] {
			if _, ok := reg.Get(n); ok {
				out = append(out, n)
			}
		}
	}
	sort.Strings(out)
	return out
}

// PresetMissing lists the tools a preset names that reg does not have:
// none, once every product's catalogue is built.
func PresetMissing(reg *Registry, name string) []string {
	var out []string
	for _, n := range presetTools[name] {
		if _, ok := reg.Get(n); !ok {
			out = append(out, n)
		}
	}
	return out
}

// DefaultPreset is the preset of a session that names none. An agent's
// session over stdio or HTTP with no profile gets Core. A profile (a
// Symphony --agent-type, a token's profile) keeps its whole matrix, which
// the catalogues' "Used by" lines already narrow; the person at the CLI
// and direct calls get every vocabulary.
func DefaultPreset(p baton.Principal) string {
	if p.Profile == "" && p.AgentType == "" && (p.Source == baton.SourceStdio || p.Source == baton.SourceHTTP) {
		return PresetCore
	}
	return PresetFull
}
