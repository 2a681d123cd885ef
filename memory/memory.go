// Package memory stores agents' private memory files: markdown notes an
// agent keeps for its own future runs, per profile, per project or global,
// injected into its prompt on every run.
package memory

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/baton-dev/baton"
)

// MaxContent is the largest memory file, in characters.
const MaxContent = 10000

// FilenamePattern is the only shape a memory file name may have, so no
// name can reach outside its directory.
var FilenamePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(FilenameExpr) })

// FilenameExpr is FilenamePattern's expression, for schemas built at init
// without compiling it.
const FilenameExpr = `^[a-zA-Z0-9_-]+\.md$`

// MaxFilename is the longest memory file name, in characters (ASCII, so
// bytes too). File systems take 255 bytes per name, and the write goes
// through a temporary ".<name>.<random>" beside the file, so a longer name
// would fail inside the file system instead of being refused.
const MaxFilename = 128

var segment = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`) })

// GlobalDir is the directory name of memory that applies to every project.
const GlobalDir = "_global"

// Dir is where one profile's memory of one scope lives: project == ""
// means global.
func Dir(dataDir, project, profile string) (string, error) {
	if !segment().MatchString(profile) {
		return "", baton.Errorf(baton.ErrInvalidInput, "profile %q cannot name a memory directory", profile).
			WithDetails("field", "profile", "constraint", "pattern").
			WithHint("use a profile of letters, digits, '-' or '_' (start baton mcp with --agent-type)")
	}
	scope := GlobalDir
	if project != "" {
		if !segment().MatchString(project) || project == GlobalDir {
			return "", baton.Errorf(baton.ErrInvalidInput, "project %q cannot name a memory directory", project).
				WithDetails("field", "project", "constraint", "pattern")
		}
		scope = project
	}
	return filepath.Join(dataDir, "memory", scope, profile), nil
}

// Write replaces one memory file atomically: readers see the old file or
// the new one, never a part.
func Write(dataDir, project, profile, filename, content string) (string, error) {
	// Length first: a name the file system would refuse must fail here,
	// as bad input, before anything touches the disk.
	if n := len(filename); n > MaxFilename {
		return "", baton.Errorf(baton.ErrInvalidInput, "filename must be at most %d characters long (got %d)", MaxFilename, n).
			WithDetails("field", "filename", "constraint", "maxLength", "limit", MaxFilename).
			WithHint("use a shorter name, e.g. codebase-notes.md")
	}
	if !FilenamePattern().MatchString(filename) {
		return "", baton.Errorf(baton.ErrInvalidInput, "filename %q is not allowed", filename).
			WithDetails("field", "filename", "constraint", "pattern", "pattern", FilenameExpr).
			WithHint("use letters, digits, '-' and '_' ending in .md, e.g. codebase-notes.md")
	}
	if n := len([]rune(content)); n > MaxContent {
		return "", baton.Errorf(baton.ErrInvalidInput, "content must be at most %d characters (got %d)", MaxContent, n).
			WithDetails("field", "content", "constraint", "maxLength", "limit", MaxContent)
	}
	dir, err := Dir(dataDir, project, profile)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, filename)
	rel, _ := filepath.Rel(dataDir, path)
	failed := func(err error) error { return writeFailed(filepath.ToSlash(rel), err) }
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", failed(err)
	}
	tmp, err := os.CreateTemp(dir, "."+filename+".*")
	if err != nil {
		return "", failed(err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(content); err != nil {
		tmp.Close()
		return "", failed(err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return "", failed(err)
	}
	if err := tmp.Close(); err != nil {
		return "", failed(err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", failed(err)
	}
	return path, nil
}

// writeFailed is a file system failure as a client may read it: the file
// named relative to the data directory, with the system's reason but not
// the absolute path an *fs.PathError carries.
func writeFailed(rel string, err error) error {
	reason := err
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		reason = pe.Err
	case errors.As(err, &le):
		reason = le.Err
	}
	return baton.Errorf(baton.ErrInternal, "memory file %s could not be written: %v", rel, reason).
		WithDetails("path", rel).
		WithHint("nothing was changed; the server's data directory needs fixing (space, permissions), retry later or tell the operator")
}

// Show renders a profile's memory for a prompt: global files first, then
// the project's, each under a heading naming it, files in name order.
func Show(dataDir, project, profile string) (string, error) {
	var b strings.Builder
	scopes := []string{""}
	if project != "" {
		scopes = append(scopes, project)
	}
	for _, scope := range scopes {
		dir, err := Dir(dataDir, scope, profile)
		if err != nil {
			return "", err
		}
		entries, err := os.ReadDir(dir)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return "", err
		}
		names := []string{}
		for _, e := range entries {
			if !e.IsDir() && FilenamePattern().MatchString(e.Name()) {
				names = append(names, e.Name())
			}
		}
		slices.Sort(names)
		label := "global"
		if scope != "" {
			label = "project " + scope
		}
		for _, n := range names {
			body, err := os.ReadFile(filepath.Join(dir, n))
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&b, "## Memory: %s (%s)\n\n%s\n\n", n, label, strings.TrimRight(string(body), "\n"))
		}
	}
	return b.String(), nil
}
