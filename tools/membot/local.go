package membot

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

// Project files as knowledge sources (membot_add, membot_refresh). baton
// reads only inside the project's directory: paths are taken relative to
// its root (or absolute inside it), and a path that leaves it, by ".." or
// by a symbolic link, is refused. Messages name paths as the caller gave
// them or relative to the root, never a server path.

// Limits of one membot_add: it reads and indexes every file before its
// transaction, so what one call holds in memory is bounded.
const (
	// maxAddFiles is the most files one call ingests.
	maxAddFiles = 1000
	// maxAddBytes is the most file content one call reads.
	maxAddBytes = 64 << 20
	// maxWalkEntries is the most directory entries one walk looks at.
	maxWalkEntries = 100_000
)

// projectRoot is the directory of the project whose space the session
// writes, "" when it writes the global space (which has no directory).
// It needs c.Tx.
func projectRoot(ctx context.Context, c *tool.Call) (string, error) {
	s, err := space(ctx, c)
	if err != nil || s.Scope != baton.ScopeProject {
		return "", err
	}
	p, err := c.Tx.Project(ctx, s.Project)
	if err != nil {
		return "", err
	}
	return p.Root, nil
}

// realRoot is the root made absolute with its links resolved, the form
// paths are checked against.
func realRoot(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return abs, nil
}

// within says whether p is root or inside it.
func withinRoot(root, p string) bool {
	r, err := filepath.Rel(root, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && !filepath.IsAbs(r)
}

// projectRel turns a source into a clean slash path relative to the root
// (an absolute path must name something inside the root); "" is the root.
func projectRel(root, absRoot, src string) (string, error) {
	p := filepath.FromSlash(src)
	if filepath.IsAbs(p) {
		// Inside the root as resolved, or as configured (before its
		// links are resolved).
		c, found := filepath.Clean(p), false
		roots := []string{absRoot}
		if ar, err := filepath.Abs(root); err == nil {
			roots = append(roots, ar)
		}
		for _, r := range roots {
			if withinRoot(r, c) {
				p, _ = filepath.Rel(r, c)
				found = true
				break
			}
		}
		if !found {
			return "", outsideProject(src)
		}
	}
	rel := path.Clean(filepath.ToSlash(p))
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "", outsideProject(src)
	}
	if rel == "." {
		rel = ""
	}
	return rel, nil
}

// resolveInProject is the real path of rel (root-relative), which must
// exist and lie inside the root once links are resolved.
func resolveInProject(absRoot, rel, src string) (string, error) {
	real, err := filepath.EvalSymlinks(filepath.Join(absRoot, filepath.FromSlash(rel)))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", baton.Errorf(baton.ErrNotFound, "no file or directory %q in the project directory", src).
			WithDetails("path", src).
			WithHint("give a path relative to the project root; list the directory to check the name")
	case err != nil:
		return "", baton.Errorf(baton.ErrInvalidInput, "cannot read %q", src).WithHint("check the file's permissions")
	case !withinRoot(absRoot, real):
		return "", outsideProject(src)
	}
	return real, nil
}

func outsideProject(src string) error {
	return baton.Errorf(baton.ErrInvalidInput, "path %q is outside the project directory", src).
		WithDetails("path", src).
		WithHint("give a path inside the project, relative to its root, e.g. docs/design.md")
}

// foundFile is a file a walk found: its path relative to the root (which
// ReadProjectFile then reads, checking it again) and relative to the
// walk's base (what a logical_path prefix is joined with).
type foundFile struct {
	rel, fromBase string
}

// filters are membot_add's include and exclude globs. A glob without "/"
// matches a file's name at any depth; one with "/" its path from the walk's
// base.
type filters struct {
	include, exclude []*regexp.Regexp
	includeName      []bool
	excludeName      []bool
}

// parseFilters compiles the comma-separated include and exclude lists.
func parseFilters(include, exclude string) (*filters, error) {
	f := &filters{}
	for _, l := range []struct {
		list  string
		res   *[]*regexp.Regexp
		names *[]bool
	}{{include, &f.include, &f.includeName}, {exclude, &f.exclude, &f.excludeName}} {
		for _, g := range strings.Split(l.list, ",") {
			g = strings.TrimPrefix(strings.TrimSpace(g), "./")
			if g == "" {
				continue
			}
			re, err := compileGlob(g)
			if err != nil {
				return nil, err
			}
			*l.res = append(*l.res, re)
			*l.names = append(*l.names, !strings.Contains(g, "/"))
		}
	}
	return f, nil
}

// admits says whether a file at fromBase passes the filters.
func (f *filters) admits(fromBase string) bool {
	match := func(res []*regexp.Regexp, names []bool) bool {
		for i, re := range res {
			s := fromBase
			if names[i] {
				s = path.Base(fromBase)
			}
			if re.MatchString(s) {
				return true
			}
		}
		return false
	}
	if len(f.include) > 0 && !match(f.include, f.includeName) {
		return false
	}
	return !match(f.exclude, f.excludeName)
}

// errTooMany ends a walk that found more files than one call takes.
var errTooMany = errors.New("too many files")

// findFiles expands a local source that names a directory or holds a glob
// into the files it covers, in path order. limit is how many more files
// the call takes.
func findFiles(root, src string, f *filters, follow bool, limit int) ([]foundFile, error) {
	absRoot, err := realRoot(root)
	if err != nil {
		return nil, outsideProject(src)
	}
	rel, err := projectRel(root, absRoot, src)
	if err != nil {
		return nil, err
	}
	var pattern *regexp.Regexp
	base := rel
	if isGlob(rel) {
		if pattern, err = compileGlob(rel); err != nil {
			return nil, err
		}
		base = globBase(rel)
	}
	dir, err := resolveInProject(absRoot, base, src)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, baton.Errorf(baton.ErrInvalidInput, "%q is not a directory to walk", src).
			WithHint("name a file, a directory or a glob inside the project")
	}
	var out []foundFile
	seen := map[string]bool{dir: true}
	entries := 0
	var walk func(abs, fromBase string) error
	walk = func(abs, fromBase string) error {
		des, err := os.ReadDir(abs)
		if err != nil {
			return nil // unreadable directories are skipped, as find does
		}
		for _, de := range des {
			if entries++; entries > maxWalkEntries {
				return errTooMany
			}
			full, fb := filepath.Join(abs, de.Name()), path.Join(fromBase, de.Name())
			isDir := de.IsDir()
			if de.Type()&fs.ModeSymlink != 0 {
				if !follow {
					continue
				}
				real, err := filepath.EvalSymlinks(full)
				if err == nil && withinRoot(absRoot, real) {
					if st, err := os.Stat(real); err == nil && st.IsDir() {
						if seen[real] {
							continue // a loop of links
						}
						seen[real] = true
						isDir = true
					}
				}
				// A link out of the project, or a dangling one, is a
				// file for ReadProjectFile to refuse by name.
			}
			switch {
			case isDir && de.Name() == ".git":
				// Version-control internals are never knowledge.
			case isDir:
				if err := walk(full, fb); err != nil {
					return err
				}
			case de.Type().IsRegular() || de.Type()&fs.ModeSymlink != 0:
				projPath := path.Join(base, fb)
				if (pattern != nil && !pattern.MatchString(projPath)) || !f.admits(fb) {
					continue
				}
				if len(out) == limit {
					return errTooMany
				}
				out = append(out, foundFile{rel: projPath, fromBase: fb})
			}
		}
		return nil
	}
	if err := walk(dir, ""); errors.Is(err, errTooMany) {
		return nil, baton.Errorf(baton.ErrInvalidInput, "%q covers more files than this call has room for (at most %d files a call)", src, maxAddFiles).
			WithDetails("path", src, "max_files", maxAddFiles).
			WithHint("narrow it with include/exclude or a glob, or add its subdirectories in separate calls")
	}
	if len(out) == 0 {
		return nil, baton.Errorf(baton.ErrNotFound, "no files under %q match", src).
			WithDetails("path", src).
			WithHint("check the include and exclude globs (a glob without / matches file names at any depth)")
	}
	return out, nil
}

// isDirSource says whether a local source (without glob syntax) names a
// directory inside the project.
func isDirSource(root, src string) bool {
	absRoot, err := realRoot(root)
	if err != nil {
		return false
	}
	rel, err := projectRel(root, absRoot, src)
	if err != nil {
		return false
	}
	real, err := resolveInProject(absRoot, rel, src)
	if err != nil {
		return false
	}
	st, err := os.Stat(real)
	return err == nil && st.IsDir()
}

// sha256Hex is the hex sha256 of s, as the store hashes content.
func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
