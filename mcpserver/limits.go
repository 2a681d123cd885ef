package mcpserver

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/baton-dev/baton"
)

// Per-token caps. One token (without tokens, one agent) may hold at most
// so many MCP sessions and so many open event streams at once; past that a
// new one is refused with 429 and Retry-After. Each session costs memory
// until it ends or expires idle, each stream a connection: a client that
// opens them in a loop must not starve everyone else.
const (
	DefaultMaxSessions = 32
	DefaultMaxStreams  = 64
	// DefaultSessionTimeout closes MCP sessions idle this long.
	DefaultSessionTimeout = 30 * time.Minute
)

// streamRetryAfter is what a refused stream is told to wait: streams end
// when their clients leave, at no time the server can predict.
const streamRetryAfter = 10 * time.Second

// tracker knows the open sessions and streams of each caller key and
// which key opened each session.
type tracker struct {
	maxSessions, maxStreams int // 0: no cap
	idle                    time.Duration

	mu       sync.Mutex
	sessions map[string]*trackedSession // by session id
	holders  map[string]*holder         // by caller key
}

type trackedSession struct {
	key   string
	token string // the id of the token that opened it; "" without tokens
	seen  time.Time
	// end ends the session at once (an /sse session's GET); nil for /mcp
	// sessions, which the SDK ends. timer calls it when the session is
	// idle.
	end   func()
	timer *time.Timer
}

// holder counts what one key holds open. sessions includes slots
// reserved by initialize requests still being answered.
type holder struct{ sessions, streams int }

func (t *tracker) holder(key string) *holder {
	h := t.holders[key]
	if h == nil {
		if t.holders == nil {
			t.holders = map[string]*holder{}
		}
		h = &holder{}
		t.holders[key] = h
	}
	return h
}

func (t *tracker) forget(key string, h *holder) {
	if h.sessions == 0 && h.streams == 0 {
		delete(t.holders, key)
	}
}

// reserveSession takes a session slot of key, or says how long to wait
// for one. The slot is given back by cancelSession or, once the session
// has an id (commitSession), by endSession.
func (t *tracker) reserveSession(key string) (bool, time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	h := t.holder(key)
	if t.maxSessions > 0 && h.sessions >= t.maxSessions {
		return false, t.sessionRetryLocked(key)
	}
	h.sessions++
	return true, 0
}

// sessionRetryLocked is how long until key's least recently used session
// would expire if nobody touched it.
func (t *tracker) sessionRetryLocked(key string) time.Duration {
	var oldest time.Time
	for _, s := range t.sessions {
		if s.key == key && (oldest.IsZero() || s.seen.Before(oldest)) {
			oldest = s.seen
		}
	}
	if oldest.IsZero() {
		return streamRetryAfter
	}
	return min(max(time.Until(oldest.Add(t.idle)), time.Second), t.idle)
}

func (t *tracker) cancelSession(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	h := t.holder(key)
	h.sessions--
	t.forget(key, h)
}

// commitSession records the id of the session a reserved slot went to
// and the token (by id) it was opened with. end, if not nil, ends the
// session: after the idle timeout without use, or when its token is
// revoked (endTokens).
func (t *tracker) commitSession(key, token, sid string, end func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sessions == nil {
		t.sessions = map[string]*trackedSession{}
	}
	s := &trackedSession{key: key, token: token, seen: time.Now(), end: end}
	if end != nil {
		s.timer = time.AfterFunc(t.idle, end)
	}
	t.sessions[sid] = s
}

// endTokens ends the sessions with an end func (those of /sse) opened with
// one of the tokens ids, and reports how many it ended. Their slots come
// back as their GETs return. The SDK tells an /sse session nothing of its
// request headers, so these sessions are found here rather than by bearer
// hash (listchanged.go).
func (t *tracker) endTokens(ids map[string]bool) int {
	t.mu.Lock()
	var end []func()
	for _, s := range t.sessions {
		if s.end != nil && s.token != "" && ids[s.token] {
			end = append(end, s.end)
		}
	}
	t.mu.Unlock()
	for _, e := range end {
		e()
	}
	return len(end)
}

// endSession gives back the slot of a session that ended.
func (t *tracker) endSession(sid string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.sessions[sid]
	if !ok {
		return
	}
	delete(t.sessions, sid)
	if s.timer != nil {
		s.timer.Stop()
	}
	h := t.holder(s.key)
	h.sessions--
	t.forget(s.key, h)
}

// owner returns the key that opened session sid, noting that it was used.
func (t *tracker) owner(sid string) (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.sessions[sid]
	if !ok {
		return "", false
	}
	s.seen = time.Now()
	if s.timer != nil {
		s.timer.Reset(t.idle)
	}
	return s.key, true
}

// acquireStream takes a stream slot of key; release gives it back.
func (t *tracker) acquireStream(key string) (release func(), ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	h := t.holder(key)
	if t.maxStreams > 0 && h.streams >= t.maxStreams {
		return nil, false
	}
	h.streams++
	var once sync.Once
	return func() {
		once.Do(func() {
			t.mu.Lock()
			defer t.mu.Unlock()
			h := t.holder(key)
			h.streams--
			t.forget(key, h)
		})
	}, true
}

// open reports what key holds open, for tests and errors.
func (t *tracker) open(key string) (sessions, streams int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if h := t.holders[key]; h != nil {
		return h.sessions, h.streams
	}
	return 0, 0
}

// tooMany answers 429 with Retry-After for a refused session or stream.
func tooMany(w http.ResponseWriter, r *http.Request, c *caller, what string, limit int, wait time.Duration, flag string) {
	secs := max(1, int64(math.Ceil(wait.Seconds())))
	w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
	hint := fmt.Sprintf("retry after %d s", secs)
	if what == "sessions" {
		hint += "; close sessions you no longer use (DELETE /mcp with their Mcp-Session-Id) and reuse one session per agent"
	} else {
		hint += "; close event streams you no longer read"
	}
	refuse(w, r, http.StatusTooManyRequests, baton.Errorf(baton.ErrRateLimited,
		"%s already holds %d open %s, the most one %s may hold", c.who(), limit, what, c.kind()).
		WithType("too_many_"+what).
		WithDetails("limit", limit, "retry_after_ms", secs*1000, "setting", flag).
		WithHint("%s; an operator can raise %s", hint, flag))
}
