package tool

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// Field declares the constraints of one property. Struct tags carry only
// descriptions; everything a client must know about a value (enum, range,
// length, pattern, default) is declared here, once, and written into the
// schema the client sees.
type Field struct {
	Enum      []string
	Minimum   *float64
	Maximum   *float64
	MinLength *int
	MaxLength *int
	Pattern   string
	Format    string // "date-time"
	Default   any
	MinItems  *int
	MaxItems  *int
	Items     *Field // constraints on each element of an array
	// MaxBytes bounds a free-form value (an object open to any key, or a
	// value of any type) in bytes of its compact JSON; without it such a
	// field gets DefaultMaxObjectBytes.
	MaxBytes int
}

// Rules maps a property path to its constraints. A path is a property name,
// or names joined by dots that descend through objects and array elements
// ("tasks.status").
type Rules map[string]Field

// Length constrains a string to [min, max] characters.
func Length(min, max int) Field { return Field{MinLength: &min, MaxLength: &max} }

// MaxLen constrains a string to at most max characters.
func MaxLen(max int) Field { return Field{MaxLength: &max} }

// Range constrains a number to [min, max].
func Range(min, max float64) Field { return Field{Minimum: &min, Maximum: &max} }

// Min constrains a number to at least min.
func Min(min float64) Field { return Field{Minimum: &min} }

// Enum restricts a string to the given values.
func Enum(values ...string) Field { return Field{Enum: values} }

// List constrains an array to at most max elements, each obeying item.
func List(max int, item Field) Field { return Field{MaxItems: &max, Items: &item} }

// DateTime requires an RFC 3339 (ISO-8601) timestamp.
func DateTime() Field { return Field{Format: "date-time"} }

// Size bounds a free-form object or value to max bytes of compact JSON.
func Size(max int) Field { return Field{MaxBytes: max} }

// WithDefault returns f with a default value, applied when the property is absent.
func (f Field) WithDefault(v any) Field { f.Default = v; return f }

// NonBlank returns f requiring at least one non-space character.
func (f Field) NonBlank() Field { f.Pattern = `\S`; return f }

// errorProperty describes the envelope a failed call returns in place of
// the output, so strict clients validate error results too.
const errorProperty = "error"

// inputSchema infers the schema of type t, applies rules, and bounds every field
// the rules leave unbounded (see bound).
func inputSchema(t reflect.Type, rules Rules) (*jsonschema.Schema, error) {
	s, err := inferSchema(t, rules)
	if err != nil {
		return nil, err
	}
	if s.Type != "object" {
		return nil, fmt.Errorf("input type %v must be a struct", t)
	}
	bound(s)
	return s, nil
}

// outputSchema infers the schema of type t, applies rules, and widens it so that
// it also admits the error envelope: a result is either the output or
// {"error": {...}}.
func outputSchema(t reflect.Type, rules Rules) (*jsonschema.Schema, error) {
	s, err := inferSchema(t, rules)
	if err != nil {
		return nil, err
	}
	if s.Type != "object" {
		return nil, fmt.Errorf("output type %v must be a struct", t)
	}
	if _, clash := s.Properties[errorProperty]; clash {
		return nil, fmt.Errorf("output type %v must not have a property named %q", t, errorProperty)
	}
	if s.Properties == nil { // a struct with no fields
		s.Properties = map[string]*jsonschema.Schema{}
	}
	s.Properties[errorProperty] = &jsonschema.Schema{
		Type:        "object",
		Description: "Set only on failure (isError true), in place of the fields above: code, type, message, details, next_action_hint.",
	}
	s.PropertyOrder = append(s.PropertyOrder, errorProperty)
	if len(s.Required) > 0 {
		s.AnyOf = []*jsonschema.Schema{{Required: s.Required}, {Required: []string{errorProperty}}}
		s.Required = nil
	}
	return s, nil
}

func inferSchema(t reflect.Type, rules Rules) (*jsonschema.Schema, error) {
	s, err := jsonschema.ForType(t, nil)
	if err != nil {
		return nil, err
	}
	normalize(s)
	keys := make([]string, 0, len(rules))
	for k := range rules {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, path := range keys {
		p, err := lookup(s, path)
		if err != nil {
			return nil, err
		}
		if err := apply(p, rules[path], path); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// normalize removes what inference adds but clients handle badly: nullable
// unions for Go pointers and slices (absent means unset; null is not
// accepted) and empty schemas, which marshal as a bare `true`.
func normalize(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	if s.AdditionalProperties != nil && isEmpty(s.AdditionalProperties) {
		s.AdditionalProperties = nil
	}
	for _, p := range s.Properties {
		normalize(p)
	}
	normalize(s.Items)
	if s.AdditionalProperties != nil && s.AdditionalProperties.Not == nil {
		normalize(s.AdditionalProperties)
	}
}

func isEmpty(s *jsonschema.Schema) bool {
	b, _ := json.Marshal(s)
	return string(b) == "true"
}

func lookup(s *jsonschema.Schema, path string) (*jsonschema.Schema, error) {
	cur := s
	for _, name := range strings.Split(path, ".") {
		for cur.Type == "array" && cur.Items != nil {
			cur = cur.Items
		}
		next, ok := cur.Properties[name]
		if !ok {
			return nil, fmt.Errorf("rule for %q: no property %q", path, name)
		}
		cur = next
	}
	return cur, nil
}

func apply(s *jsonschema.Schema, f Field, path string) error {
	kind := s.Type
	switch {
	case len(f.Enum) > 0 || f.MinLength != nil || f.MaxLength != nil || f.Pattern != "" || f.Format != "":
		if kind != "string" {
			return fmt.Errorf("rule for %q: string constraint on a %s", path, kind)
		}
	case f.Minimum != nil || f.Maximum != nil:
		if kind != "integer" && kind != "number" {
			return fmt.Errorf("rule for %q: numeric constraint on a %s", path, kind)
		}
	case f.MinItems != nil || f.MaxItems != nil || f.Items != nil:
		if kind != "array" {
			return fmt.Errorf("rule for %q: array constraint on a %s", path, kind)
		}
	case f.MaxBytes != 0:
		if !FreeForm(s) || f.MaxBytes < 0 {
			return fmt.Errorf("rule for %q: a size limit is for free-form objects and values, not a %s", path, kind)
		}
		objectLimits.Store(s, f.MaxBytes)
	}
	for _, v := range f.Enum {
		s.Enum = append(s.Enum, v)
	}
	// Inference gives narrow Go integers (int32, uint8...) their range: a
	// rule may narrow it, never widen it past what the field holds.
	if f.Minimum != nil {
		if s.Minimum != nil && *f.Minimum < *s.Minimum {
			return fmt.Errorf("rule for %q: minimum %v is below what the Go field holds (%v)", path, *f.Minimum, *s.Minimum)
		}
		s.Minimum = f.Minimum
	}
	if f.Maximum != nil {
		if s.Maximum != nil && *f.Maximum > *s.Maximum {
			return fmt.Errorf("rule for %q: maximum %v is above what the Go field holds (%v)", path, *f.Maximum, *s.Maximum)
		}
		s.Maximum = f.Maximum
	}
	s.MinLength, s.MaxLength = f.MinLength, f.MaxLength
	s.Pattern, s.Format = f.Pattern, f.Format
	s.MinItems, s.MaxItems = f.MinItems, f.MaxItems
	if f.Items != nil {
		if s.Items == nil {
			return fmt.Errorf("rule for %q: array without items", path)
		}
		if err := apply(s.Items, *f.Items, path+"[]"); err != nil {
			return err
		}
	}
	if f.Default != nil {
		b, err := json.Marshal(f.Default)
		if err != nil {
			return fmt.Errorf("rule for %q: default: %v", path, err)
		}
		s.Default = b
		if v := check(s, path, f.Default); len(v) > 0 {
			return fmt.Errorf("rule for %q: default %s breaks its own rule: %s", path, b, v[0].Message)
		}
	}
	return nil
}

// schemas are a tool's input and output schemas, built once, on first use.
// Building every tool's (inference by reflection, rules, bounds) when the
// tools packages initialised was the larger part of starting baton, and a
// session calls a few tools; tools/list sends precomputed JSON (UseWire).
type schemas struct {
	once sync.Once
	// build makes a typed tool's schemas; nil for given ones (WithSchemas).
	build func() (in, out *jsonschema.Schema, err error)
	// patches adjust the built schemas (OnSchemas), in order.
	patches []func(in, out *jsonschema.Schema)

	in, out *jsonschema.Schema
	wireOut *jsonschema.Schema // out as tools/list sends it (wireOutput); typed tools only
	err     error              // a definition that contradicts itself
	// wire is the JSON tools/list sends for in and wireOut, computed
	// ahead (UseWire); nil means it is marshalled from them.
	wire *Wire
}

// get builds the schemas the first time. A definition that contradicts
// itself panics, on this use and every later one (see New).
func (s *schemas) get() *schemas {
	s.once.Do(func() {
		if s.build == nil {
			return
		}
		defer func() {
			// A patch that panics is the same programming error.
			if r := recover(); r != nil {
				s.err = fmt.Errorf("%v", r)
			}
		}()
		s.in, s.out, s.err = s.build()
		s.build = nil // the closure holds the definition's rules: no longer needed
		if s.err != nil {
			return
		}
		s.wireOut = wireOutput(s.out)
		// Patches change the schema baton validates with, after the wire
		// copy was taken, as they did when they ran on a built tool.
		for _, p := range s.patches {
			p(s.in, s.out)
		}
	})
	if s.err != nil {
		panic(s.err.Error())
	}
	return s
}

// InputSchema is the JSON Schema of the tool's arguments, built on first
// use.
func (s *Spec) InputSchema() *jsonschema.Schema {
	if s.schemas == nil {
		return nil
	}
	return s.schemas.get().in
}

// OutputSchema is the JSON Schema of the tool's output (widened to admit
// the error envelope), built on first use; nil for a dynamic tool that
// declares none.
func (s *Spec) OutputSchema() *jsonschema.Schema {
	if s.schemas == nil {
		return nil
	}
	return s.schemas.get().out
}

// WithSchemas returns s with the given schemas: how a dynamic tool, whose
// schemas are known only at run time, states them (NewDynamic).
func (s Spec) WithSchemas(in, out *jsonschema.Schema) Spec {
	s.schemas = &schemas{in: in, out: out}
	return s
}

// OnSchemas registers fn to adjust t's schemas right after they are
// built, and returns t: how a tools package changes what inference cannot
// say (a property that may also be null) without building the schemas when
// it initialises. What fn changes is what baton validates with; the output
// schema tools/list sends is copied before fn runs. It panics when t's
// schemas are already built, or t has none to build.
func OnSchemas(t Tool, fn func(in, out *jsonschema.Schema)) Tool {
	s := t.Spec().schemas
	if s == nil || s.build == nil {
		panic(fmt.Sprintf("tool %s: OnSchemas after its schemas were built, or on a tool with given schemas", t.Spec().Name))
	}
	s.patches = append(s.patches, fn)
	return t
}
