package tool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/baton-dev/baton"
	"github.com/google/jsonschema-go/jsonschema"
)

// Violation is one broken rule of an input.
type Violation struct {
	Field   string `json:"field"`
	Rule    string `json:"rule"`
	Limit   any    `json:"limit,omitempty"`
	Message string `json:"message"`
}

// Validate checks raw arguments against an input schema, the one the client
// sees, and returns them with defaults applied. Every transport validates
// through here, so the messages are the same everywhere.
func Validate(s *jsonschema.Schema, raw json.RawMessage) (json.RawMessage, *baton.Error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > MaxArguments {
		// Refused before decoding: a payload this size costs memory to
		// parse, whatever its fields would say.
		return nil, baton.Errorf(baton.ErrInvalidInput, "arguments must be at most %s of JSON (got %d bytes)", Bytes(MaxArguments), len(raw)).
			WithDetails("field", "arguments", "constraint", "maxBytes", "limit", MaxArguments).
			WithHint("send less: every field's own limit is in the tool's input schema, and all of them together fit in %s", Bytes(MaxArguments))
	}
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		msg := "arguments are not valid JSON"
		if err != nil {
			msg += ": " + err.Error()
		}
		return nil, baton.Errorf(baton.ErrInvalidInput, "%s", msg).
			WithDetails("field", "arguments", "constraint", "json").
			WithHint("send the arguments as one JSON object")
	}
	if vs := append(check(s, "", v), nulViolations("", v)...); len(vs) > 0 {
		return nil, invalid(vs)
	}
	v = settle(s, v)
	out, err := json.Marshal(v)
	if err != nil {
		return nil, baton.AsError(err)
	}
	return out, nil
}

func invalid(vs []Violation) *baton.Error {
	// A large array of bad items must not make an error larger than the
	// call: the message quotes the first few, the details the first
	// maxReported, and both say how many there were.
	total := len(vs)
	msgs := make([]string, 0, 10)
	for _, v := range vs[:min(total, 10)] {
		msgs = append(msgs, v.Message)
	}
	more := ""
	if total > len(msgs) {
		more = fmt.Sprintf("; and %d more", total-len(msgs))
	}
	e := baton.Errorf(baton.ErrInvalidInput, "invalid input: %s%s", strings.Join(msgs, "; "), more).
		WithDetails("field", vs[0].Field, "constraint", vs[0].Rule, "violations", vs[:min(total, maxReported)]).
		WithHint("correct the field(s) named and call again; the tool's input schema states every rule")
	if total > maxReported {
		e.WithDetails("violation_count", total)
	}
	return e
}

// inEnum reports whether v is one of enum's values, compared as printed
// (a decoded 2 and an enum's 2.0 are one value); strings, the usual case,
// without printing.
func inEnum(enum []any, v any) bool {
	if str, ok := v.(string); ok {
		for _, e := range enum {
			if es, ok := e.(string); ok && es == str {
				return true
			}
		}
	}
	return slices.ContainsFunc(enum, func(e any) bool { return fmt.Sprint(e) == fmt.Sprint(v) })
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// settle returns a valid value ready to decode: defaults applied to absent
// properties, and whole numbers of integer fields written as integers
// (JSON Schema counts 50.0 and 5e1 as integers; Go's decoder does not).
func settle(s *jsonschema.Schema, v any) any {
	if s == nil {
		return v
	}
	switch val := v.(type) {
	case json.Number:
		if s.Type == "integer" {
			if _, err := val.Int64(); err != nil {
				// check refused what an int64 cannot hold, so the
				// conversion is exact.
				if f, err := val.Float64(); err == nil && f >= -(1<<63) && f < 1<<63 {
					return json.Number(strconv.FormatInt(int64(f), 10))
				}
			}
		}
	case []any:
		for i, e := range val {
			val[i] = settle(s.Items, e)
		}
	case map[string]any:
		for name, p := range s.Properties {
			cur, present := val[name]
			if !present && len(p.Default) > 0 {
				var d any
				if json.Unmarshal(p.Default, &d) == nil {
					val[name] = d
				}
				continue
			}
			if present {
				val[name] = settle(p, cur)
			}
		}
		if ap := s.AdditionalProperties; ap != nil && ap.Not == nil {
			for k, e := range val {
				if _, known := s.Properties[k]; !known {
					val[k] = settle(ap, e)
				}
			}
		}
	}
	return v
}

func typeName(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		if isInteger(v) {
			return "integer"
		}
		return "number"
	case float64, int:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func isInteger(n json.Number) bool {
	if _, err := n.Int64(); err == nil {
		return true
	}
	f, err := n.Float64()
	return err == nil && f == math.Trunc(f) && !math.IsInf(f, 0)
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	case int:
		return float64(n), true
	}
	return 0, false
}

func typeOK(want string, v any) bool {
	got := typeName(v)
	switch want {
	case "":
		return true
	case "number":
		return got == "number" || got == "integer"
	case "integer":
		if got == "number" {
			f, _ := number(v)
			return f == math.Trunc(f)
		}
		return got == "integer"
	}
	return got == want
}

func name(path string) string {
	if path == "" {
		return "arguments"
	}
	return path
}

func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

var (
	patternMu    sync.Mutex
	patternCache = map[string]*regexp.Regexp{}
)

func compiled(p string) *regexp.Regexp {
	patternMu.Lock()
	defer patternMu.Unlock()
	re, ok := patternCache[p]
	if !ok {
		re = regexp.MustCompile(p)
		patternCache[p] = re
	}
	return re
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// check returns every rule v breaks. It understands the keywords the tool
// framework emits; TestSchemasUseKnownKeywords keeps it that way.
//
// Almost every value checked is valid (every output, and the arguments of
// well-behaved clients), so check first walks v quickly, stopping at the
// first broken rule and naming no field; only a value that breaks one is
// walked again for every violation, in order, each with its field's path.
func check(s *jsonschema.Schema, path string, v any) []Violation {
	if len(walk(s, path, v, true)) == 0 {
		return nil
	}
	return walk(s, path, v, false)
}

// walk is check's walk: with quick, it returns at the first violation
// and builds no field paths (its violations name the value's root).
func walk(s *jsonschema.Schema, path string, v any, quick bool) []Violation {
	if s == nil {
		return nil
	}
	var out []Violation
	add := func(rule string, limit any, format string, args ...any) {
		out = append(out, Violation{Field: name(path), Rule: rule, Limit: limit, Message: name(path) + " " + fmt.Sprintf(format, args...)})
	}
	// child is the path of a member of v; a quick walk names none.
	child := func(field string) string {
		if quick {
			return path
		}
		return join(path, field)
	}
	if limit, ok := ObjectLimit(s); ok {
		if n := serialisedSize(v); n > limit {
			add("maxBytes", limit, "must be at most %s as JSON (got %d bytes)", Bytes(limit), n)
			return out
		}
	}
	if !typeOK(s.Type, v) {
		add("type", s.Type, "must be %s %s (got %s)", article(s.Type), s.Type, typeName(v))
		return out
	}
	if len(s.Enum) > 0 && !inEnum(s.Enum, v) {
		vals := make([]string, len(s.Enum))
		for i, e := range s.Enum {
			vals[i] = fmt.Sprint(e)
		}
		add("enum", vals, "must be one of %s (got %q)", strings.Join(vals, ", "), echo(fmt.Sprint(v)))
	}
	switch val := v.(type) {
	case string:
		n := utf8.RuneCountInString(val)
		if s.MinLength != nil && n < *s.MinLength {
			if n == 0 {
				add("minLength", *s.MinLength, "must not be empty")
			} else {
				add("minLength", *s.MinLength, "must be at least %s long (got %d)", plural(*s.MinLength, "character"), n)
			}
		}
		if s.MaxLength != nil && n > *s.MaxLength {
			add("maxLength", *s.MaxLength, "must be at most %s long (got %d)", plural(*s.MaxLength, "character"), n)
		}
		if s.Pattern != "" && n > 0 && !compiled(s.Pattern).MatchString(val) {
			if s.Pattern == `\S` {
				add("pattern", s.Pattern, "must not be blank")
			} else {
				add("pattern", s.Pattern, "must match the pattern %s (got %q)", s.Pattern, echo(val))
			}
		}
		if s.Format == "date-time" {
			if _, err := time.Parse(time.RFC3339, val); err != nil {
				add("format", "date-time", "must be an ISO-8601 date-time such as 2026-04-08T22:15:30Z (got %q)", echo(val))
			}
		}
	case json.Number, float64, int:
		f, finite := number(val)
		before := len(out)
		if finite && s.Minimum != nil && f < *s.Minimum {
			add("minimum", *s.Minimum, "must be at least %v (got %v)", *s.Minimum, val)
		}
		if finite && s.Maximum != nil && f > *s.Maximum {
			add("maximum", *s.Maximum, "must be at most %v (got %v)", *s.Maximum, val)
		}
		// The schema's own range says more; past it, what no Go field holds.
		if n, isNum := val.(json.Number); isNum && len(out) == before {
			out = append(out, outOfRange(s, path, n)...)
		}
	case []any:
		if s.MinItems != nil && len(val) < *s.MinItems {
			add("minItems", *s.MinItems, "must have at least %s (got %d)", plural(*s.MinItems, "item"), len(val))
		}
		if s.MaxItems != nil && len(val) > *s.MaxItems {
			add("maxItems", *s.MaxItems, "must have at most %s (got %d)", plural(*s.MaxItems, "item"), len(val))
		}
		for i, e := range val {
			if quick && len(out) > 0 {
				return out
			}
			at := path
			if !quick {
				at = fmt.Sprintf("%s[%d]", name(path), i)
			}
			out = append(out, walk(s.Items, at, e, quick)...)
		}
	case map[string]any:
		for _, r := range s.Required {
			if _, ok := val[r]; !ok {
				out = append(out, Violation{Field: child(r), Rule: "required", Message: child(r) + " is required"})
			}
		}
		keys := func(yield func(string) bool) {
			if quick { // order matters only for the report
				for k := range val {
					if !yield(k) {
						return
					}
				}
				return
			}
			for _, k := range sortedKeys(val) {
				if !yield(k) {
					return
				}
			}
		}
		for k := range keys {
			if quick && len(out) > 0 {
				return out
			}
			p, known := s.Properties[k]
			switch {
			case known:
				out = append(out, walk(p, child(k), val[k], quick)...)
			case s.AdditionalProperties != nil && s.AdditionalProperties.Not != nil:
				known := make([]string, 0, len(s.Properties))
				for _, n := range s.PropertyOrder {
					if _, ok := s.Properties[n]; ok {
						known = append(known, n)
					}
				}
				out = append(out, Violation{Field: child(echo(k)), Rule: "additionalProperties", Limit: known,
					Message: fmt.Sprintf("%s is not a known field (known: %s)", child(echo(k)), strings.Join(known, ", "))})
			case s.AdditionalProperties != nil:
				out = append(out, walk(s.AdditionalProperties, child(k), val[k], quick)...)
			}
		}
	}
	if quick && len(out) > 0 {
		return out
	}
	for _, alt := range s.AnyOf {
		if len(walk(alt, path, v, true)) == 0 {
			return out
		}
	}
	if len(s.AnyOf) > 0 {
		add("anyOf", nil, "matches none of the allowed shapes")
	}
	return out
}

// outOfRange refuses a number no field can hold: an integer past int64
// (Go would wrap 2^63 to a negative number, which then passes "minimum:
// 0"), or any number past float64. Narrower Go types state their range in
// the schema (minimum and maximum), checked above.
func outOfRange(s *jsonschema.Schema, path string, n json.Number) []Violation {
	var ok, negative bool
	limit := any(nil)
	if s.Type == "integer" {
		ok, negative = int64Range(n)
		limit = int64(math.MaxInt64)
		if negative {
			limit = int64(math.MinInt64)
		}
	} else {
		_, err := n.Float64()
		ok, negative = err == nil, strings.HasPrefix(string(n), "-")
		limit = math.MaxFloat64
		if negative {
			limit = -math.MaxFloat64
		}
	}
	if ok {
		return nil
	}
	rule, word := "maximum", "most"
	if negative {
		rule, word = "minimum", "least"
	}
	return []Violation{{Field: name(path), Rule: rule, Limit: limit,
		Message: fmt.Sprintf("%s must be at %s %v (got %s)", name(path), word, limit, echo(string(n)))}}
}

func article(t string) string {
	if t == "integer" || t == "object" || t == "array" {
		return "an"
	}
	return "a"
}
