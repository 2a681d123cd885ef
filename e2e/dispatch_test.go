package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// dispatchRepo is a git repository holding a baton database with project
// sym, a todo item SYM-1 and a baton.toml whose worker runs the test
// agent (dispatch/testdata/agent) in mode.
func dispatchRepo(t *testing.T, mode string) (repo string, env []string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: dispatch makes worktrees with it")
	}
	agent := filepath.Join(t.TempDir(), "agent")
	if out, err := exec.Command("go", "build", "-o", agent, "../dispatch/testdata/agent").CombinedOutput(); err != nil {
		t.Fatalf("building the test agent: %v\n%s", err, out)
	}
	repo = t.TempDir()
	env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+repo, "BATON_DB=", "BATON_AGENT=", "BATON_PROJECT=")
	for _, args := range [][]string{{"init", "-q", "--initial-branch=main"}, {"-c", "user.email=t@example.com", "-c", "user.name=T", "commit", "-q", "--allow-empty", "-m", "start"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = repo, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	conf := `[dispatch]
grace = "2s"
[dispatch.profiles.worker]
command = ["` + agent + `", "-mode", "` + mode + `", "-mcp", "{mcp_config}", "-issue", "{issue}", "-prompt-file", "{prompt_file}"]
timeout = "2m"
`
	if err := os.WriteFile(filepath.Join(repo, "baton.toml"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	in(t, repo, env, "init", "--project", "sym", "--prefix", "SYM")
	in(t, repo, env, "tasks", "task_create", "--title", "Ship it")
	in(t, repo, env, "tasks", "task_update", "--task-id", "SYM-1", "--status", "todo")
	return repo, env
}

// in runs baton in dir and returns its stdout; it must succeed.
func in(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("baton %v: %v\n%s%s", args, err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// TestDispatchOnce: the real binary dispatches a worker on the ready item
// (the agent speaks MCP to the baton its configuration starts), records
// the run, and baton runs shows it.
func TestDispatchOnce(t *testing.T) {
	t.Parallel()
	repo, env := dispatchRepo(t, "work")
	dry := in(t, repo, env, "dispatch", "--dry-run")
	if !strings.Contains(dry, "would start 1 agents") || !strings.Contains(dry, "SYM-1") {
		t.Fatalf("dry run:\n%s", dry)
	}
	var once struct {
		Finished []struct {
			RunID                  string `json:"run_id"`
			Issue, Status, Profile string
			CostUSD                float64 `json:"cost_usd"`
		}
	}
	if err := json.Unmarshal([]byte(in(t, repo, env, "dispatch", "--once", "--json")), &once); err != nil {
		t.Fatal(err)
	}
	if len(once.Finished) != 1 || once.Finished[0].Status != "succeeded" || once.Finished[0].Issue != "SYM-1" || once.Finished[0].CostUSD != 0.25 {
		t.Fatalf("once: %+v", once)
	}
	var list struct {
		Runs []struct{ ID, Issue, Status, Profile, Host string }
	}
	if err := json.Unmarshal([]byte(in(t, repo, env, "runs", "list", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Runs) != 1 || list.Runs[0].ID != once.Finished[0].RunID || list.Runs[0].Profile != "worker" || list.Runs[0].Host == "" {
		t.Fatalf("runs list: %+v", list)
	}
	show := in(t, repo, env, "runs", "show", list.Runs[0].ID)
	if !strings.Contains(show, "succeeded (worker, attempt 1") || !strings.Contains(show, `"type":"result"`) {
		t.Fatalf("runs show:\n%s", show)
	}
	// The tick after the run opened the PR: the item waits for a judge.
	if st := in(t, repo, env, "tasks", "task_get", "--task-id", "SYM-1", "--json"); !strings.Contains(st, `"review"`) {
		t.Fatalf("after the run: %s", st)
	}
}

// TestDispatchSIGTERM: a running dispatcher holds its project's lock (a
// second one is refused), and SIGTERM stops its agent, records the run as
// cancelled and exits; the same inside baton serve --dispatch.
func TestDispatchSIGTERM(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: the dispatcher's signal tests run in the full suite (.ci/run); dispatch/ covers shutdown in-process")
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"dispatch", []string{"dispatch"}},
		{"serve", []string{"serve", "--dispatch", "--insecure-local", "--addr", "127.0.0.1:0", "--agent", "user"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo, env := dispatchRepo(t, "hang")
			cmd := exec.Command(bin, tc.args...)
			cmd.Dir, cmd.Env = repo, env
			var stderr syncBuf
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			deadline := time.Now().Add(30 * time.Second)
			for !strings.Contains(in(t, repo, env, "runs", "list", "--status", "running"), "SYM-1") {
				if time.Now().After(deadline) {
					t.Fatalf("no running run; baton said:\n%s", stderr.String())
				}
				time.Sleep(100 * time.Millisecond)
			}
			second := exec.Command(bin, "dispatch", "--once")
			second.Dir, second.Env = repo, env
			out, err := second.CombinedOutput()
			if err == nil || !strings.Contains(string(out), "another dispatcher (pid") {
				t.Fatalf("a second dispatcher: %v\n%s", err, out)
			}
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("baton exited with %v:\n%s", err, stderr.String())
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("baton did not exit after SIGTERM:\n%s", stderr.String())
			}
			var list struct {
				Runs []struct{ Status, Error string }
			}
			if err := json.Unmarshal([]byte(in(t, repo, env, "runs", "list", "--json")), &list); err != nil {
				t.Fatal(err)
			}
			if len(list.Runs) != 1 || list.Runs[0].Status != "cancelled" || list.Runs[0].Error != "the dispatcher was stopped" {
				t.Fatalf("runs: %+v", list)
			}
		})
	}
}

// TestDispatchKill9: a dispatcher killed outright takes its agent along
// (parent-death signal), and the next dispatcher of the host ends the run
// as failed and kills what the agent left running.
func TestDispatchKill9(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: the dispatcher's crash test runs in the full suite (.ci/run)")
	}
	repo, env := dispatchRepo(t, "hang")
	childFile := filepath.Join(t.TempDir(), "child.pid")
	conf, _ := os.ReadFile(filepath.Join(repo, "baton.toml"))
	conf = bytes.Replace(conf, []byte(`"-mode", "hang"`), []byte(`"-mode", "hang", "-child", "`+childFile+`"`), 1)
	if err := os.WriteFile(filepath.Join(repo, "baton.toml"), conf, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "dispatch")
	cmd.Dir, cmd.Env = repo, env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(childFile); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the agent did not start its child")
		}
		time.Sleep(50 * time.Millisecond)
	}
	b, _ := os.ReadFile(childFile)
	child, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	var once struct {
		Tick struct {
			Reconciled []struct{ Issue, Error string }
		}
	}
	if err := json.Unmarshal([]byte(in(t, repo, env, "dispatch", "--once", "--json")), &once); err != nil {
		t.Fatal(err)
	}
	if len(once.Tick.Reconciled) != 1 || !strings.Contains(once.Tick.Reconciled[0].Error, "stopped while it ran") {
		t.Fatalf("reconciled: %+v", once)
	}
	for end := time.Now().Add(10 * time.Second); !processGone(child); {
		if time.Now().After(end) {
			t.Fatalf("the agent's child %d outlived its dispatcher", child)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// processGone reports whether a process has ended (a zombie counts: in a
// container nothing may reap it).
func processGone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'Z'
}

// syncBuf is a buffer a process writes while the test reads it.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
