package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/baton-dev/baton"
)

// The markers around the section `baton init` owns in AGENTS.md (and
// CLAUDE.md). Everything between them is rewritten on every init; nothing
// outside them is ever touched, so people keep their own instructions in
// the same file.
const (
	instructionsBegin = "<!-- baton:begin -->"
	instructionsEnd   = "<!-- baton:end -->"
)

// Instruction files, at the root of the team's repository. AGENTS.md is
// the cross-agent convention and is created when missing; CLAUDE.md is
// only updated when the project already has one (Claude Code reads it
// instead of AGENTS.md), never created.
const (
	agentsFile = "AGENTS.md"
	claudeFile = "CLAUDE.md"
)

// loopStep is one step of the work loop the instructions teach. Its
// options are tried in order and the first whose tools (the {name}
// placeholders) are all in the preset is used, so each preset's text names
// only tools its sessions have; a step with no usable option is left out.
type loopStep struct {
	label   string
	options []string
}

// workLoop is ready → claim → reserve → work → report → ask, in every vocabulary.
// Options are ordered from the core preset's tools to the products'.
var workLoop = []loopStep{
	{"Ready", []string{
		"{claim_next} claims the most urgent ready item for you and sets it in progress. The claim is a lease: " +
			"{renew_claim} keeps it through long work, {release_claim} gives the item back.",
		"{claim_next} claims the most urgent ready item for you and sets it in progress.",
		"{task_next_actions} lists the tasks that can start now, most urgent first: take the first and set it " +
			"in_progress with {task_update}.",
		"{list_beads} lists the open beads, most urgent first: take one and set it in_progress with {update_bead}.",
		"{list_issues} lists the issues, most urgent first; a session started for one issue works on that one.",
		"Work on the item your session was started for.",
	}},
	{"Read", []string{
		"{get_issue} shows the item: description, dependencies, subtasks, findings and comments.",
		"{task_get} shows the task: description, dependencies and subtasks.",
		"{show_bead} shows the bead and its dependencies.",
	}},
	{"Reserve", []string{
		"before editing files, {file_reservation_paths} reserves their paths or globs (exclusive by default); " +
			"if another agent holds them you get ERR_CONFLICT naming who and until when: work elsewhere or ask them. " +
			"{release_file_reservations} when done; your claim's end releases them too.",
	}},
	{"Work", []string{
		"{add_comment} records what you did and decided, for whoever picks the item up next.",
		"{thought_record} records each decision in the task's hash-chained audit trail.",
	}},
	{"Record", []string{
		"{add_finding} for a problem you found on the way that is not your task, {add_learning} for what the " +
			"next agent should know ({search_learnings} first, so nobody learns it twice).",
		"{add_finding} for a problem you found on the way that is not your task, {add_learning} for what the " +
			"next agent should know.",
	}},
	{"Report", []string{
		"{report_progress} with a percentage and {set_status} (working, blocked, idle, done) show the team where you are.",
		"{task_update} with a progress percentage shows the team how far you are.",
	}},
	{"Finish", []string{
		"{update_issue_status} to review when done, to blocked with the reason when you need a person, to todo to give it up.",
		"{task_update} to review when done, to blocked with a blocked_reason when you need a person.",
		"{close_bead} when done; {update_bead} back to open to give it up.",
		// Botholomew's terminal tools act on a session bound to one task,
		// so a preset with the item tools above prefers those.
		"{complete_task} with a summary when done, {fail_task} with the reason when it cannot be done, " +
			"{wait_task} when it waits for something; each ends your run.",
	}},
	{"Ask", []string{
		"stuck, or facing a decision that is not yours? {ask_owner} asks the owner and waits a while for the " +
			"answer; {wait_for_messages} waits for it after that. Ask rather than guess.",
		"stuck, or facing a decision that is not yours? {send_message} to user asks the owner; {read_messages} " +
			"reads the answer. Ask rather than guess.",
	}},
}

var placeholder = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{([a-z_]+)\}`) })

// instructionsSection is the marked section for a preset whose sessions
// have tools (the preset's tool names). It depends on nothing else (no
// time, no path), so running init again with the same preset writes the
// same bytes.
func instructionsSection(preset string, tools []string) string {
	var b strings.Builder
	b.WriteString(instructionsBegin + "\n")
	b.WriteString("<!-- Written by `baton init --preset " + preset + "`; running it again rewrites only what is between these markers. -->\n")
	b.WriteString("## Working with baton\n\n")
	b.WriteString("The work of this repository is coordinated by baton, an MCP server (`baton`) shared by every agent\n")
	b.WriteString("on the team. Its `" + preset + "` preset gives you the tools below (`baton setup CLIENT --preset " + preset + "`\n")
	b.WriteString("configures a client with it). Work in this loop:\n\n")
	n := 0
	for _, step := range workLoop {
		text, ok := chooseOption(step.options, tools)
		if !ok {
			continue
		}
		n++
		fmt.Fprintf(&b, "%d. **%s**: %s\n", n, step.label, text)
	}
	b.WriteString("\nWhen a baton tool is missing or fails, or the work you expect is not there, run `baton doctor` in\n")
	b.WriteString("this repository: it says which database the team shares and why, and checks the set-up.\n")
	b.WriteString(instructionsEnd)
	return b.String()
}

// chooseOption returns the first option whose tools are all in tools, with
// each {name} written as `name`.
func chooseOption(options, tools []string) (string, bool) {
	for _, o := range options {
		usable := true
		for _, m := range placeholder().FindAllStringSubmatch(o, -1) {
			if !slices.Contains(tools, m[1]) {
				usable = false
				break
			}
		}
		if usable {
			return placeholder().ReplaceAllString(o, "`$1`"), true
		}
	}
	return "", false
}

// instructionFile is what init did to one instruction file.
type instructionFile struct {
	// Path is the file's absolute path.
	Path string `json:"path"`
	// Action is created, updated (the section replaced or appended),
	// unchanged (already up to date: the file is not written) or skipped.
	Action string `json:"action"`
	// Reason says why a file was skipped.
	Reason string `json:"reason,omitempty"`

	content []byte
	mode    fs.FileMode
}

// planInstructions works out, without writing anything, what init does to
// the instruction files under root: so a file init cannot update (a begin
// marker without its end) fails init before the database changes.
func planInstructions(root, section string) ([]instructionFile, error) {
	var plan []instructionFile
	var agentsInfo fs.FileInfo
	for _, name := range []string{agentsFile, claudeFile} {
		path := filepath.Join(root, name)
		old, err := os.ReadFile(path)
		exists := err == nil
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, baton.Errorf(baton.ErrInitFailed, "cannot read %s: %v", name, err).
				WithDetails("file", name).WithHint("make %s readable, or run baton init --no-instructions", name)
		}
		if !exists && name == claudeFile {
			continue // only a project that uses CLAUDE.md gets it
		}
		info, _ := os.Stat(path)
		if name == agentsFile {
			agentsInfo = info
		} else if info != nil && agentsInfo != nil && os.SameFile(info, agentsInfo) {
			continue // CLAUDE.md is a link to AGENTS.md: written once
		}
		if name == claudeFile && !bytes.Contains(old, []byte(instructionsBegin)) && importsAgents(old) {
			plan = append(plan, instructionFile{Path: path, Action: "skipped", Reason: "it imports AGENTS.md (@AGENTS.md)"})
			continue
		}
		merged, e := mergeSection(old, section)
		if e != nil {
			return nil, e.WithDetails("file", name)
		}
		f := instructionFile{Path: path, Action: "updated", content: merged, mode: 0o644}
		switch {
		case !exists:
			f.Action = "created"
		case bytes.Equal(merged, old):
			f.Action = "unchanged"
		case info != nil:
			f.mode = info.Mode().Perm() // os.WriteFile keeps an existing file's mode anyway
		}
		plan = append(plan, f)
	}
	return plan, nil
}

// importsAgents says whether a CLAUDE.md pulls AGENTS.md in with Claude
// Code's @ import, so the loop would reach the agent twice.
func importsAgents(b []byte) bool {
	for line := range strings.SplitSeq(string(b), "\n") {
		switch strings.TrimSpace(line) {
		case "@AGENTS.md", "@./AGENTS.md":
			return true
		}
	}
	return false
}

// mergeSection replaces the marked section of old with section, or appends
// section when old has none. Everything outside the markers is kept byte
// for byte.
func mergeSection(old []byte, section string) ([]byte, *baton.Error) {
	s := string(old)
	begin := strings.Index(s, instructionsBegin)
	if begin < 0 {
		if s == "" {
			return []byte(section + "\n"), nil
		}
		if !strings.HasSuffix(s, "\n") {
			s += "\n"
		}
		return []byte(s + "\n" + section + "\n"), nil
	}
	end := strings.Index(s[begin:], instructionsEnd)
	if end < 0 {
		return nil, baton.Errorf(baton.ErrInitFailed, "the file has %s but no %s after it, so baton cannot tell where its section ends",
			instructionsBegin, instructionsEnd).
			WithHint("add %s after baton's section, or delete the begin marker, then run baton init again (or pass --no-instructions)", instructionsEnd)
	}
	end += begin + len(instructionsEnd)
	return []byte(s[:begin] + section + s[end:]), nil
}

// writeInstructions writes the planned files in place (following a
// symbolic link, keeping the file's mode); unchanged and skipped files are
// not written.
func writeInstructions(plan []instructionFile) error {
	for _, f := range plan {
		if f.Action != "created" && f.Action != "updated" {
			continue
		}
		if err := os.WriteFile(f.Path, f.content, f.mode); err != nil {
			return baton.Errorf(baton.ErrInitFailed, "cannot write %s: %v", filepath.Base(f.Path), err).
				WithDetails("file", filepath.Base(f.Path)).
				WithHint("make the repository's top directory writable, or run baton init --no-instructions")
		}
	}
	return nil
}

// instructionsRoot is where the instruction files go: the directory that
// holds .baton/ (the team's repository top), or for a database named by a
// URL the git top level of the working directory (the main repository's
// from a worktree), else the working directory.
func instructionsRoot(loc Location) string {
	if loc.Root != "" {
		return loc.Root
	}
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	if top, main := gitTop(wd); main != "" {
		return main
	} else if top != "" {
		return top
	}
	return wd
}
