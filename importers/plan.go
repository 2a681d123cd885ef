package importers

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/baton-dev/baton"
)

// Sources are the formats Parse reads, as `baton import --from` names them.
const (
	SourceBeads      = "beads"
	SourceTaskmaster = "taskmaster"
)

// Sources lists every format Parse reads.
var Sources = []string{SourceBeads, SourceTaskmaster}

// Limits of an import. The text limits are the tools' own (create_issue,
// create_bead, add_comment), so an imported item is one a tool could have
// made.
const (
	MaxFileBytes   = 64 << 20 // a whole file
	MaxLineBytes   = 16 << 20 // one line of a JSON Lines file
	MaxItems       = 100_000  // items in one file, subtasks included
	MaxTitle       = 256      // characters; longer titles are clipped
	MaxDescription = 8000     // characters; the rest continues in comments
	MaxComment     = 20000    // characters; longer comments are split
	MaxLabels      = 20       // labels on one item, the provenance label included
	MaxLabel       = 64       // characters of one label
	MaxAssignee    = 128      // characters of an assignee name
)

// Plan is what a file asks for, in baton's terms: the items to create, in
// the file's order, with their parents, dependencies and comments, and the
// report of how the file's values were mapped. Items name each other by
// their foreign id; Apply gives them baton ids.
type Plan struct {
	Source       string // SourceBeads or SourceTaskmaster
	Items        []*PlanItem
	Dependencies []PlanDependency
	Comments     []PlanComment
	// Report is what parsing decided; Apply returns a copy with the baton
	// ids and what the store did.
	Report *Report
}

// PlanItem is one work item to create.
type PlanItem struct {
	ForeignID string // the id in the file: bd-a1b2, 3.2, feature/3.2
	// Label is the provenance label (beads:bd-a1b2): how a later import
	// of the same file finds the item. It is added to Labels on creation.
	Label       string
	Title       string
	Description string
	Kind        baton.Kind
	Status      baton.Status
	Priority    baton.Priority
	Labels      []string // the file's labels, mapped; without Label
	Assignee    string
	Parent      string // ForeignID of the parent item; "" for none
	Progress    int
	// EstimateHours is beads' estimated_minutes in hours, or nil.
	EstimateHours *float64
	BlockedReason string
	CloseReason   string
	CreatedBy     string    // "" when the file names nobody: ApplyOptions.By
	CreatedAt     time.Time // zero when the file does not say: the import's time
	UpdatedAt     time.Time // zero: CreatedAt
}

// PlanDependency says that Item cannot start before DependsOn is done
// (both foreign ids of the plan's items).
type PlanDependency struct {
	Item, DependsOn string
	Where           string // where the file says so, for the report
}

// PlanComment is a comment on an item, in the order to add them.
type PlanComment struct {
	Item      string // foreign id
	Body      string
	Author    string    // "" when unknown: ApplyOptions.By
	CreatedAt time.Time // zero: the import's time
}

// Report says what an import mapped to what, what it created (or, on a
// dry run, would create) and what it left out, and why. It marshals as the
// JSON `baton import --json` prints.
type Report struct {
	Source   string `json:"source"`
	Project  string `json:"project,omitempty"`
	DryRun   bool   `json:"dry_run"`
	Imported bool   `json:"imported"` // committed: false before Apply and on a dry run
	// Counts: items created (or that a dry run would create), items an
	// earlier import created, dependencies and comments added.
	Created         int `json:"created"`
	AlreadyImported int `json:"already_imported"`
	Dependencies    int `json:"dependencies"`
	Comments        int `json:"comments"`
	// Items is one entry per item of the plan, in the file's order.
	Items []ItemReport `json:"items"`
	// Mappings counts each foreign value and what it became (status open
	// became todo 12 times, ...): the mapping tables as this file used them.
	Mappings []Mapping `json:"mappings"`
	// Skipped is everything the file holds that was not imported as it
	// stands, each with its reason.
	Skipped []Skip `json:"skipped"`
}

// Actions of ItemReport.
const (
	ActionCreated         = "created" // on a dry run: would be created
	ActionAlreadyImported = "already_imported"
)

// ItemReport is one item of the plan: where it came from, what it became.
type ItemReport struct {
	ForeignID string `json:"foreign_id"`
	ID        string `json:"id,omitempty"`     // baton id, once applied
	Action    string `json:"action,omitempty"` // ActionCreated or ActionAlreadyImported, once applied
	Where     string `json:"where"`            // line 7, master.tasks[2].subtasks[0]
	Title     string `json:"title"`
	// Status is the file's status and the one the item was created in
	// (blocked for a parent its new sub-tasks hold back).
	Status   Mapped `json:"status"`
	Priority Mapped `json:"priority"`
	Kind     Mapped `json:"kind"`
	Parent   string `json:"parent,omitempty"` // foreign id of its parent
	// Notes say what changed on the way in: a clipped title, extra fields
	// appended to the description, text continued in comments.
	Notes []string `json:"notes,omitempty"`
}

// Mapped is a foreign value and the baton value it became.
type Mapped struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Mapping is one row of the mapping tables as a file used them.
type Mapping struct {
	Field string `json:"field"` // status, priority, kind
	From  string `json:"from"`
	To    string `json:"to"`
	Count int    `json:"count"`
}

// Kinds of Skip.
const (
	SkipItem       = "item"
	SkipDependency = "dependency"
	SkipParent     = "parent"
	SkipComment    = "comment"
	SkipLabel      = "label"
	SkipField      = "field"
)

// Skip is something of the file that was not imported as it stands.
type Skip struct {
	Kind      string `json:"kind"`             // item, dependency, parent, comment, label, field
	ForeignID string `json:"foreign_id"`       // the item it belongs to
	Target    string `json:"target,omitempty"` // the dependency's target, the label, the field
	Where     string `json:"where,omitempty"`
	Reason    string `json:"reason"`
}

// Parse reads a file of the named source (SourceBeads or SourceTaskmaster).
func Parse(source string, r io.Reader) (*Plan, error) {
	switch source {
	case SourceBeads:
		return Beads(r)
	case SourceTaskmaster:
		return Taskmaster(r)
	}
	return nil, baton.Errorf(baton.ErrInvalidInput, "unknown import source %q", source).
		WithDetails("field", "from", "allowed", Sources).
		WithHint("import from one of: %s", strings.Join(Sources, ", "))
}

// builder assembles a plan while a file is read.
type builder struct {
	source string
	plan   *Plan
	index  map[string]int // foreign id -> position in plan.Items
	counts map[Mapping]int
}

func newBuilder(source string) *builder {
	return &builder{
		source: source,
		plan:   &Plan{Source: source, Report: &Report{Source: source, Items: []ItemReport{}, Mappings: []Mapping{}, Skipped: []Skip{}}},
		index:  map[string]int{},
		counts: map[Mapping]int{},
	}
}

// add appends an item with its report entry and returns the entry.
func (b *builder) add(it *PlanItem, rep ItemReport) *ItemReport {
	b.index[it.ForeignID] = len(b.plan.Items)
	b.plan.Items = append(b.plan.Items, it)
	rep.ForeignID, rep.Title = it.ForeignID, it.Title
	b.plan.Report.Items = append(b.plan.Report.Items, rep)
	for _, m := range []Mapping{{Field: "status", From: rep.Status.From, To: rep.Status.To},
		{Field: "priority", From: rep.Priority.From, To: rep.Priority.To}, {Field: "kind", From: rep.Kind.From, To: rep.Kind.To}} {
		if b.counts[m] == 0 {
			b.plan.Report.Mappings = append(b.plan.Report.Mappings, m)
		}
		b.counts[m]++
	}
	return &b.plan.Report.Items[len(b.plan.Report.Items)-1]
}

func (b *builder) item(id string) (*PlanItem, *ItemReport) {
	i, ok := b.index[id]
	if !ok {
		return nil, nil
	}
	return b.plan.Items[i], &b.plan.Report.Items[i]
}

func (b *builder) skip(s Skip) { b.plan.Report.Skipped = append(b.plan.Report.Skipped, s) }

func (b *builder) note(rep *ItemReport, format string, args ...any) {
	rep.Notes = append(rep.Notes, fmt.Sprintf(format, args...))
}

// depend records a dependency once; a second mention of the same pair is
// dropped silently.
func (b *builder) depend(item, on, where string, seen map[[2]string]bool) {
	k := [2]string{item, on}
	if seen[k] {
		return
	}
	seen[k] = true
	b.plan.Dependencies = append(b.plan.Dependencies, PlanDependency{Item: item, DependsOn: on, Where: where})
}

// finish fills in the mapping counts and breaks parent cycles.
func (b *builder) finish() *Plan {
	for i := range b.plan.Report.Mappings {
		m := &b.plan.Report.Mappings[i]
		m.Count = b.counts[Mapping{Field: m.Field, From: m.From, To: m.To}]
	}
	// The tables read status, priority, kind, each by its foreign values.
	field := map[string]int{"status": 0, "priority": 1, "kind": 2}
	slices.SortStableFunc(b.plan.Report.Mappings, func(x, y Mapping) int {
		if c := cmp.Compare(field[x.Field], field[y.Field]); c != 0 {
			return c
		}
		return cmp.Compare(x.From, y.From)
	})
	// A parent chain that comes back to where it started has no root to
	// create first: the link that closes it is dropped.
	for _, it := range b.plan.Items {
		seen := map[string]bool{it.ForeignID: true}
		for cur := it; cur.Parent != ""; {
			next, _ := b.item(cur.Parent)
			if next == nil {
				break
			}
			if seen[next.ForeignID] {
				b.skip(Skip{Kind: SkipParent, ForeignID: cur.ForeignID, Target: cur.Parent, Where: b.where(cur.ForeignID),
					Reason: "this parent link closes a cycle of parents; the item is imported without a parent"})
				cur.Parent = ""
				_, crep := b.item(cur.ForeignID)
				crep.Parent = ""
				break
			}
			seen[next.ForeignID] = true
			cur = next
		}
	}
	return b.plan
}

func (b *builder) where(id string) string {
	_, rep := b.item(id)
	if rep == nil {
		return ""
	}
	return rep.Where
}

// provenance is the label that names an item's origin: source:id, or a
// digest of the id when that would be longer than a label may be.
func provenance(source, id string) string {
	l := source + ":" + id
	if utf8.RuneCountInString(l) <= MaxLabel {
		return l
	}
	sum := sha256.Sum256([]byte(id))
	return source + ":#" + hex.EncodeToString(sum[:8])
}

// cleanText drops NUL characters, which PostgreSQL's text cannot hold.
func cleanText(s string) string { return strings.ReplaceAll(s, "\x00", "") }

// title normalises a foreign title: one line, trimmed, at most MaxTitle
// characters. full is the whole title when it was clipped, else "".
func title(s string) (t, full string) {
	s = cleanText(s)
	s = strings.Join(strings.Fields(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)), " ")
	if utf8.RuneCountInString(s) <= MaxTitle {
		return s, ""
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:MaxTitle-1])) + "…", s
}

// section is a heading and its text, appended to a description.
type section struct{ heading, body string }

// compose joins a description and its sections; empty ones are left out.
func compose(main string, sections ...section) string {
	parts := []string{}
	if m := strings.TrimSpace(cleanText(main)); m != "" {
		parts = append(parts, m)
	}
	for _, s := range sections {
		if body := strings.TrimSpace(cleanText(s.body)); body != "" {
			parts = append(parts, "## "+s.heading+"\n\n"+body)
		}
	}
	return strings.Join(parts, "\n\n")
}

// continuedMarker ends a description whose text continues in comments.
const continuedMarker = "\n\n[continued in the comments: the imported text is longer than 8000 characters]"

// fit cuts text to MaxDescription characters; what does not fit comes
// back as the bodies of the comments that continue it.
func fit(text string) (desc string, rest []string) {
	if utf8.RuneCountInString(text) <= MaxDescription {
		return text, nil
	}
	first := MaxDescription - utf8.RuneCountInString(continuedMarker)
	head, tail := cut(text, first)
	const header = "Imported description, continued (part %d of %d):\n\n"
	chunks := split(tail, MaxComment-len(header)-8)
	for i, c := range chunks {
		rest = append(rest, fmt.Sprintf(header, i+1, len(chunks))+c)
	}
	return head + continuedMarker, rest
}

// cut splits s after at most n characters, at the last line break of the
// second half of that span when there is one.
func cut(s string, n int) (head, tail string) {
	r := []rune(s)
	if len(r) <= n {
		return s, ""
	}
	at := n
	for i := n; i > n/2; i-- {
		if r[i-1] == '\n' {
			at = i
			break
		}
	}
	return strings.TrimRight(string(r[:at]), "\n"), strings.TrimLeft(string(r[at:]), "\n")
}

// split cuts s into pieces of at most n characters.
func split(s string, n int) []string {
	var out []string
	for s != "" {
		var head string
		head, s = cut(s, n)
		out = append(out, head)
	}
	return out
}

// splitComment is a comment body in pieces add_comment would take.
func splitComment(body string) []string {
	if utf8.RuneCountInString(body) <= MaxComment {
		return []string{body}
	}
	const header = "(part %d of %d)\n\n"
	parts := split(body, MaxComment-len(header)-8)
	for i := range parts {
		parts[i] = fmt.Sprintf(header, i+1, len(parts)) + parts[i]
	}
	return parts
}

// labels maps a file's labels onto baton's rules: trimmed, at most
// MaxLabel characters, no phase:* label (that would move the item into a
// pipeline phase; it becomes source-phase:...), nothing in the provenance
// namespace, and room left for the provenance label.
func (b *builder) labels(id, where string, raw []string, extra ...string) []string {
	out := []string{}
	add := func(l string) {
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	for _, l := range raw {
		l = strings.TrimSpace(cleanText(l))
		switch {
		case l == "":
			continue
		case utf8.RuneCountInString(l) > MaxLabel:
			b.skip(Skip{Kind: SkipLabel, ForeignID: id, Target: l, Where: where,
				Reason: fmt.Sprintf("longer than %d characters", MaxLabel)})
			continue
		case strings.HasPrefix(l, b.source+":"):
			b.skip(Skip{Kind: SkipLabel, ForeignID: id, Target: l, Where: where,
				Reason: "in the namespace of the import's provenance labels"})
			continue
		case baton.IsPhaseLabel(l):
			renamed := b.source + "-" + l
			if utf8.RuneCountInString(renamed) > MaxLabel {
				b.skip(Skip{Kind: SkipLabel, ForeignID: id, Target: l, Where: where,
					Reason: "a phase:* label would move the item into a pipeline phase, and renamed it is too long"})
				continue
			}
			b.skip(Skip{Kind: SkipLabel, ForeignID: id, Target: l, Where: where,
				Reason: "a phase:* label would move the item into a pipeline phase: imported as " + renamed})
			l = renamed
		}
		add(l)
	}
	for _, l := range extra {
		add(l)
	}
	if len(out) > MaxLabels-1 {
		for _, l := range out[MaxLabels-1:] {
			b.skip(Skip{Kind: SkipLabel, ForeignID: id, Target: l, Where: where,
				Reason: fmt.Sprintf("an item carries at most %d labels, the provenance label included", MaxLabels)})
		}
		out = out[:MaxLabels-1]
	}
	return out
}

// timestamp reads an RFC 3339 time; "" and unreadable times are zero (ok
// false for an unreadable one).
func timestamp(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, true
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, false
	}
	return t.UTC(), true
}

// check refuses a plan Apply cannot create as it stands; plans from Beads
// and Taskmaster always pass.
func (p *Plan) check() error {
	bad := func(format string, args ...any) error {
		return baton.Errorf(baton.ErrInvalidInput, "import plan: "+format, args...).
			WithHint("build plans with importers.Beads or importers.Taskmaster")
	}
	if p == nil || p.Report == nil {
		return bad("no plan")
	}
	if len(p.Items) != len(p.Report.Items) {
		return bad("%d items but %d report entries", len(p.Items), len(p.Report.Items))
	}
	if len(p.Items) > MaxItems {
		return bad("%d items, more than %d", len(p.Items), MaxItems)
	}
	ids := make(map[string]*PlanItem, len(p.Items))
	labels := make(map[string]bool, len(p.Items))
	for _, it := range p.Items {
		switch {
		case it.ForeignID == "":
			return bad("an item has no foreign id")
		case ids[it.ForeignID] != nil:
			return bad("two items have the foreign id %q", it.ForeignID)
		case it.Label == "" || labels[it.Label] || utf8.RuneCountInString(it.Label) > MaxLabel:
			return bad("item %q has a missing, repeated or too long provenance label %q", it.ForeignID, it.Label)
		case strings.TrimSpace(it.Title) == "" || utf8.RuneCountInString(it.Title) > MaxTitle:
			return bad("item %q has an empty title or one over %d characters", it.ForeignID, MaxTitle)
		case utf8.RuneCountInString(it.Description) > MaxDescription:
			return bad("item %q has a description over %d characters", it.ForeignID, MaxDescription)
		case !it.Status.Valid() || !it.Priority.Valid():
			return bad("item %q has status %q, priority %d", it.ForeignID, it.Status, it.Priority)
		case len(it.Labels)+1 > MaxLabels:
			return bad("item %q has more than %d labels", it.ForeignID, MaxLabels-1)
		}
		ids[it.ForeignID], labels[it.Label] = it, true
	}
	for _, it := range p.Items {
		seen := map[string]bool{it.ForeignID: true}
		for cur := it; cur.Parent != ""; {
			next := ids[cur.Parent]
			if next == nil {
				return bad("item %q has the unknown parent %q", cur.ForeignID, cur.Parent)
			}
			if seen[next.ForeignID] {
				return bad("the parents of %q form a cycle", it.ForeignID)
			}
			seen[next.ForeignID] = true
			cur = next
		}
	}
	for _, d := range p.Dependencies {
		if ids[d.Item] == nil || ids[d.DependsOn] == nil {
			return bad("dependency %q -> %q names an unknown item", d.Item, d.DependsOn)
		}
	}
	for _, c := range p.Comments {
		if ids[c.Item] == nil {
			return bad("a comment is on the unknown item %q", c.Item)
		}
		if strings.TrimSpace(c.Body) == "" || utf8.RuneCountInString(c.Body) > MaxComment {
			return bad("a comment on %q is empty or over %d characters", c.Item, MaxComment)
		}
	}
	return nil
}

// clone copies a report deeply, so Apply never changes the plan's.
func (r *Report) clone() *Report {
	c := *r
	c.Items = slices.Clone(r.Items)
	for i := range c.Items {
		c.Items[i].Notes = slices.Clone(c.Items[i].Notes)
	}
	c.Mappings = slices.Clone(r.Mappings)
	c.Skipped = slices.Clone(r.Skipped)
	return &c
}
