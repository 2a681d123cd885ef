//go:build linux

package bench

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/PID/stat.
// Linux fixes it at 100 for every architecture's user ABI, whatever the
// kernel's own HZ, so it needs no sysconf.
const clockTicks = 100

// SplitSupported says why --split cannot run here, or nil: it needs Linux
// and at least two CPUs this process may run on.
func SplitSupported() error {
	cpus, err := allowedCPUs()
	if err != nil {
		return err
	}
	if len(cpus) < 2 {
		return fmt.Errorf("--split pins the server and the clients to two separate CPUs, and this process may use only %d", len(cpus))
	}
	return nil
}

// allowedCPUs lists the CPUs this process may run on, lowest first.
func allowedCPUs() ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, err
	}
	var out []int
	for cpu := range 1024 {
		if set.IsSet(cpu) {
			out = append(out, cpu)
		}
	}
	return out, nil
}

// splitCPUs picks the server's CPU and the clients' CPU: the first two
// this process may use (in a container these need not be 0 and 1).
func splitCPUs() (server, client int, err error) {
	if err := SplitSupported(); err != nil {
		return 0, 0, err
	}
	cpus, _ := allowedCPUs()
	return cpus[0], cpus[1], nil
}

// pinProcess restricts every thread of this process to cpu and sets
// GOMAXPROCS to 1, as a process started under taskset would have it.
// Threads created later inherit the mask of the thread creating them, so
// setting each existing thread's is enough; a thread born while the list
// is read is caught by the next pass. restore puts back the mask and
// GOMAXPROCS as they were, so a test process runs on after a split run.
func pinProcess(cpu int) (restore func(), err error) {
	var old unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return nil, err
	}
	var set unix.CPUSet
	set.Set(cpu)
	if err := setAllThreads(&set); err != nil {
		_ = setAllThreads(&old)
		return nil, err
	}
	procs := runtime.GOMAXPROCS(1)
	return func() {
		runtime.GOMAXPROCS(procs)
		_ = setAllThreads(&old)
	}, nil
}

// setAllThreads sets the affinity of every thread of this process, until
// a pass over /proc/self/task finds no thread it had not set.
func setAllThreads(set *unix.CPUSet) error {
	done := map[int]bool{}
	for {
		entries, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return err
		}
		fresh := false
		for _, e := range entries {
			tid, err := strconv.Atoi(e.Name())
			if err != nil || done[tid] {
				continue
			}
			fresh = true
			// A thread may exit between the listing and the call (ESRCH).
			if err := unix.SchedSetaffinity(tid, set); err != nil && !errors.Is(err, unix.ESRCH) {
				return fmt.Errorf("pinning thread %d: %w", tid, err)
			}
			done[tid] = true
		}
		if !fresh {
			return nil
		}
	}
}

// startPinned runs start (which starts a child process) on a thread
// pinned to cpu, so the child is born with that mask and its Go runtime
// sizes GOMAXPROCS to it from the first instruction; the thread's mask is
// put back afterwards.
func startPinned(cpu int, start func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var old unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return err
	}
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return err
	}
	defer unix.SchedSetaffinity(0, &old)
	return start()
}

// processCPU is the user plus system CPU time process pid has used, from
// /proc/PID/stat (whole process: all its threads, reaped children not
// included).
func processCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces;
	// the fields after the last ')' start with field 3 (state).
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: too few fields", pid)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64) // field 14
	stime, err2 := strconv.ParseInt(f[12], 10, 64) // field 15
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: bad utime or stime", pid)
	}
	return time.Duration(utime+stime) * time.Second / clockTicks, nil
}
