package importers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/baton-dev/baton"
)

// beadsIssue is one line of a beads JSONL file: bd export's output, or
// .beads/issues.jsonl (.beads/beads.jsonl before that). Older files lack
// some fields (comments, created_by, labels); extra fields are ignored.
// Times are read by hand: an unreadable one is reported, not fatal.
type beadsIssue struct {
	ID                 string         `json:"id"`
	Title              string         `json:"title"`
	Description        string         `json:"description"`
	Design             string         `json:"design"`
	AcceptanceCriteria string         `json:"acceptance_criteria"`
	Notes              string         `json:"notes"`
	Status             string         `json:"status"`
	Priority           *int           `json:"priority"`
	IssueType          string         `json:"issue_type"`
	Assignee           string         `json:"assignee"`
	EstimatedMinutes   *int           `json:"estimated_minutes"`
	CreatedAt          string         `json:"created_at"`
	CreatedBy          string         `json:"created_by"`
	UpdatedAt          string         `json:"updated_at"`
	CloseReason        string         `json:"close_reason"`
	DueAt              string         `json:"due_at"`
	DeferUntil         string         `json:"defer_until"`
	ExternalRef        *string        `json:"external_ref"`
	Labels             []string       `json:"labels"`
	Dependencies       []beadsDep     `json:"dependencies"`
	Comments           []beadsComment `json:"comments"`
	DeleteReason       string         `json:"delete_reason"`
	Ephemeral          bool           `json:"ephemeral"`
	Pinned             bool           `json:"pinned"`
	IsTemplate         bool           `json:"is_template"`

	line int
}

type beadsDep struct {
	IssueID     string `json:"issue_id"`
	DependsOnID string `json:"depends_on_id"`
	Type        string `json:"type"`
}

type beadsComment struct {
	ID        json.RawMessage `json:"id"` // a number, in some versions a string
	Author    string          `json:"author"`
	Text      string          `json:"text"`
	CreatedAt string          `json:"created_at"`
}

// Beads reads beads' JSON Lines, one issue per line (bd export, or the
// .beads/issues.jsonl of older versions), into a plan. Blank lines are
// allowed; a line that is not a JSON object with an id, a repeated id or an
// empty title is an error naming the line, and nothing is planned. The
// package documentation has the mapping.
func Beads(r io.Reader) (*Plan, error) {
	sc := bufio.NewScanner(&limitedReader{r: r, n: MaxFileBytes})
	sc.Buffer(make([]byte, 0, 64<<10), MaxLineBytes)
	var issues []*beadsIssue
	lineOf := map[string]int{}
	n := 0
	for sc.Scan() {
		n++
		raw := sc.Bytes()
		if n == 1 {
			raw = bytes.TrimPrefix(raw, []byte("\ufeff"))
		}
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 {
			continue
		}
		if raw[0] != '{' {
			e := lineError(n, "not a JSON object")
			if raw[0] == '[' {
				e = e.WithHint("beads import reads JSON Lines, one issue per line: write the file with bd export (bd list --json prints an array)")
			}
			return nil, e
		}
		is := &beadsIssue{line: n}
		if err := json.Unmarshal(raw, is); err != nil {
			e := lineError(n, "%s", jsonProblem(err, raw))
			if n == 1 && bytes.Equal(raw, []byte("{")) {
				e = e.WithHint("this looks like one JSON document over many lines, such as Taskmaster's tasks.json: import it with --from taskmaster")
			}
			return nil, e
		}
		is.ID = strings.TrimSpace(is.ID)
		if is.ID == "" {
			return nil, lineError(n, "the issue has no id")
		}
		if prev, dup := lineOf[is.ID]; dup {
			return nil, lineError(n, "the id %s is also the id of line %d", is.ID, prev).WithDetails("id", is.ID, "first_line", prev)
		}
		lineOf[is.ID] = n
		if len(issues) == MaxItems {
			return nil, tooMany(SourceBeads)
		}
		issues = append(issues, is)
	}
	if err := sc.Err(); err != nil {
		switch {
		case errors.Is(err, errTooBig):
			return nil, tooBig(SourceBeads)
		case errors.Is(err, bufio.ErrTooLong):
			return nil, lineError(n+1, "the line is longer than %d MiB", MaxLineBytes>>20).WithDetails("limit_bytes", MaxLineBytes)
		}
		return nil, err
	}
	return planBeads(issues)
}

func lineError(n int, format string, args ...any) *baton.Error {
	return baton.Errorf(baton.ErrInvalidInput, "beads file, line %d: %s", n, fmt.Sprintf(format, args...)).
		WithDetails("line", n).
		WithHint("fix or remove that line (each line is one issue as bd export writes it), then import again: nothing was imported")
}

func planBeads(issues []*beadsIssue) (*Plan, error) {
	b := newBuilder(SourceBeads)
	skipped := map[string]string{} // id -> why the issue was not imported
	text := map[string]*beadsIssue{}
	for _, is := range issues {
		where := fmt.Sprintf("line %d", is.line)
		kind, kindLabel, why := beadsKind(is)
		if why == "" {
			why = beadsSkip(is)
		}
		if why != "" {
			skipped[is.ID] = why
			b.skip(Skip{Kind: SkipItem, ForeignID: is.ID, Where: where, Reason: why})
			continue
		}
		t, full := title(is.Title)
		if t == "" {
			return nil, lineError(is.line, "the issue %s has an empty title", is.ID)
		}
		status, statusLabel, blocked := beadsStatus(is)
		prio, prioFrom := beadsPriority(is.Priority)
		it := &PlanItem{ForeignID: is.ID, Label: provenance(SourceBeads, is.ID), Title: t, Kind: kind, Status: status,
			Priority: prio, BlockedReason: blocked, CreatedBy: strings.TrimSpace(cleanText(is.CreatedBy))}
		if utf8.RuneCountInString(it.CreatedBy) > MaxAssignee {
			it.CreatedBy = ""
		}
		rep := b.add(it, ItemReport{Where: where,
			Status:   Mapped{From: orMissing(is.Status), To: string(status)},
			Priority: Mapped{From: prioFrom, To: strconv.Itoa(int(prio))},
			Kind:     Mapped{From: orMissing(is.IssueType), To: string(kind)}})
		if full != "" {
			b.note(rep, "title clipped to %d characters; the full title heads the description", MaxTitle)
			is.Description = "Full title: " + full + "\n\n" + is.Description
		}
		if status == baton.StatusDone {
			it.Progress = 100
			it.CloseReason = strings.TrimSpace(cleanText(is.CloseReason))
			if utf8.RuneCountInString(it.CloseReason) > 1000 {
				it.CloseReason, _ = cut(it.CloseReason, 1000)
				b.note(rep, "close reason clipped to 1000 characters")
			}
		}
		it.Labels = b.labels(is.ID, where, is.Labels, nonEmpty(kindLabel, statusLabel)...)
		if a := strings.TrimSpace(cleanText(is.Assignee)); utf8.RuneCountInString(a) > MaxAssignee {
			b.skip(Skip{Kind: SkipField, ForeignID: is.ID, Target: "assignee", Where: where,
				Reason: fmt.Sprintf("longer than %d characters", MaxAssignee)})
		} else {
			it.Assignee = a
		}
		if m := is.EstimatedMinutes; m != nil && *m > 0 {
			h := float64(*m) / 60
			it.EstimateHours = &h
		}
		var ok bool
		if it.CreatedAt, ok = timestamp(is.CreatedAt); !ok {
			b.skip(Skip{Kind: SkipField, ForeignID: is.ID, Target: "created_at", Where: where, Reason: "not an RFC 3339 time: the import's time is used"})
		}
		if it.UpdatedAt, ok = timestamp(is.UpdatedAt); !ok {
			b.skip(Skip{Kind: SkipField, ForeignID: is.ID, Target: "updated_at", Where: where, Reason: "not an RFC 3339 time: created_at is used"})
		}
		text[is.ID] = is
	}

	// Dependencies, once every issue is known: a line may name issues of
	// later lines.
	links := map[string][]string{}
	seen := map[[2]string]bool{}
	for _, is := range issues {
		if text[is.ID] == nil {
			continue // skipped, and said so
		}
		where := fmt.Sprintf("line %d", is.line)
		for _, d := range is.Dependencies {
			from, to, typ := strings.TrimSpace(d.IssueID), strings.TrimSpace(d.DependsOnID), strings.TrimSpace(d.Type)
			if from == "" {
				from = is.ID
			}
			if typ == "" {
				typ = "blocks"
			}
			fromItem, fromRep := b.item(from)
			toItem, _ := b.item(to)
			missing := func() string {
				if to == "" {
					return "the dependency names no depends_on_id"
				}
				if why, ok := skipped[to]; ok {
					return to + " was not imported (" + why + ")"
				}
				return to + " is not in the file"
			}
			switch {
			case fromItem == nil:
				if _, ok := skipped[from]; !ok {
					b.skip(Skip{Kind: SkipDependency, ForeignID: from, Target: to, Where: where, Reason: from + " is not in the file"})
				}
				continue
			case from == to:
				b.skip(Skip{Kind: SkipDependency, ForeignID: from, Target: to, Where: where, Reason: "an issue cannot depend on itself"})
				continue
			}
			switch typ {
			case "parent-child":
				switch {
				case toItem == nil:
					b.skip(Skip{Kind: SkipParent, ForeignID: from, Target: to, Where: where, Reason: missing() + ": imported without a parent"})
				case fromItem.Parent != "" && fromItem.Parent != to:
					b.skip(Skip{Kind: SkipParent, ForeignID: from, Target: to, Where: where,
						Reason: "a baton item has one parent: " + fromItem.Parent + " is kept"})
				default:
					fromItem.Parent, fromRep.Parent = to, to
				}
			case "blocks", "conditional-blocks", "waits-for":
				if toItem == nil {
					b.skip(Skip{Kind: SkipDependency, ForeignID: from, Target: to, Where: where, Reason: missing()})
					continue
				}
				if typ != "blocks" {
					b.note(fromRep, "%s dependency on %s imported as a plain dependency (waits until %s is finished)", typ, to, to)
				}
				b.depend(from, to, where, seen)
			default:
				links[from] = append(links[from], fmt.Sprintf("- %s %s", typ, to))
				b.skip(Skip{Kind: SkipDependency, ForeignID: from, Target: to, Where: where,
					Reason: "a " + typ + " link holds nothing back in baton: kept in the description's Links section"})
			}
		}
	}

	for _, it := range b.plan.Items {
		is, rep := text[it.ForeignID], &b.plan.Report.Items[b.index[it.ForeignID]]
		var fields []string
		if is.ExternalRef != nil && strings.TrimSpace(*is.ExternalRef) != "" {
			fields = append(fields, "External reference: "+strings.TrimSpace(*is.ExternalRef))
		}
		if strings.TrimSpace(is.DueAt) != "" {
			fields = append(fields, "Due: "+strings.TrimSpace(is.DueAt))
		}
		if strings.TrimSpace(is.DeferUntil) != "" {
			fields = append(fields, "Deferred until: "+strings.TrimSpace(is.DeferUntil))
		}
		sections := []section{{"Design", is.Design}, {"Acceptance criteria", is.AcceptanceCriteria}, {"Notes", is.Notes},
			{"Links", strings.Join(links[it.ForeignID], "\n")}, {"Beads fields", strings.Join(fields, "\n")}}
		var appended []string
		for _, s := range sections {
			if strings.TrimSpace(s.body) != "" {
				appended = append(appended, strings.ToLower(s.heading))
			}
		}
		if len(appended) > 0 {
			b.note(rep, "appended to the description under headings: %s", strings.Join(appended, ", "))
		}
		desc, rest := fit(compose(is.Description, sections...))
		it.Description = desc
		if len(rest) > 0 {
			b.note(rep, "description over %d characters: the rest is in %d comments", MaxDescription, len(rest))
		}
		for _, body := range rest {
			b.plan.Comments = append(b.plan.Comments, PlanComment{Item: it.ForeignID, Body: body, CreatedAt: it.CreatedAt})
		}
		for i, c := range is.Comments {
			body := strings.TrimSpace(cleanText(c.Text))
			if body == "" {
				b.skip(Skip{Kind: SkipComment, ForeignID: it.ForeignID, Where: fmt.Sprintf("line %d, comments[%d]", is.line, i), Reason: "empty"})
				continue
			}
			at, ok := timestamp(c.CreatedAt)
			if !ok {
				b.skip(Skip{Kind: SkipField, ForeignID: it.ForeignID, Target: "comments.created_at",
					Where: fmt.Sprintf("line %d, comments[%d]", is.line, i), Reason: "not an RFC 3339 time: the import's time is used"})
			}
			author := strings.TrimSpace(cleanText(c.Author))
			if utf8.RuneCountInString(author) > MaxAssignee {
				author = ""
			}
			parts := splitComment(body)
			if len(parts) > 1 {
				b.note(rep, "a comment over %d characters is split in %d", MaxComment, len(parts))
			}
			for _, p := range parts {
				b.plan.Comments = append(b.plan.Comments, PlanComment{Item: it.ForeignID, Body: p, Author: author, CreatedAt: at})
			}
		}
	}
	return b.finish(), nil
}

// beadsKind maps an issue_type; why is non-empty for types that are not
// work and are skipped.
func beadsKind(is *beadsIssue) (kind baton.Kind, label, why string) {
	switch t := strings.TrimSpace(is.IssueType); t {
	case "", "task":
		return baton.KindTask, "", ""
	case "bug", "feature", "epic", "chore":
		return baton.Kind(t), "", ""
	case "molecule", "convoy":
		return baton.KindEpic, "beads-type:" + t, ""
	case "gate", "merge-request":
		return baton.KindTask, "beads-type:" + t, ""
	case "message":
		return "", "", "a message between agents, not work (baton's messages are separate)"
	case "event":
		return "", "", "an event record, not work"
	case "agent", "role":
		return "", "", "an agent identity bead, not work"
	default:
		if utf8.RuneCountInString("beads-type:"+t) > MaxLabel {
			return baton.KindTask, "", ""
		}
		return baton.KindTask, "beads-type:" + t, ""
	}
}

// beadsSkip says why an issue is not imported, or "".
func beadsSkip(is *beadsIssue) string {
	switch {
	case strings.TrimSpace(is.Status) == "tombstone":
		if r := strings.TrimSpace(is.DeleteReason); r != "" {
			return "a tombstone: deleted in beads (" + r + ")"
		}
		return "a tombstone: deleted in beads"
	case is.IsTemplate:
		return "a template, not work"
	case is.Ephemeral:
		return "an ephemeral wisp, not kept by beads either"
	}
	return ""
}

// beadsStatus maps a status; label is one the status adds, blocked the
// blocked reason.
func beadsStatus(is *beadsIssue) (s baton.Status, label, blocked string) {
	st := strings.TrimSpace(is.Status)
	if is.Pinned && st != "closed" {
		st = "pinned"
	}
	switch st {
	case "", "open":
		return baton.StatusTodo, "", ""
	case "in_progress", "hooked":
		return baton.StatusInProgress, "", ""
	case "blocked":
		return baton.StatusBlocked, "", "blocked in beads"
	case "deferred":
		return baton.StatusBacklog, "", ""
	case "pinned":
		return baton.StatusBacklog, "pinned", ""
	case "closed":
		return baton.StatusDone, "", ""
	}
	return baton.StatusBacklog, "", ""
}

func beadsPriority(p *int) (baton.Priority, string) {
	if p == nil {
		return baton.PriorityCritical, "missing"
	}
	v := baton.Priority(min(max(*p, int(baton.PriorityCritical)), int(baton.PriorityBacklog)))
	return v, strconv.Itoa(*p)
}

func orMissing(s string) string {
	if s = strings.TrimSpace(s); s == "" {
		return "missing"
	}
	return s
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
