package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// Dashboard pages open during a run behave as web/static/app.js does in
// a browser: load the page, listen to /live, and on every change the page
// cares about fetch the page's content again (X-Partial), at most one
// fetch at a time, changes within refreshDelay coalesced, fetches at
// least refreshGap apart. The agents'
// throughput with and without them is the dashboard's cost.

// refreshDelay and refreshGap are app.js's coalescing delay and the
// least time between the starts of two refreshes (refreshSoon).
const (
	refreshDelay = 150 * time.Millisecond
	refreshGap   = 700 * time.Millisecond
)

// DashboardStats are what the simulated pages did.
type DashboardStats struct {
	Pages     int
	Path      string
	Changes   int // change events received, all pages
	Refreshes int // content fetches, all pages
	Errors    int
	latencies []time.Duration
	FirstErr  string
}

// Percentile returns the p-th percentile of the refresh latency.
func (d *DashboardStats) Percentile(p float64) time.Duration {
	s := Stats{latencies: d.latencies}
	return s.Percentile(p)
}

var liveAttr = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<body data-live="([^"]*)"`) })

// openPages starts n pages at base+path; stop ends them and returns the
// stats.
func openPages(ctx context.Context, base, path string, n int) (stop func() *DashboardStats, err error) {
	ctx, cancel := context.WithCancel(ctx)
	st := &DashboardStats{Pages: n, Path: path}
	var mu sync.Mutex
	note := func(f func()) {
		mu.Lock()
		defer mu.Unlock()
		f()
	}
	var wg sync.WaitGroup
	for range n {
		jar, _ := cookiejar.New(nil)
		c := &http.Client{Jar: jar}
		page, err := get(ctx, c, base+path, false)
		if err != nil {
			cancel()
			wg.Wait()
			return nil, fmt.Errorf("opening the dashboard at %s: %w", path, err)
		}
		var prefixes []string
		if m := liveAttr().FindStringSubmatch(page); m != nil {
			prefixes = strings.Fields(m[1])
		}
		p := &simPage{c: c, url: base + path, prefixes: prefixes, wake: make(chan struct{}, 1)}
		wg.Add(2)
		go func() { defer wg.Done(); p.listen(ctx, base+"/live", func() { note(func() { st.Changes++ }) }) }()
		go func() {
			defer wg.Done()
			p.refreshLoop(ctx, func(d time.Duration, err error) {
				note(func() {
					if err != nil {
						st.Errors++
						if st.FirstErr == "" {
							st.FirstErr = err.Error()
						}
						return
					}
					st.Refreshes++
					st.latencies = append(st.latencies, d)
				})
			})
		}()
	}
	return func() *DashboardStats {
		cancel()
		wg.Wait()
		slices.Sort(st.latencies)
		return st
	}, nil
}

type simPage struct {
	c        *http.Client
	url      string
	prefixes []string
	wake     chan struct{}
}

func (p *simPage) relevant(typ string) bool {
	return len(p.prefixes) == 0 || slices.ContainsFunc(p.prefixes, func(pre string) bool { return strings.HasPrefix(typ, pre) })
}

// listen reads the live stream and wakes the refresher on relevant changes.
func (p *simPage) listen(ctx context.Context, url string, counted func()) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	res, err := p.c.Do(req)
	if err != nil {
		return
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	var kind string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			kind = line[7:]
		case strings.HasPrefix(line, "data: "):
			wake := kind != "change"
			if kind == "change" {
				counted()
				var ev struct{ Type string }
				if json.Unmarshal([]byte(line[6:]), &ev) == nil && p.relevant(ev.Type) {
					wake = true
				}
			}
			if wake {
				select {
				case p.wake <- struct{}{}:
				default:
				}
			}
		}
	}
}

// refreshLoop fetches the page's content after each wake-up, waiting
// refreshDelay first so that a burst of changes makes one fetch.
func (p *simPage) refreshLoop(ctx context.Context, done func(time.Duration, error)) {
	var last time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.wake:
		}
		wait := max(refreshDelay, time.Until(last.Add(refreshGap)))
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		start := time.Now()
		last = start
		_, err := get(ctx, p.c, p.url, true)
		if ctx.Err() != nil {
			return
		}
		done(time.Since(start), err)
	}
}

func get(ctx context.Context, c *http.Client, url string, partial bool) (string, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if partial {
		req.Header.Set("X-Partial", "1")
	}
	res, err := c.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return "", err
	}
	if res.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %d", url, res.StatusCode)
	}
	return string(b), nil
}
