package tool

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/baton-dev/baton"
)

// absPath finds absolute file paths in error text: a slash after the start,
// a space, a quote, a bracket or '=', running to the next space, quote,
// bracket or punctuation that ends a path in Go's error messages
// ("open /srv/baton/.baton/x: permission denied").
var absPath = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("(^|[\\s\"'`(\\[=])(/[^\\s\"'`:;,()\\[\\]]+)") })

// clientError is err as a client receives it. An internal error carries
// whatever the failing layer wrote, typically an os error with the
// server's absolute path in it; the client sees that path relative to
// baton's data directory or the working directory when it is under one,
// else only its last element. The server's log keeps the original.
// Errors of other codes are written by tools for the client and pass as
// they are.
func (e *Env) clientError(err error) *baton.Error {
	be := baton.AsError(err)
	if be == nil || be.Code != baton.ErrInternal {
		return be
	}
	roots := e.pathRoots()
	out := *be // the original may be shared; never change it
	out.Message, out.Hint = scrubPaths(be.Message, roots), scrubPaths(be.Hint, roots)
	changed := out.Message != be.Message || out.Hint != be.Hint
	if len(be.Details) > 0 {
		out.Details = make(map[string]any, len(be.Details))
		for k, v := range be.Details {
			if s, ok := v.(string); ok {
				if clean := scrubPaths(s, roots); clean != s {
					v, changed = clean, true
				}
			}
			out.Details[k] = v
		}
	}
	if !changed {
		return be
	}
	e.logger().Warn("internal error; the client sees it without server paths", "error", be.Error())
	return &out
}

// pathRoots are the directories a client may see paths relative to,
// deepest first so the most specific wins.
func (e *Env) pathRoots() []string {
	var roots []string
	for _, d := range []string{e.DataDir, e.WorkDir} {
		if d == "" {
			continue
		}
		if abs, err := filepath.Abs(d); err == nil {
			roots = append(roots, abs)
		}
	}
	if e.WorkDir == "" {
		if wd, err := os.Getwd(); err == nil {
			roots = append(roots, wd)
		}
	}
	// Deepest first: the data directory usually lies under the working one.
	for i := 1; i < len(roots); i++ {
		for j := i; j > 0 && len(roots[j]) > len(roots[j-1]); j-- {
			roots[j], roots[j-1] = roots[j-1], roots[j]
		}
	}
	return roots
}

// scrubPaths rewrites every absolute path in s: relative to the first root
// it lies under, else "…/" and its last element.
func scrubPaths(s string, roots []string) string {
	if !strings.Contains(s, "/") {
		return s
	}
	return absPath().ReplaceAllStringFunc(s, func(m string) string {
		i := strings.IndexByte(m, '/')
		lead, p := m[:i], filepath.Clean(m[i:])
		for _, r := range roots {
			if r == "/" {
				continue
			}
			if p == r {
				return lead + "."
			}
			if rel, ok := strings.CutPrefix(p, r+string(filepath.Separator)); ok {
				return lead + filepath.ToSlash(rel)
			}
		}
		if base := filepath.Base(p); base != "/" && base != "." {
			return lead + "…/" + base
		}
		return lead + "…"
	})
}
