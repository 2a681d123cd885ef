package sqlcore

import (
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
	"golang.org/x/text/unicode/norm"
)

// The in-memory keyword index (keywordindex.go) cuts text into terms the
// same way for the chunks and for the query: lower-case runs of Unicode
// letters and digits, diacritics removed (a combining mark is dropped and
// joins the letters around it, as in FTS5's unicode61 with
// remove_diacritics), English stop words dropped, the rest stemmed by the
// English Snowball stemmer (Porter2).

// eachWord calls fn with every word of s: a run of letters and digits,
// lower-cased and without diacritics. The slice fn gets is reused for the
// next word.
func eachWord(s string, buf []byte, fn func(word []byte)) []byte {
	buf = buf[:0]
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
				buf = append(buf, c)
			case 'A' <= c && c <= 'Z':
				buf = append(buf, c+'a'-'A')
			case len(buf) > 0:
				fn(buf)
				buf = buf[:0]
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case unicode.Is(unicode.Mn, r): // a diacritic: removed, the word goes on
		case unicode.IsLetter(r) || unicode.IsNumber(r):
			buf = appendFolded(buf, r)
		case len(buf) > 0:
			fn(buf)
			buf = buf[:0]
		}
	}
	if len(buf) > 0 {
		fn(buf)
	}
	return buf
}

// appendFolded appends r lower-cased and without its diacritics: the
// letters of its canonical decomposition, less the combining marks.
func appendFolded(buf []byte, r rune) []byte {
	r = unicode.ToLower(r)
	var enc [utf8.UTFMax]byte
	n := utf8.EncodeRune(enc[:], r)
	d := norm.NFD.Properties(enc[:n]).Decomposition()
	if d == nil {
		return append(buf, enc[:n]...)
	}
	for len(d) > 0 {
		c, m := utf8.DecodeRune(d)
		d = d[m:]
		if !unicode.Is(unicode.Mn, c) {
			buf = utf8.AppendRune(buf, unicode.ToLower(c))
		}
	}
	return buf
}

// stemWord is the term of a word ("" for a stop word).
func stemWord(w string) string {
	if english.IsStopWord(w) {
		return ""
	}
	return english.Stem(w, false)
}

// SearchTerms are the distinct terms of a query, in order of first
// appearance: the words SearchWords cuts (at most
// baton.MaxChunkSearchWords), without diacritics, stop words dropped,
// stemmed. A query of stop words only has none.
func SearchTerms(words []string) []string {
	var out []string
	var buf []byte
	for _, w := range words {
		buf = eachWord(w, buf, func(b []byte) {
			if t := stemWord(string(b)); t != "" {
				for _, o := range out {
					if o == t {
						return
					}
				}
				out = append(out, t)
			}
		})
	}
	return out
}

// Terms cuts text into its indexed terms, repeats included, in order (the
// tokenizer of the keyword index, exported for tests and tools).
func Terms(text string) []string {
	var out []string
	eachWord(text, nil, func(b []byte) {
		if t := stemWord(string(b)); t != "" {
			out = append(out, t)
		}
	})
	return out
}
