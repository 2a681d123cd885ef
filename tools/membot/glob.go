package membot

import (
	"regexp"
	"strings"

	"github.com/baton-dev/baton"
)

// Globs (membot-operations.md §6, membot_remove; also membot_add's
// sources, include and exclude): `*` matches within one path segment,
// `**` across segments (`a/**/b` also matches `a/b`, `dir/**` everything
// under dir/), `?` one character but `/`, `[abc]`, `[a-z]` and `[!abc]` one
// character of (or not of) a class. Dot-files are not special: `*` matches
// `.env`. Everything else matches itself.

// isGlob says whether s holds glob syntax rather than naming one path.
func isGlob(s string) bool { return strings.ContainsAny(s, "*?[") }

// globBase is the part of a glob before its first segment with glob
// syntax: the directory a walk for it starts from ("" for the top).
func globBase(pattern string) string {
	segs := strings.Split(pattern, "/")
	var base []string
	for _, s := range segs[:len(segs)-1] {
		if isGlob(s) {
			break
		}
		base = append(base, s)
	}
	return strings.Join(base, "/")
}

// compileGlob turns a glob into an anchored regular expression. A malformed
// class is ERR_INVALID_INPUT.
func compileGlob(pattern string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^")
	rs := []rune(pattern)
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; r {
		case '*':
			j := i
			for j < len(rs) && rs[j] == '*' {
				j++
			}
			if j-i == 1 {
				b.WriteString("[^/]*")
				break
			}
			atStart := i == 0 || rs[i-1] == '/'
			if atStart && j < len(rs) && rs[j] == '/' {
				// "**/" is zero or more whole segments.
				b.WriteString("(?:.*/)?")
				j++
			} else {
				b.WriteString(".*")
			}
			i = j - 1
		case '?':
			b.WriteString("[^/]")
		case '[':
			class, n, ok := globClass(rs[i:])
			if !ok {
				b.WriteString(regexp.QuoteMeta("["))
				break
			}
			// A range such as [+-0] takes in "/", which no character of
			// one segment is.
			if re, err := regexp.Compile(class); err == nil && re.MatchString("/") {
				return nil, badGlob(pattern, "the class "+string(rs[i:i+n])+" matches /")
			}
			b.WriteString(class)
			i += n - 1
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, badGlob(pattern, err.Error())
	}
	return re, nil
}

func badGlob(pattern, why string) error {
	return baton.Errorf(baton.ErrInvalidInput, "%q is not a valid glob: %s", pattern, why).
		WithDetails("pattern", pattern).
		WithHint("use * within a segment, ** across segments, ? for one character and [a-z] for a class")
}

// globClass reads the class at the start of rs ("[...]"), returning it as
// a regular-expression class (a negated one never matches "/"), and its
// length in runes; ok is false when the class does not close (then "[" is literal).
func globClass(rs []rune) (class string, n int, ok bool) {
	i := 1
	neg := false
	if i < len(rs) && (rs[i] == '!' || rs[i] == '^') {
		neg = true
		i++
	}
	start := i
	if i < len(rs) && rs[i] == ']' {
		i++ // a leading ] is a member
	}
	for i < len(rs) && rs[i] != ']' {
		i++
	}
	if i >= len(rs) {
		return "", 0, false
	}
	var b strings.Builder
	b.WriteString("[")
	if neg {
		b.WriteString("^/")
	}
	for _, r := range rs[start:i] {
		switch r {
		case '\\', ']', '[', '^':
			b.WriteString(`\` + string(r))
		default:
			b.WriteRune(r)
		}
	}
	b.WriteString("]")
	return b.String(), i + 1, true
}
