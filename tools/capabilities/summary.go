// Package capabilities holds Botholomew's capabilities_refresh and the
// summary it writes: a session's tools as themes, one line per theme and no
// tool names, in a markdown file an agent prompt includes, so the agent
// knows what it can do without every schema in its context. `baton
// capabilities` writes and prints the same file.
package capabilities

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

// theme is one line of the summary: the tools of some toolsets, each
// described by a short phrase (the phrases, never the names, are written).
type theme struct {
	title    string
	toolsets []string
	phrases  map[string]string // tool name -> what it lets the agent do
}

// themes are the built-in tools' themes, in the order they are written.
// A tool missing here is described by the first clause of its description
// (see phrase), so tools added later still show; give them a phrase here.
var themes = []theme{
	{"Server", []string{"system"}, map[string]string{
		"server_ping": "check the server answers", "server_health": "see its health and version"}},
	{"Tasks", []string{"tasks"}, map[string]string{
		"task_create": "create tasks", "task_get": "read a task in full", "task_update": "update a task's status and fields",
		"task_list": "list and search tasks", "task_next_actions": "find the next tasks to work on"}},
	{"Issues", []string{"issues"}, map[string]string{
		"get_issue": "read issues in full", "get_issue_status": "check an issue's state", "update_issue_status": "move issues through their statuses",
		"create_issue": "create issues", "create_subtask": "split work into sub-tasks", "list_issues": "list issues",
		"add_finding": "record findings", "add_comment": "comment", "add_learning": "record learnings for others",
		"search_learnings": "search what others learned", "add_dependency": "add dependencies", "remove_dependency": "remove dependencies",
		"move_issue": "move issues between projects", "verify_workspace": "check you are in your worktree",
		"record_test_health": "record test health", "record_coverage": "record what was reviewed",
		"update_memory": "keep private notes for your next runs", "query_run_events": "trace what agents did in past runs"}},
	{"Review", []string{"review"}, map[string]string{
		"create_pr": "open a PR record of your branch's commits", "approve_pr": "approve a PR for a human to merge",
		"reject_pr": "send a PR back with fix instructions"}},
	{"Beads", []string{"beads"}, map[string]string{
		"create_bead": "create beads", "update_bead": "update beads", "close_bead": "close beads",
		"list_beads": "list beads", "show_bead": "read a bead with its dependencies"}},
	{"Claims", []string{"claims"}, map[string]string{
		"claim_item": "claim a work item so no one else takes it", "claim_next": "claim the most urgent ready item",
		"renew_claim": "renew a claim", "release_claim": "release a claim"}},
	{"Audit trail", []string{"audit"}, map[string]string{
		"thought_record": "record decisions in a tamper-evident chain", "thought_record_list": "read a task's decision trail",
		"audit_session_start": "start audit sessions", "audit_verify_chain": "verify the chain",
		"merkle_finalize": "seal a session with a Merkle root", "merkle_root": "read Merkle roots",
		"merkle_proof": "prove a record belongs to a sealed session"}},
	{"Skills", []string{"skills"}, map[string]string{"skill_list": "list the team's skills", "skill_get": "read a skill"}},
	{"Messages", []string{"messages"}, map[string]string{
		"send_message": "message the user and other agents", "read_messages": "read messages", "list_threads": "list threads",
		"mark_read": "mark messages read", "wait_for_messages": "wait for new messages",
		"ask_owner": "ask the user a question and wait for the answer", "search_messages": "search messages"}},
	{"Status and team", []string{"status"}, map[string]string{
		"set_status": "report your status", "report_progress": "report progress", "announce": "broadcast news to the user",
		"list_agents": "see the other agents", "get_project_state": "summarise the project"}},
	{"Proposals", []string{"proposals"}, map[string]string{
		"create_proposal": "propose improvements to the product or the code", "list_proposals": "see what was proposed"}},
	{"Ending your task", []string{"work"}, map[string]string{
		"complete_task": "finish your task with a summary", "fail_task": "give it up with a reason",
		"wait_task": "pause it until something happens"}},
	{"Knowledge", []string{"vault", "membot", "util"}, map[string]string{
		"search_knowledge": "search the team's documents", "vault_retrieve": "find passages by meaning",
		"vault_update": "index a project file", "vault_delete": "drop an entry",
		"membot_search": "search the team's documents", "membot_read": "read documents", "membot_write": "write documents",
		"membot_add": "ingest files and text", "membot_edit": "patch documents by line", "membot_list": "list documents",
		"membot_tree": "browse documents as a tree", "membot_versions": "see a document's versions", "membot_diff": "compare versions",
		"membot_info": "see where a document came from", "membot_stats": "see what the store holds",
		"membot_move": "move documents", "membot_remove": "remove documents", "membot_copy": "copy documents",
		"membot_refresh": "re-read changed sources", "membot_prune": "prune old versions", "membot_sources": "see what can be ingested",
		"membot_exists": "check a document exists", "membot_count_lines": "count a document's lines",
		"membot_pipe": "store a tool's whole output as a document", "membot_query": "query stored JSON with JSONata",
		"read_large_result": "page through large results"}},
	{"Capabilities", []string{Toolset}, map[string]string{"capabilities_refresh": "refresh this summary"}},
}

// Summary is what a refresh found and wrote.
type Summary struct {
	Path          string   // where the file is, relative to the data directory's parent
	Internal      []string // one line per theme of baton's own tools
	External      []string // one line per plugin (external MCP server)
	InternalTools int
	ExternalTools int
	SkippedMCP    bool // include_mcp was false
	Created       bool // the file did not exist before
	Markdown      string
}

// Refresh computes p's effective tools, renders them as themes and writes
// the summary file for p's profile under dataDir, keeping the frontmatter
// an earlier file had (an agent may have edited it). includeMCP false
// leaves plugin tools out.
func Refresh(ctx context.Context, env *tool.Env, p baton.Principal, includeMCP bool, now time.Time) (*Summary, error) {
	if env.DataDir == "" {
		return nil, failed("baton has no data directory to write the summary to", nil)
	}
	scope, err := env.Scope(ctx, p)
	if err != nil {
		return nil, err
	}
	var specs []*tool.Spec
	for _, t := range env.Registry.All() {
		if s := t.Spec(); scope.Listed(s.Name) {
			specs = append(specs, s)
		}
	}
	s := render(specs, env.Registry, includeMCP)
	file, rel := Path(env.DataDir, p.Profile)
	s.Path = rel
	front, existed, err := frontmatter(file)
	if err != nil {
		return nil, failed("the summary file cannot be read", err)
	}
	s.Created = !existed
	s.Markdown = markdown(front, s, p.Profile, now)
	if err := write(file, s.Markdown); err != nil {
		return nil, failed("the summary file cannot be written", err)
	}
	return s, nil
}

// Path is the summary file of a profile (all tools' when profile is ""):
// DATA/prompts/<profile>/capabilities.md, and the same path relative to
// the data directory's parent (.baton/prompts/worker/capabilities.md),
// which is what clients are told.
func Path(dataDir, profile string) (file, rel string) {
	parts := []string{"prompts"}
	if profile != "" {
		// A profile name is the server's, but it becomes a folder: nothing
		// in it may reach outside prompts/.
		parts = append(parts, unsafeChars().ReplaceAllString(profile, "_"))
	}
	parts = append(parts, "capabilities.md")
	file = filepath.Join(append([]string{dataDir}, parts...)...)
	rel = filepath.ToSlash(filepath.Join(append([]string{filepath.Base(dataDir)}, parts...)...))
	return file, rel
}

var unsafeChars = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9_-]`) })

// render groups the tools into theme lines: known toolsets by the table,
// other toolsets under their own name, plugin tools per plugin with their
// count (an external server's tools are its own business).
func render(specs []*tool.Spec, reg *tool.Registry, includeMCP bool) *Summary {
	s := &Summary{SkippedMCP: !includeMCP}
	names := make([]string, 0, reg.Len())
	for _, t := range reg.All() {
		names = append(names, t.Spec().Name)
	}
	byToolset := map[string][]*tool.Spec{}
	var order []string // toolsets in registry order
	for _, sp := range specs {
		if _, ok := byToolset[sp.Toolset]; !ok {
			order = append(order, sp.Toolset)
		}
		byToolset[sp.Toolset] = append(byToolset[sp.Toolset], sp)
	}
	done := map[string]bool{}
	for _, th := range themes {
		var phrases []string
		for _, ts := range th.toolsets {
			done[ts] = true
			for _, sp := range byToolset[ts] {
				phrases = appendPhrase(phrases, th.phrases[sp.Name], sp, names)
				s.InternalTools++
			}
		}
		if len(phrases) > 0 {
			s.Internal = append(s.Internal, line(th.title, phrases))
		}
	}
	for _, ts := range order {
		if done[ts] {
			continue
		}
		tools := byToolset[ts]
		if plugin, ok := strings.CutPrefix(ts, "plugin:"); ok {
			if includeMCP {
				s.ExternalTools += len(tools)
				s.External = append(s.External, fmt.Sprintf("%s — %s", plugin, plural(len(tools), "tool")))
			}
			continue
		}
		var phrases []string
		for _, sp := range tools {
			phrases = appendPhrase(phrases, "", sp, names)
			s.InternalTools++
		}
		s.Internal = append(s.Internal, line(title(ts), phrases))
	}
	return s
}

// appendPhrase adds a tool's phrase unless an earlier tool of the theme
// said the same.
func appendPhrase(phrases []string, known string, sp *tool.Spec, names []string) []string {
	p := known
	if p == "" {
		p = phrase(sp.Description, names)
	}
	if slices.Contains(phrases, p) {
		return phrases
	}
	return append(phrases, p)
}

// phrase describes a tool that has no phrase in the table: the first
// clause of its description, lower-cased, unless that names a tool (the
// summary names none) or runs long, when it is just "more".
func phrase(desc string, names []string) string {
	cut := len(desc)
	for _, sep := range []string{". ", ": ", "; ", " (", ", "} {
		if i := strings.Index(desc, sep); i >= 0 && i < cut {
			cut = i
		}
	}
	p := strings.TrimSuffix(strings.TrimSpace(desc[:cut]), ".")
	if p == "" || len(p) > 80 || slices.ContainsFunc(names, func(n string) bool { return strings.Contains(p, n) }) {
		return "more"
	}
	return strings.ToLower(p[:1]) + p[1:]
}

func line(title string, phrases []string) string {
	if len(phrases) > 1 {
		phrases = append(phrases[:len(phrases)-2:len(phrases)-2], phrases[len(phrases)-2]+" and "+phrases[len(phrases)-1])
	}
	return title + " — " + strings.Join(phrases, ", ")
}

func title(toolset string) string {
	t := strings.ReplaceAll(toolset, "_", " ")
	return strings.ToUpper(t[:1]) + t[1:]
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// defaultFront is the frontmatter of a new summary file, Botholomew's.
const defaultFront = "---\ntitle: Capabilities\nloading: always\nagent-modification: true\n---\n"

// frontmatter returns the frontmatter block of the existing file, or the
// default one, and whether the file existed.
func frontmatter(file string) (string, bool, error) {
	b, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return defaultFront, false, nil
	}
	if err != nil {
		return "", true, err
	}
	text := strings.ReplaceAll(string(b), "\r\n", "\n")
	if rest, ok := strings.CutPrefix(text, "---\n"); ok {
		if end := strings.Index(rest, "\n---\n"); end >= 0 {
			return "---\n" + rest[:end] + "\n---\n", true, nil
		}
	}
	return defaultFront, true, nil
}

func markdown(front string, s *Summary, profile string, now time.Time) string {
	var b strings.Builder
	b.WriteString(front)
	who := "every tool"
	if profile != "" {
		who = "the " + profile + " profile"
	}
	fmt.Fprintf(&b, "\n_Generated %s for %s: what you can do, by theme; list the tools for their names._\n", baton.Timestamp(now), who)
	b.WriteString("\n## Internal capabilities\n\n")
	for _, l := range s.Internal {
		b.WriteString("- " + l + "\n")
	}
	if len(s.Internal) == 0 {
		b.WriteString("- None.\n")
	}
	b.WriteString("\n## External capabilities\n\n")
	switch {
	case s.SkippedMCP:
		b.WriteString("- Not listed (refreshed without external servers).\n")
	case len(s.External) == 0:
		b.WriteString("- None.\n")
	}
	for _, l := range s.External {
		b.WriteString("- " + l + "\n")
	}
	return b.String()
}

// write replaces the file atomically: a prompt loading it mid-refresh reads
// the old summary or the new one, never a part.
func write(file, content string) error {
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".capabilities.md.*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(content); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	// Readable by whatever loads the prompt, as a file written plainly is.
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), file)
}

// failed is Botholomew's refresh_failed, without the server's paths.
func failed(what string, err error) *baton.Error {
	msg := what
	if err != nil {
		if pe, ok := err.(*os.PathError); ok {
			err = pe.Err
		}
		msg += ": " + err.Error()
	}
	return baton.Errorf(baton.ErrInternal, "%s", msg).WithType("refresh_failed").
		WithHint("retry later, or pass include_mcp=false to leave the external servers out")
}
