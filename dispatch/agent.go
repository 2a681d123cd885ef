package dispatch

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/runs"
	"github.com/baton-dev/baton/worktree"
)

// stopKind is why the dispatcher stopped an agent before it ended.
type stopKind int

const (
	stopNone     stopKind = iota
	stopTimeout           // the profile's timeout passed
	stopLease             // the claim expired or was taken: the work is not the agent's any more
	stopShutdown          // the dispatcher is stopping
)

// maxLine bounds one line of an agent's stdout that is parsed as an event;
// a longer line is kept in the output tail only.
const maxLine = 4 << 20

// agent is one running agent process and what the dispatcher knows of it.
type agent struct {
	d       *Dispatcher
	start   Start
	item    *baton.Item
	run     *baton.Run
	profile *Profile
	state   snapshot
	root    string

	stdout, stderr *tail
	parser         *runs.Parser

	mu       sync.Mutex
	cmd      *exec.Cmd
	stopped  stopKind
	why      string
	pending  []baton.RunEvent
	exited   chan struct{}
	killTime *time.Timer
}

// Finished is how one run ended.
type Finished struct {
	RunID      string   `json:"run_id"`
	Item       string   `json:"issue"`
	Project    string   `json:"project"`
	Profile    string   `json:"profile"`
	Agent      string   `json:"agent"`
	Attempt    int      `json:"attempt"`
	Status     string   `json:"status"`
	Error      string   `json:"error,omitempty"`
	ExitCode   *int     `json:"exit_code"`
	DurationMS int64    `json:"duration_ms"`
	CostUSD    float64  `json:"cost_usd"`
	Worktree   string   `json:"worktree,omitempty"`
	RetryAt    string   `json:"retry_at,omitempty"` // when the item will be tried again
	Blocked    bool     `json:"blocked"`            // retries are used up: the item waits for a human
	MessageID  string   `json:"message_id,omitempty"`
	Warnings   []string `json:"warnings,omitempty"`
}

// launch starts the agent of a claimed item in the background.
func (d *Dispatcher) launch(ctx context.Context, p *baton.Project, root string, c *claimed) {
	a := &agent{d: d, start: c.start, item: c.item, run: c.run, profile: c.profile, state: c.state, root: root,
		stdout: newTail(d.Config.OutputCap), stderr: newTail(d.Config.OutputCap), exited: make(chan struct{}),
		parser: runs.NewLiveParser(d.now)}
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		// Stopping already: the claim goes back and the run is cancelled.
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			a.stopped, a.why = stopShutdown, "the dispatcher was stopped"
			d.ended(a.run.ID, a.finish(context.WithoutCancel(ctx), nil, nil))
		}()
		return
	}
	d.running[a.run.ID] = a
	d.wg.Add(1)
	d.mu.Unlock()
	go func() {
		defer d.wg.Done()
		d.ended(a.run.ID, a.live(context.WithoutCancel(ctx)))
	}()
}

// live prepares the agent's workspace and files, runs it to its end and
// records how it went.
func (a *agent) live(ctx context.Context) *Finished {
	runDir, err := a.d.runDir(a.run.ID)
	if err != nil {
		return a.finish(ctx, err, nil)
	}
	defer os.RemoveAll(runDir)
	argv, env, err := a.prepare(ctx, runDir)
	if err != nil {
		return a.finish(ctx, err, nil)
	}
	code, err := a.exec(ctx, argv, env)
	return a.finish(ctx, err, code)
}

// worktree makes or reuses the item's worktree. A judge reviews the branch
// as it is, so an existing worktree of the item is used without merging
// the base in; its folder is where baton puts it, never a path read from
// the marker (which the worker could have rewritten).
func (a *agent) worktree(ctx context.Context) (string, error) {
	a.d.gitMu.Lock()
	defer a.d.gitMu.Unlock()
	if a.start.Kind == KindReviewPR || a.start.Kind == KindReviewPhase {
		dir := worktree.Dir(a.root, a.item.ID)
		if m, _, err := worktree.ReadMarker(dir); err == nil && m != nil && m.Issue == a.item.ID {
			return dir, nil
		}
	}
	w, err := worktree.Create(ctx, worktree.Options{Repo: a.root, Issue: a.item.ID, Project: a.item.Project, RunID: a.run.ID, Now: a.d.now()})
	if err != nil {
		return "", fmt.Errorf("preparing the worktree: %s", explain(err))
	}
	return w.Path, nil
}

// prepare makes or reuses the item's worktree and writes the run's prompt,
// tool scope and MCP configuration; it returns the command and its
// environment.
func (a *agent) prepare(ctx context.Context, runDir string) ([]string, []string, error) {
	wt, err := a.worktree(ctx)
	if err != nil {
		return nil, nil, err
	}
	a.run.Worktree = wt
	// The database is not on the command line, where every user of the
	// host can read it (a PostgreSQL URL holds a password): the MCP
	// configuration's env and the agent's environment carry BATON_DB.
	args := append([]string{}, a.d.Baton[1:]...)
	args = append(args, "mcp", "--agent", a.start.Agent, "--project", a.item.Project,
		"--issue-id", a.item.ID, "--agent-type", a.profile.Name, "--worktree-path", wt)
	var names []string
	if a.d.Tools != nil {
		var err error
		if names, err = a.d.Tools(ctx, a.profile.Name, a.item.Project); err != nil {
			return nil, nil, fmt.Errorf("computing the %s tool set: %s", a.profile.Name, explain(err))
		}
		scope := filepath.Join(runDir, "tools.json")
		b, _ := json.Marshal(names)
		if err := os.WriteFile(scope, b, 0o600); err != nil {
			return nil, nil, fmt.Errorf("writing the tool-scope file: %w", err)
		}
		args = append(args, "--tool-scope-file", scope)
	}
	prompt, err := a.d.Prompt(ctx, a.start, a.item, wt, names)
	if err != nil {
		return nil, nil, fmt.Errorf("assembling the prompt: %s", explain(err))
	}
	promptFile := filepath.Join(runDir, "prompt.md")
	if err := os.WriteFile(promptFile, []byte(prompt), 0o600); err != nil {
		return nil, nil, fmt.Errorf("writing the prompt file: %w", err)
	}
	// The run's first event is what the agent was told, so a run can be
	// understood afterwards (query_run_events, event_subtype prompt).
	told, _ := json.Marshal(map[string]any{"prompt": prompt, "profile": a.profile.Name, "kind": a.start.Kind,
		"phase": a.start.Phase, "worktree": wt, "tools": names})
	a.mu.Lock()
	a.pending = append(a.pending, baton.RunEvent{Type: "system", Subtype: "prompt", Data: told, CreatedAt: a.d.now()})
	a.mu.Unlock()
	conf := map[string]any{"mcpServers": map[string]any{"baton": map[string]any{
		"command": a.d.Baton[0], "args": args,
		"env": map[string]string{"BATON_AGENT": a.start.Agent, "BATON_DB": a.d.DB}}}}
	b, _ := json.MarshalIndent(conf, "", "  ")
	mcpFile := filepath.Join(runDir, "mcp.json")
	if err := os.WriteFile(mcpFile, b, 0o600); err != nil {
		return nil, nil, fmt.Errorf("writing the MCP configuration: %w", err)
	}
	argv := a.profile.Expand(Vars{Prompt: prompt, PromptFile: promptFile, MCPConfig: mcpFile, Worktree: wt,
		Issue: a.item.ID, Profile: a.profile.Name})
	return argv, a.environ(wt, mcpFile, promptFile), nil
}

// environ is the agent's environment: the base one without baton's own
// variables (the dispatcher's identity is not the agent's), the
// profile's env, and the run's.
func (a *agent) environ(wt, mcpFile, promptFile string) []string {
	base := a.d.Env
	if base == nil {
		base = os.Environ()
	}
	var env []string
	for _, kv := range base {
		if !strings.HasPrefix(kv, "BATON_") {
			env = append(env, kv)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(a.profile.Env)) {
		env = append(env, k+"="+a.profile.Env[k])
	}
	return append(env, "BATON_ISSUE="+a.item.ID, "BATON_PROFILE="+a.profile.Name, "BATON_MCP_CONFIG="+mcpFile,
		"BATON_PROMPT_FILE="+promptFile, "BATON_WORKTREE="+wt, "BATON_PROJECT="+a.item.Project, "BATON_RUN_ID="+a.run.ID,
		"BATON_AGENT="+a.start.Agent, "BATON_DB="+a.d.DB)
}

// exec runs the agent until it ends, renewing its claim, enforcing its
// timeout and storing its stream as it comes. It returns the exit code
// (nil when the process could not start).
func (a *agent) exec(ctx context.Context, argv, env []string) (*int, error) {
	a.mu.Lock()
	if a.stopped != stopNone { // stopped while preparing
		a.mu.Unlock()
		return nil, nil
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = a.run.Worktree, env
	cmd.Stdin = nil
	setGroup(cmd)
	outR, outW, err := os.Pipe()
	if err != nil {
		a.mu.Unlock()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		a.mu.Unlock()
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		a.mu.Unlock()
		return nil, &startError{profile: a.profile.Name, program: argv[0], path: a.d.Config.Path, err: err}
	}
	a.cmd = cmd
	a.run.PID = cmd.Process.Pid
	a.mu.Unlock()

	if err := a.d.Store.Update(ctx, func(tx baton.Tx) error {
		return tx.SetRunProcess(ctx, a.run.ID, a.run.Worktree, a.run.PID)
	}); err != nil {
		a.d.log().Warn("recording the agent's process", "run", a.run.ID, "err", err)
	}
	a.d.log().Info("agent started", "run", a.run.ID, "issue", a.item.ID, "profile", a.profile.Name, "agent", a.start.Agent,
		"attempt", a.start.Attempt, "worktree", a.run.Worktree, "pid", a.run.PID)

	var readers sync.WaitGroup
	readers.Add(2)
	go func() { defer readers.Done(); a.readStdout(outR) }()
	go func() { defer readers.Done(); _, _ = io.Copy(a.stderr, errR) }()

	watchDone, watched := make(chan struct{}), make(chan struct{})
	go func() { defer close(watched); a.watch(ctx, watchDone) }()

	werr := cmd.Wait()
	a.mu.Lock()
	close(a.exited) // under mu: stop sees either a live process or an ended one
	a.mu.Unlock()
	close(watchDone)
	<-watched // no renewal, beat or flush after this
	// Whatever the agent left running in its group goes with it: no
	// orphan outlives its run.
	killGroup(cmd, true)
	readDone := make(chan struct{})
	go func() { readers.Wait(); close(readDone) }()
	select {
	case <-readDone:
	case <-time.After(5 * time.Second):
		// A process that left the group still holds the pipes.
		outR.Close()
		errR.Close()
		<-readDone
	}
	outR.Close()
	errR.Close()
	a.mu.Lock()
	if a.killTime != nil {
		a.killTime.Stop()
	}
	a.mu.Unlock()
	code := exitCode(cmd, werr)
	return &code, nil
}

// readStdout keeps the output's tail and turns stream-json lines into
// run events.
func (a *agent) readStdout(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	over := false
	for {
		chunk, err := br.ReadSlice('\n')
		_, _ = a.stdout.Write(chunk)
		if !over {
			if len(line)+len(chunk) > maxLine {
				over, line = true, line[:0]
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if !over && len(line) > 0 {
			if evs := a.parser.Line(line); len(evs) > 0 {
				a.mu.Lock()
				a.pending = append(a.pending, evs...)
				a.mu.Unlock()
			}
		}
		line, over = line[:0], false
		if err != nil {
			return
		}
	}
}

// watch renews the claim every third of the lease, stores the events read
// so far every second, and stops the agent at its timeout or when its
// lease is lost.
func (a *agent) watch(ctx context.Context, done <-chan struct{}) {
	lease := a.d.Config.Lease.Duration
	renew := time.NewTicker(lease / 3)
	defer renew.Stop()
	flush := time.NewTicker(time.Second)
	defer flush.Stop()
	timeout := time.NewTimer(a.profile.Timeout.Duration)
	defer timeout.Stop()
	renewing := true
	for {
		select {
		case <-done:
			return
		case <-timeout.C:
			a.stop(stopTimeout, fmt.Sprintf("timed out after %s", a.profile.Timeout.Duration))
		case <-flush.C:
			a.flush(ctx)
		case <-renew.C:
			// One transaction: the heartbeat (other dispatchers see the run
			// is looked after, whether or not it still holds the claim) and
			// the renewal, whose refusal changes nothing and is read after.
			var renewErr error
			err := a.d.Store.Update(ctx, func(tx baton.Tx) error {
				now := a.d.now()
				if err := tx.BeatRun(ctx, a.run.ID, now); err != nil {
					return err
				}
				renewErr = nil
				if renewing {
					_, renewErr = tx.RenewClaim(ctx, a.item.ID, a.start.Agent, now)
				}
				return nil
			})
			if err != nil {
				a.d.log().Warn("recording an agent's heartbeat", "run", a.run.ID, "err", err)
				continue
			}
			switch baton.ErrorCode(renewErr) {
			case "":
			case baton.ErrClaimed:
				// Taken by someone else, released by a human, or lapsed:
				// the work is not this agent's any more.
				a.stop(stopLease, "lease lost: "+message(renewErr))
			case baton.ErrNotFound:
				// The agent gave the claim back itself, or the pipeline
				// took the item on (complete_phase): it is finishing.
				renewing = false
			default:
				a.d.log().Warn("renewing an agent's claim", "run", a.run.ID, "issue", a.item.ID, "err", renewErr)
			}
		}
	}
}

// flush stores the events read since the last flush.
func (a *agent) flush(ctx context.Context) {
	a.mu.Lock()
	evs := a.pending
	a.pending = nil
	a.mu.Unlock()
	if len(evs) == 0 {
		return
	}
	err := a.d.Store.Update(ctx, func(tx baton.Tx) error { return tx.AppendRunEvents(ctx, a.run.ID, evs) })
	if err != nil {
		a.d.log().Warn("storing an agent's events", "run", a.run.ID, "err", err)
		a.mu.Lock()
		a.pending = append(evs, a.pending...)
		a.mu.Unlock()
	}
}

// stop ends the agent for why: SIGTERM to its process group, SIGKILL
// after the grace period. The first reason given is the one recorded.
func (a *agent) stop(kind stopKind, why string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.stopped != stopNone {
		return
	}
	if a.cmd != nil {
		select {
		case <-a.exited:
			return // it ended on its own first: its own end is recorded
		default:
		}
	}
	a.stopped, a.why = kind, why
	if a.cmd == nil {
		return // not started: exec sees stopped and does not start it
	}
	a.d.log().Info("stopping agent", "run", a.run.ID, "issue", a.item.ID, "why", why)
	killGroup(a.cmd, false)
	cmd := a.cmd
	a.killTime = time.AfterFunc(a.d.Config.Grace.Duration, func() { killGroup(cmd, true) })
}
