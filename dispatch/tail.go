package dispatch

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// tail keeps the last limit bytes written to it and counts the bytes it
// dropped: an agent's output is kept with a size cap, its end being what
// says why it stopped.
type tail struct {
	mu      sync.Mutex
	limit   int
	buf     []byte
	dropped int64
}

func newTail(limit int) *tail { return &tail{limit: limit} }

// Write keeps p's last bytes; it never fails.
func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.limit; over > 0 {
		t.dropped += int64(over)
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// String is the kept text, valid UTF-8 (a rune the cap cut is dropped),
// and how many bytes were dropped before it.
func (t *tail) String() (string, int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	dropped := t.dropped
	for len(b) > 0 && !utf8.RuneStart(b[0]) {
		b, dropped = b[1:], dropped+1
	}
	return strings.ToValidUTF8(string(b), "\uFFFD"), dropped
}

// LastLine is the last non-blank line kept, at most 300 bytes.
func (t *tail) LastLine() string {
	s, _ := t.String()
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[i+1:])
	}
	return clip(s, 300)
}
