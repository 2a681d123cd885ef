package importers_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/importers"
)

func jsonLine(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func readLines(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return strings.Split(strings.TrimRight(string(b), "\n"), "\n"), nil
}

const okLine = `{"id":"a-1","title":"First","status":"open","priority":1}`

// TestBeadsErrors: a malformed file is refused with the line at fault,
// before any plan exists (so nothing can be written).
func TestBeadsErrors(t *testing.T) {
	for _, c := range []struct {
		name, file string
		line       int
		says       string
	}{
		{"bad JSON", okLine + "\n" + `{"id":"a-2","title":"Second"}` + "\n" + `{"id":"a-3","title":"Third",}`, 3, "invalid JSON at column 29"},
		{"not an object", `["a-1"]`, 1, "not a JSON object"},
		{"no id", okLine + "\n" + `{"title":"No id"}`, 2, "has no id"},
		{"repeated id", okLine + "\n\n" + okLine, 3, "also the id of line 1"},
		{"empty title", okLine + "\n" + `{"id":"a-2","title":"   "}`, 2, "empty title"},
		{"wrong type", `{"id":"a-1","title":"T","priority":"high"}`, 1, "priority must be a number, not a JSON string"},
		{"wrong nested type", okLine + "\n" + `{"id":"a-2","title":"T","dependencies":[{"depends_on_id":7}]}`, 2, "dependencies.depends_on_id must be a string"},
		{"a multi-line document", "{\n  \"tasks\": []\n}", 1, "invalid JSON"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := importers.Beads(strings.NewReader(c.file))
			e := baton.AsError(err)
			if p != nil || e == nil || e.Code != baton.ErrInvalidInput || e.Details["line"] != c.line ||
				!strings.Contains(e.Message, fmt.Sprintf("line %d:", c.line)) || !strings.Contains(e.Message, c.says) {
				t.Fatalf("got plan %v, error %v (details %v); want line %d saying %q", p, err, e.Details, c.line, c.says)
			}
		})
	}
	_, err := importers.Beads(strings.NewReader("{\n  \"tasks\": []\n}"))
	if !strings.Contains(baton.AsError(err).Hint, "--from taskmaster") {
		t.Errorf("no hint towards taskmaster: %v", err)
	}
}

// TestBeadsLimits: a line over 16 MiB, a file over 64 MiB and more than
// 100,000 issues are refused.
func TestBeadsLimits(t *testing.T) {
	long := okLine + "\n" + `{"id":"a-2","title":"` + strings.Repeat("x", importers.MaxLineBytes) + `"}` + "\n"
	_, err := importers.Beads(strings.NewReader(long))
	if e := baton.AsError(err); e == nil || e.Details["line"] != 2 || !strings.Contains(e.Message, "longer than 16 MiB") {
		t.Errorf("long line: %v", err)
	}
	// Blank lines are allowed, so only the size stops this file.
	_, err = importers.Beads(io.LimitReader(newlines{}, importers.MaxFileBytes+1))
	if e := baton.AsError(err); e == nil || !strings.Contains(e.Message, "larger than 64 MiB") {
		t.Errorf("big file: %v", err)
	}
	_, err = importers.Beads(io.LimitReader(newlines{}, importers.MaxFileBytes))
	if err != nil {
		t.Errorf("a file of exactly 64 MiB: %v", err)
	}
	var many bytes.Buffer
	for i := 0; i <= importers.MaxItems; i++ {
		fmt.Fprintf(&many, `{"id":"m-%d","title":"Item %d"}`+"\n", i, i)
	}
	_, err = importers.Beads(&many)
	if e := baton.AsError(err); e == nil || !strings.Contains(e.Message, "more than 100000 items") {
		t.Errorf("too many items: %v", err)
	}
}

type newlines struct{}

func (newlines) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '\n'
	}
	return len(p), nil
}

// TestTaskmasterErrors: a malformed tasks.json is refused with the JSON
// path (or line and column) at fault.
func TestTaskmasterErrors(t *testing.T) {
	for _, c := range []struct {
		name, file, path, says string
	}{
		{"syntax", "{\n  \"tasks\": [\n    {\"id\": 1, \"title\": \"A\",}\n  ]\n}", "", "invalid JSON at line 3, column"},
		{"top-level array", `[{"id": 1}]`, "", "must be a JSON object"},
		{"no tasks", `{"metadata": {}}`, "", "no \"tasks\" list"},
		{"title a number", `{"tasks": [{"id": 1, "title": "A"}, {"id": 2, "title": 7}]}`, "tasks[1].title", "must be a string, not a JSON number"},
		{"no id", `{"tasks": [{"title": "A"}]}`, "tasks[0].id", "has no id"},
		{"fractional id", `{"tasks": [{"id": 1.5, "title": "A"}]}`, "tasks[0].id", "whole number or a string"},
		{"repeated id", `{"tasks": [{"id": 1, "title": "A"}, {"id": "1", "title": "B"}]}`, "tasks[1].id", "also the id of tasks[0]"},
		{"no title", `{"master": {"tasks": [{"id": 1, "title": ""}]}}`, "master.tasks[0].title", "has no title"},
		{"bad dependency", `{"master": {"tasks": [{"id": 1, "title": "A", "subtasks": [{"id": 1, "title": "S"}, {"id": 2, "title": "T", "dependencies": [{"id": 1}]}]}]}}`,
			"master.tasks[0].subtasks[1].dependencies[0]", "whole number or a string"},
		{"tag not an object", `{"master": {"tasks": []}, "feature": []}`, "feature", "must be an object, not a JSON array"},
		{"subtask of a subtask", `{"tasks": [{"id": 1, "title": "A", "subtasks": [{"id": 1, "title": "S", "subtasks": [{"id": 1, "title": "X"}]}]}]}`,
			"tasks[0].subtasks[0].subtasks", "cannot have subtasks"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := importers.Taskmaster(strings.NewReader(c.file))
			e := baton.AsError(err)
			if p != nil || e == nil || e.Code != baton.ErrInvalidInput || !strings.Contains(e.Message, c.says) ||
				(c.path != "" && (e.Details["path"] != c.path || !strings.Contains(e.Message, "at "+c.path+":"))) {
				t.Fatalf("got plan %v, error %v (details %v); want path %q saying %q", p, err, e.Details, c.path, c.says)
			}
		})
	}
	_, err := importers.Taskmaster(strings.NewReader(okLine + "\n" + okLine))
	if !strings.Contains(baton.AsError(err).Hint, "--from beads") {
		t.Errorf("no hint towards beads: %v", err)
	}
}
