package tool

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// Limits every input obeys whatever its tool declares. A tool narrows them
// per field in its Rules; the framework fills in the rest when it builds
// the tool, so no input field is ever unbounded: one oversized argument
// must not be able to grow the server or every later read of what it
// stored (issue 12).
const (
	// MaxArguments is the largest arguments payload, in bytes of JSON as
	// received. It is above the largest call the field limits admit
	// (TestPoint2PayloadLimitAdmitsEveryValidCall proves it per tool).
	MaxArguments = 2 << 20
	// DefaultMaxString is the maxLength, in characters, of a string field
	// that declares none.
	DefaultMaxString = 64 << 10
	// DefaultMaxDateTime is the maxLength of a date-time field that
	// declares none: an RFC 3339 timestamp is about 35 characters.
	DefaultMaxDateTime = 64
	// DefaultMaxItems is the maxItems of an array field that declares none.
	DefaultMaxItems = 1000
	// DefaultMaxObjectBytes bounds a free-form field (an object that takes
	// any keys, or a value of any type), in bytes of its compact JSON: what
	// the store keeps of it.
	DefaultMaxObjectBytes = 16 << 10
	// maxReported is how many violations an error lists; the count says
	// how many more there were.
	maxReported = 100
	// maxEcho is how much of a refused value or name an error quotes.
	maxEcho = 64
)

// objectLimits holds the serialised-size limit of each free-form schema of
// an input, by schema. JSON Schema has no keyword for a size in bytes, so
// the schema states the limit in its description, which strict clients
// accept, and the validator reads it from here.
var objectLimits sync.Map // *jsonschema.Schema -> int

// ObjectLimit returns the serialised-size limit, in bytes of compact JSON,
// that the validator holds the values of s to, if it holds them to one.
func ObjectLimit(s *jsonschema.Schema) (int, bool) {
	n, ok := objectLimits.Load(s)
	if !ok {
		return 0, false
	}
	return n.(int), true
}

// FreeForm reports whether s admits values whose content the schema does
// not describe: an object open to any key, or a value of any type.
func FreeForm(s *jsonschema.Schema) bool {
	if s == nil {
		return false
	}
	if s.Type == "" && len(s.Types) == 0 && len(s.AnyOf) == 0 && len(s.Enum) == 0 &&
		len(s.Properties) == 0 && len(s.Required) == 0 && s.Items == nil {
		return true
	}
	return s.Type == "object" && (s.AdditionalProperties == nil || s.AdditionalProperties.Not == nil)
}

// bound gives every field of an input schema the limits it lacks: strings
// a maxLength (enums are bounded by their values), arrays a maxItems,
// free-form values a serialised size, stated in their description.
func bound(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	switch {
	case s.Type == "string" && s.MaxLength == nil && len(s.Enum) == 0:
		n := DefaultMaxString
		if s.Format == "date-time" {
			n = DefaultMaxDateTime
		}
		s.MaxLength = &n
	case s.Type == "array" && s.MaxItems == nil:
		n := DefaultMaxItems
		s.MaxItems = &n
	}
	if FreeForm(s) {
		n, ok := ObjectLimit(s)
		if !ok {
			n = DefaultMaxObjectBytes
			objectLimits.Store(s, n)
		}
		note := fmt.Sprintf("At most %s as JSON.", Bytes(n))
		if !strings.Contains(s.Description, note) {
			s.Description = strings.TrimSpace(s.Description + " " + note)
		}
	}
	for _, p := range s.Properties {
		bound(p)
	}
	bound(s.Items)
	if ap := s.AdditionalProperties; ap != nil && ap.Not == nil {
		bound(ap)
	}
}

// Bytes writes a size the way limits are documented: 16 KiB, 1 MiB, 300 bytes.
func Bytes(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return plural(n, "byte")
}

// serialisedSize is the length of v's compact JSON, as the store keeps it.
func serialisedSize(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return math.MaxInt
	}
	return len(b)
}

// int64Range reports whether a JSON number that is a whole number fits an
// int64, the widest integer an input field has: past it, Go's conversion
// would wrap 2^63 to a negative number that passes "minimum: 0".
func int64Range(n json.Number) (ok bool, negative bool) {
	if _, err := n.Int64(); err == nil {
		return true, false
	}
	f, err := n.Float64()
	if err != nil { // beyond float64 too: ±Inf
		return false, strings.HasPrefix(string(n), "-")
	}
	// -2^63 and 2^63 are exact in float64; int64 holds [-2^63, 2^63).
	return f >= -(1<<63) && f < 1<<63, f < 0
}

// nulViolations reports every string of v, and every object key, holding
// U+0000: PostgreSQL cannot store it in text (SQLite can), so both stores
// refuse it here alike, before anything is written.
func nulViolations(path string, v any) []Violation {
	var out []Violation
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch val := v.(type) {
		case string:
			if strings.ContainsRune(val, 0) {
				out = append(out, Violation{Field: name(path), Rule: "nul", Message: name(path) + " must not contain the NUL character (U+0000)"})
			}
		case []any:
			for i, e := range val {
				walk(fmt.Sprintf("%s[%d]", name(path), i), e)
			}
		case map[string]any:
			for _, k := range sortedKeys(val) {
				if strings.ContainsRune(k, 0) {
					out = append(out, Violation{Field: name(path), Rule: "nul",
						Message: fmt.Sprintf("%s has a key that contains the NUL character (U+0000): %q", name(path), echo(k))})
					continue
				}
				walk(join(path, k), val[k])
			}
		}
	}
	walk(path, v)
	return out
}

// echo is a refused value as an error quotes it: at most maxEcho
// characters, so the error stays small whatever was sent.
func echo(s string) string {
	if utf8.RuneCountInString(s) <= maxEcho {
		return s
	}
	r := []rune(s)
	return string(r[:maxEcho]) + "…"
}
