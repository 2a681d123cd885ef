package pathglob

import (
	"fmt"
	"math/rand"
	"path"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// overlapCases are pattern pairs with whether some path matches both, and
// why. Every case is checked in both orders.
var overlapCases = []struct {
	a, b string
	want bool
	why  string
}{
	// Literals.
	{"src/main.go", "src/main.go", true, "identical literals"},
	{"src/main.go", "src/main_test.go", false, "different literals"},
	{"go.mod", "go.sum", false, "different literals in one segment"},
	{"src", "src/a", false, "a bare name is that path only, not what is under it"},
	{"a/b/c", "a/b", false, "different depths"},
	{"A.go", "a.go", false, "case-sensitive, as git tracks paths"},
	{"*.GO", "*.go", false, "case-sensitive suffixes"},
	{"[A-Z]*", "readme", false, "upper-case class against lower case"},
	{"[A-Z]*", "README", true, "R is in A-Z"},

	// Single star.
	{"src/*.go", "src/main.go", true, "main.go ends in .go"},
	{"src/*.go", "src/a/main.go", false, "* does not cross /"},
	{"*.go", "*_test.go", true, "a_test.go"},
	{"*.go", "*.md", false, "different fixed suffixes"},
	{"a*", "*b", true, "ab"},
	{"a*", "b*", false, "different fixed prefixes"},
	{"*a", "*b", false, "different fixed last characters"},
	{"*a*", "*b*", true, "ab"},
	{"*.tar.gz", "*.gz", true, "x.tar.gz"},
	{"*.gz", "*.tar", false, "different suffixes"},
	{"go.*", "*.sum", true, "go.sum"},
	{"a*b*c", "*c*b*", true, "acbc"},
	{"a*c", "ac", true, "* matches the empty string"},
	{"*", "src", true, "* matches any one name"},
	{"*", "a/b", false, "* is one segment"},
	{"*/*", "*", false, "two segments against one"},
	{"*", "?*?*?", true, "abc"},
	{"*x*y*z*", "*z*y*x*", true, "xyzyx"},
	{"a*a*a*a*b", "*c", false, "last characters differ"},

	// Question mark.
	{"?", "ab", false, "? is exactly one character"},
	{"?", "a", true, "a"},
	{"a?c", "a*c", true, "abc"},
	{"a?c", "ac", false, "? is not optional"},
	{"??", "a*b", true, "ab"},
	{"???", "a*b", true, "axb"},
	{"?", "a*b", false, "a*b needs two characters"},
	{"?/?", "*/*", true, "a/a"},
	{"?", "*/*", false, "one segment against two"},

	// Classes.
	{"[ab]c", "[bc]c", true, "bc"},
	{"[ab]", "[cd]", false, "disjoint classes"},
	{"[a-m]", "[n-z]", false, "adjacent but disjoint ranges"},
	{"[a-m]", "[m-z]", true, "m is in both"},
	{"[a]x", "[!a]x", false, "a class and its negation"},
	{"[a-c]", "[!abc]", false, "a range and the negation of the same letters"},
	{"[!a]", "[!b]", true, "c is in neither a nor b"},
	{"[^a]", "a", false, "^ negates like !"},
	{"[!a-z]", "?", true, "A"},
	{"[!a-z]", "[a-z]", false, "complementary classes"},
	{"[]]", "]", true, "] first in a class is literal"},
	{"[!]]", "]", false, "negated ]"},
	{"[*]", `\*`, true, "literal star both ways"},
	{"[*]", "a", false, "a class holding only *"},
	{"[-a]", "-", true, "leading - is literal"},
	{"[a-]", "-", true, "trailing - is literal"},
	{"[+-0]", "?", true, "+ (the range also spans /, which no class matches)"},
	{"[a-cx-z]", "[c-x]", true, "c and x"},
	{"[a-cx-z]", "[d-w]", false, "d-w falls in the gap"},

	// Escapes.
	{`\*`, "a", false, `\* is a literal star`},
	{`\*`, "*", true, `the path "*" matches both`},
	{`\?`, "a", false, `\? is a literal question mark`},
	{`\?`, "?", true, `the path "?"`},
	{`a\[b`, "a[[]b", true, "a[b"},
	{`\\`, "?", true, "a backslash is one character"},
	{`\!\^`, "!^", true, "escaped class syntax outside a class is literal"},
	{`[\]\-]`, "-", true, "escapes inside a class"},
	{`src\main.go`, "**", false, "a Windows-style path is invalid, not srcmain.go"},
	{`x\*`, "x*", true, "x* (literally)"},
	{`x\*`, "xa", false, "literal star against a"},

	// Globstar.
	{"src/**", "src/a/b/c.txt", true, "** spans segments"},
	{"src/**", "src", true, "** may match zero segments"},
	{"src/**", "srcx/a", false, "different first segment"},
	{"**", "anything/at/all.txt", true, "** matches every path"},
	{"**", "*", true, "a"},
	{"**", "**", true, "any path"},
	{"**/*.go", "docs/*.md", false, "a .go name never ends in .md"},
	{"**/*.go", "vendor/**", true, "vendor/a.go"},
	{"**/*_test.go", "**/*.md", false, "different suffixes at any depth"},
	{"a/**/b", "a/b", true, "** matches zero segments in the middle"},
	{"a/**/b", "a/x/y/b", true, "** matches two segments"},
	{"a/*/b", "a/b", false, "* needs a non-empty segment"},
	{"a/*/b", "a/**/b", true, "a/a/b"},
	{"a/**/b", "a/**/c", false, "different last segments"},
	{"a/**/b/**", "a/**/c", true, "a/b/c"},
	{"docs/**/README.md", "**/README.md", true, "docs/README.md"},
	{"docs/**/README.md", "src/**", false, "different first segments"},
	{"x/**/y/**/z", "x/y/z", true, "both ** match zero segments"},
	{"x/**/y/**/z", "x/z", false, "y is required"},
	{"**/a", "**/b", false, "different last segments"},
	{"**/a/**", "**/b/**", true, "a/b"},
	{"**/a/**", "b/**", true, "b/a"},
	{"a/**", "b/**", false, "different first segments"},
	{"**/a/b", "a/**", true, "a/b"},
	{"a/b/c/d/e/f", "**/f", true, "deep literal"},
	{"**/f", "a/b/c/d/e/g", false, "last segment differs"},
	{"*/*/*", "a/**", true, "a/a/a"},
	{"*/*/*", "a/b", false, "three segments against two"},
	{"**/node_modules/**", "web/node_modules/react/index.js", true, "nested node_modules"},
	{"**/node_modules/**", "web/src/index.js", false, "no node_modules segment"},
	{".github/**", "**/*.yml", true, ".github/a.yml"},
	{".github/**", "*.yml", false, ".github itself does not end in .yml"},
	{"**/*", "*", true, "a"},
	{"*/**", "**/*", true, "a"},
	{"**/**/**", "a", true, "runs of ** collapse"},

	// Directories written with a trailing slash.
	{"src/", "src/x/y", true, "src/ is src/**"},
	{"src/", "src/**", true, "the same reservation"},
	{"src/", "src", true, "src/** includes src itself"},
	{"src/", "lib/", false, "different directories"},
	{"src//a", "src/a", true, "duplicate slashes collapse"},
	{"src/a/", "src/*/b.go", true, "src/a/b.go"},

	// "." and ".." are never file names.
	{".?", "?.", false, `only ".." matches both`},
	{".*", "*.", true, ".a."},
	{"[.]*", "*[.]", true, `".." is no name, but ".a." is`},
	{"?*", ".?", true, ".a"},
	{"?", ".?", false, "one character against two"},

	// Unicode: one code point is one character.
	{"?", "é", true, "é is one code point"},
	{"??", "é", false, "é is one code point, not two"},
	{"??", "e\u0301", true, "e plus a combining accent is two code points"},
	{"[à-ü]", "é", true, "é (U+00E9) lies in à-ü"},
	{"[a-z]", "é", false, "é is not ASCII"},
	{"[!é]", "é", false, "negated é"},
	{"日本/*", "日本/語.txt", true, "CJK names"},
	{"*", "日", true, "one CJK character"},
	{"café/*.md", "café/README.md", true, "accented directory"},
	{"café/*.md", "cafe/README.md", false, "é is not e"},

	// Invalid patterns overlap nothing.
	{"/etc/**", "**", false, "absolute pattern is invalid"},
	{"a**b", "**", false, "** inside a segment is invalid"},
	{"", "**", false, "empty pattern is invalid"},
	{"../x", "**", false, ".. is invalid"},
	{"[ab", "**", false, "unclosed class is invalid"},
}

func TestOverlap(t *testing.T) {
	if len(overlapCases) < 80 {
		t.Fatalf("only %d overlap cases", len(overlapCases))
	}
	for _, c := range overlapCases {
		for _, pair := range [][2]string{{c.a, c.b}, {c.b, c.a}} {
			a, b := pair[0], pair[1]
			if got := Overlap(a, b); got != c.want {
				t.Errorf("Overlap(%q, %q) = %v, want %v (%s)", a, b, got, c.want, c.why)
			}
			if got := Overlap(Clean(a), Clean(b)); got != c.want {
				t.Errorf("Overlap(Clean(%q), Clean(%q)) = %v, want %v (%s)", a, b, got, c.want, c.why)
			}
			w, ok := Witness(a, b)
			if ok != c.want {
				t.Errorf("Witness(%q, %q) ok = %v, want %v (%s)", a, b, ok, c.want, c.why)
			}
			if ok {
				checkWitness(t, a, b, w)
			}
		}
	}
}

// checkWitness fails unless w is a clean path matching both a and b.
func checkWitness(t *testing.T, a, b, w string) {
	t.Helper()
	if !Match(a, w) || !Match(b, w) {
		t.Errorf("Witness(%q, %q) = %q, which does not match both (%v, %v)", a, b, w, Match(a, w), Match(b, w))
	}
	if !isCleanPath(w) {
		t.Errorf("Witness(%q, %q) = %q, not a clean relative path", a, b, w)
	}
}

func isCleanPath(w string) bool {
	if w == "" || !utf8.ValidString(w) || path.Clean(w) != w || strings.HasPrefix(w, "/") {
		return false
	}
	for _, s := range strings.Split(w, "/") {
		if s == "" || s == "." || s == ".." {
			return false
		}
	}
	return true
}

func TestWitnessExamples(t *testing.T) {
	for _, c := range []struct{ a, b, want string }{
		{"src/**", "*/*.go", "src/a.go"},
		{"*.go", "*_test.go", "a_test.go"},
		{"a*", "*b", "ab"},
		{"**", "**", "a"},
		{`\*`, "*", "*"},
		{"x/**/y/**/z", "x/y/z", "x/y/z"},
		{"[!a-z]", "?", "A"},
	} {
		if got, ok := Witness(c.a, c.b); !ok || got != c.want {
			t.Errorf("Witness(%q, %q) = %q, %v; want %q", c.a, c.b, got, ok, c.want)
		}
	}
}

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		pattern, path string
		want          bool
	}{
		{"src/*.go", "src/main.go", true},
		{"src/*.go", "src/a/main.go", false},
		{"src/*.go", "src/.go", true},
		{"src/**", "src/a/b/c.txt", true},
		{"src/**", "src", true},
		{"src/**", "srcx", false},
		{"src/", "src/a", true},
		{"src", "src/a", false},
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"a/**/b", "a/x/y/c", false},
		{"a/*/b", "a//b", false}, // the path cleans to a/b
		{"**", "a", true},
		{"**", "a/b/c", true},
		{"*.go", "./main.go", true},
		{"*.go", "main.go/", true},
		{"a", "x/../a", true},
		{"a", "/a", false},
		{"a", "", false},
		{"a", ".", false},
		{"a", "../a", false},
		{"?", "é", true},
		{"?", "e\u0301", false},
		{"??", "e\u0301", true},
		{`\*`, "*", true},
		{`\*`, "a", false},
		{"*", "*", true},
		{"[!a]", "b", true},
		{"[!a]", "a", false},
		{"[a-c]x", "bx", true},
		{"[a-c]x", "dx", false},
		{"A.go", "a.go", false},
		{"*", "\xff", false},     // not UTF-8
		{"a/**x", "a/bx", false}, // invalid pattern
		{"*a*a*a*a*a*a*b", strings.Repeat("a", 60), false},
		{strings.Repeat("*/**/", 20) + "b", strings.Repeat("a/", 60) + "a", false},
		{strings.Repeat("*/**/", 20) + "a", strings.Repeat("a/", 60) + "a", true},
	} {
		if got := Match(c.pattern, c.path); got != c.want {
			t.Errorf("Match(%q, %q) = %v, want %v", c.pattern, c.path, got, c.want)
		}
	}
}

func TestClean(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"a", "a"},
		{"src/", "src/**"},
		{"src//a///b", "src/a/b"},
		{"a/**/**/b", "a/**/b"},
		{"**/", "**"},
		{"src/**/", "src/**"},
		{`\\/`, `\\/**`},
		{"//a", "/a"},
		{"/", "/"},
		{"a/**/**", "a/**"},
	} {
		if got := Clean(c.in); got != c.want {
			t.Errorf("Clean(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := Clean(Clean(c.in)); got != Clean(c.in) {
			t.Errorf("Clean is not idempotent on %q: %q then %q", c.in, Clean(c.in), got)
		}
	}
}

func TestValidate(t *testing.T) {
	good := []string{
		"src/main.go", "src/**", "**/*.go", "a/**/b", "src/", "a//b", "**",
		"*", "?", "[a-z]*.go", "[!abc]", "[^abc]", "[]]", "[!]]", `\*`,
		`a\\b`, `[\]]`, "café/*.md", "a b/c d", ".github/**", ".?", "...",
		"ab:c", strings.Repeat("a/", MaxSegments-1) + "a",
		strings.Repeat("a", MaxLen),
	}
	for _, p := range good {
		if err := Validate(p); err != nil {
			t.Errorf("Validate(%q) = %v, want nil", p, err)
		}
		if err := Validate(Clean(p)); err != nil {
			t.Errorf("Validate(Clean(%q)) = %v, want nil", p, err)
		}
	}
	bad := []struct{ pattern, want string }{
		{"", "empty pattern"},
		{"/etc/passwd", "absolute paths are not allowed; use a path relative to the repository root, as in etc/passwd"},
		{"C:/x", "Windows drive"},
		{"c:", "Windows drive"},
		{"a/../b", `".." segments are not allowed`},
		{"..", `".." segments`},
		{"./a", `"." segments are not allowed; drop them, as in a`},
		{"a/./b", "as in a/b"},
		{".", `"." segments`},
		{"src/**x", `pattern "src/**x": "**" must be a whole path segment, as in src/**/x`},
		{"a**b", "as in a/**/b"},
		{"**a", "as in **/a"},
		{"x/***", "as in x/**"},
		{"[abc", `character class "[abc" is not closed`},
		{"a[", "not closed"},
		{"[a/b]", `a class cannot contain "/"`},
		{"[!]", "not closed"},
		{"[]", "not closed"},
		{`[a\`, "escapes nothing"},
		{`a\`, `trailing "\" escapes nothing`},
		{`a\/b`, `"\/" is not allowed`},
		{`src\main.go`, `"\m" is not an escape (only * ? [ ] \ ! ^ - can be escaped); write "m" without the backslash, or if this is a Windows path, separate directories with "/", as in src/main.go`},
		{`a\.b`, `"\." is not an escape`},
		{`a\é`, `"\é" is not an escape`},
		{"a\x00b", "control character U+0000"},
		{"a\tb", "control character U+0009"},
		{"a\x7fb", "control character U+007F"},
		{"a\u0085b", "control character U+0085"},
		{"a\xffb", "not valid UTF-8"},
		{strings.Repeat("a", MaxLen+1), "over the limit of 1024"},
		{strings.Repeat("a", MaxLen-1) + "/", "once cleaned"},
		{strings.Repeat("a/", MaxSegments) + "a", "65 path segments, over the limit of 64"},
		{"[z-a]", `range "z-a" in character class is empty`},
		{"[.]", `can only match "." or ".."`},
		{`\.`, `"\." is not an escape`},
		{"[.][.]", `can only match "." or ".."`},
		{"[.-.]", `can only match "." or ".."`},
	}
	for _, c := range bad {
		err := Validate(c.pattern)
		if err == nil {
			t.Errorf("Validate(%q) = nil, want an error containing %q", c.pattern, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate(%q) = %q, want it to contain %q", c.pattern, err, c.want)
		}
		if Match(c.pattern, "a") || Overlap(c.pattern, "**") {
			t.Errorf("invalid pattern %q matches or overlaps", c.pattern)
		}
	}
}

// --- randomized checks against a regexp reference ---------------------

// genTok is a token of the random generator: its glob text, the regexp
// the reference uses for it, and the characters it matches for the NFA
// reference (nil for a star). Both references are independent of the
// package's parser and search.
type genTok struct {
	glob, re string
	in       func(rune) bool
}

func notSlash(c rune) bool { return c != '/' }

var genToks = []genTok{
	{"a", "a", func(c rune) bool { return c == 'a' }},
	{"b", "b", func(c rune) bool { return c == 'b' }},
	{"?", "[^/]", notSlash},
	{"*", "[^/]*", nil},
	{"[ab]", "[ab]", func(c rune) bool { return c == 'a' || c == 'b' }},
	{"[!a]", "[^/a]", func(c rune) bool { return c != '/' && c != 'a' }},
	{"[^b]", "[^/b]", func(c rune) bool { return c != '/' && c != 'b' }},
	{"[a-b]", "[a-b]", func(c rune) bool { return 'a' <= c && c <= 'b' }},
	{`\*`, `\*`, func(c rune) bool { return c == '*' }},
	{".", `\.`, func(c rune) bool { return c == '.' }},
	{"[.a]", `[.a]`, func(c rune) bool { return c == '.' || c == 'a' }},
}

// genPat is a random pattern with two references: an anchored regexp that
// matches "/" + path exactly when the path matches, and the same language
// as a list of NFA elements over "/" + path.
type genPat struct {
	glob string
	re   *regexp.Regexp
	nfa  []refElem
}

// refElem is one element of the reference NFA: a "/", one character from
// in, a star (any run without "/"), or a globstar (any number of "/name").
type refElem struct {
	kind int // refSlash, refChar, refStar, refGlobstar
	in   func(rune) bool
}

const (
	refSlash = iota
	refChar
	refStar
	refGlobstar
)

// genPattern returns a random small pattern: every segment contributes
// "/seg" to the references, and ** contributes any number of "/name".
func genPattern(r *rand.Rand) genPat {
	nseg := 1 + r.Intn(3)
	var globs []string
	var nfa []refElem
	re := "^"
	for i := 0; i < nseg; i++ {
		if r.Intn(4) == 0 {
			globs = append(globs, "**")
			re += "(?:/[^/]+)*"
			nfa = append(nfa, refElem{kind: refGlobstar})
			continue
		}
		var g strings.Builder
		re += "/"
		nfa = append(nfa, refElem{kind: refSlash})
		prevStar := false
		for n := 1 + r.Intn(3); n > 0; n-- {
			t := genToks[r.Intn(len(genToks))]
			if t.in == nil && prevStar {
				t = genToks[0]
			}
			prevStar = t.in == nil
			g.WriteString(t.glob)
			re += t.re
			if t.in == nil {
				nfa = append(nfa, refElem{kind: refStar})
			} else {
				nfa = append(nfa, refElem{kind: refChar, in: t.in})
			}
		}
		globs = append(globs, g.String())
	}
	glob := strings.Join(globs, "/")
	if len(globs) > 1 && globs[len(globs)-1] == "**" && r.Intn(2) == 0 {
		glob = strings.TrimSuffix(glob, "**") // "dir/" means "dir/**"
	}
	return genPat{glob: glob, re: regexp.MustCompile(re + "$"), nfa: nfa}
}

// refState is a state of the reference NFA: before element pos, and inside
// a globstar sub is 0 (may end or start a name), 1 (after "/", a name
// character is due) or 2 (inside the name).
type refState struct{ pos, sub int }

// refEps returns the states reachable from s without reading.
func refEps(nfa []refElem, s refState) []refState {
	if s.pos == len(nfa) {
		return nil
	}
	switch e := nfa[s.pos]; {
	case e.kind == refStar:
		return []refState{{s.pos + 1, 0}}
	case e.kind == refGlobstar && s.sub == 0:
		return []refState{{s.pos + 1, 0}}
	case e.kind == refGlobstar && s.sub == 2:
		return []refState{{s.pos, 0}}
	}
	return nil
}

// refStep returns the states reached from s by reading c.
func refStep(nfa []refElem, s refState, c rune) []refState {
	if s.pos == len(nfa) {
		return nil
	}
	switch e := nfa[s.pos]; e.kind {
	case refSlash:
		if c == '/' {
			return []refState{{s.pos + 1, 0}}
		}
	case refChar:
		if e.in(c) {
			return []refState{{s.pos + 1, 0}}
		}
	case refStar:
		if c != '/' {
			return []refState{s}
		}
	case refGlobstar:
		switch {
		case s.sub == 0 && c == '/':
			return []refState{{s.pos, 1}}
		case s.sub > 0 && c != '/':
			return []refState{{s.pos, 2}}
		}
	}
	return nil
}

// refOverlap decides overlap by breadth-first search over the product of
// both NFAs and the automaton of well-formed "/" + path strings (names
// neither empty nor "." nor ".."), reading the alphabet {a, b, *, ., c, /}:
// the generated tokens cannot tell any other character from c, so this is
// exact. It shares nothing with the package's two-level search.
func refOverlap(a, b []refElem) bool {
	type st struct {
		x, y refState
		v    int // 0 start, 1 after "/", 2 inside a usable name, 3 ".", 4 ".."
	}
	start := st{}
	seen := map[st]bool{start: true}
	queue := []st{start}
	push := func(s st) {
		if !seen[s] {
			seen[s] = true
			queue = append(queue, s)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if s.x.pos == len(a) && s.y.pos == len(b) && s.v == 2 {
			return true
		}
		for _, x := range refEps(a, s.x) {
			push(st{x, s.y, s.v})
		}
		for _, y := range refEps(b, s.y) {
			push(st{s.x, y, s.v})
		}
		for _, c := range "ab*.c/" {
			v := -1
			switch {
			case c == '/':
				if s.v == 0 || s.v == 2 {
					v = 1
				}
			case c == '.' && s.v == 1:
				v = 3
			case c == '.' && s.v == 3:
				v = 4
			case s.v != 0:
				v = 2
			}
			if v < 0 {
				continue
			}
			for _, x := range refStep(a, s.x, c) {
				for _, y := range refStep(b, s.y, c) {
					push(st{x, y, v})
				}
			}
		}
	}
	return false
}

// allPaths returns every clean path over {a, b, ., /} of at most n bytes.
func allPaths(n int) []string {
	var out []string
	var rec func(s string)
	rec = func(s string) {
		if s != "" && isCleanPath(s) {
			out = append(out, s)
		}
		if len(s) == n {
			return
		}
		for _, c := range "ab./" {
			rec(s + string(c))
		}
	}
	rec("")
	return out
}

func TestOverlapBruteForce(t *testing.T) {
	const maxLen = 6
	paths := allPaths(maxLen)
	r := rand.New(rand.NewSource(1))
	type pat struct {
		genPat
		bits []uint64
		c    *Pattern
	}
	seen := map[string]bool{}
	var pool []pat
	for len(pool) < 300 {
		gp := genPattern(r)
		g, re := gp.glob, gp.re
		if seen[g] {
			continue
		}
		seen[g] = true
		if err := Validate(g); err != nil {
			if strings.Contains(err.Error(), `"."`) || strings.Contains(err.Error(), `".."`) {
				continue // a segment that is only "." or ".."
			}
			t.Fatalf("generated invalid pattern %q: %v", g, err)
		}
		c, err := Compile(g)
		if err != nil {
			t.Fatalf("Compile(%q): %v", g, err)
		}
		p := pat{genPat: gp, bits: make([]uint64, (len(paths)+63)/64), c: c}
		for k, s := range paths {
			want := re.MatchString("/" + s)
			if got := c.Match(s); got != want {
				t.Fatalf("Match(%q, %q) = %v, reference says %v", g, s, got, want)
			}
			if want {
				p.bits[k/64] |= 1 << (k % 64)
			}
		}
		pool = append(pool, p)
	}
	var pairs, overlapping, bruteOnly int
	for i := range pool {
		for j := i; j < len(pool); j++ {
			a, b := pool[i], pool[j]
			brute := -1
			for k, w := range a.bits {
				if x := w & b.bits[k]; x != 0 {
					brute = k*64 + trailingZeros(x)
					break
				}
			}
			got := Overlap(a.glob, b.glob)
			pairs++
			if got != Overlap(b.glob, a.glob) {
				t.Fatalf("Overlap not symmetric on %q, %q", a.glob, b.glob)
			}
			if got != a.c.Overlaps(b.c) || got != b.c.Overlaps(a.c) {
				t.Fatalf("Pattern.Overlaps disagrees with Overlap on %q, %q", a.glob, b.glob)
			}
			if ref := refOverlap(a.nfa, b.nfa); got != ref {
				t.Fatalf("Overlap(%q, %q) = %v, the NFA reference says %v", a.glob, b.glob, got, ref)
			}
			if brute >= 0 && !got {
				t.Fatalf("Overlap(%q, %q) = false, but %q matches both", a.glob, b.glob, paths[brute])
			}
			w, ok := Witness(a.glob, b.glob)
			if ok != got {
				t.Fatalf("Witness(%q, %q) ok = %v, Overlap = %v", a.glob, b.glob, ok, got)
			}
			if w2, ok2 := a.c.Witness(b.c); w2 != w || ok2 != ok {
				t.Fatalf("Pattern.Witness(%q, %q) = %q, %v; Witness says %q, %v", a.glob, b.glob, w2, ok2, w, ok)
			}
			if ok {
				overlapping++
				if brute < 0 {
					bruteOnly++ // only witnesses longer than maxLen exist
				}
				if !a.re.MatchString("/"+w) || !b.re.MatchString("/"+w) || !isCleanPath(w) {
					t.Fatalf("Witness(%q, %q) = %q, which the reference does not match to both", a.glob, b.glob, w)
				}
			}
		}
	}
	t.Logf("%d patterns, %d paths of up to %d bytes, %d pairs, %d overlapping (%d only beyond %d bytes)",
		len(pool), len(paths), maxLen, pairs, overlapping, bruteOnly, maxLen)
}

func trailingZeros(x uint64) int {
	n := 0
	for x&1 == 0 {
		x >>= 1
		n++
	}
	return n
}

// TestOverlapRandomPaths checks longer random paths than the brute force
// reaches: any path matching both patterns implies Overlap.
func TestOverlapRandomPaths(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	found := 0
	for n := 0; n < 1000; n++ {
		ga, gb := genPattern(r), genPattern(r)
		a, ra, b, rb := ga.glob, ga.re, gb.glob, gb.re
		if Validate(a) != nil || Validate(b) != nil {
			continue // a segment that is only "." or ".."
		}
		ov := Overlap(a, b)
		for k := 0; k < 100; k++ {
			var sb strings.Builder
			for l := 1 + r.Intn(16); l > 0; l-- {
				sb.WriteByte("ab./"[r.Intn(4)])
			}
			p := sb.String()
			if !isCleanPath(p) {
				continue
			}
			ma, mb := ra.MatchString("/"+p), rb.MatchString("/"+p)
			if ma != Match(a, p) || mb != Match(b, p) {
				t.Fatalf("Match disagrees with the reference on %q/%q, path %q", a, b, p)
			}
			if ma && mb {
				found++
				if !ov {
					t.Fatalf("Overlap(%q, %q) = false, but %q matches both", a, b, p)
				}
			}
		}
	}
	t.Logf("%d common random paths found", found)
}

// TestOverlapIsPolynomial feeds patterns that would take exponential time
// to a backtracking matcher.
func TestOverlapIsPolynomial(t *testing.T) {
	starA := strings.Repeat("*a", 200) + "*"
	starB := strings.Repeat("*a", 199) + "*b*"
	deep := strings.Repeat("*/**/", 12) + "x"
	deep2 := strings.Repeat("**/*/", 12) + "y"
	start := time.Now()
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{starA, starB, true},
		{starA + "c", starB + "d", false},
		{deep, deep2, false},
		{deep, deep2[:len(deep2)-1] + "x", true},
		{strings.Repeat("?", 200), strings.Repeat("*a", 250) + "b", false},
		{strings.Repeat("?", 500), strings.Repeat("*a", 250) + "b", true},
	} {
		if got := Overlap(c.a, c.b); got != c.want {
			t.Errorf("Overlap(%.30q..., %.30q...) = %v, want %v", c.a, c.b, got, c.want)
		}
		if w, ok := Witness(c.a, c.b); ok {
			checkWitness(t, c.a, c.b, w)
		}
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("adversarial patterns took %v", d)
	}
}

var benchPairs = [][2]string{
	{"src/**", "src/main.go"},
	{"**/*.go", "docs/*.md"},
	{"internal/**/*_test.go", "internal/store/*.go"},
	{"web/src/components/[A-Z]*.tsx", "web/src/**/Button.tsx"},
	{"docs/**/README.md", "**/README.md"},
	{"cmd/baton/", "cmd/*/main.go"},
}

func BenchmarkOverlap(b *testing.B) {
	for _, p := range benchPairs {
		b.Run(fmt.Sprintf("%s|%s", strings.ReplaceAll(p[0], "/", "∕"), strings.ReplaceAll(p[1], "/", "∕")), func(b *testing.B) {
			for b.Loop() {
				Overlap(p[0], p[1])
			}
		})
	}
}

// BenchmarkPatternOverlaps is the reservation-table case: patterns
// compiled once, checked many times.
func BenchmarkPatternOverlaps(b *testing.B) {
	var ps [][2]*Pattern
	for _, p := range benchPairs {
		x, err := Compile(p[0])
		if err != nil {
			b.Fatal(err)
		}
		y, err := Compile(p[1])
		if err != nil {
			b.Fatal(err)
		}
		ps = append(ps, [2]*Pattern{x, y})
	}
	b.ResetTimer()
	for b.Loop() {
		for _, p := range ps {
			p[0].Overlaps(p[1])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ps)), "ns/pair")
}

func TestPattern(t *testing.T) {
	p, err := Compile("src//")
	if err != nil {
		t.Fatal(err)
	}
	if p.String() != "src/**" {
		t.Errorf("String() = %q, want src/**", p.String())
	}
	if !p.Match("src/a.go") || p.Match("lib/a.go") {
		t.Error("Pattern.Match is wrong")
	}
	q, _ := Compile("*/*.go")
	if w, ok := p.Witness(q); !ok || w != "src/a.go" || !p.Overlaps(q) {
		t.Errorf("Pattern.Witness = %q, %v", w, ok)
	}
	if _, err := Compile("a**"); err == nil || err.Error() != Validate("a**").Error() {
		t.Errorf("Compile(a**) error %v differs from Validate's", err)
	}
}

func BenchmarkMatch(b *testing.B) {
	for b.Loop() {
		Match("internal/**/*_test.go", "internal/store/sqlite/claims_test.go")
	}
}

// FuzzOverlap checks, for any two strings, that Overlap is symmetric and
// agrees with Witness, that a witness matches both patterns, that Clean is
// idempotent and keeps overlaps, and that a path p matching both patterns
// implies an overlap (the fuzzer mutates p towards such paths).
func FuzzOverlap(f *testing.F) {
	for _, c := range overlapCases {
		w, _ := Witness(c.a, c.b)
		f.Add(c.a, c.b, w)
	}
	f.Fuzz(func(t *testing.T, a, b, p string) {
		ov := Overlap(a, b)
		if Match(a, p) && Match(b, p) && !ov {
			t.Fatalf("Overlap(%q, %q) = false, but %q matches both", a, b, p)
		}
		if ov != Overlap(b, a) {
			t.Fatalf("Overlap(%q, %q) is not symmetric", a, b)
		}
		w, ok := Witness(a, b)
		if ok != ov {
			t.Fatalf("Witness(%q, %q) ok = %v, Overlap = %v", a, b, ok, ov)
		}
		if ok {
			checkWitness(t, a, b, w)
		}
		for _, p := range []string{a, b} {
			if Validate(p) != nil {
				if ov {
					t.Fatalf("invalid %q overlaps", p)
				}
				continue
			}
			c := Clean(p)
			if Clean(c) != c {
				t.Fatalf("Clean(%q) = %q is not idempotent", p, c)
			}
			if err := Validate(c); err != nil {
				t.Fatalf("Validate(Clean(%q)) = %v", p, err)
			}
			if Overlap(c, b) != Overlap(p, b) {
				t.Fatalf("Clean(%q) = %q changes overlap with %q", p, c, b)
			}
			if w, ok := Witness(p, p); !ok {
				t.Fatalf("valid %q overlaps nothing, not even itself", p)
			} else {
				checkWitness(t, p, p, w)
			}
		}
	})
}
