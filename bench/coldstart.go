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
	Runs   int
	Preset string // the tool preset the server offered
	Tools  int    // tools in the tools/list answer
	Starts
	// Floor is what the same runs of a minimal go-sdk stdio server cost,
	// started alternately with baton's (nil without a floor binary): the
	// process, the runtime and the SDK, which no work of baton's can go
	// below on this machine.
	Floor *Starts
}

// Starts are the medians of one server's starts and the memory of an idle
// one.
type Starts struct {
	ToInitialize   time.Duration // median: exec to the initialize response
	ToToolsList    time.Duration // median: exec to the tools/list response
	IdlePeakRSSKiB int64         // VmHWM of an idle server after tools/list
	// The resident set of the idle server split: private memory (heap,
	// stacks, SQLite's cache) and pages of files (the binary, mapped by
	// the kernel in runs around each page touched, shared with every
	// other process running it).
	IdleAnonKiB, IdleFileKiB int64
}

// MeasureColdStart starts `baton mcp --preset preset` runs times on a
// fresh database and times the first two answers; then reads the peak RSS
// of an idle server. The preset matters: tools/list carries every offered
// tool's schema (the target is set for the core preset). With floorBin, a
// minimal go-sdk stdio server (bench/testdata/noopmcp), each of baton's
// starts is followed by one of the floor's, so both meet the same machine.
func MeasureColdStart(bin string, runs int, preset, floorBin string) (*ColdStart, error) {
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
	// Each server runs from a copy of its binary whose pages were dropped
	// from the page cache, after one start that is not counted (it reads
	// the file). How many pages of the binary an idle process maps depends
	// on how its file sits in the page cache: the kernel maps a cached
	// folio whole, and the folios of a file the linker just wrote are not
	// those of one read in by faults. The same bytes measured 1.5–2.5 MiB
	// apart. Read in alike, baton and the floor are compared alike, from
	// one run to the next (the running bench maps its own binary, whose
	// pages would stay; hence the copies).
	if bin, err = pageCacheCold(dir, bin); err != nil {
		return nil, err
	}
	if floorBin != "" {
		if floorBin, err = pageCacheCold(dir, floorBin); err != nil {
			return nil, err
		}
	}
	var warm starts
	if _, err := warm.once(exec.Command(bin, "--db", db, "mcp", "--preset", preset, "--agent", "cold"), false); err != nil {
		return nil, err
	}
	if floorBin != "" {
		if _, err := warm.once(exec.Command(floorBin), false); err != nil {
			return nil, fmt.Errorf("floor server: %w", err)
		}
	}
	cs := &ColdStart{Runs: runs, Preset: preset}
	var baton, floor starts
	for i := range runs {
		last := i == runs-1
		tools, err := baton.once(exec.Command(bin, "--db", db, "mcp", "--preset", preset, "--agent", "cold"), last)
		if err != nil {
			return nil, err
		}
		cs.Tools = tools
		if floorBin != "" {
			if _, err := floor.once(exec.Command(floorBin), last); err != nil {
				return nil, fmt.Errorf("floor server: %w", err)
			}
		}
	}
	cs.Starts = baton.medians()
	if floorBin != "" {
		f := floor.medians()
		cs.Floor = &f
	}
	return cs, nil
}

// starts collects one server's timings.
type starts struct {
	inits, lists []time.Duration
	idle         Starts // memory of the last start
}

func (s *starts) medians() Starts {
	slices.Sort(s.inits)
	slices.Sort(s.lists)
	m := s.idle
	m.ToInitialize, m.ToToolsList = s.inits[len(s.inits)/2], s.lists[len(s.lists)/2]
	return m
}

// once starts cmd, a stdio MCP server, times its initialize and tools/list
// answers and, with memory, reads what it holds once idle.
func (s *starts) once(cmd *exec.Cmd, memory bool) (tools int, err error) {
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
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
		return 0, err
	}
	toInit := time.Since(start)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	line, err := await("2")
	if err != nil {
		return 0, err
	}
	toList := time.Since(start)
	var list struct {
		Result struct{ Tools []json.RawMessage }
		Error  *struct{ Message string }
	}
	if err := json.Unmarshal([]byte(line), &list); err != nil || list.Error != nil {
		return 0, fmt.Errorf("tools/list answered %s", strings.TrimSpace(line))
	}
	s.inits, s.lists = append(s.inits, toInit), append(s.lists, toList)
	if memory {
		time.Sleep(500 * time.Millisecond) // idle
		st := procStatus(cmd.Process.Pid)
		s.idle.IdlePeakRSSKiB, s.idle.IdleAnonKiB, s.idle.IdleFileKiB = st["VmHWM"], st["RssAnon"], st["RssFile"]
	}
	return len(list.Result.Tools), nil
}

// procStatus reads a process's memory figures in KiB (Linux; empty
// elsewhere).
func procStatus(pid int) map[string]int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil
	}
	m := map[string]int64{}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if v, kb := strings.CutSuffix(strings.TrimSpace(v), " kB"); ok && kb {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				m[k] = n
			}
		}
	}
	return m
}

// pageCacheCold copies the executable bin into dir, drops the copy's
// pages from the page cache and returns its path.
func pageCacheCold(dir, bin string) (string, error) {
	src, err := os.Open(bin)
	if err != nil {
		return "", err
	}
	defer src.Close()
	dst, err := os.CreateTemp(dir, filepath.Base(bin)+"-")
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return "", err
	}
	if err := dst.Chmod(0o755); err != nil {
		dst.Close()
		return "", err
	}
	// Written back first: dirty pages cannot be dropped.
	if err := dst.Sync(); err != nil {
		dst.Close()
		return "", err
	}
	if err := dst.Close(); err != nil {
		return "", err
	}
	return dst.Name(), dropCached(dst.Name())
}
