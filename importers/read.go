package importers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/baton-dev/baton"
)

// errTooBig is what limitedReader returns past MaxFileBytes.
var errTooBig = errors.New("file too big")

// limitedReader reads at most n bytes of r and fails on the next one.
type limitedReader struct {
	r io.Reader
	n int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n < 0 {
		return 0, errTooBig
	}
	if int64(len(p)) > l.n+1 {
		p = p[:l.n+1]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	if l.n < 0 {
		return n, errTooBig
	}
	return n, err
}

func tooBig(source string) error {
	return baton.Errorf(baton.ErrInvalidInput, "the %s file is larger than %d MiB", source, MaxFileBytes>>20).
		WithDetails("limit_bytes", MaxFileBytes).
		WithHint("split the file, or import a filtered export (bd export --status open, one Taskmaster tag)")
}

func tooMany(source string) error {
	return baton.Errorf(baton.ErrInvalidInput, "the %s file holds more than %d items", source, MaxItems).
		WithDetails("limit_items", MaxItems).
		WithHint("split the file and import the parts one after the other: items already imported are found again")
}

// jsonProblem says what is wrong with a JSON text, with the line and
// column of the problem when src is the text it is in (line 0 means: in
// the JSON of one line; then only the column counts).
func jsonProblem(err error, src []byte) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("invalid JSON at %s: %v", position(src, syn.Offset), syn)
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "the value"
		}
		return fmt.Sprintf("%s must be %s, not a JSON %s (at %s)", field, goType(typ.Type.String()), typ.Value, position(src, typ.Offset))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "invalid JSON: the text ends before the value does"
	}
	return "invalid JSON: " + err.Error()
}

func goType(t string) string {
	switch t {
	case "string":
		return "a string"
	case "int", "int64", "float64", "*int":
		return "a number"
	case "bool":
		return "true or false"
	}
	if len(t) > 2 && t[:2] == "[]" {
		return "an array"
	}
	return "an object"
}

// position is "line L, column C" of a byte offset (1-based), or "column
// C" when src is one line.
func position(src []byte, off int64) string {
	if off > int64(len(src)) {
		off = int64(len(src))
	}
	if off < 0 {
		off = 0
	}
	before := src[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - (bytes.LastIndexByte(before, '\n') + 1)
	if col < 1 {
		col = 1
	}
	if bytes.IndexByte(src, '\n') < 0 {
		return fmt.Sprintf("column %d", col)
	}
	return fmt.Sprintf("line %d, column %d", line, col)
}
