// Package pathglob is the glob language of advisory file reservations: an
// agent reserves path globs in a git repository, and two reservations
// conflict when their globs overlap, that is when some path could match
// both. Overlap is decided exactly (no missed conflicts, no invented ones),
// not by comparing strings, so "src/**" conflicts with "src/*.go" and
// "*.go" with "*_test.go", while "**/*.go" and "docs/*.md" do not.
//
// A pattern is a repository-relative, slash-separated path whose segments
// may contain:
//
//	abc      literal characters (case-sensitive, as git tracks paths)
//	*        any run of characters within one segment, possibly empty
//	?        exactly one character
//	[a-z_]   one character from a class; ranges a-z; [!...] or [^...]
//	         negates; a ']' first in the class is literal
//	**       as a whole segment: zero or more segments (src/**, **/*.go,
//	         a/**/b, which also matches a/b)
//	\c       the character c literally, for c one of * ? [ ] \ ! ^ -
//	         (any other escape is refused: src\main.go is a mistake)
//
// Characters are Unicode code points: ? matches "é" written as one code
// point. No wildcard ever matches "/". A trailing slash reserves a
// directory: "src/" means "src/**", everything under src (and, since **
// may match zero segments, the path src itself). A name without a trailing
// slash or wildcards, such as "src", is that one path only.
//
// The paths these globs describe are what git can track: non-empty
// segments that are neither "." nor "..". Overlap and Witness reason about
// exactly those paths, and Match normalizes a path to one of them first.
//
// Overlap runs in polynomial time: each pattern is a sequence of segment
// matchers with ** as a segment-level Kleene star, and the intersection of
// the two is searched with memoization over position pairs; two segments
// intersect when the product of their character-level automata (literal,
// ?, * and classes as sets of code points) reaches acceptance, again a
// memoized search. Witness returns the path such a search finds, so a
// conflict can be shown, not only asserted.
package pathglob

import (
	"fmt"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxLen is the longest pattern accepted, in bytes. A reservation names a
// few files or directories; anything longer is a mistake or an attempt to
// make the overlap check expensive.
const MaxLen = 1024

// MaxSegments is the most path segments a pattern may have, bounding the
// segment-level search for the same reason MaxLen bounds its length.
const MaxSegments = 64

// Validate reports whether pattern is a well-formed reservation glob, and
// if not what is wrong and how to write it instead. Duplicate and trailing
// slashes are accepted, because Clean normalizes them; everything else that
// Clean cannot repair without guessing the intent is refused: empty
// patterns, absolute or drive paths, "." and ".." segments, ** inside a
// segment, unclosed classes, control characters, and over-long patterns.
func Validate(pattern string) error {
	_, err := compile(pattern)
	return err
}

// Clean returns the normal form of pattern: duplicate slashes collapsed, a
// trailing slash turned into a trailing ** (a directory reservation covers
// what is under it: "src/" is "src/**"), and runs of ** segments collapsed
// into one (they match the same paths). Clean never changes which paths a
// valid pattern matches, so reservations can be stored and compared in
// this form. It does not validate: for an invalid pattern the result is
// unspecified, but Clean never panics.
func Clean(pattern string) string {
	if pattern == "" || !strings.Contains(pattern, "//") && pattern[len(pattern)-1] != '/' && !strings.Contains(pattern, "**/**") {
		return pattern // already clean: the common case costs nothing
	}
	lead := pattern[0] == '/'
	segs := splitSegments(pattern)
	trailing := len(segs) > 1 && segs[len(segs)-1] == ""
	out := make([]string, 0, len(segs)+1)
	for _, s := range segs {
		if s == "" || (s == "**" && len(out) > 0 && out[len(out)-1] == "**") {
			continue
		}
		out = append(out, s)
	}
	if trailing && len(out) > 0 && out[len(out)-1] != "**" {
		out = append(out, "**")
	}
	res := strings.Join(out, "/")
	if lead {
		res = "/" + res
	}
	return res
}

// Match reports whether the concrete path p matches pattern. The path is
// slash-separated and relative to the repository root; it is cleaned first
// (path.Clean: "./a//b/" is "a/b"), and a path that is empty, absolute,
// not valid UTF-8 or escapes the root through ".." matches nothing. An
// invalid pattern matches nothing either, so a bad reservation cannot
// silently cover files.
func Match(pattern, p string) bool {
	segs, err := compile(pattern)
	if err != nil {
		return false
	}
	return match(segs, p)
}

// Overlap reports whether some path matches both a and b, which is when
// reservations of a and b conflict. It is exact for this glob language and
// symmetric. An invalid pattern overlaps nothing; callers validate
// reservations before storing them.
func Overlap(a, b string) bool {
	ca, err := compile(a)
	if err != nil {
		return false
	}
	cb, err := compile(b)
	if err != nil {
		return false
	}
	return overlap(ca, cb)
}

// Witness returns a path matching both a and b, and whether there is one
// (exactly when Overlap(a, b)). It lets a refused reservation name a
// concrete file it would collide on, e.g. "src/a.go" for "src/**" against
// "*/*.go". The path is clean and prefers ASCII letters where the patterns
// leave a choice.
func Witness(a, b string) (string, bool) {
	ca, err := compile(a)
	if err != nil {
		return "", false
	}
	cb, err := compile(b)
	if err != nil {
		return "", false
	}
	return witness(ca, cb)
}

// Pattern is a validated, compiled glob. A reservation table can compile
// each held pattern once and check a new one against all of them, instead
// of parsing both sides again in every Overlap call. A Pattern is
// immutable and safe for concurrent use.
type Pattern struct {
	clean string
	segs  []segment
}

// Compile validates pattern, with the errors of Validate, and compiles its
// normal form.
func Compile(pattern string) (*Pattern, error) {
	segs, err := compile(pattern)
	if err != nil {
		return nil, err
	}
	return &Pattern{clean: Clean(pattern), segs: segs}, nil
}

// String returns the normal form of the pattern (see Clean), the form to
// store and show.
func (p *Pattern) String() string { return p.clean }

// Match is Match with a compiled pattern.
func (p *Pattern) Match(path string) bool { return match(p.segs, path) }

// Overlaps is Overlap with compiled patterns.
func (p *Pattern) Overlaps(q *Pattern) bool { return overlap(p.segs, q.segs) }

// Witness is Witness with compiled patterns.
func (p *Pattern) Witness(q *Pattern) (string, bool) { return witness(p.segs, q.segs) }

func overlap(a, b []segment) bool {
	var o overlapper
	o.init(a, b)
	return o.reach(0, 0)
}

func witness(a, b []segment) (string, bool) {
	var o overlapper
	o.init(a, b)
	if !o.reach(0, 0) {
		return "", false
	}
	return o.witness(), true
}

// --- compiled form -------------------------------------------------------

// runeRange is an inclusive range of code points.
type runeRange struct{ lo, hi rune }

// runeSet is a sorted list of disjoint, non-adjacent ranges, always within
// universe, so that set operations need no special cases for "/".
type runeSet []runeRange

// universe is every code point a path segment can hold: all Unicode scalar
// values except "/". Wildcards and negated classes mean subsets of this.
var universe = runeSet{{0, '/' - 1}, {'/' + 1, 0xD7FF}, {0xE000, unicode.MaxRune}}

// has reports whether r is in s.
func (s runeSet) has(r rune) bool {
	lo, hi := 0, len(s)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch {
		case r < s[m].lo:
			hi = m
		case r > s[m].hi:
			lo = m + 1
		default:
			return true
		}
	}
	return false
}

// tok is one character-level element of a segment: a star, or one code
// point from a set (literals, ? and classes are all sets). The sets live
// in the pattern's pool, so a token holds no pointer and a pattern compiles
// into a handful of allocations, not one per character.
type tok struct {
	star     bool
	from, to int32 // the set is pool[from:to]; from < 0 means universe (?)
}

// segment is one path segment of a pattern: ** (globstar) or a sequence of
// tokens. lit holds the text when the segment is a plain literal, the
// common case, which then compares as a string.
type segment struct {
	globstar bool
	isLit    bool
	lit      string
	toks     []tok
	pool     []runeRange
}

// set returns the code points t matches; t is not a star.
func (s *segment) set(t tok) runeSet {
	if t.from < 0 {
		return universe
	}
	return s.pool[t.from:t.to]
}

// satisfiable reports whether the non-literal segment s matches some name,
// i.e. something other than "", "." and "..": every set must be non-empty,
// and then a star can take a letter, three characters are never a dot
// name, and a shorter fixed-length segment needs one set holding more than
// ".".
func (s *segment) satisfiable() bool {
	star, notDot := false, false
	for _, t := range s.toks {
		if t.star {
			star = true
			continue
		}
		set := s.set(t)
		if len(set) == 0 {
			return false
		}
		if len(set) > 1 || set[0] != (runeRange{'.', '.'}) {
			notDot = true
		}
	}
	return star || notDot || len(s.toks) >= 3
}

// escapable are the characters a backslash may escape: the glob syntax.
// Escaping anything else is refused rather than ignored, so that a
// Windows-style src\main.go is an error instead of a reservation of
// "srcmain.go".
const escapable = `*?[]\!^-`

// builder holds the arrays a pattern's segments share.
type builder struct {
	segs []segment
	toks []tok       // tokens of all non-literal segments
	pool []runeRange // the sets of their tokens
	size int         // pattern length: a guess at both sizes
}

// compile validates pattern and turns its normal form into segments.
func compile(pattern string) ([]segment, error) {
	if pattern == "" {
		return nil, fmt.Errorf("empty pattern: name a file (src/main.go) or a glob (src/**)")
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("pattern %q: %s", pattern, fmt.Sprintf(format, args...))
	}
	if len(pattern) > MaxLen {
		return nil, bad("%d bytes long, over the limit of %d; reserve a parent directory instead, as in dir/**", len(pattern), MaxLen)
	}
	for i := 0; i < len(pattern); {
		r, w := rune(pattern[i]), 1
		if r >= utf8.RuneSelf {
			r, w = utf8.DecodeRuneInString(pattern[i:])
			if r == utf8.RuneError && w == 1 {
				return nil, bad("not valid UTF-8 at byte %d; paths are UTF-8 text", i)
			}
		}
		if unicode.IsControl(r) {
			return nil, bad("control character %U at byte %d; remove it (paths cannot usefully contain control characters)", r, i)
		}
		i += w
	}
	if pattern[0] == '/' {
		return nil, bad("absolute paths are not allowed; use a path relative to the repository root, as in %s", orExample(strings.TrimLeft(pattern, "/")))
	}
	if len(pattern) >= 2 && pattern[1] == ':' && isASCIILetter(pattern[0]) {
		return nil, bad("%q looks like a Windows drive; use a slash-separated path relative to the repository root, as in src/main.go", pattern[:2])
	}
	for i := 0; i < len(pattern); i++ {
		if pattern[i] != '\\' {
			continue
		}
		if i+1 == len(pattern) {
			return nil, bad(`trailing "\" escapes nothing; write "\\" for a literal backslash`)
		}
		if pattern[i+1] == '/' {
			return nil, bad(`"\/" is not allowed: "/" always separates segments and cannot be escaped`)
		}
		if !strings.ContainsRune(escapable, rune(pattern[i+1])) {
			r, _ := utf8.DecodeRuneInString(pattern[i+1:])
			hint := ""
			if alt := strings.ReplaceAll(pattern, `\`, "/"); Validate(alt) == nil {
				hint = fmt.Sprintf(`, or if this is a Windows path, separate directories with "/", as in %s`, alt)
			}
			return nil, bad(`"\%c" is not an escape (only %s can be escaped); write "%c" without the backslash%s`,
				r, strings.Join(strings.Split(escapable, ""), " "), r, hint)
		}
		i++
	}

	clean := Clean(pattern)
	if len(clean) > MaxLen {
		return nil, bad("%d bytes long once cleaned, over the limit of %d; reserve a parent directory instead, as in dir/**", len(clean), MaxLen)
	}
	nseg := 1
	for i := 0; i < len(clean); i++ {
		switch clean[i] {
		case '\\':
			i++
		case '/':
			nseg++
		}
	}
	if nseg > MaxSegments {
		return nil, bad("%d path segments, over the limit of %d; reserve a parent directory instead, as in dir/**", nseg, MaxSegments)
	}
	b := builder{segs: make([]segment, 0, nseg), size: len(clean)}
	for k, rest := 0, clean; ; k++ {
		s, tail, more := cutSegment(rest)
		switch s {
		case ".":
			var kept []string
			for _, t := range splitSegments(clean) {
				if t != "." {
					kept = append(kept, t)
				}
			}
			return nil, bad(`"." segments are not allowed; drop them, as in %s`, orExample(strings.Join(kept, "/")))
		case "..":
			return nil, bad(`".." segments are not allowed: a reservation must stay inside the repository, so name the path directly`)
		}
		seg, starAt, err := b.parseSegment(s)
		if err != nil {
			return nil, bad("%s", err)
		}
		if starAt >= 0 {
			var parts []string
			if before := s[:starAt]; before != "" {
				parts = append(parts, before)
			}
			parts = append(parts, "**")
			if after := strings.TrimLeft(s[starAt:], "*"); after != "" {
				parts = append(parts, after)
			}
			return nil, bad(`"**" must be a whole path segment, as in %s`, joinExcept(splitSegments(clean), k, parts))
		}
		seg.pool = b.pool
		if !seg.globstar && (seg.isLit && (seg.lit == "." || seg.lit == "..") || !seg.isLit && !seg.satisfiable()) {
			return nil, bad("segment %q can only match \".\" or \"..\", which never name a file; remove it", s)
		}
		b.segs = append(b.segs, seg)
		if !more {
			for i := range b.segs {
				b.segs[i].pool = b.pool // the final array, after any growth
			}
			return b.segs, nil
		}
		rest = tail
	}
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func orExample(s string) string {
	if s == "" {
		return "src/main.go"
	}
	return s
}

// joinExcept joins segs with segment k replaced by repl (removed if nil).
func joinExcept(segs []string, k int, repl []string) string {
	out := make([]string, 0, len(segs)+len(repl))
	out = append(out, segs[:k]...)
	out = append(out, repl...)
	out = append(out, segs[k+1:]...)
	return strings.Join(out, "/")
}

// splitSegments splits pattern at every "/" that is not escaped.
func splitSegments(pattern string) []string {
	var segs []string
	start := 0
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '\\':
			i++
		case '/':
			segs = append(segs, pattern[start:i])
			start = i + 1
		}
	}
	return append(segs, pattern[start:])
}

// cutSegment returns the text before the first unescaped "/" of s, the
// text after it, and whether there was one.
func cutSegment(s string) (seg, rest string, found bool) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '/':
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// parseSegment parses one segment (no "/" in it). starAt is the byte
// offset of an unescaped "**" inside a segment that is not just "**", so
// that the caller can suggest the fix; it is -1 otherwise.
func (b *builder) parseSegment(s string) (seg segment, starAt int, err error) {
	if s == "**" {
		return segment{globstar: true}, -1, nil
	}
	if !hasWildcard(s) {
		return segment{isLit: true, lit: unescape(s)}, -1, nil
	}
	if b.toks == nil {
		b.toks = make([]tok, 0, b.size)
		b.pool = make([]runeRange, 0, b.size+8)
	}
	start := len(b.toks)
	isLit := true
	for i := 0; i < len(s); {
		c := s[i]
		switch c {
		case '*':
			if i+1 < len(s) && s[i+1] == '*' {
				return segment{}, i, nil
			}
			b.toks = append(b.toks, tok{star: true})
			isLit = false
			i++
		case '?':
			b.toks = append(b.toks, tok{from: -1})
			isLit = false
			i++
		case '[':
			t, n, err := b.parseClass(s[i:])
			if err != nil {
				return segment{}, -1, err
			}
			b.toks = append(b.toks, t)
			isLit = false
			i += n
		default:
			if c == '\\' {
				i++ // compile checked that an escape is followed by a character
			}
			r, w := utf8.DecodeRuneInString(s[i:])
			n := int32(len(b.pool))
			b.pool = append(b.pool, runeRange{r, r})
			b.toks = append(b.toks, tok{from: n, to: n + 1})
			i += w
		}
	}
	if isLit { // only escaped wildcards, as in \*
		return segment{isLit: true, lit: unescape(s)}, -1, nil
	}
	end := len(b.toks)
	return segment{toks: b.toks[start:end:end]}, -1, nil
}

// hasWildcard reports whether s holds "*", "?" or "[" (escaped or not).
func hasWildcard(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '*' || c == '?' || c == '[' {
			return true
		}
	}
	return false
}

// unescape returns the literal text of a segment without wildcards.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
		}
		if i < len(s) {
			sb.WriteByte(s[i])
		}
	}
	return sb.String()
}

// parseClass parses the class at the start of s ("[...]"), adds its set
// to the pool and returns its token and length in bytes.
func (b *builder) parseClass(s string) (tok, int, error) {
	unclosed := func() error {
		return fmt.Errorf(`character class %q is not closed with "]" (a class cannot contain "/"); add the "]", or write \[ for a literal "["`, s)
	}
	i := 1
	neg := false
	if i < len(s) && (s[i] == '!' || s[i] == '^') {
		neg = true
		i++
	}
	// next reads one class member character, honouring escapes.
	next := func() (rune, bool) {
		if i >= len(s) {
			return 0, false
		}
		if s[i] == '\\' {
			i++
			if i >= len(s) {
				return 0, false
			}
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		i += w
		return r, true
	}
	var small [8]runeRange
	ranges := small[:0]
	first := true
	for {
		if i >= len(s) {
			return tok{}, 0, unclosed()
		}
		if s[i] == ']' && !first {
			i++
			break
		}
		first = false
		start := i
		lo, ok := next()
		if !ok {
			return tok{}, 0, unclosed()
		}
		hi := lo
		if i+1 < len(s) && s[i] == '-' && s[i+1] != ']' {
			i++
			hi, ok = next()
			if !ok {
				return tok{}, 0, unclosed()
			}
			if hi < lo {
				return tok{}, 0, fmt.Errorf("range %q in character class is empty because %q sorts after %q; write it as %c-%c", s[start:i], lo, hi, hi, lo)
			}
		}
		ranges = append(ranges, runeRange{lo, hi})
	}
	ranges = normalize(ranges)
	from := int32(len(b.pool))
	if neg {
		b.pool = appendSubtract(b.pool, universe, ranges)
	} else {
		b.pool = appendIntersect(b.pool, universe, ranges)
	}
	return tok{from: from, to: int32(len(b.pool))}, i, nil
}

// normalize sorts and merges ranges, in place.
func normalize(rs []runeRange) runeSet {
	for i := 1; i < len(rs); i++ { // insertion sort: classes are short
		for j := i; j > 0 && rs[j].lo < rs[j-1].lo; j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
	out := rs[:0]
	for _, r := range rs {
		if n := len(out); n > 0 && r.lo <= out[n-1].hi+1 {
			out[n-1].hi = max(out[n-1].hi, r.hi)
			continue
		}
		out = append(out, r)
	}
	return out
}

// appendIntersect appends a ∩ b to out.
func appendIntersect(out []runeRange, a, b runeSet) []runeRange {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if lo, hi := max(a[i].lo, b[j].lo), min(a[i].hi, b[j].hi); lo <= hi {
			out = append(out, runeRange{lo, hi})
		}
		if a[i].hi < b[j].hi {
			i++
		} else {
			j++
		}
	}
	return out
}

// appendSubtract appends a \ b to out.
func appendSubtract(out []runeRange, a, b runeSet) []runeRange {
	j := 0
	for _, r := range a {
		lo := r.lo
		for j < len(b) && b[j].hi < lo {
			j++
		}
		k := j
		for k < len(b) && b[k].lo <= r.hi {
			if b[k].lo > lo {
				out = append(out, runeRange{lo, b[k].lo - 1})
			}
			lo = max(lo, b[k].hi+1)
			k++
		}
		if lo <= r.hi {
			out = append(out, runeRange{lo, r.hi})
		}
	}
	return out
}

// forEachCommon calls fn on each maximal range in a ∩ b, in order, until
// fn returns false.
func forEachCommon(a, b runeSet, fn func(lo, hi rune) bool) {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		lo, hi := max(a[i].lo, b[j].lo), min(a[i].hi, b[j].hi)
		if lo <= hi && !fn(lo, hi) {
			return
		}
		if a[i].hi < b[j].hi {
			i++
		} else {
			j++
		}
	}
}

// commonInfo reports whether a ∩ b holds "." and whether it holds any
// other code point; the character-level search needs nothing more.
func commonInfo(a, b runeSet) (dot, other bool) {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if lo, hi := max(a[i].lo, b[j].lo), min(a[i].hi, b[j].hi); lo <= hi {
			if lo <= '.' && '.' <= hi {
				dot = true
			}
			if lo != hi || lo != '.' {
				other = true
			}
			if dot && other {
				break
			}
		}
		if a[i].hi < b[j].hi {
			i++
		} else {
			j++
		}
	}
	return dot, other
}

// preferred are the code points a witness uses when the patterns allow,
// so that witnesses read like file names.
const preferred = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"

// pick returns a code point of a ∩ b, other than "." when noDot, favouring
// readable ones; the caller knows there is one.
func pick(a, b runeSet, noDot bool) rune {
	ok := func(r rune) bool { return a.has(r) && b.has(r) && !(noDot && r == '.') }
	for _, r := range preferred {
		if ok(r) {
			return r
		}
	}
	for r := rune('!'); r <= '~'; r++ {
		if ok(r) {
			return r
		}
	}
	found, fallback := rune(-1), rune(-1)
	forEachCommon(a, b, func(lo, hi rune) bool {
		for r := lo; r <= hi && r-lo < 512; r++ {
			if noDot && r == '.' {
				continue
			}
			if fallback < 0 {
				fallback = r
			}
			if unicode.IsPrint(r) {
				found = r
				return false
			}
		}
		return true
	})
	if found >= 0 {
		return found
	}
	return fallback
}

// match reports whether the concrete path p matches segs.
func match(segs []segment, p string) bool {
	if p == "" || p[0] == '/' || !utf8.ValidString(p) {
		return false
	}
	p = path.Clean(p)
	if p == "." || p == ".." || strings.HasPrefix(p, "../") {
		return false
	}
	names := strings.Split(p, "/")
	globstars := false
	for i := range segs {
		globstars = globstars || segs[i].globstar
	}
	if !globstars { // the common case: one segment per name
		if len(names) != len(segs) {
			return false
		}
		for i := range segs {
			if !segs[i].matches(names[i]) {
				return false
			}
		}
		return true
	}
	pm := pathMatcher{segs: segs, names: names, memo: make([]int8, (len(segs)+1)*(len(names)+1))}
	return pm.rec(0, 0)
}

// pathMatcher matches segments against names, memoized over (i, k) so that
// many ** segments cannot make it backtrack exponentially.
type pathMatcher struct {
	segs  []segment
	names []string
	memo  []int8 // 0 unknown, 1 matches, -1 not
}

// rec reports whether segs[i:] matches names[k:].
func (pm *pathMatcher) rec(i, k int) bool {
	m, n := len(pm.segs), len(pm.names)
	if i == m {
		return k == n
	}
	idx := i*(n+1) + k
	if v := pm.memo[idx]; v != 0 {
		return v > 0
	}
	var ok bool
	if s := &pm.segs[i]; s.globstar {
		ok = pm.rec(i+1, k) || (k < n && pm.rec(i, k+1))
	} else {
		ok = k < n && s.matches(pm.names[k]) && pm.rec(i+1, k+1)
	}
	pm.memo[idx] = -1
	if ok {
		pm.memo[idx] = 1
	}
	return ok
}

// matches reports whether the (non-globstar) segment matches name.
func (s *segment) matches(name string) bool {
	if s.isLit {
		return s.lit == name
	}
	return matchToks(s, name)
}

// matchToks is the classic single-star-backtracking glob match: on a
// mismatch only the most recent star needs to absorb one more character,
// which is correct when every non-star token matches exactly one character.
func matchToks(s *segment, name string) bool {
	toks := s.toks
	ti, si := 0, 0
	starT, starS := -1, 0
	for si < len(name) {
		if ti < len(toks) {
			if toks[ti].star {
				starT, starS = ti, si
				ti++
				continue
			}
			r, w := utf8.DecodeRuneInString(name[si:])
			if s.set(toks[ti]).has(r) {
				ti++
				si += w
				continue
			}
		}
		if starT < 0 {
			return false
		}
		_, w := utf8.DecodeRuneInString(name[starS:])
		starS += w
		si, ti = starS, starT+1
	}
	for ti < len(toks) && toks[ti].star {
		ti++
	}
	return ti == len(toks)
}
