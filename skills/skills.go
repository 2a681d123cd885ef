// Package skills is the skill registry: the skills of a project, read from
// the frontmatter of .agents/skills/*/SKILL.md. The files are the source of
// truth; the registry only caches what they say and notices when they
// change, so an agent never sees a skill list older than its last call.
package skills

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// Dir is where skills live, relative to the root, with forward slashes.
const Dir = ".agents/skills"

// FileName is the file that makes a directory under Dir a skill.
const FileName = "SKILL.md"

// MaxFileSize bounds a SKILL.md: its body goes whole into a tool result,
// and a file this large is a mistake, not a skill.
const MaxFileSize = 1 << 20

// Skill is one loaded skill.
type Skill struct {
	// Name is the skill's directory name under Dir, which the spec makes
	// its identity; a different name in the frontmatter only warns.
	Name         string
	Version      string // empty when the frontmatter declares none
	Description  string
	Capabilities []string // never nil
	Tools        []string // the skill's tool bundle; never nil
	// Path is the SKILL.md relative to the root, with forward slashes
	// on every platform: .agents/skills/<name>/SKILL.md.
	Path string
	Body string // the markdown after the frontmatter
}

// Problem is something wrong with one file. A file with an error is
// skipped; a file with a warning is loaded all the same.
type Problem struct {
	Path    string // relative to the root, with forward slashes
	Message string
}

// Snapshot is the registry's content at one moment.
type Snapshot struct {
	Skills   []Skill   // sorted by name
	Errors   []Problem // malformed files, skipped; sorted by path
	Warnings []Problem // loaded files that deserve a fix; sorted by path
}

// Get returns the skill named name.
func (s Snapshot) Get(name string) (Skill, bool) {
	i, ok := slices.BinarySearchFunc(s.Skills, name, func(sk Skill, n string) int { return strings.Compare(sk.Name, n) })
	if !ok {
		return Skill{}, false
	}
	return s.Skills[i], true
}

// Names lists the loaded skills' names, sorted.
func (s Snapshot) Names() []string {
	out := make([]string, len(s.Skills))
	for i, sk := range s.Skills {
		out[i] = sk.Name
	}
	return out
}

// Error returns the error that kept the skill named name from loading, if
// its SKILL.md exists but is malformed.
func (s Snapshot) Error(name string) (Problem, bool) {
	p := skillPath(name)
	for _, e := range s.Errors {
		if e.Path == p {
			return e, true
		}
	}
	return Problem{}, false
}

// Filter returns the skills whose name or description contains search,
// ignoring case, and that declare capability exactly. Empty arguments
// match everything.
func (s Snapshot) Filter(search, capability string) []Skill {
	q := strings.ToLower(search)
	out := []Skill{}
	for _, sk := range s.Skills {
		if q != "" && !strings.Contains(strings.ToLower(sk.Name), q) && !strings.Contains(strings.ToLower(sk.Description), q) {
			continue
		}
		if capability != "" && !slices.Contains(sk.Capabilities, capability) {
			continue
		}
		out = append(out, sk)
	}
	return out
}

// Registry holds the skills under one root. Every read first checks the
// files cheaply (one directory listing and a stat per SKILL.md) and parses
// again only those whose size or modification time changed, so edits show
// up without a restart. A rewrite that keeps both size and mtime (within
// the filesystem's timestamp granularity) goes unnoticed until Reload.
// A Registry is safe for concurrent use.
type Registry struct {
	root string

	mu    sync.Mutex
	files map[string]*file // by directory name
	dir   *Problem         // the skills directory itself cannot be read
}

// file is what the registry knows of one SKILL.md.
type file struct {
	size  int64
	mod   time.Time
	skill *Skill // nil when malformed
	err   string // why it is malformed
	warn  string // loaded, but something is off
}

// New returns a registry of the skills under root (the project's root
// directory; skills are read from root/.agents/skills). Nothing is read
// until the first access.
func New(root string) *Registry {
	return &Registry{root: root, files: map[string]*file{}}
}

// Root is the directory the registry reads skills under.
func (r *Registry) Root() string { return r.root }

// Snapshot returns the current skills, first taking in any change on disk.
func (r *Registry) Snapshot() Snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refresh(false)
	return r.snapshot()
}

// Reload parses every SKILL.md again, changed or not, and returns the
// result: for when a change slipped past the size and mtime check.
func (r *Registry) Reload() Snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refresh(true)
	return r.snapshot()
}

// Get returns the skill named name, first taking in any change on disk.
func (r *Registry) Get(name string) (Skill, bool) {
	return r.Snapshot().Get(name)
}

// refresh brings the cache in line with the disk. Nothing here is fatal:
// whatever cannot be read becomes a Problem of its path.
func (r *Registry) refresh(force bool) {
	dir := filepath.Join(r.root, filepath.FromSlash(Dir))
	entries, err := os.ReadDir(dir)
	r.dir = nil
	if err != nil {
		clear(r.files)
		if !errors.Is(err, fs.ErrNotExist) {
			r.dir = &Problem{Path: Dir, Message: describe(err)}
		}
		return
	}
	seen := make(map[string]bool, len(entries))
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || !isDir(dir, e) {
			// Hidden directories are not skills, as the glob
			// .agents/skills/*/SKILL.md does not match them either.
			continue
		}
		p := filepath.Join(dir, name, FileName)
		info, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue // a directory without SKILL.md is not a skill
		}
		seen[name] = true
		old := r.files[name]
		if err != nil {
			r.files[name] = &file{err: describe(err)}
			continue
		}
		// A file that could not even be stat'ed has no mtime and is
		// looked at again every time.
		if !force && old != nil && !old.mod.IsZero() && old.size == info.Size() && old.mod.Equal(info.ModTime()) {
			continue
		}
		// The stat was taken before the read, so a write racing the read
		// changes the mtime again and is picked up next time.
		r.files[name] = load(p, name, info)
	}
	for name := range r.files {
		if !seen[name] {
			delete(r.files, name)
		}
	}
}

// isDir reports whether the entry is a directory, following a symlink.
func isDir(dir string, e fs.DirEntry) bool {
	if e.IsDir() {
		return true
	}
	if e.Type()&fs.ModeSymlink == 0 {
		return false
	}
	info, err := os.Stat(filepath.Join(dir, e.Name()))
	return err == nil && info.IsDir()
}

// load reads and parses one SKILL.md.
func load(p, name string, info fs.FileInfo) *file {
	f := &file{size: info.Size(), mod: info.ModTime()}
	if !info.Mode().IsRegular() {
		f.err = "not a regular file"
		return f
	}
	if info.Size() > MaxFileSize {
		f.err = fmt.Sprintf("file is %d bytes, more than the limit of %d", info.Size(), MaxFileSize)
		return f
	}
	src, err := readLimited(p)
	if err != nil {
		f.err = describe(err)
		return f
	}
	fm, body, err := Parse(src)
	if err != nil {
		f.err = err.Error()
		return f
	}
	if fm.Name != "" && fm.Name != name {
		f.warn = fmt.Sprintf("frontmatter name %q differs from the directory name; the skill is listed as %q (rename one to match)", fm.Name, name)
	}
	f.skill = &Skill{Name: name, Version: fm.Version, Description: fm.Description,
		Capabilities: fm.Capabilities, Tools: fm.Tools, Path: skillPath(name), Body: body}
	return f
}

// readLimited reads at most MaxFileSize+1 bytes, in case the file grew
// since it was stat'ed.
func readLimited(p string) ([]byte, error) {
	fh, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxFileSize {
		return nil, fmt.Errorf("file is more than the limit of %d bytes", MaxFileSize)
	}
	return b, nil
}

// describe drops the absolute path from an OS error: problems name their
// file by its repo-relative path already.
func describe(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}

// snapshot copies the cache out, so callers may keep and change it freely.
func (r *Registry) snapshot() Snapshot {
	s := Snapshot{Skills: []Skill{}, Errors: []Problem{}, Warnings: []Problem{}}
	if r.dir != nil {
		s.Errors = append(s.Errors, *r.dir)
	}
	names := make([]string, 0, len(r.files))
	for name := range r.files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		f := r.files[name]
		p := skillPath(name)
		if f.skill == nil {
			s.Errors = append(s.Errors, Problem{Path: p, Message: f.err})
			continue
		}
		sk := *f.skill
		sk.Capabilities = slices.Clone(sk.Capabilities)
		sk.Tools = slices.Clone(sk.Tools)
		s.Skills = append(s.Skills, sk)
		if f.warn != "" {
			s.Warnings = append(s.Warnings, Problem{Path: p, Message: f.warn})
		}
	}
	return s
}

func skillPath(name string) string { return path.Join(Dir, name, FileName) }

// maxShared bounds the shared cache: a long-running server may see many
// working directories (one per worktree) over its life.
const maxShared = 64

var shared struct {
	mu   sync.Mutex
	regs map[string]*sharedReg
	tick uint64
}

type sharedReg struct {
	reg  *Registry
	used uint64
}

// For returns the process-wide registry rooted at root, creating it on
// first use. Tools and commands share it, so a Reload from one is seen by
// all; the least recently used registry is dropped beyond 64 roots.
func For(root string) *Registry {
	key := root
	if abs, err := filepath.Abs(root); err == nil {
		key = abs
	}
	key = filepath.Clean(key)
	shared.mu.Lock()
	defer shared.mu.Unlock()
	shared.tick++
	if e, ok := shared.regs[key]; ok {
		e.used = shared.tick
		return e.reg
	}
	if shared.regs == nil {
		shared.regs = map[string]*sharedReg{}
	}
	if len(shared.regs) >= maxShared {
		oldest := ""
		for k, e := range shared.regs {
			if oldest == "" || e.used < shared.regs[oldest].used {
				oldest = k
			}
		}
		delete(shared.regs, oldest)
	}
	r := New(key)
	shared.regs[key] = &sharedReg{reg: r, used: shared.tick}
	return r
}
