// Package beads holds the Adjutant bead tools: the work items of the store
// read and written in Adjutant's vocabulary (open/in_progress/closed, the
// 0–4 priority scale as is, epic/task/bug types). A bead, a Colibri task and
// a Symphony issue are the same row; only the words differ.
package beads

import (
	"context"
	"fmt"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/session"
)

// Toolset is the CLI group and toolset name of these tools.
const Toolset = "beads"

// Bead statuses. Adjutant has fewer states than the canonical seven, so
// several canonical statuses read as one bead status (see beadStatus).
const (
	statusOpen       = "open"
	statusInProgress = "in_progress"
	statusBlocked    = "blocked"
	statusClosed     = "closed"
	statusAll        = "all" // list_beads filter only
)

// beadStatus reads a canonical status in Adjutant's words: backlog and todo
// are "open" (not started), in_progress and review are "in_progress" (being
// worked on), blocked stays "blocked" so an agent sees why it cannot start,
// and both terminal statuses are "closed".
func beadStatus(s baton.Status) string {
	switch s {
	case baton.StatusBacklog, baton.StatusTodo:
		return statusOpen
	case baton.StatusBlocked:
		return statusBlocked
	case baton.StatusInProgress, baton.StatusReview:
		return statusInProgress
	default:
		return statusClosed
	}
}

// filterStatuses maps a list_beads status filter onto the canonical statuses
// it covers. "open" includes blocked: a blocked bead is still open work, as
// in Adjutant, where blocked is not a separate list. "all" filters nothing.
// No filter is bd list's default, every bead that is not closed.
func filterStatuses(filter string) []baton.Status {
	switch filter {
	case "":
		return []baton.Status{baton.StatusBacklog, baton.StatusTodo, baton.StatusBlocked, baton.StatusInProgress, baton.StatusReview}
	case statusOpen:
		return []baton.Status{baton.StatusBacklog, baton.StatusTodo, baton.StatusBlocked}
	case statusInProgress:
		return []baton.Status{baton.StatusInProgress, baton.StatusReview}
	case statusClosed:
		return []baton.Status{baton.StatusDone, baton.StatusCancelled}
	}
	return nil
}

// beadTypes are the kinds a bead may be created or filtered as. Items made
// through other vocabularies may have other kinds (feature, chore); those
// read as their kind name: the enum restricts input only.
var beadTypes = []string{string(baton.KindEpic), string(baton.KindTask), string(baton.KindBug)}

// unassigned is how baton writes a missing assignee in every vocabulary
// (docs/decisions.md); as an input it clears or selects "no assignee".
const unassigned = "unassigned"

func assigneeValue(a string) string {
	if a == unassigned {
		return ""
	}
	return a
}

func assigneeName(a string) string {
	if a == "" {
		return unassigned
	}
	return a
}

// Field rules shared by several bead tools.
var (
	titleRule       = tool.Length(1, 256).NonBlank()
	descriptionRule = tool.MaxLen(8000)
	priorityRule    = tool.Range(0, 4)
	typeRule        = tool.Enum(beadTypes...)
	// beadIDRule admits any existing id: ids made by other vocabularies are
	// PREFIX-N, and task ids may be up to 128 characters.
	beadIDRule = tool.Length(1, 128)
	// customIDRule is for ids chosen at creation. MinLength catches the empty
	// string, which the validator does not match against a pattern; the
	// pattern alone bounds the length, so each bad id breaks one rule only.
	customIDRule = tool.Field{MinLength: new(1), Pattern: `^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`}
	// assigneeRule allows "" (clears, like "unassigned") but not a blank name.
	assigneeRule       = tool.MaxLen(128).NonBlank()
	assigneeFilterRule = tool.Length(1, 128).NonBlank()
	reasonRule         = tool.MaxLen(1000)
	beadStatusRule     = tool.Enum(statusOpen, statusInProgress, statusBlocked, statusClosed)
)

// summary is a bead as list_beads shows it, and the head of every other
// structured output.
type summary struct {
	ID       string `json:"id" jsonschema:"Bead id."`
	Title    string `json:"title" jsonschema:"Bead title."`
	Status   string `json:"status" jsonschema:"open (backlog or todo), in_progress (in progress or in review), blocked, or closed (done or cancelled)."`
	Type     string `json:"type" jsonschema:"epic, task or bug; items made through other vocabularies may show feature or chore."`
	Priority int    `json:"priority" jsonschema:"Priority: 0=critical, 1=high, 2=medium, 3=low, 4=backlog."`
	Assignee string `json:"assignee,omitempty" jsonschema:"Assignee; absent when unassigned."`
}

func summarize(it *baton.Item) summary {
	return summary{
		ID: it.ID, Title: it.Title, Status: beadStatus(it.Status), Type: string(it.Kind),
		Priority: int(it.Priority), Assignee: it.Assignee,
	}
}

// summaryRules constrains the summary fields under prefix ("" or "beads.").
func summaryRules(prefix string, r tool.Rules) tool.Rules {
	r[prefix+"status"] = beadStatusRule
	r[prefix+"priority"] = priorityRule
	return r
}

// line is the list_beads text form of one bead.
func line(s summary) string {
	return fmt.Sprintf("[%s] %s (%s, P%d): %s", s.Status, s.ID, s.Type, s.Priority, s.Title)
}

// bead reads the bead an id names. A missing one is reported as a bead, in
// Adjutant's words ("Bead adj-042 not found"), with a hint to list beads:
// not as a Colibri task an Adjutant agent has never heard of.
func bead(ctx context.Context, c *tool.Call, id string) (*baton.Item, error) {
	it, err := c.Tx.Item(ctx, id)
	if baton.ErrorCode(err) == baton.ErrTaskNotFound {
		return nil, baton.Errorf(baton.ErrNotFound, "Bead %s not found", id).WithType("bead_not_found").
			WithDetails("id", id).
			WithHint("list the beads with list_beads (status all includes closed ones); ids look like PREFIX-N or the custom id given at creation")
	}
	return it, err
}

// resolveProject picks the project a bead call means: the session's, else
// the only one there is (session.Project without a named project, as the
// bead tools take none). Its hint says so instead of asking for a project
// argument these tools do not have.
func resolveProject(ctx context.Context, c *tool.Call) (*baton.Project, error) {
	p, err := session.Project(ctx, c, "")
	if e := baton.AsError(err); e != nil && e.Code == baton.ErrInvalidInput {
		return nil, e.WithHint("start baton with --project SLUG: the bead tools take no project argument")
	}
	return p, err
}
