package ftsquery_test

import (
	"database/sql"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/ftsquery"
)

// Issue 12, point 16: one safe parser for every search. These tests pin
// the syntax (what parses to what), the errors (position and hint), FTS5's
// precedence (checked against FTS5 itself), and, by fuzzing, that no input
// panics or yields text FTS5 or PostgreSQL would reject.

func parse(t testing.TB, text string, anyWord bool) *ftsquery.Query {
	t.Helper()
	q, err := ftsquery.Parse(text, ftsquery.Options{AnyWord: anyWord})
	if err != nil {
		t.Fatalf("Parse(%q): %v", text, err)
	}
	return q
}

func TestPoint16SyntaxParses(t *testing.T) {
	for _, tc := range []struct {
		text, want string
		anyWord    bool
	}{
		{text: "deploy", want: `"deploy"*`},
		{text: "deploy nginx", want: `("deploy"* AND "nginx"*)`},
		{text: "deploy nginx", want: `("deploy"* OR "nginx"*)`, anyWord: true},
		{text: "DEPLOY failed", want: `("DEPLOY"* AND "failed"*)`},
		{text: "deploy* nginx*", want: `("deploy"* AND "nginx"*)`},
		{text: "a OR b", want: `("a"* OR "b"*)`},
		{text: "a AND b", want: `("a"* AND "b"*)`},
		{text: "a and b or not c", want: `("a"* AND "and"* AND "b"* AND "or"* AND "not"* AND "c"*)`},
		{text: "a NOT b", want: `("a"* NOT "b"*)`},
		// FTS5's precedence: juxtaposition, NOT, AND, OR.
		{text: "a OR b c", want: `("a"* OR ("b"* AND "c"*))`},
		{text: "a OR b AND c", want: `("a"* OR ("b"* AND "c"*))`},
		{text: "a b NOT c", want: `(("a"* AND "b"*) NOT "c"*)`},
		{text: "a NOT b c", want: `("a"* NOT ("b"* AND "c"*))`},
		{text: "a NOT b AND c", want: `(("a"* NOT "b"*) AND "c"*)`},
		{text: "a NOT b NOT c", want: `(("a"* NOT "b"*) NOT "c"*)`},
		{text: "a OR b c", want: `("a"* OR "b"* OR "c"*)`, anyWord: true},
		{text: "(a) (b)", want: `("a"* AND "b"*)`}, // FTS5 itself refuses to juxtapose groups
		{text: "(a OR b) c", want: `(("a"* OR "b"*) AND "c"*)`},
		{text: "((a))", want: `"a"*`},
		{text: "a AND (b AND c)", want: `("a"* AND "b"* AND "c"*)`},
		{text: `"deploy failed"`, want: `"deploy failed"`},
		{text: `"deploy fail"*`, want: `"deploy fail"*`},
		{text: `"deploy"`, want: `"deploy"`},
		{text: `"a ""quoted"" word"`, want: `"a quoted word"`},
		{text: `"OR AND NOT NEAR(x)"`, want: `"OR AND NOT NEAR x"`},
		{text: "NEAR(deploy nginx)", want: `NEAR("deploy"* "nginx"*, 10)`},
		{text: `NEAR(deploy "config error", 3)`, want: `NEAR("deploy"* "config error", 3)`},
		{text: "NEAR (a b,0)", want: `NEAR("a"* "b"*, 0)`},
		{text: "a NEAR b", want: `NEAR("a"* "b"*, 10)`},
		{text: "a NEAR/2 b NEAR/2 c", want: `NEAR("a"* "b"* "c"*, 2)`},
		{text: "x a NEAR/2 b OR c", want: `(("x"* AND NEAR("a"* "b"*, 2)) OR "c"*)`},
		// Other punctuation separates words; operators need a clear edge.
		{text: "don't", want: `("don"* AND "t"*)`},
		{text: "main.go sqlite/records_go", want: `("main"* AND "go"* AND "sqlite"* AND "records"* AND "go"*)`},
		{text: "a, b", want: `("a"* AND "b"*)`},
		{text: "AND_x -NOT OR:", want: `("AND"* AND "x"* AND "NOT"* AND "OR"*)`},
		{text: "'; DROP TABLE x; --", want: `("DROP"* AND "TABLE"* AND "x"*)`},
		{text: "Café 日本語 🚀", want: `("Café"* AND "日本語"*)`},
		{text: "AND*", want: `"AND"*`},
	} {
		if got := parse(t, tc.text, tc.anyWord).String(); got != tc.want {
			t.Errorf("Parse(%q, any %v) = %s, want %s", tc.text, tc.anyWord, got, tc.want)
		}
	}
}

func TestPoint16SyntaxErrors(t *testing.T) {
	long := strings.Repeat("a", ftsquery.MaxLength+1)
	many := strings.TrimSpace(strings.Repeat("w ", ftsquery.MaxTerms+1))
	deep := strings.Repeat("(", ftsquery.MaxDepth+1) + "a" + strings.Repeat(")", ftsquery.MaxDepth+1)
	for _, tc := range []struct {
		text    string
		pos     int
		message string
	}{
		{"", 1, "no words"},
		{"!!! ---", 1, "no words"},
		{"🚀", 1, "no words"},
		{`"deploy failed`, 1, "never closed"},
		{`deploy "failed`, 8, "never closed"},
		{`""`, 1, "phrase has no words"},
		{`deploy "*(-:^)*"`, 8, "phrase has no words"},
		{"(deploy", 1, "( opened here is never closed"},
		{"deploy (", 8, "( opened here is never closed"},
		{"deploy)", 7, ") has no ( to close"},
		{"()", 1, "parentheses are empty"},
		{"deploy AND", 8, "AND has nothing after it"},
		{"deploy OR", 8, "OR has nothing after it"},
		{"deploy NOT", 8, "NOT has nothing after it"},
		{"AND deploy", 1, "AND has nothing before it"},
		{"NOT deploy", 1, "NOT has nothing before it"},
		{"a AND OR b", 7, "OR has nothing before it"},
		{"(OR a)", 2, "OR has nothing before it"},
		{"*", 1, "* must directly follow"},
		{"deploy *", 8, "* must directly follow"},
		{"deploy**", 8, "* must directly follow"},
		{"wide:*", 6, "* must directly follow"},
		{"NEAR", 1, "NEAR needs a word on both sides"},
		{"deploy NEAR", 8, "NEAR needs a word on both sides"},
		{"(a) NEAR b", 5, "NEAR needs a word on both sides"},
		{"a NEAR/x b", 3, "NEAR/ must be followed by a number"},
		{"a NEAR/2 b NEAR/3 c", 12, "one distance"},
		{"a NEAR/1001 b", 8, "too large"},
		{"NEAR(a)", 1, "at least two"},
		{"NEAR(a b", 5, "NEAR( opened here is never closed"},
		{"NEAR(a b, x)", 11, "expected a distance"},
		{"NEAR(a b, 5 c)", 13, "expected )"},
		{"NEAR(a b, 1001)", 11, "too large"},
		{"NEAR(a (b))", 8, "cannot stand inside NEAR"},
		{"NEAR(a OR b)", 8, "cannot stand inside NEAR"},
		{"NEAR(a b c d e f g h i)", 22, "at most 8"},
		{long, ftsquery.MaxLength + 1, "longer than 500"},
		{many, 2*ftsquery.MaxTerms + 1, "more than 64 words"},
		{deep, ftsquery.MaxDepth + 1, "deeper than 10"},
	} {
		_, err := ftsquery.Parse(tc.text, ftsquery.Options{Field: "search"})
		var e *baton.Error
		if !errors.As(err, &e) {
			t.Errorf("Parse(%.40q) = %v, want a *baton.Error", tc.text, err)
			continue
		}
		if e.Code != baton.ErrInvalidInput || e.Details["field"] != "search" || e.Details["position"] != tc.pos ||
			e.Details["constraint"] != "syntax" {
			t.Errorf("Parse(%.40q): %s %v, want ERR_INVALID_INPUT at position %d of search", tc.text, e.Code, e.Details, tc.pos)
		}
		if !strings.Contains(e.Message, tc.message) || !strings.HasPrefix(e.Message, "search: ") ||
			!strings.Contains(e.Message, fmt.Sprintf("at character %d", tc.pos)) {
			t.Errorf("Parse(%.40q): message %q, want it to name search, %q and character %d", tc.text, e.Message, tc.message, tc.pos)
		}
		if !strings.Contains(e.Hint, `"exact phrase", prefix*, NEAR(a b, 10)`) {
			t.Errorf("Parse(%.40q): hint %q does not show the syntax", tc.text, e.Hint)
		}
	}
	// The limits themselves parse.
	for _, text := range []string{
		strings.Repeat("a", ftsquery.MaxLength),
		strings.TrimSpace(strings.Repeat("w ", ftsquery.MaxTerms)),
		strings.Repeat("(", ftsquery.MaxDepth) + "a" + strings.Repeat(")", ftsquery.MaxDepth),
		"NEAR(a b c d e f g h, 1000)",
	} {
		parse(t, text, false)
	}
}

func TestPoint16TSQueryRenders(t *testing.T) {
	q := parse(t, `deploy "config error"* NEAR(a "b c", 3) NOT x`, false)
	var got []string
	for _, l := range q.Leaves() {
		got = append(got, l.TSQuery("AB"))
	}
	want := []string{
		`'deploy':*AB`,
		`(('config':A <-> 'error':*A) | ('config':B <-> 'error':*B))`,
		`('a':*AB) & ((('b':A <-> 'c':A) | ('b':B <-> 'c':B)))`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("leaves render\n%q\nwant\n%q", got, want)
	}
	if got := ftsquery.AnyTSQuery(q.Leaves()[:2], ""); got != `('deploy':*) | ('config' <-> 'error':*)` {
		t.Errorf("AnyTSQuery = %s", got)
	}
	sqlText, args := q.Root.SQL(func(n *ftsquery.Node) (string, []any) { return "m(?)", []any{n.Kind.String()} })
	if sqlText != "((m(?) AND m(?) AND m(?)) AND NOT m(?))" || fmt.Sprint(args) != "[word phrase NEAR group word]" {
		t.Errorf("SQL = %s %v", sqlText, args)
	}
	if q.AnyOf() || !parse(t, "a OR (b OR \"c d\")", false).AnyOf() || !parse(t, "a b", true).AnyOf() {
		t.Error("AnyOf is wrong")
	}
}

// fts5DB is an in-memory SQLite database with FTS5 tables tokenized as
// baton's are, shared by the tests of this file.
var fts5DB = sync.OnceValues(func() (*sql.DB, error) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	for _, stmt := range []string{
		`CREATE VIRTUAL TABLE words USING fts5(x, y, tokenize = 'unicode61 remove_diacritics 2')`,
		`CREATE VIRTUAL TABLE stems USING fts5(x, y, tokenize = 'porter unicode61 remove_diacritics 2')`,
		`INSERT INTO words (x, y) VALUES ('deploy the nginx config', 'Café résumé 日本語')`,
		`INSERT INTO stems (x, y) VALUES ('deploy the nginx config', 'Café résumé 日本語')`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			return nil, err
		}
	}
	return db, nil
})

// letterDocs fills the table letters with n random documents of the
// tokens a, b, c and d: single letters, so a prefix query matches exactly
// the letter and baton's prefix words compare with FTS5's plain ones.
func letterDocs(t testing.TB, db *sql.DB, n int) {
	t.Helper()
	if _, err := db.Exec(`CREATE VIRTUAL TABLE letters USING fts5(x, y, tokenize = 'unicode61')`); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(16))
	doc := func() string {
		words := make([]string, r.Intn(7))
		for i := range words {
			words[i] = string(rune('a' + r.Intn(4)))
		}
		return strings.Join(words, " ")
	}
	for range n {
		if _, err := db.Exec(`INSERT INTO letters (x, y) VALUES (?, ?)`, doc(), doc()); err != nil {
			t.Fatal(err)
		}
	}
}

func rowids(t testing.TB, db *sql.DB, table, match string) []int64 {
	t.Helper()
	rows, err := db.Query(`SELECT rowid FROM `+table+` WHERE `+table+` MATCH ? ORDER BY rowid`, match)
	if err != nil {
		t.Fatalf("MATCH %q: %v", match, err)
	}
	defer rows.Close()
	out := []int64{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		out = append(out, id)
	}
	return out
}

// randomQuery writes a query in the syntax FTS5 and baton share.
func randomQuery(r *rand.Rand, depth int) string {
	term := func() string {
		if r.Intn(4) == 0 {
			return `"` + string(rune('a'+r.Intn(4))) + " " + string(rune('a'+r.Intn(4))) + `"`
		}
		return string(rune('a' + r.Intn(4)))
	}
	if depth <= 0 {
		return term()
	}
	switch r.Intn(7) {
	case 0:
		return randomQuery(r, depth-1) + " OR " + randomQuery(r, depth-1)
	case 1:
		return randomQuery(r, depth-1) + " AND " + randomQuery(r, depth-1)
	case 2:
		return randomQuery(r, depth-1) + " NOT " + randomQuery(r, depth-1)
	case 3:
		return randomQuery(r, depth-1) + " " + randomQuery(r, depth-1)
	case 4:
		return "(" + randomQuery(r, depth-1) + ")"
	case 5:
		return fmt.Sprintf("NEAR(%s %s %s, %d)", term(), term(), term(), r.Intn(4))
	}
	return term()
}

// FTS5 itself is the judge of precedence and NEAR: the raw query and
// baton's rendering of it must match the same documents.
func TestPoint16PrecedenceAndNearAsFTS5(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	letterDocs(t, db, 300)
	r := rand.New(rand.NewSource(1216))
	queries := []string{"a b NOT c", "a NOT b c", "a OR b c", "a NOT b AND c", "a NOT b NOT c", "NEAR(a a)",
		`NEAR("a b" "b c", 0)`, "NEAR(a b c, 1)", "NEAR(a d, 0) OR NEAR(b c, 2) NOT d"}
	for range 400 {
		queries = append(queries, randomQuery(r, 3))
	}
	compared, telling := 0, 0 // telling: matched some documents, not all
	for _, text := range queries {
		var want []int64
		if err := func() (err error) {
			rows, err := db.Query(`SELECT rowid FROM letters WHERE letters MATCH ? ORDER BY rowid`, text)
			if err != nil {
				return err
			}
			rows.Close()
			want = rowids(t, db, "letters", text)
			return nil
		}(); err != nil {
			continue // baton reads more than FTS5: (a) (b) is a syntax error there
		}
		compared++
		if len(want) > 0 && len(want) < 300 {
			telling++
		}
		rendered := parse(t, text, false).String()
		if got := rowids(t, db, "letters", rendered); !slices.Equal(got, want) {
			t.Errorf("%s: rendered %s matches %v, FTS5 %v", text, rendered, got, want)
		}
	}
	t.Logf("%d compared, %d telling", compared, telling)
	if compared < 300 || telling < 200 {
		t.Errorf("only %d of %d queries compared, %d telling", compared, len(queries), telling)
	}
}

// pgDB is the PostgreSQL database of BATON_TEST_POSTGRES_URL, if set.
var pgDB = sync.OnceValues(func() (*sql.DB, error) {
	url := os.Getenv("BATON_TEST_POSTGRES_URL")
	if url == "" {
		return nil, nil
	}
	return sql.Open("pgx", url)
})

// FuzzPoint16Parse: no input panics the parser, and whatever parses
// renders into text FTS5 (and PostgreSQL's to_tsquery, when a database is
// configured) accepts, and reads back the same. The seeds run with every
// `go test`; `go test -fuzz FuzzPoint16Parse ./ftsquery/` searches further.
func FuzzPoint16Parse(f *testing.F) {
	for _, s := range []string{
		"deploy", "deploy nginx", `"deploy failed"`, `"deploy fail"*`, "deploy*", "a OR b c", "a NOT b", "(a OR b) NOT c",
		"NEAR(a b, 3)", `NEAR("a b" c)`, "a NEAR/2 b", `"`, `""`, `"""`, "*", "**", "()", "(", ")", "AND", "OR b", "NOT",
		"NEAR(", "NEAR(a b,", "NEAR(a b, 99999999999999999999)", "a NEAR/", `'; DROP TABLE messages; --`, `\`, "%", "_",
		"deploy\x00", "ünïcödé 日本語 🚀", "\xff\xfe", "{x}: deploy", "x:deploy", "^a + b - c", `"a""b"`, "a\u00a0b",
		strings.Repeat("(", 12) + "a", strings.Repeat("a OR ", 70) + "a", "NEAR(a b c d e f g h i)", "a\u0301b", "ʰ ² Ⅻ \U000F0000",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, text string, anyWord bool) {
		q, err := ftsquery.Parse(text, ftsquery.Options{Field: "query", AnyWord: anyWord})
		if err != nil {
			var e *baton.Error
			if !errors.As(err, &e) || e.Code != baton.ErrInvalidInput || e.Details["position"] == nil || e.Hint == "" {
				t.Fatalf("Parse(%q) failed without position and hint: %v", text, err)
			}
			return
		}
		db, err := fts5DB()
		if err != nil {
			t.Fatal(err)
		}
		rendered := q.String()
		leaves := q.Leaves()
		for _, table := range []string{"words", "stems"} {
			for _, match := range []string{rendered, ftsquery.AnyFTS5(leaves), "{x} : (" + ftsquery.AnyFTS5(leaves) + ")"} {
				if _, err := db.Exec(`SELECT rowid FROM `+table+` WHERE `+table+` MATCH ?`, match); err != nil {
					t.Fatalf("Parse(%q) rendered %q, which FTS5 rejects: %v", text, match, err)
				}
			}
		}
		// The rendering is itself a query that renders the same.
		if again := parse(t, rendered, anyWord).String(); again != rendered {
			t.Fatalf("Parse(%q) rendered %s, which reads back as %s", text, rendered, again)
		}
		pg, err := pgDB()
		if err != nil {
			t.Fatal(err)
		}
		if pg == nil {
			return
		}
		for _, weights := range []string{"", "AB"} {
			tsq := []string{ftsquery.AnyTSQuery(leaves, weights)}
			for _, l := range leaves {
				tsq = append(tsq, l.TSQuery(weights))
				for _, term := range append(slices.Clone(l.Terms), l) {
					for i, tok := range term.Tokens {
						tsq = append(tsq, ftsquery.TSTerm(tok, i == 0))
					}
				}
			}
			for _, s := range tsq {
				var out string
				if err := pg.QueryRow(`SELECT to_tsquery('simple', $1)::text`, s).Scan(&out); err != nil {
					t.Fatalf("Parse(%q) rendered tsquery %q, which PostgreSQL rejects: %v", text, s, err)
				}
			}
		}
	})
}
