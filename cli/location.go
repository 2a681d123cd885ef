package cli

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/postgres"
)

// Location is the database a command uses, and why that one. One team has
// one database: every command finds it the way git finds .git, so agents
// started in a subdirectory or a linked worktree share it.
type Location struct {
	// Path is the SQLite file, or the postgres:// URL.
	Path string `json:"path"`
	// Reason says how Path was chosen, in words for `baton doctor`.
	Reason string `json:"reason"`
	// Root is the directory that holds .baton/: the team's repository top.
	Root string `json:"root,omitempty"`
	// Exists says the SQLite file is there (always true for a URL).
	Exists bool `json:"exists"`
}

// dbFile is the database's place under a root.
var dbFile = filepath.Join(".baton", "baton.db")

// Locate finds the database for a command run in wd. An explicit choice
// (--db or BATON_DB, named by from) wins; otherwise the nearest
// .baton/baton.db walking up from wd, where a linked git worktree is
// searched from its main repository. When none exists, the place a new one
// goes is the git top level (the main repository's, from a worktree), or
// wd outside git.
func Locate(wd, explicit, from string) Location {
	if explicit != "" {
		if postgres.IsURL(explicit) {
			return Location{Path: explicit, Reason: "named by " + from, Exists: true}
		}
		abs, err := filepath.Abs(explicit)
		if err != nil {
			abs = explicit
		}
		root := filepath.Dir(abs)
		if filepath.Base(root) == ".baton" {
			root = filepath.Dir(root)
		}
		return Location{Path: abs, Reason: "named by " + from, Root: root, Exists: isFile(abs)}
	}
	start, why := wd, ""
	top, main := gitTop(wd)
	if main != "" && main != top {
		start, why = main, ", searched from the main repository of the git worktree "+top
	}
	for dir := start; ; {
		if p := filepath.Join(dir, dbFile); isFile(p) {
			reason := "found walking up from " + wd + why
			if dir == wd {
				reason = "found in the working directory"
			}
			return Location{Path: p, Reason: reason, Root: dir, Exists: true}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	root, reason := wd, "none found; a new one goes in the working directory (not inside a git repository)"
	switch {
	case main != "":
		root, reason = main, "none found; a new one goes at the top of the main git repository"
	case top != "":
		root, reason = top, "none found; a new one goes at the git top level"
	}
	return Location{Path: filepath.Join(root, dbFile), Reason: reason, Root: root}
}

// missing is the error of a command that needs an existing database.
func (l Location) missing() error {
	where := "no baton database at " + l.Path
	if !strings.HasPrefix(l.Reason, "named by") {
		where = "no baton database (.baton/baton.db) in this directory or any above it, nor in the main repository of a git worktree"
	}
	return baton.Errorf(baton.ErrNotFound, "%s", where).
		WithDetails("looked_for", l.Path).
		WithHint("run `baton init` at the top of your repository (it creates %s), or pass --db / set BATON_DB", l.Path)
}

// gitTop returns the top of the git working tree that holds dir, and the
// top of its main repository when dir is in a linked worktree (else the
// same top). It reads .git itself, so it needs no git binary. Both are
// empty outside git.
func gitTop(dir string) (top, main string) {
	for d := dir; ; {
		dotgit := filepath.Join(d, ".git")
		fi, err := os.Stat(dotgit)
		if err == nil {
			if fi.IsDir() {
				return d, d
			}
			return d, worktreeMain(d, dotgit)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", ""
		}
		d = parent
	}
}

// worktreeMain follows a .git file ("gitdir: PATH") to the repository it
// belongs to. A linked worktree's git dir has a commondir file naming the
// main .git directory, whose parent is the main working tree. A submodule's
// has none: it is a repository of its own, so its top is its main.
func worktreeMain(top, dotgit string) string {
	b, err := os.ReadFile(dotgit)
	if err != nil {
		return top
	}
	line := strings.TrimSpace(string(b))
	gitdir, ok := strings.CutPrefix(line, "gitdir:")
	if !ok {
		return top
	}
	gitdir = strings.TrimSpace(gitdir)
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(top, gitdir)
	}
	c, err := os.ReadFile(filepath.Join(gitdir, "commondir"))
	if err != nil {
		return top
	}
	common := strings.TrimSpace(string(c))
	if !filepath.IsAbs(common) {
		common = filepath.Join(gitdir, common)
	}
	common = filepath.Clean(common)
	if filepath.Base(common) != ".git" {
		return top // a bare main repository has no working tree to share
	}
	return filepath.Dir(common)
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// location resolves, once per invocation, the database this command uses.
func (a *App) location() Location {
	if a.loc != nil {
		return *a.loc
	}
	wd, err := os.Getwd()
	if err != nil {
		wd = "."
	}
	from := "--db"
	if a.dbPath == a.env("BATON_DB", "") {
		from = "BATON_DB"
	}
	l := Locate(wd, a.dbPath, from)
	a.loc = &l
	return l
}
