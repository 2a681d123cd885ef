package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ColdStart is what starting `baton mcp` costs.
type ColdStart struct {
	Runs           int
	Preset         string        // the tool preset the server offered
	Tools          int           // tools in the tools/list answer
	ToInitialize   time.Duration // median: exec to the initialize response
	ToToolsList    time.Duration // median: exec to the tools/list response
	IdlePeakRSSKiB int64         // VmHWM of an idle server after tools/list
}

// MeasureColdStart starts `baton mcp --preset preset` runs times on a
// fresh database and times the first two answers; then reads the peak RSS
// of an idle server. The preset matters: tools/list carries every offered
// tool's schema (the target is set for the core preset).
func MeasureColdStart(bin string, runs int, preset string) (*ColdStart, error) {
	if runs <= 0 {
		return nil, fmt.Errorf("cold start needs at least one run, not %d", runs)
	}
	dir, err := os.MkdirTemp("", "baton-cold-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	db := filepath.Join(dir, "cold.db")
	// The first start creates and migrates the file; cold start is about a
	// server, not about a new database.
	if out, err := exec.Command(bin, "--db", db, "init", "--project", "cold", "--prefix", "C").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("baton init: %v: %s", err, out)
	}
	var inits, lists []time.Duration
	cs := &ColdStart{Runs: runs, Preset: preset}
	for i := range runs {
		ti, tl, rss, tools, err := startOnce(bin, db, preset, i == runs-1)
		if err != nil {
			return nil, err
		}
		cs.Tools = tools
		inits, lists = append(inits, ti), append(lists, tl)
		if rss > 0 {
			cs.IdlePeakRSSKiB = rss
		}
	}
	slices.Sort(inits)
	slices.Sort(lists)
	cs.ToInitialize, cs.ToToolsList = inits[len(inits)/2], lists[len(lists)/2]
	return cs, nil
}

func startOnce(bin, db, preset string, rss bool) (toInit, toList time.Duration, peak int64, tools int, err error) {
	cmd := exec.Command(bin, "--db", db, "mcp", "--preset", preset, "--agent", "cold")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, 0, 0, err
	}
	defer func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() }()
	lines := bufio.NewReader(stdout)
	send := func(s string) { io.WriteString(stdin, s+"\n") }
	await := func(id string) (string, error) {
		for {
			line, err := lines.ReadString('\n')
			if err != nil {
				return "", err
			}
			if strings.Contains(line, `"id":`+id+`,`) {
				return line, nil
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"cold","version":"1"}}}`)
	if _, err := await("1"); err != nil {
		return 0, 0, 0, 0, err
	}
	toInit = time.Since(start)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	line, err := await("2")
	if err != nil {
		return 0, 0, 0, 0, err
	}
	toList = time.Since(start)
	var list struct {
		Result struct{ Tools []json.RawMessage }
		Error  *struct{ Message string }
	}
	if err := json.Unmarshal([]byte(line), &list); err != nil || list.Error != nil {
		return 0, 0, 0, 0, fmt.Errorf("tools/list answered %s", strings.TrimSpace(line))
	}
	if rss {
		time.Sleep(500 * time.Millisecond) // idle
		peak = vmHWM(cmd.Process.Pid)
	}
	return toInit, toList, peak, len(list.Result.Tools), nil
}

// vmHWM reads a process's peak resident set size in KiB (Linux).
func vmHWM(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return 0
}
