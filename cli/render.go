package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/google/jsonschema-go/jsonschema"
)

// render prints an output for people: fields as "key: value" lines in
// schema order, lists of objects as tables. Every key and value passes
// through the sanitiser (sanitize.go): outputs carry what agents wrote.
func render(w io.Writer, out any, s *jsonschema.Schema) error {
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	var buf bytes.Buffer
	renderObject(&buf, v, s, "")
	_, err = w.Write(buf.Bytes())
	return err
}

func ordered(v map[string]any, s *jsonschema.Schema) []string {
	var keys []string
	seen := map[string]bool{}
	if s != nil {
		for _, k := range s.PropertyOrder {
			if _, ok := v[k]; ok {
				keys, seen[k] = append(keys, k), true
			}
		}
	}
	for k := range v {
		if !seen[k] {
			keys = append(keys, k)
		}
	}
	return keys
}

func prop(s *jsonschema.Schema, k string) *jsonschema.Schema {
	if s == nil {
		return nil
	}
	return s.Properties[k]
}

func renderObject(w *bytes.Buffer, v map[string]any, s *jsonschema.Schema, indent string) {
	for _, k := range ordered(v, s) {
		switch val := v[k].(type) {
		case map[string]any:
			fmt.Fprintf(w, "%s%s:\n", indent, cleanLine(k))
			renderObject(w, val, prop(s, k), indent+"  ")
		case []any:
			if len(val) > 0 && isObject(val[0]) {
				fmt.Fprintf(w, "%s%s:\n", indent, cleanLine(k))
				var items *jsonschema.Schema
				if p := prop(s, k); p != nil {
					items = p.Items
				}
				renderTable(w, val, items, indent+"  ")
				continue
			}
			parts := make([]string, len(val))
			for i, e := range val {
				parts[i] = cleanLine(scalar(e))
			}
			fmt.Fprintf(w, "%s%s: %s\n", indent, cleanLine(k), strings.Join(parts, ", "))
		default:
			// Free text keeps its line breaks; nothing else gets through raw.
			fmt.Fprintf(w, "%s%s: %s\n", indent, cleanLine(k), cleanText(scalar(val)))
		}
	}
}

func isObject(v any) bool { _, ok := v.(map[string]any); return ok }

func renderTable(w *bytes.Buffer, rows []any, s *jsonschema.Schema, indent string) {
	var cols []string
	seen := map[string]bool{}
	for _, r := range rows {
		obj, _ := r.(map[string]any)
		for _, k := range ordered(obj, s) {
			if _, nested := obj[k].(map[string]any); !nested && !seen[k] {
				cols, seen[k] = append(cols, k), true
			}
		}
	}
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	head := make([]string, len(cols))
	for i, c := range cols {
		head[i] = strings.ToUpper(cleanLine(c))
	}
	fmt.Fprintln(tw, indent+strings.Join(head, "\t"))
	for _, r := range rows {
		obj, _ := r.(map[string]any)
		cells := make([]string, len(cols))
		for i, c := range cols {
			if v, ok := obj[c]; ok {
				cells[i] = cleanLine(scalar(v)) // one line per row, whatever the cell holds
			}
		}
		fmt.Fprintln(tw, indent+strings.Join(cells, "\t"))
	}
	tw.Flush()
}

func scalar(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = scalar(e)
		}
		return strings.Join(parts, ",")
	case map[string]any:
		b, _ := json.Marshal(x)
		return string(b)
	}
	return fmt.Sprint(v)
}
