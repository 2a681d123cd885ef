package tool

import (
	"context"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/baton-dev/baton"
)

// Result parking (membot-operations.md §9): Botholomew's loop keeps a tool
// output longer than ParkAbove characters aside and gives the model a stub
// naming it; read_large_result pages it. baton parks in the MCP session,
// for sessions that have read_large_result among their tools: the text
// content becomes the stub, while the structured content stays whole (a
// client's program still gets the full output; the model reads the text).
const (
	// ParkAbove is the longest text a session with read_large_result gets
	// inline.
	ParkAbove = 10000
	// PageChars is the size of a page of a parked result.
	PageChars = 8000
	// ParkedPerSession is how many results a session keeps; the oldest
	// goes first.
	ParkedPerSession = 32
	// ParkTTL is how long a parked result is kept.
	ParkTTL = time.Hour
	// ParkedBytes is the most a session keeps parked; the oldest go first.
	ParkedBytes = 32 << 20
	// ReadLargeResult is the name of the tool that pages parked results.
	ReadLargeResult = "read_large_result"
	previewChars    = 500
)

// parked is one parked result.
type parked struct {
	id    string
	tool  string
	text  string
	chars int // characters of text
	at    time.Time
}

// park keeps text in the session and returns its id (lr_<n>, counting up
// per session; a session's ids mean nothing in another session).
func (s *Session) park(tool, text string, now time.Time) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire(now)
	s.lastID++
	id := "lr_" + strconv.Itoa(s.lastID)
	s.parked = append(s.parked, parked{id: id, tool: tool, text: text, chars: utf8.RuneCountInString(text), at: now})
	if len(s.parked) > ParkedPerSession {
		s.parked = s.parked[len(s.parked)-ParkedPerSession:]
	}
	total := 0
	for _, p := range s.parked {
		total += len(p.text)
	}
	for len(s.parked) > 1 && total > ParkedBytes {
		total -= len(s.parked[0].text)
		s.parked = s.parked[1:]
	}
	return id
}

// expire drops parked results older than ParkTTL. s.mu is held.
func (s *Session) expire(now time.Time) {
	keep := s.parked[:0]
	for _, p := range s.parked {
		if now.Sub(p.at) < ParkTTL {
			keep = append(keep, p)
		}
	}
	s.parked = keep
}

// ParkedPage is one page of a parked result.
type ParkedPage struct {
	Content    string
	Page       int
	TotalPages int
	TotalChars int
}

// ReadParked returns page (1-based) of the result parked under id in the
// calling session: ERR_NOT_FOUND (unknown_id) when the session has no such
// result, ERR_INVALID_INPUT (page_out_of_range) past its last page.
func (e *Env) ReadParked(ctx context.Context, id string, page int) (*ParkedPage, error) {
	s := e.sessionOf(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire(e.now())
	for _, p := range s.parked {
		if p.id != id {
			continue
		}
		pages := max(1, (p.chars+PageChars-1)/PageChars)
		if page < 1 || page > pages {
			return nil, baton.Errorf(baton.ErrInvalidInput, "page %d is out of range: %s has %d page(s)", page, id, pages).
				WithType("page_out_of_range").WithDetails("id", id, "total_pages", pages).
				WithHint("ask for a page from 1 to %d", pages)
		}
		return &ParkedPage{Content: runeSlice(p.text, (page-1)*PageChars, PageChars), Page: page,
			TotalPages: pages, TotalChars: p.chars}, nil
	}
	return nil, baton.Errorf(baton.ErrNotFound, "no parked result %s in this session", id).
		WithType("unknown_id").WithDetails("id", id).
		WithHint("parked results live only in the session that made them, for %s; re-run the original tool", ParkTTL)
}

// sessionOf is the MCP session of ctx, or the process's own (the CLI, tests).
func (e *Env) sessionOf(ctx context.Context) *Session {
	if s, _ := ctx.Value(sessionKey{}).(*Session); s != nil {
		return s
	}
	return &e.session
}

// parkText returns text as the session gets it: itself, or, when it is
// longer than ParkAbove characters and the session has read_large_result,
// a stub naming the parked whole.
func (e *Env) parkText(ctx context.Context, p baton.Principal, tool, text string) string {
	n := utf8.RuneCountInString(text)
	if n <= ParkAbove || tool == ReadLargeResult || e.permit(ctx, p, ReadLargeResult) != nil {
		return text
	}
	id := e.sessionOf(ctx).park(tool, text, e.now())
	pages := (n + PageChars - 1) / PageChars
	preview := runeSlice(text, 0, previewChars)
	return fmt.Sprintf("[large result parked as %s] %s returned %d characters (%d pages of %d). Preview:\n%s…\n\n"+
		"Call read_large_result with id %q and page 1 to %d to read it.", id, tool, n, pages, PageChars,
		preview, id, pages)
}

// runeSlice is the n characters of s from character from on.
func runeSlice(s string, from, n int) string {
	start, i := len(s), 0
	for b := range s {
		if i == from {
			start = b
		}
		if i == from+n {
			return s[start:b]
		}
		i++
	}
	return s[start:]
}
