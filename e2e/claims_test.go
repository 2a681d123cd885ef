package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"testing"
)

// TestClaimRaceAcrossProcesses: eight baton processes on one database file
// claim the same item at once. SQLite's file locking, not any in-process
// mutex, must make exactly one of them the holder.
func TestClaimRaceAcrossProcesses(t *testing.T) {
	t.Parallel()
	db := newDB(t)
	if out, code := cliRun(t, "--db", db, "tasks", "task_create", "--title", "x", "--project", "colibri", "--json"); code != 0 {
		t.Fatalf("task_create: exit %d: %s", code, out)
	}
	if out, code := cliRun(t, "--db", db, "tasks", "task_update", "--task-id", "COL-1", "--status", "todo", "--json"); code != 0 {
		t.Fatalf("task_update: exit %d: %s", code, out)
	}

	const n = 8
	type run struct {
		cmd            *exec.Cmd
		stdout, stderr bytes.Buffer
		code           int
	}
	runs := make([]*run, n)
	for i := range runs {
		r := &run{cmd: exec.Command(bin, "--db", db, "--agent", fmt.Sprintf("agent-%d", i),
			"claims", "claim_item", "--item-id", "COL-1", "--json")}
		r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
		runs[i] = r
	}
	// Start them all before waiting on any, so their claims overlap.
	for i, r := range runs {
		if err := r.cmd.Start(); err != nil {
			t.Fatalf("start process %d: %v", i, err)
		}
	}
	for i, r := range runs {
		err := r.cmd.Wait()
		if ee, ok := err.(*exec.ExitError); ok {
			r.code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("process %d: %v", i, err)
		}
	}

	winner := ""
	var losers []map[string]any
	for i, r := range runs {
		agent := fmt.Sprintf("agent-%d", i)
		var out map[string]any
		if err := json.Unmarshal(r.stdout.Bytes(), &out); err != nil {
			t.Errorf("%s: exit %d, stdout is not JSON: %q (stderr %q)", agent, r.code, r.stdout.String(), r.stderr.String())
			continue
		}
		switch r.code {
		case 0:
			if out["holder"] != agent || out["item_id"] != "COL-1" || out["token"] != 1.0 || out["status"] != "in_progress" {
				t.Errorf("%s won with %v", agent, out)
			}
			if winner != "" {
				t.Errorf("two processes won: %s and %s", winner, agent)
			}
			winner = agent
		case 1:
			e, _ := out["error"].(map[string]any)
			if e == nil || e["code"] != "ERR_CLAIMED" {
				t.Errorf("%s: exit 1 with %v, want the ERR_CLAIMED envelope (stderr %q)", agent, out, r.stderr.String())
				continue
			}
			losers = append(losers, e)
		default:
			t.Errorf("%s: exit %d: stdout %q stderr %q", agent, r.code, r.stdout.String(), r.stderr.String())
		}
	}
	if winner == "" || len(losers) != n-1 {
		t.Fatalf("winner %q and %d ERR_CLAIMED, want one winner and %d", winner, len(losers), n-1)
	}
	for _, e := range losers {
		if d, _ := e["details"].(map[string]any); d["holder"] != winner {
			t.Errorf("ERR_CLAIMED names holder %v, want the winner %s", d["holder"], winner)
		}
	}

	// The database agrees: the task is the winner's.
	out, code := cliRun(t, "--db", db, "tasks", "task_get", "--task-id", "COL-1", "--json")
	var got map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &got) != nil {
		t.Fatalf("task_get: exit %d: %s", code, out)
	}
	if got["status"] != "in_progress" || got["assignee"] != winner {
		t.Errorf("after the race the task is %v assigned to %v, want in_progress assigned to %s", got["status"], got["assignee"], winner)
	}
}
