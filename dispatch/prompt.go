package dispatch

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/memory"
	"github.com/baton-dev/baton/phases"
	"github.com/baton-dev/baton/worktree"
)

// Limits of a prompt's parts. The whole prompt stays under Linux's limit
// of one argument (128 KiB), since {prompt} passes it as one.
const (
	maxPrompt      = 120 << 10
	maxDescription = 32 << 10
	maxSection     = 16 << 10
	maxComments    = 5
	maxLearnings   = 5
)

// Prompt assembles an agent's prompt, in the order Symphony layers it: the
// workspace boundary first, then the task (the issue, what earlier
// attempts were told), the contract of its phase (what to produce and how
// to hand it in), the project's instructions (configure_project), the
// profile's memory, and the learnings that match the issue. Later parts
// add context; none may weaken the contract.
// tools is the agent's tool set (nil: unknown), so the prompt names only
// tools the agent has.
func (d *Dispatcher) Prompt(ctx context.Context, s Start, it *baton.Item, wt string, tools []string) (string, error) {
	var b strings.Builder
	section := func(title, body string) {
		body = strings.TrimSpace(body)
		if body == "" {
			return
		}
		fmt.Fprintf(&b, "\n## %s\n\n%s\n", title, clip(body, maxSection))
	}
	fmt.Fprintf(&b, "You are the %s agent for %s in project %s, started by baton dispatch (run %s, attempt %d).\n",
		s.Profile, it.ID, it.Project, s.RunID, s.Attempt)
	fmt.Fprintf(&b, "Working in: %s | Branch: %s\n", wt, worktree.Branch(it.ID))
	b.WriteString("\nYour MCP server `baton` is bound to " + it.ID + ": its issue tools act on it unless told otherwise. " +
		"Work only inside the worktree. Step 0: run `pwd` and `git branch --show-current`")
	if tools == nil || slices.Contains(tools, "verify_workspace") {
		b.WriteString(" and call `verify_workspace`")
	}
	b.WriteString(".\n")

	var comments []*baton.Comment
	var pr *baton.PR
	var cfg *baton.ProjectConfig
	var learned []baton.LearningHit
	root := ""
	err := d.Store.View(ctx, func(tx baton.Tx) error {
		var err error
		if comments, err = tx.Comments(ctx, it.ID); err != nil {
			return err
		}
		if d.Repo != nil {
			p, err := tx.Project(ctx, it.Project)
			if err != nil {
				return err
			}
			root = d.Repo(p)
		}
		if cfg, err = tx.ProjectConfig(ctx, it.Project); err != nil {
			return err
		}
		if s.Kind == KindReviewPR {
			if pr, err = latestPR(ctx, tx, it.ID); err != nil {
				return err
			}
		}
		// Learnings are context, not the task: a query the index cannot
		// take leaves them out rather than failing the run.
		learned, _ = tx.SearchLearnings(ctx, baton.LearningQuery{Text: it.Title, Project: it.Project, Limit: maxLearnings})
		return nil
	})
	if err != nil {
		return "", err
	}

	var task strings.Builder
	fmt.Fprintf(&task, "# %s: %s\n\nStatus %s, priority %d, kind %s", it.ID, it.Title, it.Status, it.Priority, it.Kind)
	if len(it.Labels) > 0 {
		fmt.Fprintf(&task, ", labels %s", strings.Join(it.Labels, ", "))
	}
	task.WriteString(".\n")
	if it.Description != "" {
		task.WriteString("\n" + clip(it.Description, maxDescription) + "\n")
	}
	section("Your issue", task.String())

	if len(comments) > 0 {
		// The newest comments carry a rejection's fix instructions and
		// what earlier attempts left: the rework starts from them.
		from := max(0, len(comments)-maxComments)
		var c strings.Builder
		for _, cm := range comments[from:] {
			fmt.Fprintf(&c, "- %s (%s): %s\n", cm.CreatedBy, cm.CreatedAt.Format("2006-01-02 15:04"), clip(cm.Body, 4000))
		}
		section("Latest comments (newest last)", c.String())
	}

	switch s.Kind {
	case KindReviewPR:
		var r strings.Builder
		if pr != nil {
			fmt.Fprintf(&r, "Review %s (branch %s against %s, risk %s). Read it with `get_pr`, check the diff against the issue "+
				"and the gates, then call `approve_pr` with your reason, or `reject_pr` with the reason and fix instructions.",
				pr.ID, pr.BranchName, pr.BaseBranch, pr.Risk.Level)
		}
		section("Your task: review the pull request", r.String())
	case KindReviewPhase:
		section("Your task: judge the phase claim", fmt.Sprintf("The %s phase of %s claims to be complete. Read the claim "+
			"(`get_issue`) and its artifact in the worktree, check them against the phase's contract below, then call "+
			"`approve_phase` or `reject_phase` with your reasons and fix instructions.", s.Phase, it.ID))
	}
	// A judge of a PR reviews code against the issue and the gates; the
	// ready contract's steps are the worker's, not its. A judge of a phase
	// claim checks the artifact against the contract, so it gets it.
	if s.Kind != KindReviewPR {
		if c, err := phases.Contract(root, s.Phase); err == nil {
			title := fmt.Sprintf("Phase contract: %s (version %d)", s.Phase, c.Version)
			if s.Kind == KindReviewPhase {
				title = fmt.Sprintf("The contract the claim must meet: %s (version %d)", s.Phase, c.Version)
			}
			section(title, c.Body)
		}
	}
	if cfg != nil {
		ins := cfg.WorkerInstructions
		if s.Profile == "judge" {
			ins = cfg.JudgeInstructions
		}
		section("Project instructions", ins)
	}
	if d.DataDir != "" {
		if mem, err := memory.Show(d.DataDir, it.Project, s.Profile); err == nil {
			section("Your memory ("+s.Profile+")", mem)
		}
	}
	if len(learned) > 0 {
		var l strings.Builder
		for _, h := range learned {
			fmt.Fprintf(&l, "- %s", h.Learning.Pattern)
			if h.Learning.Context != "" {
				fmt.Fprintf(&l, " (%s)", clip(h.Learning.Context, 500))
			}
			l.WriteString("\n")
		}
		section("Learnings from earlier work", l.String())
	}
	section("When you are done", "Hand your work in as the contract says, then exit with status 0. If you cannot finish, "+
		"add a comment saying why (`add_comment`) and exit with a non-zero status: the dispatcher retries, then asks the human.")
	return clip(b.String(), maxPrompt), nil
}
