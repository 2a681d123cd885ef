package review

import (
	"context"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/gitenv"
)

// MaxDiff is the most of a diff a PR record keeps, in bytes; the file
// stats always cover the whole change.
const MaxDiff = 1 << 20

// gitTimeout bounds one git command: a diff of a large change takes
// seconds, never minutes.
const gitTimeout = 2 * time.Minute

// Snapshot is what git says about a branch against its base: the change
// a PR records.
type Snapshot struct {
	Branch, Base     string
	BaseSHA, HeadSHA string // the merge base and the branch's commit
	Commits          int    // commits on the branch since the merge base
	Diff             string
	Truncated        bool
	Files            []baton.FileStat
	// Dirty lists changes in dir that no commit holds: they are not in
	// the PR.
	Dirty []string
}

// Build snapshots branch against base in the repository (or worktree) at
// dir with the git binary: the diff from their merge base to the
// branch's commit (what `git diff base...branch` shows), per-file stats
// with renames found, and the changes left uncommitted in dir. A branch
// with no change against its base is ERR_INVALID_INPUT ("no committed
// changes"): a PR is built from commits, never from text an agent pasted.
func Build(ctx context.Context, dir, base, branch string) (*Snapshot, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, baton.Errorf(baton.ErrConfigInvalid, "git is not installed (or not on PATH): PR records are built from git").
			WithHint("install git where baton runs, then try again")
	}
	if _, err := git(ctx, dir, "rev-parse", "--git-dir"); err != nil {
		return nil, baton.Errorf(baton.ErrInvalidInput, "the working directory is not inside a git repository, so there is no branch to build a PR from").
			WithType("not_a_repository").
			WithHint("work in the issue's worktree (baton worktree create ISSUE), commit there, then try again")
	}
	s := &Snapshot{Branch: branch, Base: base}
	var err error
	if s.HeadSHA, err = commitOf(ctx, dir, branch, "branch_name"); err != nil {
		return nil, err
	}
	baseSHA, err := commitOf(ctx, dir, base, "base_branch")
	if err != nil {
		return nil, err
	}
	mb, err := git(ctx, dir, "merge-base", baseSHA, s.HeadSHA)
	if err != nil {
		return nil, baton.Errorf(baton.ErrInvalidInput, "%s and %s share no history: there is no merge base to diff from", branch, base).
			WithDetails("field", "base_branch", "branch_name", branch, "base_branch", base).
			WithHint("name the branch %s was started from as base_branch", branch)
	}
	s.BaseSHA = strings.TrimSpace(mb)
	count, err := git(ctx, dir, "rev-list", "--count", s.BaseSHA+".."+s.HeadSHA)
	if err != nil {
		return nil, err
	}
	s.Commits, _ = strconv.Atoi(strings.TrimSpace(count))

	status, err := git(ctx, dir, diffArgs("--name-status", "-z", s.BaseSHA, s.HeadSHA)...)
	if err != nil {
		return nil, err
	}
	numstat, err := git(ctx, dir, diffArgs("--numstat", "-z", s.BaseSHA, s.HeadSHA)...)
	if err != nil {
		return nil, err
	}
	if s.Files, err = parseStats(status, numstat); err != nil {
		return nil, err
	}
	if len(s.Files) == 0 {
		what := "no commits"
		if s.Commits > 0 {
			what = strconv.Itoa(s.Commits) + " commits that change nothing in the end"
		}
		return nil, baton.Errorf(baton.ErrInvalidInput, "no committed changes: %s has %s against %s", branch, what, base).
			WithType("no_changes").WithDetails("branch_name", branch, "base_branch", base, "commits", s.Commits).
			WithHint("commit your work on %s (git add -A && git commit -m ...), then try again", branch)
	}
	// Only the first MaxDiff+1 bytes of the patch are kept, the rest is
	// read and dropped: a huge change never sits in memory whole.
	diff, over, err := gitCapped(ctx, dir, MaxDiff+1, diffArgs("--patch", s.BaseSHA, s.HeadSHA)...)
	if err != nil {
		return nil, err
	}
	s.Diff = Clean(diff)
	s.Truncated = over || len(s.Diff) > MaxDiff
	if s.Truncated {
		if len(s.Diff) > MaxDiff {
			s.Diff = s.Diff[:MaxDiff]
		}
		s.Diff = strings.ToValidUTF8(s.Diff, "") + "\n… diff truncated at " + strconv.Itoa(MaxDiff>>20) + " MiB\n"
	}
	// What is left uncommitted matters only where the branch is checked
	// out: the worker's worktree.
	cur, _ := git(ctx, dir, "symbolic-ref", "--quiet", "--short", "HEAD")
	if strings.TrimSpace(cur) != branch {
		return s, nil
	}
	if out, err := git(ctx, dir, "status", "--porcelain", "-z", "--untracked-files=all"); err == nil {
		entries := strings.Split(out, "\x00")
		for i := 0; i < len(entries); i++ {
			e := entries[i]
			if len(e) < 4 || e[2] != ' ' {
				continue
			}
			if name := e[3:]; name != ".symphony-worktree" && name != ".baton-worktree" {
				s.Dirty = append(s.Dirty, name)
			}
			if e[0] == 'R' || e[0] == 'C' {
				i++ // the path it was renamed or copied from
			}
		}
	}
	return s, nil
}

// diffArgs is a diff whose output does not depend on the user's git
// configuration (prefixes, colour, external drivers, rename limits).
func diffArgs(mode ...string) []string {
	args := []string{"-c", "core.quotePath=false", "-c", "diff.noprefix=false", "-c", "diff.mnemonicPrefix=false",
		"-c", "diff.relative=false", "diff", "--no-color", "--no-ext-diff", "--no-textconv", "--find-renames",
		"--src-prefix=a/", "--dst-prefix=b/"}
	return append(args, mode...)
}

// commitOf resolves a branch (or any commit name) to its commit; an
// unknown name is ERR_INVALID_INPUT naming field.
func commitOf(ctx context.Context, dir, name, field string) (string, error) {
	if strings.HasPrefix(name, "-") {
		return "", baton.Errorf(baton.ErrInvalidInput, "%s %q is not a branch name", field, name).
			WithDetails("field", field, "value", name).WithHint("name a branch, e.g. symphony/COL-1 or main")
	}
	out, err := git(ctx, dir, "rev-parse", "--verify", "--quiet", "--end-of-options", name+"^{commit}")
	if err != nil {
		return "", baton.Errorf(baton.ErrInvalidInput, "%s %q names no branch or commit in the repository", field, name).
			WithDetails("field", field, "value", name).
			WithHint("check the name with `git branch --list`; the issue's branch is its worktree's (git branch --show-current)")
	}
	return strings.TrimSpace(out), nil
}

// parseStats joins `git diff --name-status -z` and `--numstat -z`, which
// list the same files in the same order.
func parseStats(status, numstat string) ([]baton.FileStat, error) {
	var files []baton.FileStat
	f := strings.Split(status, "\x00")
	for i := 0; i < len(f) && f[i] != ""; {
		code := f[i]
		st := baton.FileStat{}
		switch code[0] {
		case 'R', 'C':
			if i+2 >= len(f) {
				return nil, errors.New("git diff --name-status: truncated rename entry")
			}
			st.OldPath, st.Path = f[i+1], f[i+2]
			st.Status = map[byte]string{'R': "renamed", 'C': "copied"}[code[0]]
			i += 3
		default:
			if i+1 >= len(f) {
				return nil, errors.New("git diff --name-status: truncated entry")
			}
			st.Path = f[i+1]
			st.Status = map[byte]string{'A': "added", 'D': "deleted", 'M': "modified", 'T': "type_changed"}[code[0]]
			if st.Status == "" {
				st.Status = "modified"
			}
			i += 2
		}
		files = append(files, st)
	}
	// numstat -z: "added\tremoved\tpath\0", or for a rename or copy
	// "added\tremoved\t\0old\0new\0"; "-\t-" for a binary file.
	n := strings.Split(numstat, "\x00")
	k := 0
	for i := 0; i < len(n) && n[i] != ""; k++ {
		parts := strings.SplitN(n[i], "\t", 3)
		if len(parts) != 3 {
			return nil, errors.New("git diff --numstat: malformed entry")
		}
		i++
		if parts[2] == "" { // rename or copy: two paths follow
			i += 2
		}
		if k >= len(files) {
			return nil, errors.New("git diff --numstat lists more files than --name-status")
		}
		if parts[0] == "-" && parts[1] == "-" {
			files[k].Binary = true
			continue
		}
		files[k].Added, _ = strconv.Atoi(parts[0])
		files[k].Removed, _ = strconv.Atoi(parts[1])
	}
	if k != len(files) {
		return nil, errors.New("git diff --numstat lists fewer files than --name-status")
	}
	return files, nil
}

// Clean makes text storable in both stores and safe to show: valid UTF-8,
// no NUL (PostgreSQL text refuses both).
func Clean(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.ReplaceAll(s, "\x00", "\uFFFD")
}

// maxGitOutput bounds the standard output of one git command other than
// the diff (which has its own cap, MaxDiff): stats and lists of even a
// huge change fit well below it.
const maxGitOutput = 64 << 20

// git runs git in dir with a time limit, outside the influence of the
// environment's GIT_DIR and friends, and returns its standard output. A
// failure carries git's message; so does output past maxGitOutput, which
// would be cut where the caller cannot parse it.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	out, over, err := gitCapped(ctx, dir, maxGitOutput, args...)
	if err == nil && over {
		return "", baton.Errorf(baton.ErrConflict, "git %s printed more than %d MiB: the change is too large to record", subcommand(args), maxGitOutput>>20).
			WithType("git_failed").WithHint("split the work into smaller branches and PRs")
	}
	return out, err
}

// capped is a writer that keeps the first max bytes written to it and
// drops the rest, saying whether it dropped anything.
type capped struct {
	max  int
	buf  []byte
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	keep := min(max(c.max-len(c.buf), 0), len(p))
	c.buf = append(c.buf, p[:keep]...)
	if keep < len(p) {
		c.over = true
	}
	return len(p), nil
}

// gitCapped is git keeping at most limit bytes of standard output (the
// rest is read and dropped, so git never blocks on a full pipe); over
// says output was dropped.
func gitCapped(ctx context.Context, dir string, limit int, args ...string) (out string, over bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Env = gitEnv()
	stdout := &capped{max: limit}
	stderr := &capped{max: 64 << 10}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(string(stderr.buf))
		if msg == "" {
			msg = err.Error()
		}
		// The worktree's path is the server's: the client learns what
		// failed, not where.
		msg = strings.ReplaceAll(firstLine(msg), dir, "<worktree>")
		return string(stdout.buf), stdout.over, baton.Errorf(baton.ErrConflict, "git %s failed: %s", subcommand(args), msg).
			WithType("git_failed").WithHint("fix what git reports in the issue's worktree, then try again")
	}
	return string(stdout.buf), stdout.over, nil
}

// gitEnv is the process environment without the variables that would
// point git at another repository, index or configuration than dir's
// (gitenv.Env, shared with the worktree package).
func gitEnv() []string { return gitenv.Env() }

// subcommand is the git command args run, past the -c options.
func subcommand(args []string) string {
	for i := 0; i < len(args); i++ {
		if args[i] == "-c" {
			i++
			continue
		}
		return args[i]
	}
	return "git"
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
