package baton

import (
	"strings"
	"testing"
)

func TestNormalizeDocPath(t *testing.T) {
	cases := []struct {
		in, want string
		ok       bool
	}{
		{"notes/a.md", "notes/a.md", true},
		{`\\notes\a.md`, "notes/a.md", true},
		{"///x", "x", true},
		{"dir/", "dir/", true},
		{"Case/Kept.MD", "Case/Kept.MD", true},
		{"", "", false},
		{"/", "", false},
		{"a//b", "", false},
		{"../a", "", false},
		{"a/..", "", false},
		{"a\tb", "", false},
		{"a\x7fb", "", false},
		{strings.Repeat("x", MaxDocumentPath), strings.Repeat("x", MaxDocumentPath), true},
		{strings.Repeat("x", MaxDocumentPath+1), "", false},
	}
	for _, tc := range cases {
		got, err := NormalizeDocPath(tc.in)
		if tc.ok && (err != nil || got != tc.want) {
			t.Errorf("NormalizeDocPath(%.30q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
		if !tc.ok {
			if e, isE := err.(*Error); !isE || e.Code != ErrInvalidInput || e.Hint == "" {
				t.Errorf("NormalizeDocPath(%.30q) = %q, %v; want ERR_INVALID_INPUT with a hint", tc.in, got, err)
			}
		}
	}
}

func TestCheckDocSpace(t *testing.T) {
	cases := []struct {
		s  DocSpace
		ok bool
	}{
		{DocSpace{Scope: ScopeProject, Project: "p"}, true},
		{DocSpace{Scope: ScopeGlobal}, true},
		{DocSpace{Scope: ScopeProject}, false},
		{DocSpace{Scope: ScopeGlobal, Project: "p"}, false},
		{DocSpace{Scope: "team", Project: "p"}, false},
		{DocSpace{}, false},
	}
	for _, tc := range cases {
		if err := CheckDocSpace(tc.s); (err == nil) != tc.ok {
			t.Errorf("CheckDocSpace(%+v) = %v, want ok=%v", tc.s, err, tc.ok)
		}
	}
}
