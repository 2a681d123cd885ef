package membot

import (
	"context"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
)

type diffIn struct {
	LogicalPath string `json:"logical_path" jsonschema:"Path of the document."`
	A           string `json:"a" jsonschema:"The older version_id (from membot_versions)."`
	B           string `json:"b,omitempty" jsonschema:"The newer version_id; omit for the current version."`
}

type diffOut struct {
	LogicalPath string `json:"logical_path" jsonschema:"The normalised path."`
	A           string `json:"a" jsonschema:"Version a's id."`
	B           string `json:"b" jsonschema:"Version b's id (the current one when b was omitted)."`
	Diff        string `json:"diff" jsonschema:"'--- a' and '+++ b' lines, then every line of both texts prefixed with ' ' (in both), '-' (only in a) or '+' (only in b); no hunks."`
}

// maxDiffCells bounds a diff's work: the lines of a times the lines of b
// that differ after their common start and end. The table costs one bit a
// cell (25 million: about 3 MiB) and the time grows with it.
const maxDiffCells = 25_000_000

// Diff is membot_diff: a full line diff of two versions of a path.
var Diff = tool.New(tool.Definition[diffIn, Op[diffOut]]{
	Name:    "membot_diff",
	Toolset: Toolset,
	Description: "`diff`: line diff between two versions of a document: a is required, b defaults to the current " +
		"version (both version_ids from membot_versions). Every line is shown, prefixed ' ', '-' or '+'. " +
		"Use it to see what a write or refresh changed.",
	Annotations: tool.Annotations{ReadOnly: true},
	Profiles:    tool.Profiles,
	Input: tool.Rules{
		"logical_path": tool.Length(1, baton.MaxDocumentPath),
		"a":            tool.Length(1, 64),
		"b":            versionRule,
	},
	Args: []string{"logical_path", "a", "b"},
	Execute: func(ctx context.Context, c *tool.Call, in diffIn) (Op[diffOut], error) {
		// Both sides come from the space version a is found in.
		key, err := resolve(ctx, c, in.LogicalPath, in.A)
		if err != nil {
			return fail[diffOut](err)
		}
		a, err := c.Tx.Document(ctx, key, in.A)
		if err != nil {
			return fail[diffOut](err)
		}
		b, err := c.Tx.Document(ctx, key, in.B)
		if err != nil {
			return fail[diffOut](err)
		}
		text, err := lineDiff(a.Content, b.Content, a.Version, b.Version)
		if err != nil {
			return fail[diffOut](err)
		}
		return ok(diffOut{LogicalPath: a.Path, A: a.Version, B: b.Version, Diff: text})
	},
})

// lineDiff is membot's diff of two texts split on "\n": the two header
// lines, then the walk of a longest common subsequence of lines. The walk
// is membot's: a line in both is taken as common; otherwise a's line goes
// first ('-') unless dropping it loses more of the common subsequence
// than dropping b's ('+'). The common start and end are matched directly,
// so only the lines in between cost work, which maxDiffCells bounds.
func lineDiff(a, b, aLabel, bLabel string) (string, error) {
	// Lines become small integers, so the table compares ints, not strings.
	ids := map[string]int32{}
	intern := func(ls []string) []int32 {
		out := make([]int32, len(ls))
		for i, l := range ls {
			id, ok := ids[l]
			if !ok {
				id = int32(len(ids))
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	x, y := intern(al), intern(bl)
	pre := 0
	for pre < len(x) && pre < len(y) && x[pre] == y[pre] {
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && x[len(x)-1-suf] == y[len(y)-1-suf] {
		suf++
	}
	mx, my := x[pre:len(x)-suf], y[pre:len(y)-suf]
	m, n := len(mx), len(my)
	if cells := int64(m) * int64(n); cells > maxDiffCells {
		return "", baton.Errorf(baton.ErrInvalidInput, "the versions differ in %d and %d lines; diffing them is over the limit of %d line pairs", m, n, maxDiffCells).
			WithDetails("lines_a", m, "lines_b", n, "max_line_pairs", maxDiffCells).
			WithHint("read the two versions with membot_read (offset/limit) and compare the parts you need")
	}
	// takeA[i*n+j] says, at lines i of mx and j of my (when they differ),
	// whether the walk drops a's line: LCS(i+1, j) >= LCS(i, j+1). Rows
	// of LCS lengths are made bottom-up, two at a time.
	takeA := make([]uint64, (m*n+63)/64)
	next, cur := make([]int32, n+1), make([]int32, n+1)
	for i := m - 1; i >= 0; i-- {
		cur[n] = 0
		for j := n - 1; j >= 0; j-- {
			if mx[i] == my[j] {
				cur[j] = next[j+1] + 1
				continue
			}
			down, right := next[j], cur[j+1]
			if down >= right {
				k := i*n + j
				takeA[k/64] |= 1 << (k % 64)
				cur[j] = down
			} else {
				cur[j] = right
			}
		}
		next, cur = cur, next
	}
	var sb strings.Builder
	line := func(prefix byte, s string) {
		sb.WriteByte('\n')
		sb.WriteByte(prefix)
		sb.WriteString(s)
	}
	sb.WriteString("--- " + aLabel + "\n+++ " + bLabel)
	for k := range pre {
		line(' ', al[k])
	}
	i, j := 0, 0
	for i < m && j < n {
		switch k := i*n + j; {
		case mx[i] == my[j]:
			line(' ', al[pre+i])
			i, j = i+1, j+1
		case takeA[k/64]&(1<<(k%64)) != 0:
			line('-', al[pre+i])
			i++
		default:
			line('+', bl[pre+j])
			j++
		}
	}
	for ; i < m; i++ {
		line('-', al[pre+i])
	}
	for ; j < n; j++ {
		line('+', bl[pre+j])
	}
	for k := len(al) - suf; k < len(al); k++ {
		line(' ', al[k])
	}
	return sb.String(), nil
}
