package skills

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Frontmatter is what a SKILL.md declares about its skill.
type Frontmatter struct {
	// Name is the declared name; empty when the file declares none. The
	// registry names a skill after its directory whatever this says.
	Name         string
	Version      string
	Description  string
	Capabilities []string
	// Tools (key baton-tools) are the baton tools the skill needs: a
	// profile that has the skill gets them (a skill bundle). The key is
	// baton's own because "allowed-tools" names Claude Code's tools.
	Tools []string
}

// Parse splits a SKILL.md into its frontmatter and body and checks the
// fields baton relies on. The frontmatter is the block between a first
// line "---" and the next "---" line; the body is everything after that
// closing line, with line endings normalised to "\n".
//
// Parse reads a YAML subset, because baton takes no YAML dependency and
// SKILL.md frontmatter is flat: "key: value" scalars, plain or quoted with
// " or '; plain scalars continued on indented lines; block scalars (| and
// >, trailing newlines dropped); lists inline ([a, b]) or in block form
// ("key:" then "- item" lines); comments (#). Nested mappings are accepted
// under keys baton does not read (metadata:, for instance) and ignored.
// Anything else is an error naming the line.
//
// description is required: it is the one thing skill_list shows an agent
// to choose a skill by. capabilities and baton-tools must be lists when
// present.
func Parse(src []byte) (Frontmatter, string, error) {
	b, body, err := ParseBlock(src)
	if err != nil {
		return Frontmatter{}, "", err
	}
	fm, err := fields(b.entries)
	if err != nil {
		return Frontmatter{}, "", err
	}
	return fm, body, nil
}

// Block is a parsed frontmatter block without SKILL.md's field rules: the
// same reader serves other Markdown files with frontmatter (the phase
// contracts of prompts/phases/).
type Block struct{ entries map[string]*entry }

// ParseBlock splits a Markdown file into its frontmatter, in the YAML
// subset Parse reads, and its body (everything after the closing ---
// line, line endings normalised to "\n").
func ParseBlock(src []byte) (Block, string, error) {
	text := strings.TrimPrefix(string(src), "\uFEFF")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	lines := strings.SplitAfter(text, "\n")
	if len(lines) == 0 || !isFence(lines[0]) {
		return Block{}, "", fmt.Errorf("no frontmatter: the first line must be ---")
	}
	end := -1
	for i := 1; i < len(lines); i++ {
		if isFence(lines[i]) {
			end = i
			break
		}
	}
	if end < 0 {
		return Block{}, "", fmt.Errorf("unterminated frontmatter: no closing --- line after line 1")
	}
	block := make([]string, 0, end-1)
	for _, l := range lines[1:end] {
		block = append(block, strings.TrimSuffix(l, "\n"))
	}
	// Frontmatter starts on line 2 of the file; messages count from there
	// so an author can go straight to the line.
	entries, err := parseBlock(block, 2)
	if err != nil {
		return Block{}, "", err
	}
	return Block{entries: entries}, strings.Join(lines[end+1:], ""), nil
}

// Has reports whether the block sets key (to anything, null included).
func (b Block) Has(key string) bool { return b.entries[key] != nil }

// Keys lists the block's keys, sorted.
func (b Block) Keys() []string {
	out := make([]string, 0, len(b.entries))
	for k := range b.entries {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Text is the trimmed scalar of key ("" when absent or null), or an error
// naming the line when the value is a list or a mapping.
func (b Block) Text(key string) (string, error) {
	e := b.entries[key]
	if e == nil || e.null {
		return "", nil
	}
	if e.kind != kindScalar {
		return "", fmt.Errorf("line %d: %s must be text, not a %s", e.line, key, shape(e.kind))
	}
	return strings.TrimSpace(e.text), nil
}

// List is the list of key (empty when absent or null), or an error naming
// the line when the value is not a list or an element is empty.
func (b Block) List(key, item, example string) ([]string, error) {
	return list(b.entries, key, item, example)
}

// Line is the file line key is on, 0 when absent.
func (b Block) Line(key string) int {
	if e := b.entries[key]; e != nil {
		return e.line
	}
	return 0
}

func isFence(line string) bool {
	return strings.TrimRight(line, " \t\r\n") == "---"
}

// kind is the shape of a frontmatter value.
type kind int

const (
	kindScalar kind = iota
	kindList
	kindMap // a nested mapping or flow mapping, kept only as a shape
)

type entry struct {
	line  int // file line of the key
	kind  kind
	text  string   // kindScalar
	items []string // kindList
	null  bool     // "key:" with nothing after it
}

var keyPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`) })

// parseBlock parses the frontmatter lines; first is the file line number
// of lines[0].
func parseBlock(lines []string, first int) (map[string]*entry, error) {
	out := map[string]*entry{}
	for i := 0; i < len(lines); {
		raw, n := lines[i], first+i
		i++
		if skippable(raw) {
			continue
		}
		if indentOf(raw) > 0 {
			return nil, fmt.Errorf("line %d: unexpected indentation: %q", n, strings.TrimSpace(raw))
		}
		if isItem(raw) {
			return nil, fmt.Errorf("line %d: list item outside a list (put it under a key: \"key:\" then \"  - item\")", n)
		}
		key, rest, ok := cutKey(raw)
		if !ok {
			return nil, fmt.Errorf("line %d: expected \"key: value\" or a list item, got %q", n, strings.TrimSpace(raw))
		}
		if prev, dup := out[key]; dup {
			return nil, fmt.Errorf("line %d: duplicate key %q (first on line %d)", n, key, prev.line)
		}
		e := &entry{line: n}
		out[key] = e
		rest = strings.TrimSpace(rest)
		// The lines that belong to this key: indented ones, blank ones, and
		// "- item" lines at column 0, which YAML allows under a key.
		j := i
		for j < len(lines) && (skippable(lines[j]) || indentOf(lines[j]) > 0 || (rest == "" || strings.HasPrefix(rest, "#")) && isItem(lines[j])) {
			j++
		}
		children := lines[i:j]
		var err error
		switch {
		case rest == "" || strings.HasPrefix(rest, "#"):
			err = parseNested(e, children, i+first)
		case isBlockIndicator(rest):
			e.text = blockScalar(children, rest[0] == '>')
		case rest[0] == '[':
			if hasContent(children) {
				return nil, fmt.Errorf("line %d: unexpected indented line after an inline list", firstContent(children, i+first))
			}
			e.kind = kindList
			e.items, err = flowList(rest, n)
		case rest[0] == '{':
			e.kind = kindMap
		case rest[0] == '"' || rest[0] == '\'':
			if hasContent(children) {
				return nil, fmt.Errorf("line %d: quoted text must end on the line it starts (line %d)", firstContent(children, i+first), n)
			}
			var tail string
			e.text, tail, err = quoted(rest, n)
			if err == nil && !isComment(tail) {
				err = fmt.Errorf("line %d: unexpected text after the closing quote: %q", n, strings.TrimSpace(tail))
			}
		default:
			// A plain scalar may go on over indented lines; YAML folds them
			// into one line.
			parts := []string{stripComment(rest)}
			for _, c := range children {
				if !skippable(c) {
					parts = append(parts, stripComment(strings.TrimSpace(c)))
				}
			}
			e.text = strings.Join(parts, " ")
		}
		if err != nil {
			return nil, err
		}
		i = j
	}
	return out, nil
}

// parseNested reads what follows "key:": nothing (null), a block list, or
// a nested mapping, whose content baton does not read.
func parseNested(e *entry, children []string, first int) error {
	start := -1
	for k, c := range children {
		if !skippable(c) {
			start = k
			break
		}
	}
	if start < 0 {
		e.null = true
		return nil
	}
	if !isItem(children[start]) {
		// A nested mapping: its content is not read, but a stray list item
		// at column 0 would be silently lost, so it is refused.
		for k, c := range children {
			if !skippable(c) && indentOf(c) == 0 {
				return fmt.Errorf("line %d: list item after a nested mapping", first+k)
			}
		}
		e.kind = kindMap
		return nil
	}
	e.kind = kindList
	e.items = []string{}
	indent := indentOf(children[start])
	for k := start; k < len(children); k++ {
		c, n := children[k], first+k
		if skippable(c) {
			continue
		}
		if indentOf(c) != indent || !isItem(c) {
			return fmt.Errorf("line %d: expected a list item (- value) aligned with line %d, got %q", n, first+start, strings.TrimSpace(c))
		}
		item := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(c), "-"))
		v, err := itemValue(item, n)
		if err != nil {
			return err
		}
		e.items = append(e.items, v)
	}
	return nil
}

// itemValue is the scalar of one list element.
func itemValue(s string, n int) (string, error) {
	switch {
	case s == "":
		return "", nil
	case s[0] == '"' || s[0] == '\'':
		v, tail, err := quoted(s, n)
		if err != nil {
			return "", err
		}
		if !isComment(tail) {
			return "", fmt.Errorf("line %d: unexpected text after the closing quote: %q", n, strings.TrimSpace(tail))
		}
		return v, nil
	case s[0] == '[' || s[0] == '{' || isItem(s):
		return "", fmt.Errorf("line %d: nested collections are not supported in a list", n)
	}
	return stripComment(s), nil
}

// flowList parses an inline list such as [a, "b, c", 'd'] # comment.
func flowList(s string, n int) ([]string, error) {
	items := []string{}
	i := 1 // past '['
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i >= len(s) {
			return nil, fmt.Errorf("line %d: unterminated inline list: no closing ]", n)
		}
		if s[i] == ']' {
			// Empty list, or a trailing comma, which YAML allows.
			break
		}
		var v string
		switch s[i] {
		case '"', '\'':
			var tail string
			var err error
			v, tail, err = quoted(s[i:], n)
			if err != nil {
				return nil, err
			}
			i = len(s) - len(tail)
		case '[', '{':
			return nil, fmt.Errorf("line %d: nested collections are not supported in a list", n)
		default:
			j := i
			for j < len(s) && s[j] != ',' && s[j] != ']' {
				j++
			}
			v = strings.TrimSpace(s[i:j])
			if v == "" {
				return nil, fmt.Errorf("line %d: empty element in inline list", n)
			}
			i = j
		}
		items = append(items, v)
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i >= len(s) {
			return nil, fmt.Errorf("line %d: unterminated inline list: no closing ]", n)
		}
		if s[i] == ']' {
			break
		}
		if s[i] != ',' {
			return nil, fmt.Errorf("line %d: expected , or ] in inline list, got %q", n, s[i:])
		}
		i++
	}
	if tail := s[i+1:]; !isComment(tail) {
		return nil, fmt.Errorf("line %d: unexpected text after the inline list: %q", n, strings.TrimSpace(tail))
	}
	return items, nil
}

// quoted reads a quoted scalar at the start of s and returns its value and
// what follows the closing quote.
func quoted(s string, n int) (string, string, error) {
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == q && q == '\'' && i+1 < len(s) && s[i+1] == '\'':
			b.WriteByte('\'') // '' is a literal quote inside '...'
			i++
		case c == q:
			return b.String(), s[i+1:], nil
		case c == '\\' && q == '"':
			if i+1 >= len(s) {
				return "", "", fmt.Errorf("line %d: unterminated quoted text", n)
			}
			i++
			switch e := s[i]; e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '0':
				b.WriteByte(0)
			case 'u':
				if i+4 >= len(s) {
					return "", "", fmt.Errorf("line %d: bad \\u escape", n)
				}
				r, err := strconv.ParseUint(s[i+1:i+5], 16, 32)
				if err != nil {
					return "", "", fmt.Errorf("line %d: bad \\u escape %q", n, s[i-1:i+5])
				}
				b.WriteRune(rune(r))
				i += 4
			default:
				return "", "", fmt.Errorf("line %d: unknown escape \\%c in quoted text", n, e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", "", fmt.Errorf("line %d: unterminated quoted text: no closing %c", n, q)
}

// blockScalar joins the lines of a | (literal) or > (folded) scalar,
// dedented by the indentation of their first non-blank line.
func blockScalar(lines []string, folded bool) string {
	indent := -1
	var out []string
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			out = append(out, "")
			continue
		}
		if indentOf(l) == 0 {
			// A comment at column 0 is not part of the indented text.
			continue
		}
		if indent < 0 {
			indent = indentOf(l)
		}
		cut := min(indent, indentOf(l))
		out = append(out, strings.TrimRight(l[cut:], " \t\r"))
	}
	if !folded {
		return strings.TrimRight(strings.Join(out, "\n"), "\n")
	}
	var b strings.Builder
	for k, l := range out {
		switch {
		case l == "":
			b.WriteByte('\n')
		case k > 0 && out[k-1] != "":
			b.WriteByte(' ')
			b.WriteString(l)
		default:
			b.WriteString(l)
		}
	}
	return strings.Trim(b.String(), "\n")
}

func isBlockIndicator(s string) bool {
	s = stripComment(s)
	if s == "" || (s[0] != '|' && s[0] != '>') {
		return false
	}
	for _, c := range s[1:] {
		if c != '-' && c != '+' && (c < '1' || c > '9') {
			return false
		}
	}
	return true
}

// fields checks the entries baton reads and turns them into a Frontmatter.
func fields(m map[string]*entry) (Frontmatter, error) {
	var fm Frontmatter
	var err error
	text := func(key string) string {
		e := m[key]
		if e == nil || err != nil {
			return ""
		}
		if e.kind != kindScalar {
			err = fmt.Errorf("line %d: %s must be text, not a %s", e.line, key, shape(e.kind))
		}
		return strings.TrimSpace(e.text)
	}
	fm.Name = text("name")
	fm.Version = text("version")
	fm.Description = text("description")
	if err != nil {
		return Frontmatter{}, err
	}
	if fm.Description == "" {
		if e := m["description"]; e != nil {
			return Frontmatter{}, fmt.Errorf("line %d: description is empty; every skill needs one, it is what skill_list shows", e.line)
		}
		return Frontmatter{}, fmt.Errorf("description is required: add \"description: ...\" to the frontmatter")
	}
	if fm.Capabilities, err = list(m, "capabilities", "capability", "[plan, review]"); err != nil {
		return Frontmatter{}, err
	}
	if fm.Tools, err = list(m, "baton-tools", "tool", "[get_issue, add_finding]"); err != nil {
		return Frontmatter{}, err
	}
	return fm, nil
}

// list reads an optional list of non-empty strings (never nil).
func list(m map[string]*entry, key, item, example string) ([]string, error) {
	out := []string{}
	e := m[key]
	if e == nil || e.null {
		return out, nil
	}
	if e.kind != kindList {
		return nil, fmt.Errorf("line %d: %s must be a list, e.g. %s, not a %s", e.line, key, example, shape(e.kind))
	}
	for k, c := range e.items {
		c = strings.TrimSpace(c)
		if c == "" {
			return nil, fmt.Errorf("line %d: %s %d is empty", e.line, item, k+1)
		}
		out = append(out, c)
	}
	return out, nil
}

func shape(k kind) string {
	switch k {
	case kindList:
		return "list"
	case kindMap:
		return "mapping"
	}
	return "text"
}

// cutKey splits "key: rest" (or "key:" alone).
func cutKey(line string) (key, rest string, ok bool) {
	for i := 0; i < len(line); i++ {
		if line[i] == ':' && (i+1 == len(line) || line[i+1] == ' ' || line[i+1] == '\t') {
			key = strings.TrimRight(line[:i], " \t")
			if !keyPattern().MatchString(key) {
				return "", "", false
			}
			return key, line[i+1:], true
		}
	}
	return "", "", false
}

func indentOf(line string) int {
	return len(line) - len(strings.TrimLeft(line, " \t"))
}

func isItem(line string) bool {
	t := strings.TrimSpace(line)
	return t == "-" || strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "-\t")
}

func isComment(s string) bool {
	s = strings.TrimSpace(s)
	return s == "" || s[0] == '#'
}

// skippable is a blank or comment-only line.
func skippable(line string) bool { return isComment(line) }

// stripComment drops a trailing comment from a plain scalar: a # that
// starts the value or follows a space, as in YAML; "C#" keeps its #.
func stripComment(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '#' && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t') {
			return strings.TrimSpace(s[:i])
		}
	}
	return strings.TrimSpace(s)
}

func hasContent(lines []string) bool {
	for _, l := range lines {
		if !skippable(l) {
			return true
		}
	}
	return false
}

func firstContent(lines []string, first int) int {
	for k, l := range lines {
		if !skippable(l) {
			return first + k
		}
	}
	return first
}
