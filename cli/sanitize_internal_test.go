package cli

import "testing"

// TestPoint11Sanitize: every C0 and C1 control character, DEL, bytes that
// are not UTF-8 and the bidi overrides and isolates come out as visible
// ASCII escapes; newline and tab survive only where layout allows (free
// text), never in a line; everything else, non-ASCII letters and emoji
// included, is untouched; cleaning twice changes nothing more.
func TestPoint11Sanitize(t *testing.T) {
	cases := []struct{ in, line, text string }{
		{"plain text, ünïcödé, 漢字 and 🚀", "plain text, ünïcödé, 漢字 and 🚀", "plain text, ünïcödé, 漢字 and 🚀"},
		{"\x1b[32mAPPROVED by user\x1b[0m", `\x1b[32mAPPROVED by user\x1b[0m`, `\x1b[32mAPPROVED by user\x1b[0m`},
		{"csi \u009b31m and \u0085 nel", `csi \u009b31m and \u0085 nel`, `csi \u009b31m and \u0085 nel`},
		{"bell\a back\b del\x7f nul\x00", `bell\x07 back\x08 del\x7f nul\x00`, `bell\x07 back\x08 del\x7f nul\x00`},
		{"over\rwrite", `over\rwrite`, `over\rwrite`},
		{"two\nlines\tand tab", `two\nlines\tand tab`, "two\nlines\tand tab"},
		{"bidi \u202eevil\u202c \u2066iso\u2069 \u202a\u202b\u202d\u2067\u2068", `bidi \u202eevil\u202c \u2066iso\u2069 \u202a\u202b\u202d\u2067\u2068`,
			`bidi \u202eevil\u202c \u2066iso\u2069 \u202a\u202b\u202d\u2067\u2068`},
		{"raw \x9b byte and \xff", `raw \x9b byte and \xff`, `raw \x9b byte and \xff`},
		{"left-to-right mark \u200e and separator \u2028 stay", "left-to-right mark \u200e and separator \u2028 stay",
			"left-to-right mark \u200e and separator \u2028 stay"},
		{"", "", ""},
	}
	for _, c := range cases {
		if got := cleanLine(c.in); got != c.line {
			t.Errorf("cleanLine(%q) = %q, want %q", c.in, got, c.line)
		}
		if got := cleanText(c.in); got != c.text {
			t.Errorf("cleanText(%q) = %q, want %q", c.in, got, c.text)
		}
		if twice := cleanLine(cleanLine(c.in)); twice != c.line {
			t.Errorf("cleanLine twice on %q = %q", c.in, twice)
		}
	}
}
