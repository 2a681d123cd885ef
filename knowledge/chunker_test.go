package knowledge

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// longMarkdown is a document with nested sections, one of them far over the
// target, and a fenced block holding a fake heading.
func longMarkdown() string {
	var b strings.Builder
	b.WriteString("Preamble before any heading.\n\n# Guide\n\nIntro to the guide.\n\n## Install\n\nRun the installer.\n\n")
	b.WriteString("```sh\n# not a heading, a shell comment\nmake install\n```\n\n")
	b.WriteString("## Configure\n\n")
	for i := range 40 {
		fmt.Fprintf(&b, "Paragraph %d explains option number %d in some detail so that the section grows.\n\n", i, i)
	}
	b.WriteString("### Advanced\n\nTuning notes.\n\n# Appendix\n\nLast words.\n")
	return b.String()
}

func plainText() string {
	var b strings.Builder
	for i := range 60 {
		fmt.Fprintf(&b, "Line %d of a plain text file without headings, long enough to need cutting.\n", i)
		if i%5 == 4 {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// checkChunks verifies what Split promises of any input: text equals the
// span, ordinals are contiguous, no chunk passes Max, and every
// non-space character of the content is in some chunk.
func checkChunks(t *testing.T, content string, cfg ChunkConfig) {
	t.Helper()
	cs := Split(content, cfg)
	covered := make([]bool, len(content))
	for i, c := range cs {
		if c.Ordinal != i {
			t.Errorf("chunk %d has ordinal %d", i, c.Ordinal)
		}
		if c.Start < 0 || c.End > len(content) || content[c.Start:c.End] != c.Text {
			t.Fatalf("chunk %d: text is not content[%d:%d]", i, c.Start, c.End)
		}
		if len(c.Text) > cfg.Max {
			t.Errorf("chunk %d is %d bytes, over the max %d", i, len(c.Text), cfg.Max)
		}
		if !utf8.ValidString(c.Text) {
			t.Errorf("chunk %d cuts a character", i)
		}
		for j := c.Start; j < c.End; j++ {
			covered[j] = true
		}
	}
	for i, r := range content {
		if !unicode.IsSpace(r) && !covered[i] {
			t.Fatalf("byte %d (%q) is in no chunk", i, r)
		}
	}
}

func TestSplitKeepsOffsetsBoundsAndCoverage(t *testing.T) {
	small := ChunkConfig{Target: 300, Max: 400, Overlap: 2}
	cases := map[string]string{
		"markdown":        longMarkdown(),
		"plain":           plainText(),
		"one long line":   strings.Repeat("word ", 2000),
		"multibyte runs":  strings.Repeat("é漢🙂", 1500),
		"crlf":            strings.ReplaceAll(plainText(), "\n", "\r\n"),
		"headings only":   strings.Repeat("# h\n## i\n", 100),
		"unclosed fence":  "# T\n\n```\n" + strings.Repeat("code line\n", 300),
		"short":           "tiny",
		"just whitespace": "   \n\n  ",
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			checkChunks(t, content, DefaultChunkConfig)
			checkChunks(t, content, small)
		})
	}
}

func TestSplitIsDeterministic(t *testing.T) {
	a, b := Split(longMarkdown(), DefaultChunkConfig), Split(longMarkdown(), DefaultChunkConfig)
	if !reflect.DeepEqual(a, b) {
		t.Error("two splits of the same content differ")
	}
}

func TestSplitShortContentIsOneChunk(t *testing.T) {
	cs := Split("# Title\n\nshort body\n", DefaultChunkConfig)
	if len(cs) != 1 || cs[0].Text != "# Title\n\nshort body" || cs[0].Context != "" || cs[0].Start != 0 {
		t.Errorf("short = %+v, want one chunk without breadcrumb", cs)
	}
	if cs := Split(" \n\t", DefaultChunkConfig); len(cs) != 0 {
		t.Errorf("blank content = %+v, want no chunk", cs)
	}
	if cs := Split("", ChunkConfig{}); len(cs) != 0 {
		t.Errorf("empty content = %+v, want no chunk", cs)
	}
}

func TestSplitMarkdownBreadcrumbs(t *testing.T) {
	cs := Split(longMarkdown(), ChunkConfig{Target: 600, Max: 800, Overlap: 2})
	var contexts []string
	for _, c := range cs {
		contexts = append(contexts, c.Context)
	}
	// The preamble and the guide's first small sections pack together;
	// Configure is cut (its later pieces add its own heading); Advanced
	// and the Appendix come after it.
	if !strings.HasPrefix(cs[0].Text, "Preamble") || !strings.Contains(cs[0].Text, "## Install") || cs[0].Context != "" {
		t.Errorf("first chunk = %q (context %q), want the preamble packed with Guide and Install", cs[0].Text, cs[0].Context)
	}
	if !strings.Contains(cs[0].Text, "# not a heading") {
		t.Error("the fenced shell comment was taken for a heading")
	}
	first := -1
	for i, c := range cs {
		if strings.HasPrefix(c.Text, "## Configure") {
			first = i
		}
	}
	if first < 0 || cs[first].Context != "Guide" {
		t.Fatalf("no chunk starts at ## Configure with context Guide: %q", contexts)
	}
	if cs[first+1].Context != "Guide > Configure" {
		t.Errorf("second Configure piece context = %q, want Guide > Configure", cs[first+1].Context)
	}
	last := cs[len(cs)-1]
	if !strings.HasPrefix(last.Text, "### Advanced") && !strings.HasPrefix(last.Text, "# Appendix") {
		t.Errorf("last chunk = %q", last.Text)
	}
	for _, c := range cs {
		if strings.HasPrefix(c.Text, "### Advanced") && c.Context != "Guide > Configure" {
			t.Errorf("Advanced context = %q, want Guide > Configure", c.Context)
		}
		if strings.HasPrefix(c.Text, "# Appendix") && c.Context != "" {
			t.Errorf("Appendix context = %q, want none", c.Context)
		}
	}
}

func TestSplitOverlapRepeatsTheLastTwoLines(t *testing.T) {
	var b strings.Builder
	for i := range 30 {
		fmt.Fprintf(&b, "line %02d of one long paragraph without any blank line\n", i)
	}
	content := b.String()
	cs := Split(content, ChunkConfig{Target: 400, Max: 600, Overlap: 2})
	if len(cs) < 3 {
		t.Fatalf("%d chunks, want several", len(cs))
	}
	for i := 1; i < len(cs); i++ {
		prev := strings.Split(cs[i-1].Text, "\n")
		want := strings.Join(prev[len(prev)-2:], "\n")
		if !strings.HasPrefix(cs[i].Text, want) {
			t.Errorf("chunk %d starts %q, want the previous chunk's last two lines %q", i, cs[i].Text[:40], want)
		}
	}
	// Without overlap, pieces only touch.
	cs = Split(content, ChunkConfig{Target: 400, Max: 600, Overlap: 0})
	for i := 1; i < len(cs); i++ {
		if cs[i].Start < cs[i-1].End {
			t.Errorf("chunk %d overlaps the previous one without overlap configured", i)
		}
	}
}

func TestSplitPlainTextCutsAtParagraphs(t *testing.T) {
	cs := Split(plainText(), ChunkConfig{Target: 500, Max: 700, Overlap: 0})
	for i, c := range cs {
		if c.Context != "" {
			t.Errorf("plain chunk %d has context %q", i, c.Context)
		}
		if !strings.HasPrefix(c.Text, "Line ") || !strings.HasSuffix(c.Text, "cutting.") {
			t.Errorf("chunk %d = %q..., want whole lines", i, c.Text[:20])
		}
	}
}

func TestDescribe(t *testing.T) {
	long := strings.Repeat("abc ", 100)
	cases := []struct {
		name, content, mime, want string
	}{
		{"h1 first", "# Title\n\nBody text here.", "text/markdown", "Title — Body text here."},
		{"h1 after other heading", "## Sub\n\ntext\n\n# Main\nrest", "text/markdown", "Main — rest"},
		{"no heading", "just words\nand more", "text/plain", "just words and more"},
		{"long rest cut to 200", "# T\n" + long, "", "T — " + strings.TrimSpace(long)[:200]},
		{"binary", "xyz", "application/pdf", "application/pdf · 3 chars"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Describe(tc.content, tc.mime); got != tc.want {
				t.Errorf("Describe = %q, want %q", got, tc.want)
			}
		})
	}
	late := strings.Repeat("line\n", 41) + "# Late\n"
	// Past 40 lines the H1 is only the first heading: the prefix is the
	// text's start, not what follows the heading (nothing).
	if got := Describe(late, "text/markdown"); !strings.HasPrefix(got, "Late — line line") {
		t.Errorf("an H1 after 40 non-blank lines = %q, want the first heading and the text's prefix", got)
	}
}

func TestIndexedText(t *testing.T) {
	if got, want := IndexedText("a/b.md", "desc", "A > B", "body"), "a/b.md\ndesc\nA > B\n\nbody"; got != want {
		t.Errorf("with breadcrumb = %q, want %q", got, want)
	}
	if got, want := IndexedText("a.md", "desc", "", "body"), "a.md\ndesc\n\nbody"; got != want {
		t.Errorf("without breadcrumb = %q, want %q", got, want)
	}
	long := strings.Repeat("word ", 100)
	got := IndexedText("a.md", long, "", "b")
	desc := strings.Split(got, "\n")[1]
	if utf8.RuneCountInString(desc) > maxDescription || !strings.HasSuffix(desc, "word…") {
		t.Errorf("long description = %q, want ≤ 240 characters cut after a word with …", desc)
	}
}

// BenchmarkSplit5KB chunks a 5 KB Markdown document (issue 15 ingests
// 1,000 of them within 10 s, embedding and storage included).
func BenchmarkSplit5KB(b *testing.B) {
	doc := longMarkdown()
	for len(doc) < 5<<10 {
		doc += longMarkdown()
	}
	doc = doc[:5<<10]
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		Split(doc, DefaultChunkConfig)
	}
}
