// Package knowledge holds the text side of baton's document store: the
// deterministic Markdown-aware chunker, the text each chunk is indexed and
// embedded as, and hybrid search (bm25 and exact cosine, their scores
// fused) over a baton.KnowledgeTx (membot-operations.md §5), with its
// labelled evaluation.
package knowledge

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/baton-dev/baton"
)

// ChunkConfig bounds the chunker; the zero value means DefaultChunkConfig.
type ChunkConfig struct {
	Target  int // chunks are packed up to this many bytes
	Max     int // no chunk, overlap included, is longer
	Overlap int // lines of the previous piece repeated at a cut section's next piece
}

// DefaultChunkConfig is membot's (§5.1): target 1,400, hard max 1,800,
// overlap 2 lines.
var DefaultChunkConfig = ChunkConfig{Target: 1400, Max: 1800, Overlap: 2}

// shortText is the length under which content is one chunk (§5.1 rule 1).
const shortText = 200

// span is a byte range [s, e) of the content.
type span struct{ s, e int }

// section is a heading-delimited part of a Markdown document.
type section struct {
	span
	heading   string   // own heading text, "" for text before the first heading
	ancestors []string // headings of the enclosing sections, outermost first
}

// Split cuts content into chunks, deterministically: the same content and
// config always give the same chunks. Each chunk's Text is exactly
// content[Start:End] (surrounding blank space trimmed), so offsets point
// back into the version; the overlap a chunk repeats from the one before it
// lies inside its span. Ordinals are 0-based and contiguous; Key, Version
// and SearchText are left for the caller. Blank content has no chunks.
//
// Content under 200 bytes is one chunk. Markdown with an ATX heading
// outside code fences is packed section by section, each chunk's Context
// the breadcrumb of its first section's ancestors (" > "); a section over
// the target is cut by paragraph, then line, then fixed runs, and its later
// pieces add its own heading to their breadcrumb. Other text is cut the
// same way. No chunk is longer than Max bytes: overlap is shortened (to one
// line, then none) where it would not fit.
func Split(content string, cfg ChunkConfig) []baton.Chunk {
	if cfg.Target <= 0 {
		cfg = DefaultChunkConfig
	}
	if cfg.Max < cfg.Target {
		cfg.Max = cfg.Target
	}
	var out []baton.Chunk
	add := func(sp span, context string) {
		sp = trimSpan(content, sp)
		if sp.e > sp.s {
			out = append(out, baton.Chunk{Ordinal: len(out), Text: content[sp.s:sp.e], Context: context, Start: sp.s, End: sp.e})
		}
	}
	if len(content) < shortText {
		add(span{0, len(content)}, "")
		return out
	}
	secs := sections(content)
	if secs == nil {
		for _, p := range withOverlap(content, cut(content, span{0, len(content)}, cfg.Target), cfg) {
			add(p, "")
		}
		return out
	}
	var pack []section
	flush := func() {
		if len(pack) > 0 {
			add(span{pack[0].s, pack[len(pack)-1].e}, breadcrumb(pack[0].ancestors))
			pack = nil
		}
	}
	for _, sec := range secs {
		if sec.e-sec.s > cfg.Target {
			flush()
			for i, p := range withOverlap(content, cut(content, sec.span, cfg.Target), cfg) {
				crumbs := sec.ancestors
				if i > 0 && sec.heading != "" {
					crumbs = append(append([]string{}, sec.ancestors...), sec.heading)
				}
				add(p, breadcrumb(crumbs))
			}
			continue
		}
		if len(pack) > 0 && sec.e-pack[0].s > cfg.Target {
			flush()
		}
		pack = append(pack, sec)
	}
	flush()
	return out
}

func breadcrumb(hs []string) string { return strings.Join(hs, " > ") }

// trimSpan drops blank space at both ends of sp.
func trimSpan(content string, sp span) span {
	for sp.s < sp.e {
		r, n := utf8.DecodeRuneInString(content[sp.s:sp.e])
		if !unicode.IsSpace(r) {
			break
		}
		sp.s += n
	}
	for sp.e > sp.s {
		r, n := utf8.DecodeLastRuneInString(content[sp.s:sp.e])
		if !unicode.IsSpace(r) {
			break
		}
		sp.e -= n
	}
	return sp
}

// lines returns the spans of content's lines within sp, each with its
// newline.
func lines(content string, sp span) []span {
	var out []span
	for s := sp.s; s < sp.e; {
		e := strings.IndexByte(content[s:sp.e], '\n')
		if e < 0 {
			out = append(out, span{s, sp.e})
			break
		}
		out = append(out, span{s, s + e + 1})
		s += e + 1
	}
	return out
}

// sections splits Markdown into heading-delimited sections, or returns nil
// when no ATX heading stands outside a code fence.
func sections(content string) []section {
	var (
		out   []section
		fence string // the open fence's marker, "" outside one
		stack []struct {
			level int
			text  string
		}
	)
	ls := lines(content, span{0, len(content)})
	start, found := 0, false
	cur := section{}
	for _, l := range ls {
		text := strings.TrimRight(content[l.s:l.e], "\r\n")
		trimmed := strings.TrimLeft(text, " ")
		if len(text)-len(trimmed) <= 3 {
			if m := fenceMarker(trimmed); m != "" {
				switch {
				case fence == "":
					fence = m
				case strings.HasPrefix(m, fence[:1]) && len(m) >= len(fence) && strings.TrimSpace(trimmed[len(m):]) == "":
					fence = ""
				}
				continue
			}
		}
		if fence != "" {
			continue
		}
		level, htext, ok := atxHeading(text)
		if !ok {
			continue
		}
		if l.s > start {
			cur.span = span{start, l.s}
			out = append(out, cur)
		}
		for len(stack) > 0 && stack[len(stack)-1].level >= level {
			stack = stack[:len(stack)-1]
		}
		anc := make([]string, len(stack))
		for i, h := range stack {
			anc[i] = h.text
		}
		stack = append(stack, struct {
			level int
			text  string
		}{level, htext})
		cur = section{heading: htext, ancestors: anc}
		start, found = l.s, true
	}
	if !found {
		return nil
	}
	cur.span = span{start, len(content)}
	return append(out, cur)
}

// fenceMarker returns the ``` or ~~~ run opening line, or "".
func fenceMarker(line string) string {
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(line) && line[n] == c {
			n++
		}
		if n >= 3 {
			return line[:n]
		}
	}
	return ""
}

// atxHeading reads "# Title" (up to 3 leading spaces, 1-6 #, then a space
// or the end), returning the level and the text without closing #s.
func atxHeading(line string) (int, string, bool) {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return 0, "", false
	}
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(t) && t[n] != ' ' && t[n] != '\t') {
		return 0, "", false
	}
	text := strings.TrimSpace(t[n:])
	if c := strings.TrimRight(text, "#"); c != text && (c == "" || strings.HasSuffix(c, " ")) {
		text = strings.TrimSpace(c)
	}
	return n, text, true
}

// cut splits sp into pieces of at most target bytes: whole paragraphs
// packed together, then whole lines of a longer paragraph, then fixed runs
// of a longer line (cut on a rune boundary).
func cut(content string, sp span, target int) []span {
	if sp.e-sp.s <= target {
		return []span{sp}
	}
	var units []span
	for _, p := range paragraphs(content, sp) {
		if p.e-p.s <= target {
			units = append(units, p)
			continue
		}
		for _, l := range lines(content, p) {
			if l.e-l.s <= target {
				units = append(units, l)
				continue
			}
			for s := l.s; s < l.e; {
				e := min(s+target, l.e)
				for e > s && e < l.e && !utf8.RuneStart(content[e]) {
					e--
				}
				if e == s { // a rune longer than target: take it whole
					_, n := utf8.DecodeRuneInString(content[s:])
					e = s + n
				}
				units = append(units, span{s, e})
				s = e
			}
		}
	}
	return packSpans(units, target)
}

// paragraphs splits sp at blank lines; each paragraph keeps its lines'
// newlines, the blank lines between fall out.
func paragraphs(content string, sp span) []span {
	var out []span
	start := -1
	for _, l := range lines(content, sp) {
		if strings.TrimSpace(content[l.s:l.e]) == "" {
			if start >= 0 {
				out = append(out, span{start, l.s})
				start = -1
			}
			continue
		}
		if start < 0 {
			start = l.s
		}
	}
	if start >= 0 {
		out = append(out, span{start, sp.e})
	}
	return out
}

// packSpans joins consecutive spans while the joined span stays within
// target.
func packSpans(units []span, target int) []span {
	var out []span
	for _, u := range units {
		if n := len(out); n > 0 && u.e-out[n-1].s <= target {
			out[n-1].e = u.e
			continue
		}
		out = append(out, u)
	}
	return out
}

// withOverlap starts every piece after the first cfg.Overlap lines earlier,
// inside the previous piece, fewer lines when the piece would grow past
// cfg.Max.
func withOverlap(content string, pieces []span, cfg ChunkConfig) []span {
	out := make([]span, len(pieces))
	copy(out, pieces)
	for i := 1; i < len(pieces); i++ {
		prev := trimSpan(content, pieces[i-1])
		ls := lines(content, prev)
		for n := min(cfg.Overlap, len(ls)); n > 0; n-- {
			s := ls[len(ls)-n].s
			if pieces[i].e-s <= cfg.Max {
				out[i].s = s
				break
			}
		}
	}
	return out
}

// maxDescription is how long a description may be in the indexed text.
const maxDescription = 240

// Describe is a version's deterministic description (§5.2, no LLM): for
// text whose first H1 comes within 40 non-blank lines, "H1 — " and the
// first 200 characters of the rest; else the first heading (when there is
// one) and a 200-character prefix of the text; for non-text content
// "<mime> · <n> chars".
func Describe(content, mime string) string {
	if mime != "" && !strings.HasPrefix(mime, "text/") && !strings.Contains(mime, "json") &&
		!strings.Contains(mime, "xml") && !strings.Contains(mime, "yaml") && !strings.Contains(mime, "markdown") {
		return mime + " · " + strconv.Itoa(utf8.RuneCountInString(content)) + " chars"
	}
	nonBlank := 0
	firstHeading := ""
	for _, l := range lines(content, span{0, len(content)}) {
		text := strings.TrimRight(content[l.s:l.e], "\r\n")
		if strings.TrimSpace(text) == "" {
			continue
		}
		nonBlank++
		level, h, ok := atxHeading(text)
		if ok && firstHeading == "" {
			firstHeading = h
		}
		if ok && level == 1 && nonBlank <= 40 {
			return h + " — " + prefix(collapse(content[l.e:]), 200)
		}
	}
	body := prefix(collapse(content), 200)
	if firstHeading != "" {
		return firstHeading + " — " + body
	}
	return body
}

// IndexedText is what a chunk is full-text indexed and embedded as
// (§5.2): the logical path, the description cut to 240 characters at a
// word boundary, the breadcrumb line when there is one, a blank line and
// the chunk's text.
func IndexedText(path, description, context, text string) string {
	var b strings.Builder
	b.WriteString(path)
	b.WriteByte('\n')
	b.WriteString(cutWords(description, maxDescription))
	b.WriteByte('\n')
	if context != "" {
		b.WriteString(context)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	b.WriteString(text)
	return b.String()
}

// collapse joins s's words with single spaces.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// prefix is s's first n characters.
func prefix(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n])
}

// cutWords cuts s to at most n characters at a word boundary, adding "…"
// when it cut.
func cutWords(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n-1]
	if i := strings.LastIndexFunc(string(r), unicode.IsSpace); i > 0 {
		return strings.TrimRightFunc(string(r)[:i], unicode.IsSpace) + "…"
	}
	return string(r) + "…"
}
