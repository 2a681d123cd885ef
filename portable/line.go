package portable

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

	"github.com/baton-dev/baton/audit"
)

// A record line is one JSON object: "type" first, then every column of its
// table in the table's order, nothing else. Values are written one way
// only (appendValue), so the same rows give the same bytes on SQLite and
// PostgreSQL, and an import can insist that a line is exactly what an
// export writes.

// Row is one row's values in its table's column order: int64, string,
// bool, float64, or nil for NULL.
type Row []any

// appendLine writes row as a record line of table t (without newline).
func appendLine(b []byte, t *Table, row Row) ([]byte, error) {
	b = append(b, `{"type":`...)
	b = appendString(b, t.Type)
	for i, c := range t.Columns {
		b = append(b, ',')
		b = appendString(b, c.Name)
		b = append(b, ':')
		var err error
		if b, err = appendValue(b, c, row[i]); err != nil {
			return nil, fmt.Errorf("column %s: %w", c.Name, err)
		}
	}
	return append(b, '}'), nil
}

// appendValue writes one value of column c.
func appendValue(b []byte, c Column, v any) ([]byte, error) {
	if v == nil {
		if !c.Null {
			return nil, errors.New("NULL in a column that cannot be NULL")
		}
		return append(b, "null"...), nil
	}
	switch c.Kind {
	case Int:
		if n, ok := v.(int64); ok {
			return strconv.AppendInt(b, n, 10), nil
		}
	case Text:
		if s, ok := v.(string); ok {
			if !utf8.ValidString(s) {
				return nil, errors.New("the text is not valid UTF-8")
			}
			return appendString(b, s), nil
		}
	case Bool:
		if x, ok := v.(bool); ok {
			return strconv.AppendBool(b, x), nil
		}
	case Float:
		if f, ok := v.(float64); ok {
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, fmt.Errorf("%v has no JSON form", f)
			}
			j, err := json.Marshal(f) // ECMAScript's number form, as JSON.stringify writes it
			if err != nil {
				return nil, err
			}
			return append(b, j...), nil
		}
	}
	return nil, fmt.Errorf("a %T is not a %s", v, c.Kind)
}

// appendString writes s as a JSON string the way RFC 8785 (and the
// audit log) writes strings: quote, backslash and control characters
// escaped, everything else as it is. s is valid UTF-8.
func appendString(b []byte, s string) []byte { return audit.AppendJSString(b, s) }

// normalize turns a value a database returned for column c into the one
// Go type Row holds for it: SQLite gives integers for Bool columns and
// may give []byte for text; PostgreSQL gives bool.
func normalize(c Column, v any) (any, error) {
	if v == nil {
		if !c.Null {
			return nil, errors.New("NULL in a column that cannot be NULL")
		}
		return nil, nil
	}
	switch c.Kind {
	case Int:
		switch x := v.(type) {
		case int64:
			return x, nil
		case int32:
			return int64(x), nil
		case int:
			return int64(x), nil
		}
	case Text:
		switch x := v.(type) {
		case string:
			return x, nil
		case []byte:
			return string(x), nil
		}
	case Bool:
		switch x := v.(type) {
		case bool:
			return x, nil
		case int64:
			if x == 0 || x == 1 {
				return x == 1, nil
			}
		}
	case Float:
		switch x := v.(type) {
		case float64:
			return x, nil
		case float32:
			return float64(x), nil
		case int64:
			return float64(x), nil
		}
	}
	return nil, fmt.Errorf("the database holds %T %v where the export wants a %s", v, v, c.Kind)
}

// parseLine reads a record line: its table and row. The line must be
// exactly what appendLine writes for that row.
func parseLine(line []byte) (*Table, Row, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, errors.New("not a JSON object")
	}
	key, err := nextKey(dec)
	if err != nil || key != "type" {
		return nil, nil, errors.New(`a record line starts with its "type"`)
	}
	tok, err := dec.Token()
	name, ok := tok.(string)
	if err != nil || !ok {
		return nil, nil, errors.New(`"type" is not a string`)
	}
	t := catalogue().byType[name]
	if t == nil {
		if name == "header" {
			return nil, nil, errors.New("a second header: the header is the first line only")
		}
		return nil, nil, fmt.Errorf("unknown record type %q", cut(name))
	}
	row := make(Row, len(t.Columns))
	for i, c := range t.Columns {
		if !dec.More() {
			return nil, nil, fmt.Errorf("%s record without column %q", t.Type, c.Name)
		}
		key, err := nextKey(dec)
		if err != nil {
			return nil, nil, err
		}
		if key != c.Name {
			if t.index(key) >= 0 {
				return nil, nil, fmt.Errorf("%s record has column %q where %q belongs", t.Type, key, c.Name)
			}
			return nil, nil, fmt.Errorf("unknown column %q in a %s record", cut(key), t.Type)
		}
		if row[i], err = parseValue(dec, c); err != nil {
			return nil, nil, fmt.Errorf("column %q: %w", c.Name, err)
		}
	}
	if dec.More() {
		key, err := nextKey(dec)
		if err != nil {
			return nil, nil, err
		}
		if t.index(key) >= 0 || key == "type" {
			return nil, nil, fmt.Errorf("%s record has column %q twice", t.Type, key)
		}
		return nil, nil, fmt.Errorf("unknown column %q in a %s record", cut(key), t.Type)
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, nil, errors.New("the JSON object does not end")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, errors.New("text after the JSON object")
	}
	again, err := appendLine(nil, t, row)
	if err != nil {
		return nil, nil, err
	}
	if !bytes.Equal(again, line) {
		return nil, nil, errors.New("not written the way baton export writes it (spacing, number form or string escapes differ)")
	}
	return t, row, nil
}

func nextKey(dec *json.Decoder) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", fmt.Errorf("not valid JSON: %v", err)
	}
	key, ok := tok.(string)
	if !ok {
		return "", errors.New("not valid JSON: want a key")
	}
	return key, nil
}

// parseValue reads one value of column c.
func parseValue(dec *json.Decoder, c Column) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	if tok == nil {
		if !c.Null {
			return nil, errors.New("null where a value is required")
		}
		return nil, nil
	}
	switch c.Kind {
	case Int:
		if n, ok := tok.(json.Number); ok {
			v, err := strconv.ParseInt(string(n), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%s is not a 64-bit integer", cut(string(n)))
			}
			return v, nil
		}
	case Float:
		if n, ok := tok.(json.Number); ok {
			v, err := strconv.ParseFloat(string(n), 64)
			if err != nil {
				return nil, fmt.Errorf("%s is out of range", cut(string(n)))
			}
			return v, nil
		}
	case Text:
		if s, ok := tok.(string); ok {
			return s, nil
		}
	case Bool:
		if b, ok := tok.(bool); ok {
			return b, nil
		}
	}
	return nil, fmt.Errorf("want a %s, got %s", c.Kind, jsonKind(tok))
}

func jsonKind(tok json.Token) string {
	switch tok.(type) {
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Delim:
		return "an array or object"
	}
	return "null"
}

// cut shortens text quoted in an error.
func cut(s string) string {
	if len(s) > 64 {
		s = s[:61] + "..."
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
