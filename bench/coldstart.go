package bench

import (
	"bufio"
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
	ToInitialize   time.Duration // median: exec to the initialize response
	ToToolsList    time.Duration // median: exec to the tools/list response
	IdlePeakRSSKiB int64         // VmHWM of an idle server after tools/list
}

// MeasureColdStart starts `baton mcp` runs times on a fresh database and
// times the first two answers; then reads the peak RSS of an idle server.
func MeasureColdStart(bin string, runs int) (*ColdStart, error) {
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
	cs := &ColdStart{Runs: runs}
	for i := range runs {
		ti, tl, rss, err := startOnce(bin, db, i == runs-1)
		if err != nil {
			return nil, err
		}
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

func startOnce(bin, db string, rss bool) (time.Duration, time.Duration, int64, error) {
	cmd := exec.Command(bin, "--db", db, "mcp", "--preset", "full", "--agent", "cold")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, 0, err
	}
	defer func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() }()
	lines := bufio.NewReader(stdout)
	send := func(s string) { io.WriteString(stdin, s+"\n") }
	await := func(id string) error {
		for {
			line, err := lines.ReadString('\n')
			if err != nil {
				return err
			}
			if strings.Contains(line, `"id":`+id+`,`) {
				return nil
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"cold","version":"1"}}}`)
	if err := await("1"); err != nil {
		return 0, 0, 0, err
	}
	toInit := time.Since(start)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if err := await("2"); err != nil {
		return 0, 0, 0, err
	}
	toList := time.Since(start)
	var peak int64
	if rss {
		time.Sleep(500 * time.Millisecond) // idle
		peak = vmHWM(cmd.Process.Pid)
	}
	return toInit, toList, peak, nil
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
