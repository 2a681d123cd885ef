package tool

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestParkedPagesSplitCharacters: pages are cut by characters, not bytes,
// and joined give the text back; the oldest results go once a session
// holds more than ParkedBytes.
func TestParkedPagesSplitCharacters(t *testing.T) {
	env := &Env{}
	ctx := context.Background()
	s := env.sessionOf(ctx)
	text := strings.Repeat("é€x", PageChars) // 3 characters, 6 bytes, a PageChars times
	id := s.park("t", text, time.Now())
	var b strings.Builder
	for page := 1; page <= 3; page++ {
		p, err := env.ReadParked(ctx, id, page)
		if err != nil {
			t.Fatal(err)
		}
		if p.TotalChars != 3*PageChars || p.TotalPages != 3 || len([]rune(p.Content)) != PageChars {
			t.Fatalf("page %d: %d characters of %d, %d pages", page, len([]rune(p.Content)), p.TotalChars, p.TotalPages)
		}
		b.WriteString(p.Content)
	}
	if b.String() != text {
		t.Error("the pages do not join into the text")
	}
	big := strings.Repeat("x", ParkedBytes/2+1)
	first := s.park("t", big, time.Now())
	s.park("t", big, time.Now())
	if _, err := env.ReadParked(ctx, first, 1); err == nil {
		t.Error("a session keeps more than ParkedBytes parked")
	}
}
