// Package phases holds Symphony's phase contracts and the checks of a phase
// artifact. A contract is a Markdown file with frontmatter in
// prompts/phases/<phase>.md of the project (versioned, with the sections
// its artifact must have); baton ships a default for each phase, embedded,
// used wherever the project has no file of its own.
//
// complete_phase and the orchestrator's tick both check an artifact
// through Check, so an agent's immediate feedback and the tick's
// independent re-validation cannot disagree.
package phases

import (
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/skills"
)

//go:embed defaults/*.md
var defaults embed.FS

// DefaultDir is where a project keeps its contracts, relative to its root.
const DefaultDir = "prompts/phases"

// TicketsDir is where every phase artifact lives, relative to the project
// root: docs/tickets/<ISSUE-ID>/<artifact>.
const TicketsDir = "docs/tickets"

// BuiltinSource is the Source of a built-in contract.
const BuiltinSource = "built-in"

// Validation kinds a contract may name: structural (the artifact's length,
// headings and sections) and gates (ready: the project's quality gates on
// the committed code).
const (
	ValidationStructural = "structural"
	ValidationGates      = "gates"
)

// maxContractBytes bounds a contract file: it goes into agents' prompts.
const maxContractBytes = 64 << 10

// Order is the phase pipeline, first to last.
func Order() []baton.Phase { return slices.Clone(baton.Phases) }

// Spec is one phase's contract (Contract returns it).
type Spec struct {
	Phase   baton.Phase
	Version int
	// DispatchProfile is the agent profile that works on the phase.
	DispatchProfile string
	// ArtifactPath is the artifact's file name under
	// docs/tickets/<ISSUE-ID>/; empty for ready, whose work is the code.
	ArtifactPath string
	// RequiredSections must each be a "##" heading of the artifact.
	RequiredSections []string
	Validation       string
	// NextPhase is where an approved artifact takes the issue; empty for
	// ready.
	NextPhase baton.Phase
	// Body is the prompt the phase's agent is given.
	Body string
	// Source is BuiltinSource or the file's path relative to the project
	// root (never an absolute server path: it reaches agents).
	Source string
}

// Artifact is the artifact's path relative to the project root for an
// issue, e.g. docs/tickets/SYM-4/design.md; empty for ready.
func (c *Spec) Artifact(issueID string) string {
	if c.ArtifactPath == "" {
		return ""
	}
	return path.Join(TicketsDir, issueID, c.ArtifactPath)
}

// Builtin returns baton's default contract of a phase.
func Builtin(p baton.Phase) (*Spec, error) {
	if !p.Valid() {
		return nil, unknownPhase(p)
	}
	specs, err := builtins()
	if err != nil {
		return nil, err
	}
	c := *specs[p]
	c.RequiredSections = slices.Clone(c.RequiredSections)
	return &c, nil
}

// builtins are the built-in contracts, parsed once: get_issue shows an
// issue's contract on every call, and most projects keep the defaults.
// Builtin hands out copies, so a caller may change its own.
var builtins = sync.OnceValues(func() (map[baton.Phase]*Spec, error) {
	out := make(map[baton.Phase]*Spec, len(baton.Phases))
	for _, p := range baton.Phases {
		src, err := DefaultFile(p)
		if err != nil {
			return nil, err
		}
		if out[p], err = Parse(p, src, BuiltinSource); err != nil {
			return nil, err
		}
	}
	return out, nil
})

// DefaultFile is the text of baton's built-in contract file of a phase,
// for a project that wants to start its own from it.
func DefaultFile(p baton.Phase) ([]byte, error) {
	if !p.Valid() {
		return nil, unknownPhase(p)
	}
	return defaults.ReadFile("defaults/" + string(p) + ".md")
}

// Contract returns a phase's contract for the project at projectRoot: the
// project's prompts/phases/<phase>.md when it has one, else the built-in
// default. A project without a root has the defaults.
func Contract(projectRoot string, p baton.Phase) (*Spec, error) {
	return Load(projectRoot, "", p)
}

// Load is Contract with another contracts directory, as complete_phase's
// contracts_dir names it: relative to the project root (or absolute, inside
// it). A directory named explicitly must exist inside the project; the
// default one may be missing, and so may any phase's file in either, which
// then has its built-in default.
func Load(projectRoot, dir string, p baton.Phase) (*Spec, error) {
	if !p.Valid() {
		return nil, unknownPhase(p)
	}
	explicit := dir != ""
	if !explicit {
		dir = DefaultDir
	}
	if projectRoot == "" {
		if explicit {
			return nil, baton.Errorf(baton.ErrInvalidInput, "contracts_dir %q cannot be read: the project has no root directory", dir).
				WithDetails("field", "contracts_dir", "constraint", "project_root").
				WithHint("leave contracts_dir out to use the built-in contracts, or give the project a root (baton init in its repository)")
		}
		return Builtin(p)
	}
	abs, rel, err := inside(projectRoot, dir)
	if err != nil {
		return nil, baton.Errorf(baton.ErrInvalidInput, "contracts_dir %q is outside the project", dir).
			WithDetails("field", "contracts_dir", "constraint", "inside_project", "contracts_dir", dir).
			WithHint("name a directory inside the project, relative to its root, e.g. %s", DefaultDir)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		if !explicit {
			return Builtin(p)
		}
		return nil, baton.Errorf(baton.ErrInvalidInput, "contracts_dir %q is not a directory of the project", rel).
			WithDetails("field", "contracts_dir", "constraint", "exists", "contracts_dir", rel).
			WithHint("create it with one <phase>.md per phase, or leave contracts_dir out for %s", DefaultDir)
	}
	name := path.Join(rel, string(p)+".md")
	// A symlink leading out of the project is outside it too.
	file, _, err := inside(projectRoot, filepath.FromSlash(name))
	if err != nil {
		return nil, baton.Errorf(baton.ErrInvalidInput, "phase contract %s leads outside the project", name).
			WithDetails("field", "contracts_dir", "constraint", "inside_project", "contract", name).
			WithHint("keep the contract files themselves inside the project")
	}
	src, err := readLimited(file, maxContractBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Builtin(p)
	case errors.Is(err, errTooLarge):
		return nil, baton.Errorf(baton.ErrConfigInvalid, "phase contract %s is larger than %d KiB", name, maxContractBytes>>10).
			WithDetails("contract", name).
			WithHint("a contract is a prompt: keep it short")
	case err != nil:
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is the server's: the message names the contract instead
		}
		return nil, baton.Errorf(baton.ErrConfigInvalid, "phase contract %s cannot be read: %v", name, err).
			WithDetails("contract", name).
			WithHint("make it a readable regular file, or delete it to use the built-in contract")
	}
	return Parse(p, src, name)
}

// All returns the contracts of every phase for the project, in order.
func All(projectRoot string) ([]*Spec, error) {
	out := make([]*Spec, 0, len(baton.Phases))
	for _, p := range baton.Phases {
		c, err := Contract(projectRoot, p)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// Parse reads a contract file of phase p. The frontmatter keys are
// Symphony's: version, dispatch_profile, artifact_path, required_sections,
// validation, next_phase (and phase, which must agree with the file's
// name when given). A mistake is ERR_CONFIG_INVALID naming source and line.
func Parse(p baton.Phase, src []byte, source string) (*Spec, error) {
	bad := func(format string, args ...any) error {
		return baton.Errorf(baton.ErrConfigInvalid, "phase contract %s: %s", source, fmt.Sprintf(format, args...)).
			WithDetails("contract", source, "phase", string(p)).
			WithHint("fix the file's frontmatter (version, dispatch_profile, artifact_path, required_sections, validation, next_phase), or delete it to use the built-in contract")
	}
	b, body, err := skills.ParseBlock(src)
	if err != nil {
		return nil, bad("%v", err)
	}
	c := &Spec{Phase: p, Body: strings.TrimLeft(body, "\n"), Source: source}
	text := func(key string) string {
		v, terr := b.Text(key)
		if terr != nil && err == nil {
			err = bad("%v", terr)
		}
		return v
	}
	if named := text("phase"); named != "" && named != string(p) {
		return nil, bad("line %d: phase %q does not match the file, which is the %s contract", b.Line("phase"), named, p)
	}
	version := text("version")
	c.DispatchProfile = text("dispatch_profile")
	c.ArtifactPath = text("artifact_path")
	c.Validation = text("validation")
	next := text("next_phase")
	if err != nil {
		return nil, err
	}
	if c.RequiredSections, err = b.List("required_sections", "section", "[Problem Statement, Recommendation]"); err != nil {
		return nil, bad("%v", err)
	}
	n, verr := strconv.Atoi(version)
	switch {
	case version == "":
		return nil, bad("version is required (a whole number from 1; complete_phase's contract_version must equal it)")
	case verr != nil || n < 1:
		return nil, bad("line %d: version must be a whole number from 1, not %q", b.Line("version"), version)
	}
	c.Version = n
	if c.DispatchProfile == "" {
		return nil, bad("dispatch_profile is required (the profile that works on the phase, e.g. researcher)")
	}
	if c.Validation == "" {
		c.Validation = ValidationStructural
		if p == baton.PhaseReady {
			c.Validation = ValidationGates
		}
	}
	if c.Validation != ValidationStructural && c.Validation != ValidationGates {
		return nil, bad("line %d: validation must be %s or %s, not %q", b.Line("validation"), ValidationStructural, ValidationGates, c.Validation)
	}
	if p == baton.PhaseReady {
		if c.ArtifactPath != "" || next != "" {
			return nil, bad("the ready phase has no artifact_path and no next_phase: its work is the committed code")
		}
		return c, nil
	}
	if c.ArtifactPath == "" {
		return nil, bad("artifact_path is required (the artifact's file name under docs/tickets/<ID>/, e.g. %s.md)", p)
	}
	if clean := path.Clean(c.ArtifactPath); clean != c.ArtifactPath || path.IsAbs(clean) || clean == "." ||
		strings.HasPrefix(clean, "../") || clean == ".." || strings.Contains(c.ArtifactPath, "\\") {
		return nil, bad("line %d: artifact_path %q must be a plain relative file name under docs/tickets/<ID>/", b.Line("artifact_path"), c.ArtifactPath)
	}
	if c.Validation == ValidationStructural && !strings.HasSuffix(strings.ToLower(c.ArtifactPath), ".md") {
		return nil, bad("line %d: artifact_path %q must be a Markdown file (.md): the structural checks read headings", b.Line("artifact_path"), c.ArtifactPath)
	}
	c.NextPhase = baton.Phase(next)
	if next == "" {
		return nil, bad("next_phase is required (a later phase: %s)", strings.Join(later(p), ", "))
	}
	if !slices.Contains(later(p), next) {
		return nil, bad("line %d: next_phase %q must be a later phase: %s", b.Line("next_phase"), next, strings.Join(later(p), ", "))
	}
	return c, nil
}

// later names the phases after p.
func later(p baton.Phase) []string {
	var out []string
	for _, q := range baton.Phases[p.Index()+1:] {
		out = append(out, string(q))
	}
	return out
}

func unknownPhase(p baton.Phase) error {
	return baton.Errorf(baton.ErrInvalidInput, "unknown phase %q", p).
		WithDetails("field", "phase", "constraint", "enum", "allowed", baton.PhaseNames()).
		WithHint("phases are %s", strings.Join(baton.PhaseNames(), ", "))
}

var errTooLarge = errors.New("file too large")

// readLimited reads a regular file of at most limit bytes.
func readLimited(name string, limit int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: not a regular file", fs.ErrInvalid)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, errTooLarge
	}
	return b, nil
}

// inside resolves name (relative to root, or absolute) and reports its
// absolute path and its slash path relative to root, or an error when it
// is outside root, following symlinks of what exists.
func inside(root, name string) (abs, rel string, err error) {
	rootAbs, err := filepath.Abs(root)
	if err != nil {
		return "", "", err
	}
	if filepath.IsAbs(name) {
		abs = filepath.Clean(name)
	} else {
		abs = filepath.Join(rootAbs, filepath.FromSlash(name))
	}
	r, err := filepath.Rel(rootAbs, abs)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", "", errOutside
	}
	// The real paths too, so a symlink inside cannot lead outside.
	realRoot, err := filepath.EvalSymlinks(rootAbs)
	if err != nil {
		realRoot = rootAbs
	}
	if real, err := evalExisting(abs); err == nil {
		rr, err := filepath.Rel(realRoot, real)
		if err != nil || rr == ".." || strings.HasPrefix(rr, ".."+string(filepath.Separator)) {
			return "", "", errOutside
		}
	}
	return abs, filepath.ToSlash(r), nil
}

var errOutside = errors.New("outside the project")

// evalExisting resolves symlinks in the longest existing prefix of p.
func evalExisting(p string) (string, error) {
	rest := ""
	for cur := p; ; {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(real, rest), nil
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return "", fs.ErrNotExist
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}
