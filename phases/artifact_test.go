package phases_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/phases"
)

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

const design = `# Design of the token budget

Background paragraph that makes this document long enough to pass the length check.

## Design
Middleware counts tokens.

## Risks
Budget drift.

## Recommendation
Ship tier one first.
`

// The three content checks, with the catalogue's exact messages.
func TestCheckContentMessages(t *testing.T) {
	long := strings.Repeat("word ", 30)
	for _, tc := range []struct {
		name, content string
		required      []string
		msg           string
		constraint    string
	}{
		{"too short", "  \n# T\n" + strings.Repeat("é", 38) + "  \n\n", nil, // characters, not bytes
			"Artifact content too short (42 chars, minimum 100)", "min_length"},
		{"no headings", long, nil, "Artifact does not appear to be Markdown — no headings found", "markdown"},
		{"heading only in a code fence", "```\n# not a heading\n```\n" + long, nil,
			"Artifact does not appear to be Markdown — no headings found", "markdown"},
		{"hash without space is no heading", "#nospace\n" + long, nil,
			"Artifact does not appear to be Markdown — no headings found", "markdown"},
		{"missing sections", "# Design\n\n## Design\n" + long, []string{"Design", "Risks", "Recommendation"},
			"Artifact missing required sections: risks, recommendation", "required_sections"},
		{"level-3 does not count", "# T\n\n### Risks\n" + long, []string{"Risks"},
			"Artifact missing required sections: risks", "required_sections"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := code(t, phases.CheckContent(tc.content, tc.required), baton.ErrInvalidInput)
			if e.Message != tc.msg || e.Details["constraint"] != tc.constraint || e.Hint == "" {
				t.Errorf("got %q (%v), want %q (%s)", e.Message, e.Details, tc.msg, tc.constraint)
			}
		})
	}
	// The missing titles are in details as the contract writes them.
	e := baton.AsError(phases.CheckContent("# x\n"+long, []string{"Problem Statement"}))
	if got, _ := e.Details["missing"].([]string); !slices.Equal(got, []string{"Problem Statement"}) {
		t.Errorf("details.missing = %v", e.Details["missing"])
	}
	// Exactly 100 characters pass; sections match without case, trimmed,
	// with a closing sequence of #'s.
	hundred := "# T\n" + strings.Repeat("x", 96)
	if err := phases.CheckContent(hundred, nil); err != nil {
		t.Errorf("100 chars: %v", err)
	}
	if err := phases.CheckContent("# T\n##   risks  ##\n## RECOMMENDATION\n"+long, []string{"Risks", " Recommendation "}); err != nil {
		t.Errorf("sections should match: %v", err)
	}
	if err := phases.CheckContent(design, []string{"Design", "Risks", "Recommendation"}); err != nil {
		t.Errorf("design: %v", err)
	}
}

func TestSectionsAndHeadings(t *testing.T) {
	doc := "# Top\n## One\n~~~\n## fenced\n~~~\n   ## Two ##\n####### seven\n## \n"
	if got := phases.Sections(doc); !slices.Equal(got, []string{"One", "Two", ""}) {
		t.Errorf("Sections = %q", got)
	}
	if n := len(phases.Headings(doc)); n != 4 {
		t.Errorf("Headings = %d, want 4", n)
	}
}

func TestCheckPath(t *testing.T) {
	for _, ok := range []string{"docs/tickets/SYM-1/research.md", "docs/tickets/SYM-1/../SYM-2/x.md", "./docs/tickets/a.md"} {
		if _, err := phases.CheckPath(ok); err != nil {
			t.Errorf("CheckPath(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "docs/tickets", "docs/tickets/", "docs/other/x.md", "/abs/docs/tickets/x.md",
		"docs/tickets/../../etc/passwd", "../docs/tickets/x.md", "README.md"} {
		_, err := phases.CheckPath(bad)
		e := code(t, err, baton.ErrInvalidInput)
		if !strings.HasPrefix(e.Message, "artifact_path must be inside docs/tickets/") {
			t.Errorf("CheckPath(%q) = %q", bad, e.Message)
		}
	}
}

// Check runs path, existence, hash and content checks in that order, and
// names the artifact by its relative path only.
func TestCheckArtifact(t *testing.T) {
	root := t.TempDir()
	write(t, root, "docs/tickets/SYM-3/design.md", design)
	write(t, root, "docs/tickets/SYM-3/short.md", "# short")
	arch, _ := phases.Builtin(baton.PhaseArchitecture)
	claim := phases.Claim{Root: root, IssueID: "SYM-3", Path: "docs/tickets/SYM-3/design.md", Hash: sha(design)}
	got, err := phases.Check(arch, claim)
	if err != nil {
		t.Fatal(err)
	}
	if got.Path != claim.Path || got.Hash != sha(design) || !slices.Equal(got.Sections, []string{"Design", "Risks", "Recommendation"}) ||
		got.Chars != len(strings.TrimSpace(design)) { // ASCII: characters are bytes
		t.Errorf("checked = %+v", got)
	}
	if got.Hash != phases.Hash([]byte(design)) {
		t.Errorf("Hash = %s", got.Hash)
	}
	// The hash may come upper-case or prefixed.
	for _, h := range []string{strings.ToUpper(sha(design)), "sha256:" + sha(design)} {
		c := claim
		c.Hash = h
		if _, err := phases.Check(arch, c); err != nil {
			t.Errorf("hash %q: %v", h, err)
		}
	}
	outside := t.TempDir()
	write(t, outside, "design.md", design)
	if err := os.MkdirAll(filepath.Join(root, "docs", "tickets", "SYM-4"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "design.md"), filepath.Join(root, "docs", "tickets", "SYM-4", "design.md")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		edit       func(c *phases.Claim)
		code, what string
	}{
		{"outside docs/tickets", func(c *phases.Claim) { c.Path = "docs/design.md" }, baton.ErrInvalidInput, "artifact_path must be inside docs/tickets/"},
		{"not the contract's artifact", func(c *phases.Claim) { c.Path = "docs/tickets/SYM-3/short.md" }, baton.ErrInvalidInput,
			"artifact_path must be docs/tickets/SYM-3/design.md, the architecture contract's artifact"},
		{"another issue's artifact", func(c *phases.Claim) { c.Path = "docs/tickets/SYM-9/design.md" }, baton.ErrInvalidInput, "the architecture contract's artifact for SYM-3"},
		{"bad hash", func(c *phases.Claim) { c.Hash = "abc123" }, baton.ErrInvalidInput, "artifact_hash must be a SHA-256 in hex"},
		{"missing file", func(c *phases.Claim) { c.IssueID, c.Path = "SYM-5", "docs/tickets/SYM-5/design.md" }, baton.ErrNotFound,
			"artifact docs/tickets/SYM-5/design.md does not exist"},
		{"stale hash", func(c *phases.Claim) { c.Hash = sha("older text") }, baton.ErrInvalidInput,
			"artifact_hash does not match docs/tickets/SYM-3/design.md: the file's SHA-256 is " + sha(design)},
		{"symlink out", func(c *phases.Claim) { c.IssueID, c.Path = "SYM-4", "docs/tickets/SYM-4/design.md" }, baton.ErrInvalidInput, "leads outside the project"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := claim
			tc.edit(&c)
			_, err := phases.Check(arch, c)
			e := code(t, err, tc.code)
			if !strings.Contains(e.Message, tc.what) {
				t.Errorf("message %q, want %q", e.Message, tc.what)
			}
			if strings.Contains(e.Message, root) || strings.Contains(e.Message, outside) {
				t.Errorf("message leaks a server path: %s", e.Message)
			}
		})
	}
	// Content failures come after the hash: a short file with its true
	// hash fails the length check. A contract that names no artifact (a
	// custom one checked without an issue) accepts any file in docs/tickets.
	short := phases.Claim{Root: root, Path: "docs/tickets/SYM-3/short.md", Hash: sha("# short")}
	_, err = phases.Check(arch, short)
	if e := code(t, err, baton.ErrInvalidInput); e.Message != "Artifact content too short (7 chars, minimum 100)" {
		t.Errorf("short: %s", e.Message)
	}
}
