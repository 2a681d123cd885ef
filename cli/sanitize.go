package cli

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Text that agents wrote (message bodies, titles, names, ids, error
// messages that quote them) reaches a person's terminal only through
// cleanLine or cleanText. A terminal obeys control characters: an agent
// once forged a green "APPROVED by user" line with ANSI escapes, and
// carriage returns, backspaces or bidi overrides can hide or reorder what
// is really there. So every C0 and C1 control character (ESC, the one-byte
// CSI U+009B, BEL, CR, BS, DEL...), every byte that is not UTF-8 (a
// terminal in a legacy 8-bit mode reads 0x9b as CSI), and the bidi
// embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069) are
// written visibly as escapes: \x1b, \u009b, \u202e. The escapes are plain
// ASCII, so cleaning twice changes nothing more. --json output is left
// exact: JSON escapes control characters itself.

// cleanLine makes s safe for one line of a table or a field: newline and
// tab are escaped too (\n, \t), so a cell cannot start a forged row.
func cleanLine(s string) string { return sanitize(s, false) }

// cleanText makes s safe for free text that may span lines: newline and
// tab are kept, every other control character is escaped.
func cleanText(s string) string { return sanitize(s, true) }

func sanitize(s string, layout bool) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || unsafeRune(r, layout) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s // the common case: nothing to escape
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !unsafeRune(r, layout):
			b.WriteString(s[i : i+size])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += size
	}
	return b.String()
}

// unsafeRune reports whether r must not reach a terminal as it is.
func unsafeRune(r rune, layout bool) bool {
	switch {
	case r == '\n' || r == '\t':
		return !layout
	case r < 0x20 || r == 0x7f: // C0 controls and DEL
		return true
	case r >= 0x80 && r <= 0x9f: // C1 controls, U+009B (CSI) among them
		return true
	case r >= 0x202a && r <= 0x202e: // bidi embeddings and overrides
		return true
	case r >= 0x2066 && r <= 0x2069: // bidi isolates
		return true
	}
	return false
}
