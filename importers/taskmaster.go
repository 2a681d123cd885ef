package importers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/baton-dev/baton"
)

// tmMaster is Taskmaster's default tag: the flat {"tasks": [...]} form is
// the master tag's tasks, as Taskmaster itself reads it.
const tmMaster = "master"

// tmTask is a task or a subtask of tasks.json. Ids and dependencies are
// numbers or strings, depending on the Taskmaster version; fields this
// import does not use are ignored.
type tmTask struct {
	ID                 json.RawMessage   `json:"id"`
	Title              string            `json:"title"`
	Description        string            `json:"description"`
	Details            string            `json:"details"`
	TestStrategy       string            `json:"testStrategy"`
	Status             string            `json:"status"`
	Priority           string            `json:"priority"`
	Dependencies       []json.RawMessage `json:"dependencies"`
	Subtasks           []json.RawMessage `json:"subtasks"`
	Type               string            `json:"type"`
	AcceptanceCriteria json.RawMessage   `json:"acceptanceCriteria"`
	Assignee           string            `json:"assignee"`
	Tags               []string          `json:"tags"`
	CreatedAt          string            `json:"createdAt"`
	UpdatedAt          string            `json:"updatedAt"`
}

// tmRef is one entry of a dependencies list.
type tmRef struct {
	text    string
	numeric bool // a JSON number, which a subtask reads as a sibling
	path    string
}

type tmEntry struct {
	tag, id, key string // key: the foreign id, tag-qualified outside master
	task         *tmTask
	parent       *tmEntry // for a subtask
	subtasks     map[string]*tmEntry
	deps         []tmRef
	path         string
}

// Taskmaster reads Taskmaster's tasks.json into a plan: the flat form
// {"tasks": [...], "metadata": {...}} or the tagged one {"master":
// {"tasks": [...]}, "feature-x": {...}}, every tag of it. A value of the
// wrong type, a task without an id or title, or a repeated id is an error
// naming its JSON path (master.tasks[3].subtasks[0].title), and nothing is
// planned. The package documentation has the mapping.
func Taskmaster(r io.Reader) (*Plan, error) {
	src, err := io.ReadAll(&limitedReader{r: r, n: MaxFileBytes})
	if errors.Is(err, errTooBig) {
		return nil, tooBig(SourceTaskmaster)
	}
	if err != nil {
		return nil, err
	}
	src = bytes.TrimPrefix(src, []byte("\ufeff"))
	if err := json.Unmarshal(src, new(json.RawMessage)); err != nil {
		e := baton.Errorf(baton.ErrInvalidInput, "taskmaster file: %s", jsonProblem(err, src)).
			WithHint("the file must be one JSON document, Taskmaster's tasks.json: nothing was imported")
		var syn *json.SyntaxError
		if errors.As(err, &syn) && bytes.HasPrefix(bytes.TrimSpace(src), []byte("{")) && strings.Contains(syn.Error(), "after top-level value") {
			e = e.WithHint("one JSON object per line is beads' format: import it with --from beads")
		}
		return nil, e
	}
	top, err := orderedObject(src, "")
	if err != nil {
		return nil, err
	}
	b := newBuilder(SourceTaskmaster)
	var tags []string
	lists := map[string][]json.RawMessage{}
	tagged := false
	for _, kv := range top {
		if kv.key != "tasks" && kv.key != "metadata" {
			tagged = true
		}
	}
	if !tagged {
		var tasks []json.RawMessage
		raw := valueOf(top, "tasks")
		if raw == nil {
			return nil, pathError("", "the file has no \"tasks\" list and no tags").
				WithHint("Taskmaster writes {\"tasks\": [...]} or, with tags, {\"master\": {\"tasks\": [...]}}")
		}
		if err := decodeAt(raw, &tasks, "tasks"); err != nil {
			return nil, err
		}
		tags, lists[tmMaster] = []string{tmMaster}, tasks
	} else {
		for _, kv := range top {
			if kv.key == "tasks" || kv.key == "metadata" {
				b.skip(Skip{Kind: SkipField, Target: kv.key, Where: kv.key,
					Reason: "a tagged file keeps its tasks under each tag: the top-level " + kv.key + " is not read (nor by Taskmaster)"})
				continue
			}
			var tag struct {
				Tasks []json.RawMessage `json:"tasks"`
			}
			if err := decodeAt(kv.value, &tag, kv.key); err != nil {
				return nil, err
			}
			tags, lists[kv.key] = append(tags, kv.key), tag.Tasks
		}
	}

	// Read every task of every tag before resolving dependencies, which
	// may name later tasks.
	var order []*tmEntry
	byTag := map[string]map[string]*tmEntry{}
	count := 0
	for _, tag := range tags {
		base := "" // paths of the flat form start at tasks[i]
		if tagged {
			base = tag + "."
		}
		tasks := map[string]*tmEntry{}
		byTag[tag] = tasks
		for i, raw := range lists[tag] {
			path := fmt.Sprintf("%stasks[%d]", base, i)
			e, err := readTask(raw, path, tag, nil)
			if err != nil {
				return nil, err
			}
			if prev := tasks[e.id]; prev != nil {
				return nil, pathError(path+".id", "the id %s is also the id of %s", e.id, prev.path)
			}
			tasks[e.id] = e
			order = append(order, e)
			if count++; count > MaxItems {
				return nil, tooMany(SourceTaskmaster)
			}
			for j, sraw := range e.task.Subtasks {
				spath := fmt.Sprintf("%s.subtasks[%d]", path, j)
				s, err := readTask(sraw, spath, tag, e)
				if err != nil {
					return nil, err
				}
				if prev := e.subtasks[s.id]; prev != nil {
					return nil, pathError(spath+".id", "the id %s is also the id of %s", s.id, prev.path)
				}
				e.subtasks[s.id] = s
				order = append(order, s)
				if count++; count > MaxItems {
					return nil, tooMany(SourceTaskmaster)
				}
			}
		}
	}

	taggedLabel := len(tags) > 1
	for _, e := range order {
		planTask(b, e, taggedLabel)
	}
	seen := map[[2]string]bool{}
	for _, e := range order {
		for _, d := range e.deps {
			target, why := resolveRef(byTag[e.tag], e, d)
			if target == nil {
				b.skip(Skip{Kind: SkipDependency, ForeignID: e.key, Target: d.text, Where: d.path, Reason: why})
				continue
			}
			if target == e {
				b.skip(Skip{Kind: SkipDependency, ForeignID: e.key, Target: d.text, Where: d.path, Reason: "a task cannot depend on itself"})
				continue
			}
			b.depend(e.key, target.key, d.path, seen)
		}
	}
	return b.finish(), nil
}

// readTask decodes one task or subtask at path.
func readTask(raw json.RawMessage, path, tag string, parent *tmEntry) (*tmEntry, error) {
	var t tmTask
	if err := decodeAt(raw, &t, path); err != nil {
		return nil, err
	}
	id, _, err := refText(t.ID, path+".id")
	if err != nil {
		return nil, err
	}
	if id == "" {
		return nil, pathError(path+".id", "the task has no id")
	}
	if strings.Contains(id, ".") && parent == nil {
		return nil, pathError(path+".id", "a task id cannot contain a dot (%s): dotted ids name subtasks", id)
	}
	if parent != nil {
		if strings.Contains(id, ".") {
			// Some versions write a subtask's full id, "3.2".
			p, sub, _ := strings.Cut(id, ".")
			if p != parent.id || sub == "" || strings.Contains(sub, ".") {
				return nil, pathError(path+".id", "the subtask id %s does not belong to task %s", id, parent.id)
			}
			id = sub
		}
		if len(t.Subtasks) > 0 {
			return nil, pathError(path+".subtasks", "a subtask cannot have subtasks of its own")
		}
	}
	e := &tmEntry{tag: tag, id: id, task: &t, parent: parent, subtasks: map[string]*tmEntry{}, path: path}
	full := id
	if parent != nil {
		full = parent.id + "." + id
	}
	e.key = full
	if tag != tmMaster {
		e.key = tag + "/" + full
	}
	for i, d := range t.Dependencies {
		dp := fmt.Sprintf("%s.dependencies[%d]", path, i)
		text, numeric, err := refText(d, dp)
		if err != nil {
			return nil, err
		}
		if text == "" {
			return nil, pathError(dp, "an empty dependency")
		}
		e.deps = append(e.deps, tmRef{text: text, numeric: numeric, path: dp})
	}
	if strings.TrimSpace(t.Title) == "" {
		return nil, pathError(path+".title", "the task %s has no title", full)
	}
	return e, nil
}

// refText reads an id or a dependency: a whole number or a string.
func refText(raw json.RawMessage, path string) (text string, numeric bool, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "", false, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", false, pathError(path, "%s", jsonProblem(err, raw))
		}
		return strings.TrimSpace(s), false, nil
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil || f < 0 || f != math.Trunc(f) || f > 1e15 {
		return "", false, pathError(path, "must be a whole number or a string, not %s", string(raw))
	}
	return strconv.FormatInt(int64(f), 10), true, nil
}

// resolveRef finds what a dependency names: "N.M" is subtask M of task N;
// in a subtask, a number is its sibling when the task has one (as
// Taskmaster reads it), else a task; anything else is a task.
func resolveRef(tasks map[string]*tmEntry, e *tmEntry, d tmRef) (*tmEntry, string) {
	if p, sub, ok := strings.Cut(d.text, "."); ok {
		t := tasks[p]
		if t == nil {
			return nil, "task " + p + " is not in the file"
		}
		if s := t.subtasks[sub]; s != nil {
			return s, ""
		}
		return nil, "task " + p + " has no subtask " + sub
	}
	if e.parent != nil && d.numeric {
		if s := e.parent.subtasks[d.text]; s != nil {
			return s, ""
		}
	}
	if t := tasks[d.text]; t != nil {
		return t, ""
	}
	if e.parent != nil {
		if s := e.parent.subtasks[d.text]; s != nil {
			return s, ""
		}
	}
	return nil, "task " + d.text + " is not in the file"
}

func planTask(b *builder, e *tmEntry, taggedLabel bool) {
	t := e.task
	ti, full := title(t.Title)
	status := tmStatus(t.Status)
	prio, prioFrom := tmPriority(t.Priority)
	if strings.TrimSpace(t.Priority) == "" && e.parent != nil {
		// A subtask rarely has a priority of its own: it shares its task's.
		parent, _ := b.item(e.parent.key)
		prio, prioFrom = parent.Priority, "missing (the task's)"
	}
	it := &PlanItem{ForeignID: e.key, Label: provenance(SourceTaskmaster, e.key), Title: ti, Kind: baton.KindTask,
		Status: status, Priority: prio}
	if e.parent != nil {
		it.Parent = e.parent.key
	}
	kindFrom := "task"
	if e.parent != nil {
		kindFrom = "subtask"
	}
	rep := b.add(it, ItemReport{Where: e.path, Parent: it.Parent,
		Status:   Mapped{From: orMissing(t.Status), To: string(status)},
		Priority: Mapped{From: prioFrom, To: strconv.Itoa(int(prio))},
		Kind:     Mapped{From: kindFrom, To: string(baton.KindTask)}})
	switch status {
	case baton.StatusDone:
		it.Progress = 100
	case baton.StatusBlocked:
		it.BlockedReason = "blocked in Taskmaster"
	}
	var extra []string
	if ty := strings.TrimSpace(t.Type); ty != "" && ty != "standard" {
		extra = append(extra, "taskmaster-type:"+ty)
	}
	if taggedLabel {
		extra = append(extra, "taskmaster-tag:"+e.tag)
	}
	it.Labels = b.labels(e.key, e.path, t.Tags, extra...)
	if a := strings.TrimSpace(cleanText(t.Assignee)); utf8.RuneCountInString(a) > MaxAssignee {
		b.skip(Skip{Kind: SkipField, ForeignID: e.key, Target: "assignee", Where: e.path, Reason: fmt.Sprintf("longer than %d characters", MaxAssignee)})
	} else {
		it.Assignee = a
	}
	var ok bool
	if it.CreatedAt, ok = timestamp(t.CreatedAt); !ok {
		b.skip(Skip{Kind: SkipField, ForeignID: e.key, Target: "createdAt", Where: e.path, Reason: "not an RFC 3339 time: the import's time is used"})
	}
	if it.UpdatedAt, ok = timestamp(t.UpdatedAt); !ok {
		b.skip(Skip{Kind: SkipField, ForeignID: e.key, Target: "updatedAt", Where: e.path, Reason: "not an RFC 3339 time: createdAt is used"})
	}
	main := t.Description
	if full != "" {
		b.note(rep, "title clipped to %d characters; the full title heads the description", MaxTitle)
		main = "Full title: " + full + "\n\n" + main
	}
	sections := []section{{"Details", t.Details}, {"Test strategy", t.TestStrategy}, {"Acceptance criteria", criteria(t.AcceptanceCriteria)}}
	var appended []string
	for _, s := range sections {
		if strings.TrimSpace(s.body) != "" {
			appended = append(appended, strings.ToLower(s.heading))
		}
	}
	if len(appended) > 0 {
		b.note(rep, "appended to the description under headings: %s", strings.Join(appended, ", "))
	}
	desc, rest := fit(compose(main, sections...))
	it.Description = desc
	if len(rest) > 0 {
		b.note(rep, "description over %d characters: the rest is in %d comments", MaxDescription, len(rest))
	}
	for _, body := range rest {
		b.plan.Comments = append(b.plan.Comments, PlanComment{Item: it.ForeignID, Body: body, CreatedAt: it.CreatedAt})
	}
}

// criteria reads acceptanceCriteria: a string, or a list of them (a
// bullet list).
func criteria(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		for i, c := range list {
			list[i] = "- " + strings.TrimSpace(c)
		}
		return strings.Join(list, "\n")
	}
	return ""
}

func tmStatus(s string) baton.Status {
	switch strings.TrimSpace(s) {
	case "", "pending":
		return baton.StatusTodo
	case "in-progress":
		return baton.StatusInProgress
	case "review":
		return baton.StatusReview
	case "blocked":
		return baton.StatusBlocked
	case "deferred":
		return baton.StatusBacklog
	case "done", "completed":
		return baton.StatusDone
	case "cancelled":
		return baton.StatusCancelled
	}
	return baton.StatusBacklog
}

func tmPriority(s string) (baton.Priority, string) {
	switch strings.TrimSpace(s) {
	case "critical":
		return baton.PriorityCritical, s
	case "high":
		return baton.PriorityHigh, s
	case "", "medium":
		return baton.PriorityNormal, orMissing(s)
	case "low":
		return baton.PriorityLow, s
	}
	return baton.PriorityNormal, s
}

// keyValue is one member of a JSON object, in the file's order.
type keyValue struct {
	key   string
	value json.RawMessage
}

// orderedObject reads a JSON object's members in order (a Go map would
// lose the order of Taskmaster's tags).
func orderedObject(src []byte, path string) ([]keyValue, error) {
	dec := json.NewDecoder(bytes.NewReader(src))
	tok, err := dec.Token()
	if err != nil {
		return nil, pathError(path, "%s", jsonProblem(err, src))
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, pathError(path, "must be a JSON object").
			WithHint("Taskmaster writes {\"tasks\": [...]} or, with tags, {\"master\": {\"tasks\": [...]}}")
	}
	var out []keyValue
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, pathError(path, "%s", jsonProblem(err, src))
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, pathError(path, "%s", jsonProblem(err, src))
		}
		out = append(out, keyValue{key: tok.(string), value: v})
	}
	return out, nil
}

func valueOf(kvs []keyValue, key string) json.RawMessage {
	for _, kv := range kvs {
		if kv.key == key {
			return kv.value
		}
	}
	return nil
}

// decodeAt decodes raw into v, naming path in any error.
func decodeAt(raw json.RawMessage, v any, path string) error {
	if err := json.Unmarshal(raw, v); err != nil {
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) {
			at := path
			if typ.Field != "" {
				at = join(path, typ.Field)
			}
			return pathError(at, "must be %s, not a JSON %s", goType(typ.Type.String()), typ.Value)
		}
		return pathError(path, "%s", jsonProblem(err, raw))
	}
	return nil
}

func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

func pathError(path, format string, args ...any) *baton.Error {
	at := path
	if at == "" {
		at = "the top level"
	}
	return baton.Errorf(baton.ErrInvalidInput, "taskmaster file, at %s: %s", at, fmt.Sprintf(format, args...)).
		WithDetails("path", path).
		WithHint("fix that value of tasks.json (Taskmaster's validate-dependencies and fix-dependencies help), then import again: nothing was imported")
}
