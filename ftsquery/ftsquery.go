// Package ftsquery is the one query language of baton's full-text searches
// (search_messages, search_learnings, task_list's search): a parser for the
// FTS5 syntax the catalogues promise and renderers that turn the parsed
// query into text neither database can misread.
//
// The syntax is FTS5's, with its precedence:
//
//	deploy nginx          every word must match (search_learnings: any may)
//	deploy OR rollback    either
//	deploy AND nginx      both (what juxtaposition means, spelled out)
//	deploy NOT staging    the first without the second (NOT is binary)
//	"deploy failed"       the words in this order, next to each other
//	"deploy fail"*        ... the last word a prefix
//	deploy*               a prefix (plain words are prefixes anyway)
//	NEAR(deploy nginx, 5) both, at most 5 words apart (10 when omitted)
//	deploy NEAR/5 nginx   the same, in FTS3's infix form
//	(a OR b) NOT c        grouping
//
// Operators are the uppercase words AND, OR, NOT and NEAR; written in lower
// case they are words. Juxtaposition binds tightest, then NOT, AND and OR,
// as FTS5 parses them: "a OR b c" is "a OR (b AND c)". Any other
// punctuation separates words, as the full-text indexes cut text.
//
// Plain words match as a prefix of a written word or through stemming,
// where an index is stemmed; phrases and NEAR groups match the written
// words (the unstemmed index), so a quoted word asks for that exact word.
//
// Every word reaches SQL as data: the renderers quote each token, and a
// token holds only letters and digits, so no input can change the shape of
// an FTS5 MATCH or a tsquery. Malformed input is ERR_INVALID_INPUT naming
// the character where it goes wrong, with a hint showing valid syntax.
package ftsquery

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/baton-dev/baton"
)

// Limits of a query, so that no input makes the SQL built from it large.
const (
	// MaxLength is the longest query, in characters (the tools' limit).
	MaxLength = 500
	// MaxTerms is how many words a query may hold, phrases' words included.
	MaxTerms = 64
	// MaxDepth is how deeply parentheses may nest.
	MaxDepth = 10
	// MaxNearTerms is how many words and phrases one NEAR group may hold.
	MaxNearTerms = 8
	// MaxNearDistance is the largest distance a NEAR group may name.
	MaxNearDistance = 1000
	// DefaultNearDistance is FTS5's distance when a NEAR group names none.
	DefaultNearDistance = 10
)

// Kind is what a Node is.
type Kind int

// The kinds of Node. Word, Phrase and Near are leaves: they match text.
const (
	// Word is one token, matched as a prefix of a written word, and
	// through stemming where the index is stemmed.
	Word Kind = iota
	// Phrase is tokens next to each other in this order, matched as
	// written; with Prefix the last one is a prefix.
	Phrase
	// Near is Terms (words and phrases) in one field, each ending at most
	// Distance tokens before the start of the one that starts last.
	Near
	// And matches when all Children match.
	And
	// Or matches when any of Children matches.
	Or
	// Not matches when Children[0] matches and Children[1] does not.
	Not
)

// Node is one node of a parsed query.
type Node struct {
	Kind     Kind
	Tokens   []string // Word (one token), Phrase
	Prefix   bool     // Word (always), Phrase written "..."*
	Terms    []*Node  // Near: its words and phrases
	Distance int      // Near
	Children []*Node  // And, Or (two or more), Not (exactly two)
}

// Query is a parsed search query.
type Query struct {
	// Root is the whole query.
	Root *Node
}

// Options adjust how a query is read.
type Options struct {
	// Field names the input in errors ("query", "search").
	Field string
	// AnyWord makes juxtaposed terms alternatives (search_learnings ranks
	// by how many match) instead of all required.
	AnyWord bool
}

// Leaf reports whether n matches text itself rather than combining others.
func (n *Node) Leaf() bool { return n.Kind == Word || n.Kind == Phrase || n.Kind == Near }

// Stemmed reports whether n also matches through a stemmed index: plain
// words do, phrases and NEAR groups match written words only.
func (n *Node) Stemmed() bool { return n.Kind == Word }

// Leaves returns the leaves of the query that count for it, in query
// order: those that are not excluded by a NOT. A document the query
// matches matches at least one of them, so they are what ranks it.
func (q *Query) Leaves() []*Node {
	var out []*Node
	var walk func(n *Node)
	walk = func(n *Node) {
		switch {
		case n.Leaf():
			out = append(out, n)
		case n.Kind == Not:
			walk(n.Children[0])
		default:
			for _, c := range n.Children {
				walk(c)
			}
		}
	}
	walk(q.Root)
	return out
}

// AnyOf reports whether the query is satisfied by any one of its leaves:
// no AND and no NOT, so matching one leaf matches the query.
func (q *Query) AnyOf() bool {
	var either func(n *Node) bool
	either = func(n *Node) bool {
		if n.Leaf() {
			return true
		}
		if n.Kind != Or {
			return false
		}
		for _, c := range n.Children {
			if !either(c) {
				return false
			}
		}
		return true
	}
	return either(q.Root)
}

// ---- errors ----

// syntaxError is a parse failure at a 1-based character position.
type syntaxError struct {
	pos  int
	msg  string
	hint string
}

func fail(pos int, hint, format string, args ...any) *syntaxError {
	return &syntaxError{pos: pos, msg: fmt.Sprintf(format, args...), hint: hint}
}

// Syntax is the hint's summary of the syntax, for AND or any-word queries.
func Syntax(anyWord bool) string {
	words := `every word must match`
	if anyWord {
		words = `any word may match (more matches rank higher)`
	}
	return `Words match as prefixes and ` + words + `; operators are uppercase: a OR b, a AND b, a NOT b (a without b), ` +
		`"exact phrase", prefix*, NEAR(a b, 10) for words at most 10 apart, and parentheses, e.g. deploy* NOT "dry run".`
}

func (e *syntaxError) baton(opts Options) *baton.Error {
	field := opts.Field
	if field == "" {
		field = "query"
	}
	hint := Syntax(opts.AnyWord)
	if e.hint != "" {
		hint = e.hint + ". " + hint
	}
	return baton.Errorf(baton.ErrInvalidInput, "%s: %s (at character %d)", field, e.msg, e.pos).
		WithDetails("field", field, "position", e.pos, "constraint", "syntax").WithHint("%s", hint)
}

// ---- lexer ----

type tokKind int

const (
	tEOF tokKind = iota
	tWord
	tPhrase
	tLParen
	tRParen
	tComma
	tAnd
	tOr
	tNot
	tNear
)

type token struct {
	kind   tokKind
	pos    int      // 1-based character position
	text   string   // tWord: the token; operators: as written
	words  []string // tPhrase
	prefix bool     // tWord, tPhrase: a * followed
	dist   int      // tNear: NEAR/N, else -1
}

func (t token) String() string {
	switch t.kind {
	case tEOF:
		return "the end of the query"
	case tPhrase:
		return "a phrase"
	case tWord:
		return strconv.Quote(t.text)
	}
	return t.text
}

// wordRune is a character of a word: letters and digits, as the full-text
// indexes cut text (FTS5's unicode61, PostgreSQL's baton_words).
func wordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }

// delimiter reports whether r (or the start or end of the query, -1) may
// stand next to an operator: AND_x or -NOT are words.
func delimiter(r rune) bool {
	return r < 0 || unicode.IsSpace(r) || r == '(' || r == ')' || r == '"'
}

func lex(src []rune) ([]token, *syntaxError) {
	at := func(i int) rune {
		if i < 0 || i >= len(src) {
			return -1
		}
		return src[i]
	}
	var toks []token
	for i := 0; i < len(src); {
		r := src[i]
		switch {
		case r == '"':
			start := i
			var b strings.Builder
			closed := false
			for i++; i < len(src); i++ {
				if src[i] == '"' {
					if at(i+1) == '"' { // "" inside a phrase is a quote: a separator
						b.WriteRune(' ')
						i++
						continue
					}
					closed = true
					i++
					break
				}
				b.WriteRune(src[i])
			}
			if !closed {
				return nil, fail(start+1, `close the phrase with a second " or remove the quote`, "the quote opened here is never closed")
			}
			words := strings.FieldsFunc(b.String(), func(r rune) bool { return !wordRune(r) })
			if len(words) == 0 {
				return nil, fail(start+1, `put words between the quotes, e.g. "deploy failed"`, "the phrase has no words")
			}
			t := token{kind: tPhrase, pos: start + 1, words: words}
			if at(i) == '*' {
				t.prefix = true
				i++
			}
			toks = append(toks, t)
		case r == '(' || r == ')' || r == ',':
			k := map[rune]tokKind{'(': tLParen, ')': tRParen, ',': tComma}[r]
			toks = append(toks, token{kind: k, pos: i + 1, text: string(r)})
			i++
		case r == '*':
			return nil, fail(i+1, `write the * right after a word, e.g. deploy*`, "* must directly follow a word or a closing quote")
		case wordRune(r):
			start := i
			for i < len(src) && wordRune(src[i]) {
				i++
			}
			text := string(src[start:i])
			t := token{kind: tWord, pos: start + 1, text: text, dist: -1}
			if delimiter(at(start - 1)) {
				switch {
				case text == "NEAR" && at(i) == '/':
					j := i + 1
					for j < len(src) && '0' <= src[j] && src[j] <= '9' {
						j++
					}
					if j == i+1 || !delimiter(at(j)) {
						return nil, fail(start+1, "write NEAR/5 for at most 5 words apart, or NEAR(a b, 5)", "NEAR/ must be followed by a number")
					}
					n, err := strconv.Atoi(string(src[i+1 : j]))
					if err != nil || n > MaxNearDistance {
						return nil, fail(i+2, fmt.Sprintf("use a distance of at most %d", MaxNearDistance), "the NEAR distance is too large")
					}
					t = token{kind: tNear, pos: start + 1, text: string(src[start:j]), dist: n}
					i = j
				case delimiter(at(i)):
					if k, ok := map[string]tokKind{"AND": tAnd, "OR": tOr, "NOT": tNot, "NEAR": tNear}[text]; ok {
						t.kind = k
					}
				}
			}
			if t.kind == tWord && at(i) == '*' {
				t.prefix = true
				i++
			}
			toks = append(toks, t)
		default:
			i++ // whitespace and other punctuation separate words
		}
	}
	return append(toks, token{kind: tEOF, pos: len(src) + 1}), nil
}

// ---- parser ----

type parser struct {
	toks   []token
	i      int
	opts   Options
	depth  int
	terms  int
	inNear bool
	prev   token // the token consumed last
}

// Parse reads text as a search query. A malformed query is
// ERR_INVALID_INPUT naming opts.Field, with details.position (1-based
// character) and a hint showing valid syntax.
func Parse(text string, opts Options) (*Query, error) {
	src := []rune(text)
	if len(src) > MaxLength {
		return nil, fail(MaxLength+1, "shorten the query", "the query is longer than %d characters", MaxLength).baton(opts)
	}
	toks, serr := lex(src)
	if serr != nil {
		return nil, serr.baton(opts)
	}
	p := &parser{toks: toks, opts: opts, prev: token{kind: tEOF}}
	if p.peek().kind == tEOF {
		return nil, fail(1, "search for at least one word of letters or digits", "the query has no words").baton(opts)
	}
	root, serr := p.or()
	if t := p.peek(); serr == nil && t.kind != tEOF {
		// Only a ) or an infix NEAR after a group can stop the parse here.
		serr = fail(t.pos, "remove it or add the ( it closes", ") has no ( to close")
		if t.kind != tRParen {
			serr = p.missing(t)
		}
	}
	if serr != nil {
		return nil, serr.baton(opts)
	}
	return &Query{Root: root}, nil
}

// peek returns the next token; outside NEAR( ) commas are separators.
func (p *parser) peek() token {
	for !p.inNear && p.toks[p.i].kind == tComma {
		p.i++
	}
	return p.toks[p.i]
}

func (p *parser) next() token {
	t := p.peek()
	if t.kind != tEOF {
		p.i++
	}
	p.prev = t
	return t
}

func (p *parser) or() (*Node, *syntaxError) {
	return p.chain(tOr, Or, p.and)
}

func (p *parser) and() (*Node, *syntaxError) {
	return p.chain(tAnd, And, p.not)
}

// chain parses operand (op operand)* into one node of kind.
func (p *parser) chain(op tokKind, kind Kind, operand func() (*Node, *syntaxError)) (*Node, *syntaxError) {
	first, err := operand()
	if err != nil {
		return nil, err
	}
	nodes := []*Node{first}
	for p.peek().kind == op {
		p.next()
		n, err := operand()
		if err != nil {
			return nil, err
		}
		nodes = append(nodes, n)
	}
	return join(kind, nodes), nil
}

// not parses seq (NOT seq)*, left-associative as in FTS5.
func (p *parser) not() (*Node, *syntaxError) {
	left, err := p.seq()
	if err != nil {
		return nil, err
	}
	for p.peek().kind == tNot {
		p.next()
		right, err := p.seq()
		if err != nil {
			return nil, err
		}
		left = &Node{Kind: Not, Children: []*Node{left, right}}
	}
	return left, nil
}

// startsPrimary reports whether t begins a word, phrase, group or NEAR( ).
func (p *parser) startsPrimary(t token) bool {
	switch t.kind {
	case tWord, tPhrase, tLParen:
		return true
	case tNear:
		return t.dist < 0 && p.toks[p.i+1].kind == tLParen
	}
	return false
}

// seq parses juxtaposed terms: all required, or alternatives with AnyWord.
func (p *parser) seq() (*Node, *syntaxError) {
	var nodes []*Node
	for {
		n, err := p.primary()
		if err != nil {
			return nil, err
		}
		nodes = append(nodes, n)
		if !p.startsPrimary(p.peek()) {
			break
		}
	}
	if p.opts.AnyWord {
		return join(Or, nodes), nil
	}
	return join(And, nodes), nil
}

func (p *parser) primary() (*Node, *syntaxError) {
	t := p.peek()
	switch {
	case t.kind == tLParen:
		p.next()
		if p.depth++; p.depth > MaxDepth {
			return nil, fail(t.pos, "use fewer nested parentheses", "parentheses nest deeper than %d levels", MaxDepth)
		}
		if p.peek().kind == tRParen {
			return nil, fail(t.pos, "put a word between the parentheses or remove them", "the parentheses are empty")
		}
		n, err := p.or()
		if err != nil {
			return nil, err
		}
		if p.peek().kind != tRParen {
			return nil, fail(t.pos, "add the missing )", "the ( opened here is never closed")
		}
		p.next()
		p.depth--
		return n, nil
	case t.kind == tNear && p.startsPrimary(t):
		return p.nearGroup()
	case t.kind == tWord || t.kind == tPhrase:
		first, err := p.term()
		if err != nil {
			return nil, err
		}
		if p.peek().kind != tNear || p.startsPrimary(p.peek()) {
			return first, nil
		}
		// a NEAR b [NEAR c ...], FTS3's infix form: one group.
		g := &Node{Kind: Near, Terms: []*Node{first}, Distance: -1}
		for op := p.peek(); op.kind == tNear && !p.startsPrimary(op); op = p.peek() {
			p.next()
			d := op.dist
			if d < 0 {
				d = DefaultNearDistance
			}
			if g.Distance >= 0 && d != g.Distance {
				return nil, fail(op.pos, "write NEAR(a b c, N) for one distance over several words", "a chain of NEAR must use one distance")
			}
			g.Distance = d
			if k := p.peek().kind; k != tWord && k != tPhrase {
				return nil, p.missing(op)
			}
			n, err := p.term()
			if err != nil {
				return nil, err
			}
			if g.Terms = append(g.Terms, n); len(g.Terms) > MaxNearTerms {
				return nil, fail(op.pos, "split the NEAR group", "a NEAR group holds at most %d words and phrases", MaxNearTerms)
			}
		}
		return g, nil
	}
	return nil, p.missing(t)
}

// missing explains why t cannot start a term here.
func (p *parser) missing(t token) *syntaxError {
	prev := p.prev
	switch {
	case t.kind == tEOF && (prev.kind == tAnd || prev.kind == tOr || prev.kind == tNot || prev.kind == tNear):
		return fail(prev.pos, "add a word after it or remove it", "%s has nothing after it", prev.text)
	case t.kind == tEOF && prev.kind == tLParen:
		return fail(prev.pos, "add a word and the closing )", "the ( opened here is never closed")
	case t.kind == tAnd || t.kind == tOr || t.kind == tNot:
		hint := "add a word before it or remove it"
		if t.kind == tNot {
			hint = "NOT excludes from what comes before it: write deploy NOT staging"
		}
		return fail(t.pos, hint, "%s has nothing before it", t.text)
	case t.kind == tNear:
		return fail(t.pos, "write a NEAR b, or NEAR(a b, 10)", "NEAR needs a word on both sides")
	case t.kind == tRParen:
		return fail(t.pos, "add a word before it or remove it", ") has nothing before it")
	}
	return fail(t.pos, "", "unexpected %s", t)
}

// term reads one word or phrase.
func (p *parser) term() (*Node, *syntaxError) {
	t := p.next()
	if p.terms += max(len(t.words), 1); p.terms > MaxTerms {
		return nil, fail(t.pos, "search for fewer words", "the query holds more than %d words", MaxTerms)
	}
	if t.kind == tWord {
		return &Node{Kind: Word, Tokens: []string{t.text}, Prefix: true}, nil
	}
	return &Node{Kind: Phrase, Tokens: t.words, Prefix: t.prefix}, nil
}

// nearGroup reads NEAR(term term ... [, N]).
func (p *parser) nearGroup() (*Node, *syntaxError) {
	near := p.next()
	open := p.next()
	p.inNear = true
	defer func() { p.inNear = false }()
	g := &Node{Kind: Near, Distance: DefaultNearDistance}
	for {
		t := p.peek()
		switch t.kind {
		case tWord, tPhrase:
			n, err := p.term()
			if err != nil {
				return nil, err
			}
			if g.Terms = append(g.Terms, n); len(g.Terms) > MaxNearTerms {
				return nil, fail(t.pos, "split the NEAR group", "a NEAR group holds at most %d words and phrases", MaxNearTerms)
			}
			continue
		case tComma:
			p.next()
			d := p.next()
			if d.kind != tWord || strings.Trim(d.text, "0123456789") != "" || d.prefix {
				return nil, fail(d.pos, "write the distance as a number: NEAR(a b, 5)", "expected a distance after the comma of NEAR(")
			}
			n, err := strconv.Atoi(d.text)
			if err != nil || n > MaxNearDistance {
				return nil, fail(d.pos, fmt.Sprintf("use a distance of at most %d", MaxNearDistance), "the NEAR distance is too large")
			}
			g.Distance = n
			if c := p.peek(); c.kind != tRParen {
				return nil, fail(c.pos, "close the group after the distance: NEAR(a b, 5)", "expected ) after the NEAR distance")
			}
			fallthrough
		case tRParen:
			p.next()
			if len(g.Terms) < 2 {
				return nil, fail(near.pos, "name two or more words or phrases: NEAR(deploy nginx)", "NEAR( ) needs at least two words")
			}
			return g, nil
		case tEOF:
			return nil, fail(open.pos, "add the missing )", "the NEAR( opened here is never closed")
		default:
			return nil, fail(t.pos, "NEAR( ) holds only words, phrases and a distance: NEAR(a \"b c\", 5)", "%s cannot stand inside NEAR( )", t)
		}
	}
}

// join makes one node of kind from nodes, flattening nested nodes of the
// same kind (a AND (b AND c) is a AND b AND c).
func join(kind Kind, nodes []*Node) *Node {
	if len(nodes) == 1 {
		return nodes[0]
	}
	n := &Node{Kind: kind}
	for _, c := range nodes {
		if c.Kind == kind {
			n.Children = append(n.Children, c.Children...)
		} else {
			n.Children = append(n.Children, c)
		}
	}
	return n
}

// ---- renderers ----

// FTS5 renders n as an FTS5 MATCH expression. Every token is a quoted
// string, so nothing of the input is read as FTS5 syntax; the structure
// is written with explicit parentheses, so FTS5's precedence rules never
// apply. Plain words are prefix queries ("deploy"*); a stemmed index stems
// them before the prefix is matched.
func (n *Node) FTS5() string {
	var b strings.Builder
	n.fts5(&b)
	return b.String()
}

func (n *Node) fts5(b *strings.Builder) {
	switch n.Kind {
	case Word, Phrase:
		b.WriteByte('"')
		for i, t := range n.Tokens {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(strings.ReplaceAll(t, `"`, `""`))
		}
		b.WriteByte('"')
		if n.Prefix {
			b.WriteByte('*')
		}
	case Near:
		b.WriteString("NEAR(")
		for i, t := range n.Terms {
			if i > 0 {
				b.WriteByte(' ')
			}
			t.fts5(b)
		}
		fmt.Fprintf(b, ", %d)", n.Distance)
	default:
		op := map[Kind]string{And: " AND ", Or: " OR ", Not: " NOT "}[n.Kind]
		b.WriteByte('(')
		for i, c := range n.Children {
			if i > 0 {
				b.WriteString(op)
			}
			c.fts5(b)
		}
		b.WriteByte(')')
	}
}

// AnyFTS5 renders an FTS5 expression matching any of leaves ("" for none).
func AnyFTS5(leaves []*Node) string {
	parts := make([]string, len(leaves))
	for i, l := range leaves {
		parts[i] = l.FTS5()
	}
	return strings.Join(parts, " OR ")
}

// TSQuery renders leaf n as PostgreSQL tsquery text (for to_tsquery with
// the index's configuration): words 'deploy':*, phrases 'deploy' <->
// 'failed'. weights ("AB") are the labels of the indexed fields: a phrase
// must then lie within one of them, as FTS5 phrases lie within one column,
// and every lexeme carries the label. A NEAR group renders as all of its
// terms, which is what an index can check; the distance is for the caller
// to verify. Every lexeme is quoted, and tokens hold letters and digits
// only, so no input is read as tsquery syntax.
func (n *Node) TSQuery(weights string) string {
	switch n.Kind {
	case Word, Phrase:
		if len(n.Tokens) == 1 || len(weights) <= 1 {
			return n.phrase(weights)
		}
		alts := make([]string, len(weights))
		for i, w := range weights {
			alts[i] = "(" + n.phrase(string(w)) + ")"
		}
		return "(" + strings.Join(alts, " | ") + ")"
	case Near:
		parts := make([]string, len(n.Terms))
		for i, t := range n.Terms {
			parts[i] = "(" + t.TSQuery(weights) + ")"
		}
		return strings.Join(parts, " & ")
	}
	panic("ftsquery: TSQuery of a " + n.Kind.String())
}

// phrase renders a word or phrase with every lexeme labelled weights.
func (n *Node) phrase(weights string) string {
	parts := make([]string, len(n.Tokens))
	for i, t := range n.Tokens {
		label := weights
		if n.Prefix && i == len(n.Tokens)-1 {
			label = "*" + weights
		}
		parts[i] = quoteLexeme(t)
		if label != "" {
			parts[i] += ":" + label
		}
	}
	return strings.Join(parts, " <-> ")
}

// quoteLexeme quotes a lexeme for tsquery text, doubling quotes and
// backslashes (tokens hold neither, but the quoting does not rely on it).
func quoteLexeme(t string) string {
	return "'" + strings.NewReplacer(`'`, `''`, `\`, `\\`).Replace(t) + "'"
}

// TSTerm renders the token t of a leaf as tsquery text for one lexeme,
// as a prefix when prefix is set.
func TSTerm(t string, prefix bool) string {
	if prefix {
		return quoteLexeme(t) + ":*"
	}
	return quoteLexeme(t)
}

// AnyTSQuery renders tsquery text matching any of leaves ("" for none).
func AnyTSQuery(leaves []*Node, weights string) string {
	parts := make([]string, len(leaves))
	for i, l := range leaves {
		parts[i] = "(" + l.TSQuery(weights) + ")"
	}
	return strings.Join(parts, " | ")
}

// SQL renders n as a SQL boolean condition, leaf giving the condition and
// arguments of each leaf; arguments come back in placeholder order.
func (n *Node) SQL(leaf func(*Node) (string, []any)) (string, []any) {
	if n.Leaf() {
		return leaf(n)
	}
	op := map[Kind]string{And: " AND ", Or: " OR ", Not: " AND NOT "}[n.Kind]
	var parts []string
	var args []any
	for _, c := range n.Children {
		s, a := c.SQL(leaf)
		parts, args = append(parts, s), append(args, a...)
	}
	return "(" + strings.Join(parts, op) + ")", args
}

func (k Kind) String() string {
	switch k {
	case Word:
		return "word"
	case Phrase:
		return "phrase"
	case Near:
		return "NEAR group"
	case And:
		return "AND"
	case Or:
		return "OR"
	case Not:
		return "NOT"
	}
	return "kind " + strconv.Itoa(int(k))
}

// String renders the query in its own syntax, fully parenthesised: the
// parse made visible, for tests and logs.
func (q *Query) String() string { return q.Root.FTS5() }
