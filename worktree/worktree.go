// Package worktree gives every issue its own git worktree and branch, as
// Symphony's orchestrator does: <repo>/.symphony-workspaces/<ID>/ on the
// branch symphony/<ID>, with the .symphony-worktree marker that
// verify_workspace reads. It runs the git binary (see docs/decisions.md),
// and checks that an agent's call comes from its worktree (Verify,
// Require) before complete_phase and create_pr act.
package worktree

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/gitenv"
)

// Defaults of Symphony's workspace configuration (workspace.dir_name,
// workspace.base_branch) and its branch names.
const (
	DirName      = ".symphony-workspaces"
	DefaultBase  = "main"
	BranchPrefix = "symphony/"
)

// Sanitize makes an issue identifier safe as a folder and branch name:
// every character outside [A-Za-z0-9._-] becomes '_'. A name of dots only
// (which would climb the tree) gets a leading '_'.
func Sanitize(id string) string {
	var b strings.Builder
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := b.String()
	if strings.Trim(s, ".") == "" {
		s = "_" + s
	}
	return s
}

// Branch is the branch of an issue's worktree: symphony/<ID>.
func Branch(issue string) string { return BranchPrefix + Sanitize(issue) }

// Dir is where an issue's worktree lives in repo.
func Dir(repo, issue string) string { return filepath.Join(repo, DirName, Sanitize(issue)) }

// Find returns the marker of issue's worktree in repo, or nil when the
// issue has none there. repo may be any folder of the repository (a
// project rooted in a subfolder, a linked worktree): worktrees hang off
// the main repository's top, which Find reads from .git without running
// git.
func Find(repo, issue string) *Marker {
	if repo == "" || issue == "" {
		return nil
	}
	dir := Dir(repo, issue)
	m, _, err := ReadMarker(dir)
	if m == nil {
		if top := mainTop(repo); top != "" && top != filepath.Clean(repo) {
			dir = Dir(top, issue)
			m, _, err = ReadMarker(dir)
		}
	}
	if err != nil || m == nil {
		return nil
	}
	if m.Path == "" {
		m.Path = dir
	}
	if m.Branch == "" {
		m.Branch = Branch(issue)
	}
	return m
}

// Options say which worktree Create makes.
type Options struct {
	Repo    string // the main repository's top directory
	Issue   string // the issue's (current) identifier
	Project string // the issue's project slug, for the marker
	// Base is the branch the issue's branch starts from and is compared
	// with; empty means main, or the main worktree's branch when the
	// repository has no main.
	Base  string
	RunID string    // the agent run the worktree is made for, if any
	Now   time.Time // the marker's created_at
}

// Worktree is an issue's worktree as Create left it.
type Worktree struct {
	Path    string `json:"path"`
	Branch  string `json:"branch"`
	Base    string `json:"base_branch"`
	Issue   string `json:"issue"`
	Project string `json:"project"`
	// Reused says the worktree was there already (its base is merged in);
	// otherwise Create made it, and BranchCreated says whether the branch
	// is new too.
	Reused        bool     `json:"reused"`
	BranchCreated bool     `json:"branch_created"`
	Warnings      []string `json:"warnings,omitempty"`
}

// Create makes (or reuses) the worktree of an issue and writes its marker.
// Stale registrations (worktrees whose folders are gone) are pruned first.
// A reused worktree gets the latest base merged in; a merge that conflicts
// is aborted and reported as a warning, leaving the worktree as it was.
func Create(ctx context.Context, o Options) (*Worktree, error) {
	if err := gitAvailable(); err != nil {
		return nil, err
	}
	if o.Issue == "" {
		return nil, baton.Errorf(baton.ErrInvalidInput, "no issue named").WithDetails("field", "issue")
	}
	repo, err := Top(ctx, o.Repo)
	if err != nil {
		return nil, err
	}
	base, err := baseBranch(ctx, repo, o.Base)
	if err != nil {
		return nil, err
	}
	wt := &Worktree{Path: Dir(repo, o.Issue), Branch: Branch(o.Issue), Base: base, Issue: o.Issue, Project: o.Project}
	if _, err := git(ctx, repo, "check-ref-format", "--branch", wt.Branch); err != nil {
		return nil, baton.Errorf(baton.ErrInvalidInput, "%q cannot be a branch name, so %s gets no worktree", wt.Branch, o.Issue).
			WithDetails("issue", o.Issue, "branch", wt.Branch).
			WithHint("give the issue an identifier made of letters, digits, '-', '_' and single dots")
	}
	unlock, err := lockRepo(repo)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if _, err := git(ctx, repo, "worktree", "prune"); err != nil {
		return nil, err
	}
	if err := exclude(ctx, repo); err != nil {
		return nil, err
	}
	list, err := List(ctx, repo)
	if err != nil {
		return nil, err
	}
	var mine *Entry
	for i := range list {
		e := &list[i]
		if samePath(e.Path, wt.Path) {
			mine = e
		} else if e.Branch == wt.Branch {
			return nil, baton.Errorf(baton.ErrConflict, "the branch %s is checked out in another worktree, %s", wt.Branch, e.Path).
				WithType("path_conflict").WithDetails("branch", wt.Branch, "worktree", e.Path).
				WithHint("switch that worktree to another branch (git -C %s switch %s), then create the issue's worktree again", e.Path, base)
		}
	}
	switch {
	case mine != nil:
		wt.Reused = true
		// Two identifiers that sanitise alike ("SYM 1", "SYM_1") would
		// share a folder: the second is refused, not given the first's.
		if m, _, _ := ReadMarker(wt.Path); m != nil && m.Issue != "" && m.Issue != o.Issue {
			return nil, baton.Errorf(baton.ErrConflict, "the worktree %s belongs to %s, not %s", wt.Path, m.Issue, o.Issue).
				WithType("path_conflict").WithDetails("worktree", wt.Path, "issue", m.Issue).
				WithHint("remove that worktree (baton worktree prune, once %s is finished) or give %s another identifier", m.Issue, o.Issue)
		}
		if mine.Branch != wt.Branch {
			return nil, baton.Errorf(baton.ErrConflict, "the worktree %s is on %q, not on the issue's branch %s", wt.Path, mine.Branch, wt.Branch).
				WithType("path_conflict").WithDetails("worktree", wt.Path, "branch", mine.Branch, "want_branch", wt.Branch).
				WithHint("switch it back with `git -C %s switch %s`, or remove it with `git worktree remove`", wt.Path, wt.Branch)
		}
		if w := mergeBase(ctx, wt.Path, base); w != "" {
			wt.Warnings = append(wt.Warnings, w)
		}
	case exists(wt.Path):
		return nil, baton.Errorf(baton.ErrConflict, "%s exists and is not a worktree of %s", wt.Path, repo).
			WithType("path_conflict").WithDetails("path", wt.Path).
			WithHint("move or delete that folder, then create the worktree again")
	default:
		args := []string{"worktree", "add", "--quiet", wt.Path, wt.Branch}
		if !refExists(ctx, repo, "refs/heads/"+wt.Branch) {
			args = []string{"worktree", "add", "--quiet", "-b", wt.Branch, wt.Path, base}
			wt.BranchCreated = true
		}
		if _, err := git(ctx, repo, args...); err != nil {
			return nil, err
		}
	}
	m := &Marker{Issue: o.Issue, Project: o.Project, Branch: wt.Branch, Base: base, Path: wt.Path, RunID: o.RunID}
	if !o.Now.IsZero() {
		m.CreatedAt = o.Now.UTC().Format(time.RFC3339)
	} else {
		m.CreatedAt = time.Now().UTC().Format(time.RFC3339)
	}
	if err := writeMarker(wt.Path, m); err != nil {
		_ = wt.undo(context.WithoutCancel(ctx), repo)
		return nil, baton.Errorf(baton.ErrInternal, "writing the worktree marker: %v", err)
	}
	return wt, nil
}

// Undo removes what Create made: the worktree, and its branch when Create
// made that too. A reused worktree is left alone. It is how a caller that
// fails to record the creation leaves nothing behind.
func (w *Worktree) Undo(ctx context.Context, repo string) error {
	return locked(repo, func() error { return w.undo(ctx, repo) })
}

func (w *Worktree) undo(ctx context.Context, repo string) error {
	if w.Reused {
		return nil
	}
	if _, err := git(ctx, repo, "worktree", "remove", "--force", w.Path); err != nil {
		return err
	}
	if w.BranchCreated {
		_, err := git(ctx, repo, "branch", "-D", w.Branch)
		return err
	}
	return nil
}

// Entry is one worktree of a repository, as `git worktree list` shows it.
type Entry struct {
	Path   string  `json:"path"`
	Branch string  `json:"branch"` // "" when detached
	Head   string  `json:"head"`
	Main   bool    `json:"main"`             // the main working tree
	Marker *Marker `json:"marker,omitempty"` // nil without a marker
}

// List returns repo's worktrees, the main one first, each with its marker.
func List(ctx context.Context, repo string) ([]Entry, error) {
	out, err := git(ctx, repo, "worktree", "list", "--porcelain")
	if err != nil {
		return nil, err
	}
	var list []Entry
	for _, block := range strings.Split(strings.TrimSpace(out), "\n\n") {
		var e Entry
		bare := false
		for _, line := range strings.Split(block, "\n") {
			k, v, _ := strings.Cut(line, " ")
			switch k {
			case "worktree":
				e.Path = v
			case "HEAD":
				e.Head = v
			case "branch":
				e.Branch = strings.TrimPrefix(v, "refs/heads/")
			case "bare":
				bare = true
			}
		}
		if e.Path == "" || bare {
			continue
		}
		e.Main = len(list) == 0
		if m, _, err := ReadMarker(e.Path); err == nil && m != nil && !e.Main {
			e.Marker = m
		}
		list = append(list, e)
	}
	return list, nil
}

// Remove removes one worktree. Without force, git refuses a worktree with
// changes not committed (they would be lost); the branch always stays, so
// committed work is never lost.
func Remove(ctx context.Context, repo, path string, force bool) error {
	args := []string{"worktree", "remove", path}
	if force {
		args = []string{"worktree", "remove", "--force", path}
	}
	return locked(repo, func() error {
		_, err := git(ctx, repo, args...)
		return err
	})
}

// lockName is the file, in the main repository's .git, that baton's
// processes lock while they add, remove or prune worktrees. git does not
// serialise these itself: a prune deletes a worktree that another process
// is adding, before its registration is complete, as stale, and an add
// reads the registrations of the others while they are half written
// (TestCreateConcurrently).
const lockName = "baton-worktrees.lock"

// lockRepo waits for the repository's worktree lock (repo is a main
// repository's top, as Top returns) and returns its release.
func lockRepo(repo string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(repo, ".git", lockName), os.O_CREATE|os.O_RDWR, 0o644)
	if err == nil {
		if err = lockFile(f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		return nil, baton.Errorf(baton.ErrInternal, "cannot lock the worktrees of %s: %v", repo, err).
			WithHint("check that the repository's .git folder is writable")
	}
	return func() { f.Close() }, nil
}

// locked runs fn holding the repository's worktree lock.
func locked(repo string, fn func() error) error {
	unlock, err := lockRepo(repo)
	if err != nil {
		return err
	}
	defer unlock()
	return fn()
}

// Top returns the top directory of the main repository that holds dir
// (from a linked worktree, the main one's): worktrees always hang off the
// main repository.
func Top(ctx context.Context, dir string) (string, error) {
	if dir == "" {
		return "", baton.Errorf(baton.ErrInvalidInput, "no repository directory given").
			WithHint("run the command inside the project's git repository, or set the project's root")
	}
	common, err := git(ctx, dir, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return "", baton.Errorf(baton.ErrInvalidInput, "%s is not inside a git repository", dir).
			WithDetails("dir", dir).
			WithHint("worktrees need a git repository: run `git init` there (and commit once), or run baton in the project's repository")
	}
	common = filepath.Clean(strings.TrimSpace(common))
	if filepath.Base(common) != ".git" {
		return "", baton.Errorf(baton.ErrInvalidInput, "the repository at %s is bare: it has no working tree to branch worktrees from", common).
			WithDetails("git_dir", common)
	}
	return filepath.Dir(common), nil
}

// baseBranch is the branch new worktrees start from: the one named, else
// main, else the branch the main worktree is on.
func baseBranch(ctx context.Context, repo, named string) (string, error) {
	if named != "" {
		if !refExists(ctx, repo, "refs/heads/"+named) && !refExists(ctx, repo, named) {
			return "", baton.Errorf(baton.ErrInvalidInput, "the base branch %q does not exist in %s", named, repo).
				WithDetails("field", "base", "base", named).
				WithHint("name an existing branch (git branch --list), or leave the base out for main")
		}
		return named, nil
	}
	if refExists(ctx, repo, "refs/heads/"+DefaultBase) {
		return DefaultBase, nil
	}
	cur, err := git(ctx, repo, "symbolic-ref", "--quiet", "--short", "HEAD")
	cur = strings.TrimSpace(cur)
	if err != nil || cur == "" || !refExists(ctx, repo, "refs/heads/"+cur) {
		return "", baton.Errorf(baton.ErrInvalidInput, "the repository %s has no main branch and no current branch with a commit to start from", repo).
			WithDetails("field", "base").
			WithHint("commit once on a branch, or name the base branch (--base)")
	}
	return cur, nil
}

// mergeBase merges base into the worktree's branch unless it is there
// already, and returns a warning when it could not (the merge is aborted).
func mergeBase(ctx context.Context, dir, base string) string {
	if _, err := git(ctx, dir, "merge-base", "--is-ancestor", base, "HEAD"); err == nil {
		return ""
	}
	if _, err := git(ctx, dir, withIdentity(ctx, dir, "merge", "--no-edit", "--quiet", base)...); err != nil {
		_, _ = git(context.WithoutCancel(ctx), dir, "merge", "--abort")
		return "could not merge " + base + " into the worktree (" + firstLine(baton.AsError(err).Message) + "); merge it by hand"
	}
	return ""
}

// withIdentity prefixes args with a committer identity when git has none
// configured, so a merge commit never fails for want of a name.
func withIdentity(ctx context.Context, dir string, args ...string) []string {
	if out, err := git(ctx, dir, "config", "user.email"); err == nil && strings.TrimSpace(out) != "" {
		return args
	}
	return append([]string{"-c", "user.name=baton", "-c", "user.email=baton@localhost"}, args...)
}

// exclude keeps the workspaces folder out of the main repository's status
// and the marker out of every worktree's commits (git add -A would commit
// it, and it would show in the PR's diff), in the repository's own
// info/exclude: nothing tracked changes.
func exclude(ctx context.Context, repo string) error {
	path, err := git(ctx, repo, "rev-parse", "--path-format=absolute", "--git-path", "info/exclude")
	if err != nil {
		return err
	}
	path = strings.TrimSpace(path)
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	lines := strings.Split(string(old), "\n")
	var add []string
	for _, want := range []string{"/" + DirName + "/", "/" + MarkerFile, "/" + MarkerFile + ".tmp-*"} {
		if !slices.Contains(lines, want) {
			add = append(add, want)
		}
	}
	if len(add) == 0 {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	text := string(old)
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	text += "# baton: issue worktrees and their markers\n" + strings.Join(add, "\n") + "\n"
	return os.WriteFile(path, []byte(text), 0o644)
}

// git runs git in dir and returns its standard output. A failure is
// ERR_CONFLICT (type git_failed) carrying git's own message: git refuses
// because of the repository's state, which the hint says to fix.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Env = gitenv.Env()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return stdout.String(), baton.Errorf(baton.ErrConflict, "git %s failed: %s", strings.Join(args, " "), msg).
			WithType("git_failed").WithDetails("dir", dir, "git_args", args).
			WithHint("fix what git reports in %s, then run the command again", dir)
	}
	return stdout.String(), nil
}

// gitAvailable reports a missing git binary as a configuration error.
func gitAvailable() error {
	if _, err := exec.LookPath("git"); err != nil {
		return baton.Errorf(baton.ErrConfigInvalid, "git is not installed (or not on PATH): worktrees need it").
			WithHint("install git and run the command again")
	}
	return nil
}

func refExists(ctx context.Context, repo, ref string) bool {
	_, err := git(ctx, repo, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
	return err == nil
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil || !errors.Is(err, os.ErrNotExist)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// samePath compares two directories after resolving symbolic links (a
// temporary directory is often reached through one).
func samePath(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ra == rb
}

// PruneStale drops the registrations of worktrees whose folders are gone
// (a crash, a folder deleted by hand), as git worktree prune does.
func PruneStale(ctx context.Context, repo string) error {
	if err := gitAvailable(); err != nil {
		return err
	}
	return locked(repo, func() error {
		_, err := git(ctx, repo, "worktree", "prune")
		return err
	})
}

// mainTop is the top of the main repository holding dir, read from the
// .git entries on the way up ("" outside git): a .git folder is a main
// repository's; a .git file points into a linked worktree's git dir,
// whose commondir names the main .git.
func mainTop(dir string) string {
	for d := filepath.Clean(dir); ; {
		dotgit := filepath.Join(d, ".git")
		if fi, err := os.Stat(dotgit); err == nil {
			if fi.IsDir() {
				return d
			}
			b, err := os.ReadFile(dotgit)
			if err != nil {
				return d
			}
			gitdir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
			if !ok {
				return d
			}
			gitdir = strings.TrimSpace(gitdir)
			if !filepath.IsAbs(gitdir) {
				gitdir = filepath.Join(d, gitdir)
			}
			c, err := os.ReadFile(filepath.Join(gitdir, "commondir"))
			if err != nil {
				return d // a submodule: a repository of its own
			}
			common := strings.TrimSpace(string(c))
			if !filepath.IsAbs(common) {
				common = filepath.Join(gitdir, common)
			}
			return filepath.Dir(filepath.Clean(common))
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}
