package pathglob

import "strings"

// The overlap decision is two nested product searches, both memoized over
// position pairs and both over acyclic graphs, so each state is decided once
// and the whole check is polynomial: O(|a|·|b|) segment-pair states, and for
// each segment pair O(len·len) character states.
//
// Segment level: a state (i, j) means a[:i] and b[:j] have matched the same
// path prefix. A ** may be skipped (zero segments) or absorb one segment that
// the other pattern's segment at j (or i) matches; two plain segments advance
// together when their languages intersect. Two ** never need to absorb a
// segment together: removing such a segment from a common path leaves a
// common path. The one exception, that a path needs at least one segment, only
// bites when both patterns are all **, and then any name is a witness.
//
// Character level: a state (i, j, d) means a[:i] and b[:j] have matched the
// same text, and d says whether that text is "", ".", ".." or anything else;
// only the last accepts, because "." and ".." never name a file. A star may
// end (epsilon) or absorb a character the other side accepts; two stars
// absorbing together only matters while it moves d, so there are no loops.

// overlapper searches the segment-level product of two patterns.
type overlapper struct {
	a, b  []segment
	memo  []int8      // (len(a)+1)×(len(b)+1): 0 unknown, 1 reaches the end, -1 not
	inter []int8      // len(a)×len(b): whether segments a[i] and b[j] intersect
	cs    *charSearch // allocated when two wildcard segments meet
	small [128]int8
}

func (o *overlapper) init(a, b []segment) {
	m, n := len(a), len(b)
	size := (m+1)*(n+1) + m*n
	var buf []int8
	if size <= len(o.small) {
		buf = o.small[:size]
	} else {
		buf = make([]int8, size)
	}
	o.a, o.b, o.memo, o.inter = a, b, buf[:(m+1)*(n+1)], buf[(m+1)*(n+1):]
}

// pmove is a segment-level transition; consume says it spends one segment
// of the path.
type pmove struct {
	ni, nj  int
	consume bool
}

// moves lists the transitions out of (i, j), shortest paths first.
func (o *overlapper) moves(i, j int) (mv [3]pmove, cnt int) {
	m, n := len(o.a), len(o.b)
	ag := i < m && o.a[i].globstar
	bg := j < n && o.b[j].globstar
	if ag {
		mv[cnt] = pmove{i + 1, j, false}
		cnt++
	}
	if bg {
		mv[cnt] = pmove{i, j + 1, false}
		cnt++
	}
	if i < m && j < n {
		switch {
		case ag && bg:
			// See above: a segment both ** absorb can be left out.
		case ag:
			// Every segment of a valid pattern matches some name.
			mv[cnt] = pmove{i, j + 1, true}
			cnt++
		case bg:
			mv[cnt] = pmove{i + 1, j, true}
			cnt++
		default:
			if o.intersects(i, j) {
				mv[cnt] = pmove{i + 1, j + 1, true}
				cnt++
			}
		}
	}
	return mv, cnt
}

// reach reports whether a[i:] and b[j:] match some common path suffix.
func (o *overlapper) reach(i, j int) bool {
	n := len(o.b)
	if i == len(o.a) && j == n {
		return true
	}
	k := i*(n+1) + j
	if v := o.memo[k]; v != 0 {
		return v > 0
	}
	ok := false
	mv, cnt := o.moves(i, j)
	for _, x := range mv[:cnt] {
		if o.reach(x.ni, x.nj) {
			ok = true
			break
		}
	}
	o.memo[k] = -1
	if ok {
		o.memo[k] = 1
	}
	return ok
}

// intersects reports, memoized, whether segments a[i] and b[j] (neither
// **) match a common name.
func (o *overlapper) intersects(i, j int) bool {
	k := i*len(o.b) + j
	if v := o.inter[k]; v != 0 {
		return v > 0
	}
	x, y := &o.a[i], &o.b[j]
	var ok bool
	switch {
	case x.isLit && y.isLit:
		ok = x.lit == y.lit
	case x.isLit:
		ok = matchToks(y, x.lit)
	case y.isLit:
		ok = matchToks(x, y.lit)
	case endsClash(x, y):
		ok = false
	default:
		ok = o.search(x, y).reach(0, 0, dEmpty)
	}
	o.inter[k] = -1
	if ok {
		o.inter[k] = 1
	}
	return ok
}

// endsClash is a quick no for the usual "*.go" against "*.md": the
// characters before the first star, and after the last, sit at fixed
// positions from the start or the end in every name a segment matches, so
// a position where both segments fix disjoint sets rules out a common name.
func endsClash(x, y *segment) bool {
	n, m := len(x.toks), len(y.toks)
	for k := 0; k < n && k < m; k++ {
		tx, ty := x.toks[k], y.toks[k]
		if tx.star || ty.star {
			break
		}
		if dot, other := commonInfo(x.set(tx), y.set(ty)); !dot && !other {
			return true
		}
	}
	for k := 1; k <= n && k <= m; k++ {
		tx, ty := x.toks[n-k], y.toks[m-k]
		if tx.star || ty.star {
			break
		}
		if dot, other := commonInfo(x.set(tx), y.set(ty)); !dot && !other {
			return true
		}
	}
	return false
}

// witness builds a common path by following reachable transitions from
// (0, 0); reach(0, 0) must be true.
func (o *overlapper) witness() string {
	var parts []string
	i, j := 0, 0
	for i < len(o.a) || j < len(o.b) {
		mv, cnt := o.moves(i, j)
		moved := false
		for _, x := range mv[:cnt] {
			if !o.reach(x.ni, x.nj) {
				continue
			}
			if x.consume {
				parts = append(parts, o.segWitness(i, j))
			}
			i, j, moved = x.ni, x.nj, true
			break
		}
		if !moved {
			break // unreachable while reach(0, 0) holds
		}
	}
	if len(parts) == 0 {
		return "a" // both patterns are all **, which match any name
	}
	return strings.Join(parts, "/")
}

// segWitness returns a name matching what consumes a segment at (i, j).
func (o *overlapper) segWitness(i, j int) string {
	x, y := &o.a[i], &o.b[j]
	switch {
	case x.globstar:
		x = &anySegment
	case y.globstar:
		y = &anySegment
	}
	switch {
	case x.isLit:
		return x.lit
	case y.isLit:
		return y.lit
	}
	cs := o.search(x, y)
	if !cs.reach(0, 0, dEmpty) {
		return "" // unreachable: callers only ask along reachable moves
	}
	return cs.witness()
}

// search returns the overlapper's character-level search, reset for x, y.
func (o *overlapper) search(x, y *segment) *charSearch {
	if o.cs == nil {
		o.cs = new(charSearch)
	}
	o.cs.reset(x, y)
	return o.cs
}

// anySegment is "*", the segment matching every name.
var anySegment = segment{toks: []tok{{star: true}}}

// What the text matched so far looks like, for the character-level search.
const (
	dEmpty  = iota // ""
	dDot           // "."
	dDotDot        // ".."
	dName          // anything else: a name a file can have
)

// charSearch searches the character-level product of two segments.
type charSearch struct {
	sa, sb *segment
	a, b   []tok
	memo   []int8 // (len(a)+1)×(len(b)+1)×4: 0 unknown, 1 accepts, -1 not
	heap   []int8 // memo's array when small is too small
	small  [256]int8
}

func (c *charSearch) reset(a, b *segment) {
	c.sa, c.sb, c.a, c.b = a, b, a.toks, b.toks
	size := (len(c.a) + 1) * (len(c.b) + 1) * 4
	switch {
	case size <= len(c.small):
		c.memo = c.small[:size]
	case size <= cap(c.heap):
		c.memo = c.heap[:size]
	default:
		c.heap = make([]int8, size)
		c.memo = c.heap
	}
	clear(c.memo)
}

// cmove is a character-level transition: kind 0 consumes nothing, 1 a ".",
// 2 some other character.
type cmove struct {
	ni, nj, nd int
	kind       int8
}

// consumeSets returns the sets the next character must lie in, for a[i]
// and b[j] to consume it together, and where each side then stands.
func (c *charSearch) consumeSets(i, j int) (x, y runeSet, ni, nj int) {
	x, y, ni, nj = universe, universe, i, j
	if t := c.a[i]; !t.star {
		x, ni = c.sa.set(t), i+1
	}
	if t := c.b[j]; !t.star {
		y, nj = c.sb.set(t), j+1
	}
	return x, y, ni, nj
}

// moves lists the transitions out of (i, j, d) in the order that makes
// witnesses read like file names: a letter before ending a star (so "*"
// against "*" gives "a", and "*.go" against "*_test.go" gives "a_test.go"),
// and "." last, so a witness holds no dot the patterns do not ask for.
func (c *charSearch) moves(i, j, d int) (mv [4]cmove, cnt int) {
	var dot bool
	var ni, nj int
	if i < len(c.a) && j < len(c.b) {
		var x, y runeSet
		var other bool
		x, y, ni, nj = c.consumeSets(i, j)
		dot, other = true, true
		if !c.a[i].star || !c.b[j].star {
			dot, other = commonInfo(x, y)
		}
		stay := ni == i && nj == j // two stars: useful only if d changes
		if other && !(stay && d == dName) {
			mv[cnt] = cmove{ni, nj, dName, 2}
			cnt++
		}
		if nd := min(d+1, dName); dot && stay && nd == d {
			dot = false
		}
	}
	if i < len(c.a) && c.a[i].star {
		mv[cnt] = cmove{i + 1, j, d, 0}
		cnt++
	}
	if j < len(c.b) && c.b[j].star {
		mv[cnt] = cmove{i, j + 1, d, 0}
		cnt++
	}
	if dot {
		mv[cnt] = cmove{ni, nj, min(d+1, dName), 1}
		cnt++
	}
	return mv, cnt
}

// reach reports whether a[i:] and b[j:] can match a common continuation of
// text in state d that ends as a usable name.
func (c *charSearch) reach(i, j, d int) bool {
	n := len(c.b)
	if i == len(c.a) && j == n {
		return d == dName
	}
	k := (i*(n+1)+j)*4 + d
	if v := c.memo[k]; v != 0 {
		return v > 0
	}
	ok := false
	mv, cnt := c.moves(i, j, d)
	for _, x := range mv[:cnt] {
		if c.reach(x.ni, x.nj, x.nd) {
			ok = true
			break
		}
	}
	c.memo[k] = -1
	if ok {
		c.memo[k] = 1
	}
	return ok
}

// witness builds the common name by following reachable transitions from
// (0, 0, dEmpty); reach(0, 0, dEmpty) must be true.
func (c *charSearch) witness() string {
	var sb strings.Builder
	i, j, d := 0, 0, dEmpty
	for i < len(c.a) || j < len(c.b) {
		mv, cnt := c.moves(i, j, d)
		moved := false
		for _, x := range mv[:cnt] {
			if !c.reach(x.ni, x.nj, x.nd) {
				continue
			}
			switch x.kind {
			case 1:
				sb.WriteByte('.')
			case 2:
				xs, ys, _, _ := c.consumeSets(i, j)
				sb.WriteRune(pick(xs, ys, true))
			}
			i, j, d, moved = x.ni, x.nj, x.nd, true
			break
		}
		if !moved {
			break // unreachable while reach(0, 0, dEmpty) holds
		}
	}
	return sb.String()
}
