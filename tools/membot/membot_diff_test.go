package membot_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// membotDiff is membot's own diff (src/operations/diff.ts), table and
// walk as written there, to compare against.
func membotDiff(a, b, aLabel, bLabel string) string {
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	m, n := len(x), len(y)
	t := make([][]int, m+1)
	for i := range t {
		t[i] = make([]int, n+1)
	}
	for i := m - 1; i >= 0; i-- {
		for j := n - 1; j >= 0; j-- {
			if x[i] == y[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	out := []string{"--- " + aLabel, "+++ " + bLabel}
	i, j := 0, 0
	for i < m && j < n {
		switch {
		case x[i] == y[j]:
			out = append(out, " "+x[i])
			i, j = i+1, j+1
		case t[i+1][j] >= t[i][j+1]:
			out = append(out, "-"+x[i])
			i++
		default:
			out = append(out, "+"+y[j])
			j++
		}
	}
	for ; i < m; i++ {
		out = append(out, "-"+x[i])
	}
	for ; j < n; j++ {
		out = append(out, "+"+y[j])
	}
	return strings.Join(out, "\n")
}

// lcsLen is the length of a longest common subsequence of lines.
func lcsLen(x, y []string) int {
	prev, cur := make([]int, len(y)+1), make([]int, len(y)+1)
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				cur[j] = prev[j+1] + 1
			} else {
				cur[j] = max(prev[j], cur[j+1])
			}
		}
		prev, cur = cur, prev
	}
	return prev[0]
}

// TestDiffFormat: the two headers, then every line prefixed ' ', '-' or
// '+', no hunks; b defaults to the current version.
func TestDiffFormat(t *testing.T) {
	k := testkit.New(t)
	v1 := put(k, "d.md", "alpha\nbeta\ngamma\ndelta")
	v2 := put(k, "d.md", "alpha\ngamma\nGAMMA\ndelta\nepsilon")

	d := data(k, "membot_diff", map[string]any{"logical_path": "d.md", "a": v1})
	eq(t, "a", d["a"], v1)
	eq(t, "b", d["b"], v2)
	eq(t, "path", d["logical_path"], "d.md")
	want := "--- " + v1 + "\n+++ " + v2 + "\n alpha\n-beta\n gamma\n+GAMMA\n delta\n+epsilon"
	eq(t, "diff", d["diff"], want)

	back := data(k, "membot_diff", map[string]any{"logical_path": "d.md", "a": v2, "b": v1})
	eq(t, "reverse", back["diff"], "--- "+v2+"\n+++ "+v1+"\n alpha\n+beta\n gamma\n-GAMMA\n delta\n-epsilon")
	eq(t, "same", data(k, "membot_diff", map[string]any{"logical_path": "d.md", "a": v1, "b": v1})["diff"],
		"--- "+v1+"\n+++ "+v1+"\n alpha\n beta\n gamma\n delta")
}

// TestDiffMatchesMembot: on random texts the diff shows a's lines ('-'
// and ' ') and b's (' ' and '+') in order, keeps a longest common
// subsequence, and is membot's diff exactly when the texts end
// differently (baton matches a common ending directly, which can order a
// tie differently).
func TestDiffMatchesMembot(t *testing.T) {
	k := testkit.New(t)
	r := rand.New(rand.NewPCG(1, 2))
	text := func() string {
		ls := make([]string, r.IntN(12))
		for i := range ls {
			ls[i] = string(rune('a' + r.IntN(4)))
		}
		return strings.Join(ls, "\n")
	}
	for i := range 40 {
		a, b := text(), text()
		path := fmt.Sprintf("r/%d.md", i)
		va := put(k, path, a)
		vb := put(k, path, b)
		got := data(k, "membot_diff", map[string]any{"logical_path": path, "a": va, "b": vb})["diff"].(string)
		lines := strings.Split(got, "\n")
		if lines[0] != "--- "+va || lines[1] != "+++ "+vb {
			t.Fatalf("headers: %q", got)
		}
		var fromA, fromB []string
		common := 0
		for _, l := range lines[2:] {
			switch l[0] {
			case ' ':
				fromA, fromB = append(fromA, l[1:]), append(fromB, l[1:])
				common++
			case '-':
				fromA = append(fromA, l[1:])
			case '+':
				fromB = append(fromB, l[1:])
			default:
				t.Fatalf("line %q has no prefix", l)
			}
		}
		x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
		if strings.Join(fromA, "\n") != a || strings.Join(fromB, "\n") != b || common != lcsLen(x, y) {
			t.Fatalf("diff of %q and %q is not an LCS walk:\n%s", a, b, got)
		}
		if x[len(x)-1] != y[len(y)-1] {
			if want := membotDiff(a, b, va, vb); got != want {
				t.Fatalf("diff of %q and %q:\n%s\nmembot's:\n%s", a, b, got, want)
			}
		}
	}
}

// TestDiffErrors: a missing version on either side is not_found, so is
// the current version of a deleted path; a diff over the work limit is
// input_error; each with a hint.
func TestDiffErrors(t *testing.T) {
	k := testkit.New(t)
	v1 := put(k, "d.md", "one")
	failWith(k, "membot_diff", map[string]any{"logical_path": "d.md", "a": "2000-01-01T00:00:00.000Z"}, baton.ErrNotFound, "not_found")
	failWith(k, "membot_diff", map[string]any{"logical_path": "d.md", "a": v1, "b": "2000-01-01T00:00:00.000Z"}, baton.ErrNotFound, "not_found")
	failWith(k, "membot_diff", map[string]any{"logical_path": "nope.md", "a": v1}, baton.ErrNotFound, "not_found")
	remove(k, projectSpace, "d.md")
	failWith(k, "membot_diff", map[string]any{"logical_path": "d.md", "a": v1}, baton.ErrNotFound, "not_found")
	failWith(k, "membot_diff", map[string]any{"logical_path": "d.md"}, baton.ErrInvalidInput, "invalid_input")

	// 5,001 × 5,001 differing lines is over 25 million line pairs; the
	// same texts with a common start and end are not.
	var a, b strings.Builder
	for i := range 5001 {
		fmt.Fprintf(&a, "a%d\n", i)
		fmt.Fprintf(&b, "b%d\n", i)
	}
	va := put(k, "big.md", a.String()+"end")
	vb := put(k, "big.md", b.String()+"end")
	e := failWith(k, "membot_diff", map[string]any{"logical_path": "big.md", "a": va, "b": vb}, baton.ErrInvalidInput, "input_error")
	if !strings.Contains(e.Hint, "membot_read") {
		t.Errorf("hint %q", e.Hint)
	}
	same := strings.Repeat("same line\n", 6000)
	vs1 := put(k, "long.md", same+"old\n"+same)
	vs2 := put(k, "long.md", same+"new\n"+same)
	d := data(k, "membot_diff", map[string]any{"logical_path": "long.md", "a": vs1, "b": vs2})
	if !strings.Contains(d["diff"].(string), "\n-old\n+new\n") {
		t.Errorf("long diff lacks the change")
	}
}

// TestDiffGlobal: a global document's versions diff like a project's.
func TestDiffGlobal(t *testing.T) {
	k := testkit.New(t)
	g1 := putGlobal(k, "g.md", "x")
	g2 := putGlobal(k, "g.md", "y")
	eq(t, "global diff", data(k, "membot_diff", map[string]any{"logical_path": "g.md", "a": g1})["diff"], "--- "+g1+"\n+++ "+g2+"\n-x\n+y")
}
