package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/pathglob"
	"github.com/spf13/cobra"
)

// The git guard: pre-commit and pre-push hooks that refuse a commit
// touching a path another agent reserved exclusively (file_reservation_paths),
// as mcp_agent_mail's pre-commit guard does. Reservations are advisory: the
// hooks are the one place baton enforces them, and they can be bypassed on
// purpose (BATON_SKIP_GUARD=1, or git's --no-verify).

// guardHooks are the hooks baton installs.
var guardHooks = []string{"pre-commit", "pre-push"}

// guardMarker marks a hook file as baton's.
const guardMarker = "# baton git guard"

// skipGuardEnv bypasses the guard for one command.
const skipGuardEnv = "BATON_SKIP_GUARD"

// zeroSHA is git's name for "no commit" in a pre-push line.
const zeroSHA = "0000000000000000000000000000000000000000"

func (a *App) hooksCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hooks",
		Short: "Install the git guard: hooks that refuse commits touching paths another agent reserved",
		Long: "The git guard makes file reservations (file_reservation_paths) hold at commit time: its pre-commit and\n" +
			"pre-push hooks refuse a commit or push touching a path another agent holds an exclusive reservation on,\n" +
			"naming the holder, the pattern and until when. The committer is BATON_AGENT (or git config baton.agent);\n" +
			"without one, every agent's exclusive reservation counts. Bypass it on purpose with " + skipGuardEnv + "=1 or\n" +
			"git commit --no-verify / git push --no-verify. A repository without a baton database is let through.",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error { return c.Help() },
	}
	var force bool
	var repo string
	install := &cobra.Command{
		Use:   "install",
		Short: "Add the guard's pre-commit and pre-push hooks to this git repository",
		Long: "install writes pre-commit and pre-push into the repository's hooks directory (core.hooksPath is honoured).\n" +
			"A hook already there that is not baton's is kept as HOOK.pre-baton and run first by baton's. Running\n" +
			"install again rewrites baton's hooks.",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			dir, err := gitHooksDir(c.Context(), repo)
			if err != nil {
				return a.fail(err)
			}
			exe, _ := os.Executable()
			var done []map[string]string
			for _, h := range guardHooks {
				p := filepath.Join(dir, h)
				kept := ""
				if old, err := os.ReadFile(p); err == nil && !bytes.Contains(old, []byte(guardMarker)) {
					kept = p + ".pre-baton"
					if _, err := os.Stat(kept); err == nil && !force {
						return a.fail(baton.Errorf(baton.ErrConflict, "%s is not baton's and %s exists already", p, kept).
							WithHint("merge them by hand, or pass --force to keep %s as it is and replace %s", kept, p))
					}
					if err := os.Rename(p, kept); err != nil {
						return a.fail(err)
					}
				}
				if err := os.MkdirAll(dir, 0o755); err != nil {
					return a.fail(err)
				}
				if err := os.WriteFile(p, []byte(guardScript(h, exe)), 0o755); err != nil {
					return a.fail(err)
				}
				done = append(done, map[string]string{"hook": p, "kept": kept})
			}
			if wantJSON(c) {
				return a.printJSON(map[string]any{"hooks": done})
			}
			for _, d := range done {
				fmt.Fprintf(a.Stdout, "installed %s", d["hook"])
				if d["kept"] != "" {
					fmt.Fprintf(a.Stdout, " (the hook that was there runs first, from %s)", d["kept"])
				}
				fmt.Fprintln(a.Stdout)
			}
			fmt.Fprintf(a.Stdout, "commits touching paths another agent reserved exclusively are refused; bypass with %s=1 or --no-verify\n", skipGuardEnv)
			return nil
		},
	}
	install.Flags().BoolVar(&force, "force", false, "replace a foreign hook even when a HOOK.pre-baton is there already")
	install.Flags().StringVar(&repo, "repo", ".", "the git repository to guard (default: the one in the working directory)")
	a.jsonFlag(install, `{"hooks": [{"hook", "kept"}]}.`)

	check := &cobra.Command{
		Use:    "check pre-commit|pre-push [REMOTE URL]",
		Short:  "What the guard's hooks run: refuse staged or pushed changes to paths another agent reserved",
		Hidden: true,
		Args:   cobra.RangeArgs(1, 3),
		RunE: func(c *cobra.Command, args []string) error {
			return a.guardCheck(c.Context(), args[0], args[1:], a.Stdin)
		},
	}
	cmd.AddCommand(install, check)
	return cmd
}

// guardScript is the hook file: it runs a kept foreign hook first, then
// baton (the binary that installed it, else the one on PATH).
func guardScript(hook, exe string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/sh\n%s (%s): refuses changes to paths another agent reserved exclusively.\n", guardMarker, hook)
	fmt.Fprintf(&b, "# Bypass on purpose: %s=1 git ..., or git's --no-verify. Remove: delete this file.\n", skipGuardEnv)
	if hook == "pre-push" {
		// git gives pre-push the refs on stdin, which the kept hook reads
		// too: keep a copy for each.
		b.WriteString("input=$(cat)\n")
		fmt.Fprintf(&b, "if [ -x \"$0.pre-baton\" ]; then printf '%%s\\n' \"$input\" | \"$0.pre-baton\" \"$@\" || exit $?; fi\n")
	} else {
		b.WriteString("if [ -x \"$0.pre-baton\" ]; then \"$0.pre-baton\" \"$@\" || exit $?; fi\n")
	}
	fmt.Fprintf(&b, "[ -n \"$%s\" ] && exit 0\n", skipGuardEnv)
	fmt.Fprintf(&b, "BATON=%s\n[ -x \"$BATON\" ] || BATON=baton\n", shellQuote(exe))
	if hook == "pre-push" {
		fmt.Fprintf(&b, "printf '%%s\\n' \"$input\" | exec \"$BATON\" hooks check %s \"$@\"\n", hook)
	} else {
		fmt.Fprintf(&b, "exec \"$BATON\" hooks check %s \"$@\"\n", hook)
	}
	return b.String()
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// gitHooksDir is the hooks directory of the repository at repo.
func gitHooksDir(ctx context.Context, repo string) (string, error) {
	out, err := gitOut(ctx, "-C", repo, "rev-parse", "--path-format=absolute", "--git-path", "hooks")
	if err != nil {
		return "", baton.Errorf(baton.ErrInvalidInput, "not in a git repository: %v", err).
			WithHint("run baton hooks install inside the repository the agents work in")
	}
	return strings.TrimSpace(out), nil
}

func gitOut(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

// guardCheck refuses (exit 1) when a changed path is reserved
// exclusively by another agent.
func (a *App) guardCheck(ctx context.Context, hook string, args []string, stdin io.Reader) error {
	if a.env(skipGuardEnv, "") != "" {
		return nil
	}
	var paths []string
	var err error
	switch hook {
	case "pre-commit":
		paths, err = stagedPaths(ctx)
	case "pre-push":
		remote := ""
		if len(args) > 0 {
			remote = args[0]
		}
		paths, err = pushedPaths(ctx, remote, stdin)
	default:
		return usageError("baton hooks check takes pre-commit or pre-push, not %q", hook)
	}
	if err != nil {
		return a.fail(baton.Errorf(baton.ErrInternal, "the git guard cannot list the changed paths: %v", err).
			WithHint("bypass it once with %s=1 if git itself is fine", skipGuardEnv))
	}
	if len(paths) == 0 {
		return nil
	}
	loc := a.location()
	if !loc.Exists {
		return nil // no baton here: nothing is reserved
	}
	s, err := a.openStore(ctx)
	if err != nil {
		// Reservations are advisory; a database that cannot be read must
		// not stop every commit. Say so.
		fmt.Fprintf(a.Stderr, "baton: the git guard cannot read the reservations (%v); letting the change through\n", err)
		return nil
	}
	who := a.agent
	if who == "" {
		if out, err := gitOut(ctx, "config", "--get", "baton.agent"); err == nil {
			who = strings.TrimSpace(out)
		}
	}
	now := a.now()
	var held []*baton.FileReservation
	if err := s.View(ctx, func(tx baton.Tx) (err error) {
		held, err = tx.Reservations(ctx, baton.ReservationFilter{Now: now})
		return err
	}); err != nil {
		fmt.Fprintf(a.Stderr, "baton: the git guard cannot read the reservations (%v); letting the change through\n", err)
		return nil
	}
	blocked := guardViolations(paths, held, who)
	if len(blocked) == 0 {
		return nil
	}
	fmt.Fprintf(a.Stderr, "baton: %s refused: ", hook)
	if who == "" {
		fmt.Fprintf(a.Stderr, "(committing as nobody in particular: set BATON_AGENT or git config baton.agent) ")
	}
	fmt.Fprintf(a.Stderr, "%d path(s) are reserved exclusively by another agent:\n", len(blocked))
	for _, v := range blocked {
		r := v.by
		fmt.Fprintf(a.Stderr, "  %s: reserved by %s (pattern %s, until %s", v.path, r.Agent, r.Pattern, baton.Timestamp(r.ExpiresAt))
		if r.Reason != "" {
			fmt.Fprintf(a.Stderr, ", %q", r.Reason)
		}
		fmt.Fprintf(a.Stderr, ", reservation %d)\n", r.ID)
	}
	fmt.Fprintf(a.Stderr, "ask the holder (baton messages send_message --to AGENT), wait for the reservation to end, or bypass on purpose: %s=1 git ..., or --no-verify\n", skipGuardEnv)
	return &ExitError{Code: ExitTool, Err: errors.New("")}
}

type violation struct {
	path string
	by   *baton.FileReservation
}

// guardViolations pairs each path with the first exclusive reservation of
// another agent that covers it, in path order.
func guardViolations(paths []string, held []*baton.FileReservation, who string) []violation {
	sort.Strings(paths)
	var out []violation
	for _, p := range paths {
		for _, r := range held {
			if r.Exclusive && !strings.EqualFold(r.Agent, who) && pathglob.Match(r.Pattern, p) {
				out = append(out, violation{p, r})
				break
			}
		}
	}
	return out
}

// stagedPaths lists the paths the commit being made changes: added,
// changed, deleted, and both ends of a rename.
func stagedPaths(ctx context.Context) ([]string, error) {
	out, err := gitOut(ctx, "diff", "--cached", "--name-only", "-z", "--no-renames")
	if err != nil {
		return nil, err
	}
	return splitZ(out), nil
}

// pushedPaths lists the paths changed by the commits a push sends: for
// each ref line git gives pre-push, the commits not on the remote yet.
func pushedPaths(ctx context.Context, remote string, stdin io.Reader) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	sc := bufio.NewScanner(stdin)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 4 || f[1] == zeroSHA {
			continue // malformed, or a deleted ref: nothing to check
		}
		var names string
		var err error
		if f[3] == zeroSHA {
			args := []string{"log", "--format=", "--name-only", "-z", "--no-renames", f[1], "--not"}
			if remote != "" {
				args = append(args, "--remotes="+remote)
			} else {
				args = append(args, "--remotes")
			}
			names, err = gitOut(ctx, args...)
		} else {
			names, err = gitOut(ctx, "diff", "--name-only", "-z", "--no-renames", f[3], f[1])
		}
		if err != nil {
			return nil, err
		}
		for _, p := range splitZ(names) {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out, sc.Err()
}

func splitZ(s string) []string {
	var out []string
	for _, p := range strings.Split(s, "\x00") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
