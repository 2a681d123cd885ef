package baton_test

import (
	"testing"

	"github.com/baton-dev/baton"
)

// TestPoint17UnpaddedID: the zeros of an id's number drop (T-0042 is
// T-42, as Colibri writes ids); anything else stays as it is, so only ids
// that can mean another id are tried twice.
func TestPoint17UnpaddedID(t *testing.T) {
	cases := []struct {
		in, out string
		ok      bool
	}{
		{"T-0042", "T-42", true},
		{"COL-01", "COL-1", true},
		{"COL-000", "COL-0", true},
		{"my-proj-007", "my-proj-7", true},
		{"T-42", "T-42", false},
		{"T-0", "T-0", false},
		{"T-", "T-", false},
		{"-0042", "-0042", false},
		{"T0042", "T0042", false},
		{"T-00x2", "T-00x2", false},
		{"t-0042", "t-42", true}, // the prefix is kept as written: ids match case-sensitively
	}
	for _, c := range cases {
		if out, ok := baton.UnpaddedID(c.in); out != c.out || ok != c.ok {
			t.Errorf("UnpaddedID(%q) = %q, %v; want %q, %v", c.in, out, ok, c.out, c.ok)
		}
	}
}
