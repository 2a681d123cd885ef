package issues_test

import (
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// The quality gates of add_learning at their boundaries. Length counts the
// characters written, not spaces around them, and not bytes.
func TestAddLearningGates(t *testing.T) {
	ctx100 := "Context: " + pad(91)
	for _, tc := range []struct {
		name    string
		pattern string
		context string // "" means not given
		field   string // the field the gate names, "" if accepted
		stored  string // the pattern as stored, when accepted
	}{
		{"pattern 49", pad(49), "", "pattern", ""},
		{"pattern 50", pad(50), "", "", pad(50)},
		{"pattern 51", pad(51), "", "", pad(51)},
		{"pattern 1", "x", "", "pattern", ""},
		{"pattern 49 padded to 55", "   " + pad(49) + "   ", "", "pattern", ""},
		{"pattern 49 padded with tabs and newlines", "\t\n" + pad(49) + "\n\t ", "", "pattern", ""},
		{"pattern 50 padded", "  " + pad(50) + "  ", "", "", pad(50)},
		{"pattern of spaces", strings.Repeat(" ", 60), "", "pattern", ""},
		{"pattern 50 characters, 100 bytes", strings.Repeat("é", 50), "", "", strings.Repeat("é", 50)},
		{"pattern 49 characters, 98 bytes", strings.Repeat("é", 49), "", "pattern", ""},
		{"pattern 2000", pad(2000), "", "", pad(2000)},
		{"pattern 2001", pad(2001), "", "pattern", ""},
		{"context 99", pad(50), pad(99), "context", ""},
		{"context 100", pad(50), pad(100), "", pad(50)},
		{"context 100 with a prefix", pad(50), ctx100, "", pad(50)},
		{"context 99 padded to 105", pad(50), "   " + pad(99) + "   ", "context", ""},
		{"context 100 padded", pad(50), "  " + pad(100) + "  ", "", pad(50)},
		{"context of spaces", pad(50), strings.Repeat(" ", 150), "context", ""},
		{"context 5000", pad(50), pad(5000), "", pad(50)},
		{"context 5001", pad(50), pad(5001), "context", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			k := testkit.New(t)
			id := issueIn(k, "in_progress", nil)
			w := bound(k, id)
			args := map[string]any{"pattern": tc.pattern}
			if tc.context != "" {
				args["context"] = tc.context
			}
			if tc.field != "" {
				e := invalid(w, "add_learning", args, tc.field)
				if e.Hint == "" {
					t.Errorf("no hint: %v", e)
				}
				if n := len(list(t, getIssue(k, id), "learnings")); n != 0 {
					t.Errorf("refused learning stored (%d learnings)", n)
				}
				return
			}
			out := w.OK("add_learning", args)
			if num(t, out["quality_score"]) != 50 || out["issue_id"] != id {
				t.Errorf("output = %v", out)
			}
			ls := list(t, getIssue(k, id), "learnings")
			if len(ls) != 1 || ls[0]["pattern"] != tc.stored || ls[0]["id"] != out["learning_id"] {
				t.Fatalf("learnings = %v, want the pattern stored trimmed", ls)
			}
			if ctx, _ := ls[0]["context"].(string); ctx != strings.TrimSpace(tc.context) {
				t.Errorf("context stored as %q, want it trimmed", ctx)
			}
		})
	}
}

func TestAddLearningFields(t *testing.T) {
	k := testkit.New(t)
	clock := withClock(k, time.Second)
	id := issueIn(k, "in_progress", nil)
	w := bound(k, id).As("agent-bob")
	pattern := "Nuxt auto-imports files in app/utils/ — don't add explicit imports or you'll get already-defined errors"
	context := "Nuxt 4 convention applies to all files in app/utils/, app/composables/, and app/components/ directories. The auto-import system scans these dirs at build time."
	out := w.OK("add_learning", map[string]any{"pattern": pattern, "context": context,
		"applies_to": []string{"app/utils/", "app/composables/"}, "learning_type": "convention"})
	equal(t, "output fields", keys(out), []string{"created_at", "issue_id", "learning_id", "quality_score"})
	if at := parseStamp(t, out["created_at"]); !at.Equal(clock.Peek()) {
		t.Errorf("created_at = %v, want %v", at, clock.Peek())
	}
	l := list(t, getIssue(k, id), "learnings")[0]
	want := map[string]any{"pattern": pattern, "context": context, "learning_type": "convention",
		"quality_score": 50.0, "verified": false, "created_by": "agent-bob", "id": out["learning_id"]}
	for f, v := range want {
		if l[f] != v {
			t.Errorf("%s = %#v, want %#v", f, l[f], v)
		}
	}
	equal(t, "applies_to", strs(t, l, "applies_to"), []string{"app/utils/", "app/composables/"})

	for i, lt := range baton.LearningTypes {
		w.OK("add_learning", map[string]any{"pattern": pad(60) + strings.Repeat(" more", i+1), "learning_type": lt})
	}
	equal(t, "learning types", baton.LearningTypes, []string{"convention", "gotcha", "pattern"})
	for _, bad := range []string{"tip", "Gotcha", ""} {
		invalid(w, "add_learning", map[string]any{"pattern": pad(90), "learning_type": bad}, "learning_type")
	}
	invalid(w, "add_learning", map[string]any{"pattern": pad(90), "applies_to": []string{" "}}, "applies_to[0]")
	invalid(w, "add_learning", map[string]any{"pattern": pad(90), "quality_score": 100}, "quality_score")
	invalid(w, "add_learning", map[string]any{"pattern": pad(90), "verified": true}, "verified")
	fail(w, "add_learning", map[string]any{"issue_id": "COL-99", "pattern": pad(90)}, baton.ErrTaskNotFound)
	if n := len(list(t, getIssue(k, id), "learnings")); n != 4 {
		t.Errorf("learnings = %d, want 4", n)
	}
}

// A pattern already on the issue is refused however its case, punctuation
// and spacing differ; a genuinely different pattern, or the same pattern on
// another issue, is accepted.
func TestAddLearningDuplicates(t *testing.T) {
	const base = "Use WAL mode for SQLite so readers never block the single writer connection"
	k := testkit.New(t)
	one := issueIn(k, "in_progress", nil)
	two := issueIn(k, "in_progress", nil)
	w := bound(k, one)
	first := w.OK("add_learning", map[string]any{"pattern": base})["learning_id"]

	for _, tc := range []struct{ name, pattern string }{
		{"identical", base},
		{"upper case", strings.ToUpper(base)},
		{"title case", "Use Wal Mode For Sqlite So Readers Never Block The Single Writer Connection"},
		{"punctuation", "Use WAL-mode for SQLite: so readers never block the single writer connection!"},
		{"trailing period", base + "."},
		{"quotes and parentheses", `"Use WAL mode (for SQLite) so readers never block the single writer connection"`},
		{"double spaces", strings.ReplaceAll(base, " ", "  ")},
		{"tabs and newlines", strings.ReplaceAll(base, " ", "\t\n")},
		{"padding", "   " + base + "   "},
		{"everything", "  USE wal—MODE, for sqlite...   so READERS never-block the single\twriter connection?!  "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := on(w, t)
			e := fail(w, "add_learning", map[string]any{"pattern": tc.pattern,
				"context": "A different context does not make it a different learning: " + pad(60)}, baton.ErrConflict)
			if e.Details["existing_id"] != first || e.Details["field"] != "pattern" {
				t.Errorf("details = %v, want existing_id %v", e.Details, first)
			}
			if !strings.Contains(e.Message, first.(string)) {
				t.Errorf("message %q does not name the existing learning", e.Message)
			}
		})
	}
	if n := len(list(t, getIssue(k, one), "learnings")); n != 1 {
		t.Errorf("learnings on %s = %d, want 1 after the refused duplicates", one, n)
	}

	// Words that differ make a different learning.
	for _, p := range []string{
		"Use WAL mode for SQLite so readers never block the single writer connections",
		"Use WALmode for SQLite so readers never block the single writer connection",
		"Use WAL mode for SQLite so writers never block the single reader connection",
	} {
		w.OK("add_learning", map[string]any{"pattern": p})
	}
	// The same pattern on another issue is that issue's learning.
	out := bound(k, two).OK("add_learning", map[string]any{"pattern": base})
	if out["issue_id"] != two || out["learning_id"] == first {
		t.Errorf("same pattern on %s = %v", two, out)
	}
	if n := len(list(t, getIssue(k, one), "learnings")); n != 4 {
		t.Errorf("learnings on %s = %d, want 4", one, n)
	}
	if n := len(list(t, getIssue(k, two), "learnings")); n != 1 {
		t.Errorf("learnings on %s = %d, want 1", two, n)
	}
}
