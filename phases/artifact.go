package phases

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/baton-dev/baton"
)

// MinArtifactChars is the least an artifact may hold, trimmed.
const MinArtifactChars = 100

// MaxArtifactBytes bounds the artifact file a check reads.
const MaxArtifactBytes = 1 << 20

// Hash is the hex SHA-256 of content: what artifact_hash must be.
func Hash(content []byte) string {
	sum := sha256.Sum256(content)
	return hex.EncodeToString(sum[:])
}

var (
	atxHeading  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$`) })
	closingHash = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[ \t]+#+$`) })
	fenceOpen   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^ {0,3}(```+|~~~+)") })
)

// Heading is one ATX heading of a Markdown document.
type Heading struct {
	Level int
	Title string
}

// Headings lists a Markdown document's ATX headings ("# Title" ...
// "###### Title"), outside fenced code blocks, in order.
func Headings(content string) []Heading {
	var out []Heading
	fence := ""
	for _, line := range strings.Split(strings.ReplaceAll(content, "\r\n", "\n"), "\n") {
		if m := fenceOpen().FindStringSubmatch(line); m != nil {
			switch {
			case fence == "":
				fence = m[1]
			case strings.HasPrefix(strings.TrimSpace(line), fence) && strings.Trim(strings.TrimSpace(line), fence[:1]) == "":
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		m := atxHeading().FindStringSubmatch(line)
		if m == nil {
			continue
		}
		title := strings.TrimSpace(closingHash().ReplaceAllString(" "+m[2], ""))
		if m[2] != "" && strings.Trim(m[2], "#") == "" {
			title = ""
		}
		out = append(out, Heading{Level: len(m[1]), Title: title})
	}
	return out
}

// Sections are the titles of a document's level-2 ("##") headings.
func Sections(content string) []string {
	var out []string
	for _, h := range Headings(content) {
		if h.Level == 2 {
			out = append(out, h.Title)
		}
	}
	return out
}

// MissingSections returns the required titles that are not a "##" heading
// of content, as the contract writes them. Titles compare without case,
// after trimming.
func MissingSections(content string, required []string) []string {
	have := map[string]bool{}
	for _, s := range Sections(content) {
		have[normTitle(s)] = true
	}
	var missing []string
	for _, r := range required {
		if !have[normTitle(r)] {
			missing = append(missing, r)
		}
	}
	return missing
}

func normTitle(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// CheckContent runs the catalogue's content checks of a pre-ready
// artifact, in its order: at least MinArtifactChars characters (trimmed),
// at least one Markdown heading, and every required section as a "##"
// heading. Each failure is ERR_INVALID_INPUT with the catalogue's message.
func CheckContent(content string, required []string) error {
	n := utf8.RuneCountInString(strings.TrimSpace(content))
	if n < MinArtifactChars {
		return baton.Errorf(baton.ErrInvalidInput, "Artifact content too short (%d chars, minimum %d)", n, MinArtifactChars).
			WithDetails("field", "artifact_path", "constraint", "min_length", "chars", n, "minimum", MinArtifactChars).
			WithHint("write the artifact out fully (at least %d characters besides surrounding whitespace), recompute its hash and call again", MinArtifactChars)
	}
	if len(Headings(content)) == 0 {
		return baton.Errorf(baton.ErrInvalidInput, "Artifact does not appear to be Markdown — no headings found").
			WithDetails("field", "artifact_path", "constraint", "markdown").
			WithHint("structure the artifact with Markdown headings (# Title, ## Section), recompute its hash and call again")
	}
	if missing := MissingSections(content, required); len(missing) > 0 {
		lower := make([]string, len(missing))
		for i, m := range missing {
			lower[i] = strings.ToLower(m)
		}
		return baton.Errorf(baton.ErrInvalidInput, "Artifact missing required sections: %s", strings.Join(lower, ", ")).
			WithDetails("field", "artifact_path", "constraint", "required_sections", "missing", missing, "required", required).
			WithHint("add a level-2 heading for each missing section (e.g. \"## %s\"), recompute the hash and call again", missing[0])
	}
	return nil
}

// CheckPath checks an artifact_path: relative, inside docs/tickets/, and
// naming a file there. It returns the path cleaned, slash-separated.
func CheckPath(p string) (string, error) {
	clean := path.Clean(strings.ReplaceAll(p, "\\", "/"))
	if p == "" || path.IsAbs(clean) || filepath.IsAbs(p) || filepath.VolumeName(p) != "" ||
		!strings.HasPrefix(clean, TicketsDir+"/") {
		return "", baton.Errorf(baton.ErrInvalidInput, "artifact_path must be inside %s/ (got %q)", TicketsDir, p).
			WithDetails("field", "artifact_path", "constraint", "inside_docs_tickets", "artifact_path", p).
			WithHint("give the artifact's path relative to the project root, e.g. %s/<ISSUE-ID>/research.md", TicketsDir)
	}
	return clean, nil
}

// Claim is what a phase completion says about its artifact.
type Claim struct {
	// Root is the directory the artifact is read under: the issue's
	// worktree, or the project root.
	Root    string
	IssueID string
	Path    string // artifact_path, relative to Root
	Hash    string // artifact_hash
}

// Checked is an artifact that passed Check.
type Checked struct {
	Path     string // cleaned, relative to the root
	Hash     string // the file's SHA-256, lowercase hex
	Chars    int    // trimmed length in characters
	Sections []string
}

// Check validates a pre-ready artifact against its contract, the way both
// complete_phase and the orchestrator do: the path inside docs/tickets/
// and, for a contract naming its artifact, the contract's artifact of this
// issue; the file exists inside the root; its SHA-256 equals the claimed
// hash; then the content checks (CheckContent). Messages name the artifact
// by its relative path only.
func Check(c *Spec, cl Claim) (*Checked, error) {
	rel, err := CheckPath(cl.Path)
	if err != nil {
		return nil, err
	}
	if want := c.Artifact(cl.IssueID); want != "" && cl.IssueID != "" && rel != want {
		return nil, baton.Errorf(baton.ErrInvalidInput, "artifact_path must be %s, the %s contract's artifact for %s (got %q)", want, c.Phase, cl.IssueID, cl.Path).
			WithDetails("field", "artifact_path", "constraint", "contract_artifact", "artifact_path", cl.Path, "expected", want).
			WithHint("write the %s phase's document to %s; other files are not this phase's artifact", c.Phase, want)
	}
	want, err := normHash(cl.Hash)
	if err != nil {
		return nil, err
	}
	abs, _, err := inside(cl.Root, filepath.FromSlash(rel))
	if err != nil {
		return nil, baton.Errorf(baton.ErrInvalidInput, "artifact %s leads outside the project", rel).
			WithDetails("field", "artifact_path", "constraint", "inside_project", "artifact_path", rel).
			WithHint("write the artifact as a regular file in the worktree, not a link out of it")
	}
	content, err := readLimited(abs, MaxArtifactBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, baton.Errorf(baton.ErrNotFound, "artifact %s does not exist", rel).
			WithDetails("field", "artifact_path", "constraint", "exists", "artifact_path", rel).
			WithHint("write the artifact at that path (relative to the project root, in your worktree) before completing the phase")
	case errors.Is(err, errTooLarge):
		return nil, baton.Errorf(baton.ErrInvalidInput, "artifact %s is larger than %d MiB", rel, MaxArtifactBytes>>20).
			WithDetails("field", "artifact_path", "constraint", "max_bytes", "limit", MaxArtifactBytes).
			WithHint("keep the phase document to its point; put data elsewhere and link it")
	case err != nil:
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, baton.Errorf(baton.ErrInvalidInput, "artifact %s cannot be read: %v", rel, err).
			WithDetails("field", "artifact_path", "constraint", "readable", "artifact_path", rel).
			WithHint("make the artifact a readable regular file")
	}
	got := Hash(content)
	if got != want {
		return nil, baton.Errorf(baton.ErrInvalidInput, "artifact_hash does not match %s: the file's SHA-256 is %s", rel, got).
			WithDetails("field", "artifact_hash", "constraint", "sha256", "artifact_path", rel, "artifact_hash", cl.Hash, "actual", got).
			WithHint("compute the hash after your last edit (sha256sum %s) and call again", rel)
	}
	text := string(content)
	if err := CheckContent(text, c.RequiredSections); err != nil {
		return nil, err
	}
	return &Checked{Path: rel, Hash: got, Chars: utf8.RuneCountInString(strings.TrimSpace(text)), Sections: Sections(text)}, nil
}

var hexHash = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-fA-F]{64}$`) })

// normHash reads an artifact_hash: 64 hex digits, any case, optionally
// prefixed "sha256:".
func normHash(h string) (string, error) {
	v := strings.TrimPrefix(strings.TrimSpace(h), "sha256:")
	if !hexHash().MatchString(v) {
		return "", baton.Errorf(baton.ErrInvalidInput, "artifact_hash must be a SHA-256 in hex (64 characters), not %q", h).
			WithDetails("field", "artifact_hash", "constraint", "sha256", "artifact_hash", h).
			WithHint("compute it with sha256sum (or shasum -a 256) on the artifact file")
	}
	return strings.ToLower(v), nil
}
