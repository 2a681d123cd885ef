package storetest

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/ftsquery"
)

// The search syntax group (issue 12, point 16): ListItems, SearchMessages
// and SearchLearnings read one query language (package ftsquery), and the
// same query must find the same rows on every backend. SQLite matches
// through FTS5, PostgreSQL through tsquery plus a position check for NEAR,
// so the group pins each operator's results on fixed corpora, and checks
// random queries over a random corpus against a reference evaluator of
// FTS5's semantics written here: a backend agreeing with it agrees with
// the others.

var searchSyntaxCases = []testCase{
	{"Point16Items", testPoint16Items},
	{"Point16Messages", testPoint16Messages},
	{"Point16Learnings", testPoint16Learnings},
	{"Point16LearningsPhraseBeyondPool", testPoint16PhraseBeyondPool},
	{"Point16Malformed", testPoint16Malformed},
	{"Point16RandomQueriesAgree", testPoint16Random},
}

// items searches the items of project and returns their ids, oldest first.
func (e *env) searchItems(project, text string) []string {
	e.t.Helper()
	page := e.list(baton.ItemFilter{Project: project, Search: text, Sort: baton.SortCreated})
	if page.Total != len(page.Items) {
		e.t.Errorf("search %q: Total %d, %d items", text, page.Total, len(page.Items))
	}
	return ids(page.Items)
}

func testPoint16Items(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("find", "F")
	for i, td := range [][2]string{
		{"Deploy failed on nginx", "The config error broke port 443 after the rollout."},
		{"Nginx config review", "Deploy later; the failed check was flaky."},
		{"Rollout plan", "deploy the service, then nginx waits ten minutes before the config reload"},
		{"Database migrations", "Running migrations twice must be safe."},
	} {
		it := newItem("find", td[0])
		it.Description, it.CreatedAt = td[1], at(i)
		e.create(it)
	}
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"deploy nginx", []string{"F-1", "F-2", "F-3"}},
		{"deploy AND nginx", []string{"F-1", "F-2", "F-3"}},
		{"deploy OR database", []string{"F-1", "F-2", "F-3", "F-4"}},
		{"deploy NOT rollout", []string{"F-2"}},
		{"deploy or nginx", nil}, // lower case: the word "or"
		// Precedence: juxtaposition, NOT, AND, OR.
		{"rollout OR deploy failed", []string{"F-1", "F-2", "F-3"}},
		{"(rollout OR deploy) failed", []string{"F-1", "F-2"}},
		{"deploy NOT (rollout OR flaky)", nil},
		{"database OR deploy NOT rollout", []string{"F-2", "F-4"}},
		// Phrases: written words, in order, next to each other, in one field.
		{`"deploy failed"`, []string{"F-1"}},
		{`"failed deploy"`, nil},
		{`"config error"`, []string{"F-1"}},
		{`"config err"*`, []string{"F-1"}},
		{`"config err"`, nil},
		{`"nginx the"`, nil}, // F-1's title ends "nginx", its description starts "The"
		{`"deploy"`, []string{"F-1", "F-2", "F-3"}},
		{`"deplo"`, nil},
		{"deplo", []string{"F-1", "F-2", "F-3"}},
		// Plain words keep stemming; quotes ask for the written word.
		{"migration", []string{"F-4"}},
		{`"migration"`, nil},
		{`"migrations"`, []string{"F-4"}},
		{"running", []string{"F-4"}},
		// NEAR: every term within N tokens of the one starting last, in one field.
		{"NEAR(deploy nginx, 2)", []string{"F-1"}},
		{"NEAR(deploy nginx, 3)", []string{"F-1", "F-3"}},
		{"NEAR(deploy nginx)", []string{"F-1", "F-3"}},
		{"NEAR(nginx config, 0)", []string{"F-2"}},
		{"NEAR(config nginx, 0)", []string{"F-2"}},
		{"deploy NEAR/2 nginx", []string{"F-1"}},
		{`NEAR("deploy the" nginx, 2)`, []string{"F-3"}},
		{`NEAR("deploy the" nginx, 1)`, nil},
		{"NEAR(rollout config, 0)", nil}, // F-1: one in each field
		{"NEAR(nginx deploy, 10) NOT NEAR(nginx deploy, 2)", []string{"F-3"}},
	} {
		if got := e.searchItems("find", tc.text); !eqStrings(got, tc.want) {
			t.Errorf("search %q = %q, want %q", tc.text, got, tc.want)
		}
	}
}

func (e *env) searchMessages(text string) []string {
	e.t.Helper()
	var msgs []*baton.Message
	e.view(func(tx baton.Tx) (err error) { msgs, err = tx.SearchMessages(e.ctx, "", text, "", 1000); return err })
	if msgs == nil {
		e.t.Fatalf("SearchMessages(%q) returned nil, want a non-nil slice", text)
	}
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Body
	}
	slices.Sort(out)
	return out
}

func (e *env) send(project, body string) {
	e.t.Helper()
	m := &baton.Message{Project: project, AgentID: "agent-alice", Recipient: baton.User, Role: baton.RoleAgent, Body: body}
	e.update(func(tx baton.Tx) error { return tx.SendMessage(e.ctx, m) })
}

func testPoint16Messages(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	bodies := []string{
		"Deployment failed: nginx config error on port 443",
		"The deployment of the API succeeded",
		"Redeploy after the nginx fix?",
		"don't deploy on Fridays",
		"nginx deploy finished, config error fixed",
	}
	for _, b := range bodies {
		e.send("", b)
	}
	pick := func(idx ...int) []string {
		out := []string{}
		for _, i := range idx {
			out = append(out, bodies[i-1])
		}
		slices.Sort(out)
		return out
	}
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"deploy", pick(1, 2, 4, 5)},
		{"deploy OR redeploy", pick(1, 2, 3, 4, 5)},
		{"deploy NOT nginx", pick(2, 4)},
		{"deploy nginx", pick(1, 5)},
		{"(deploy OR fix) nginx", pick(1, 3, 5)},
		{"deploy* fri*", pick(4)},
		{`"config error"`, pick(1, 5)},
		{`"error config"`, pick()},
		{`"nginx deploy"`, pick(5)},
		{`"deploy"`, pick(4, 5)}, // messages are not stemmed: not "Deployment"
		{"NEAR(nginx error, 1)", pick(1)},
		{"NEAR(nginx error, 3)", pick(1, 5)},
		{"NEAR(error nginx, 3) NOT fixed", pick(1)},
		{`NEAR("config error" nginx, 0)`, pick(1)}, // next to each other: no token between
		{`NEAR("config error" port, 0)`, pick()},
		{`NEAR("config error" port, 1)`, pick(1)},
		{"   ", pick()},
	} {
		if got := e.searchMessages(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("search %q = %q, want %q", tc.text, got, tc.want)
		}
	}
}

func testPoint16Learnings(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("lrn", "LR")
	ids := map[string]string{}
	for _, d := range []learnDoc{
		{"L1", "lrn", "Retry the deploy with backoff", "nginx config error", []string{"deploy/"}, 50, false},
		{"L2", "lrn", "Config error means a stale cache", "seen after deploy", nil, 50, false},
		{"L3", "lrn", "Backoff must be jittered", "", nil, 50, false},
	} {
		it := e.create(newItem(d.project, d.name))
		l := &baton.Learning{ItemID: it.ID, Pattern: d.pattern, Context: d.context, AppliesTo: d.appliesTo,
			Type: "pattern", QualityScore: d.quality, CreatedBy: "agent-alice"}
		e.update(func(tx baton.Tx) error { return tx.AddLearning(e.ctx, l) })
		ids[d.name] = l.ID
	}
	for _, tc := range []struct {
		text  string
		want  []string // sorted names
		field map[string]string
	}{
		{"deploy backoff", []string{"L1", "L2", "L3"}, nil}, // any word may match
		{"deploy AND backoff", []string{"L1"}, nil},
		{"backoff NOT deploy", []string{"L3"}, nil},
		{"deploy NOT \"stale cache\"", []string{"L1"}, nil},
		{`"config error"`, []string{"L1", "L2"}, map[string]string{"L1": "context", "L2": "pattern"}},
		{`"cache seen"`, nil, nil}, // L2: the end of the pattern, the start of the context
		{"NEAR(retry backoff, 3)", []string{"L1"}, map[string]string{"L1": "pattern"}},
		{"NEAR(retry backoff, 2)", nil, nil},
		{`"jittered" OR "seen after"`, []string{"L2", "L3"}, map[string]string{"L2": "context", "L3": "pattern"}},
	} {
		hits := e.searchLearnings(baton.LearningQuery{Text: tc.text, Project: "lrn", Limit: 100})
		got := hitNames(hits, ids)
		slices.Sort(got)
		if !eqStrings(got, tc.want) {
			t.Errorf("search %q = %q, want %q", tc.text, got, tc.want)
		}
		for _, h := range hits {
			name := hitNames([]baton.LearningHit{h}, ids)[0]
			if want, ok := tc.field[name]; ok && h.MatchedField != want {
				t.Errorf("search %q: %s matched in %s, want %s", tc.text, name, h.MatchedField, want)
			}
		}
	}
}

// A phrase only the unstemmed index answers is looked for there even
// when the stemmed index already filled the candidate pool (200).
func testPoint16PhraseBeyondPool(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("pool", "PO")
	host := e.create(newItem("pool", "host"))
	var zebra string
	e.update(func(tx baton.Tx) error {
		for i := range 201 {
			l := &baton.Learning{ItemID: host.ID, Pattern: fmt.Sprintf("filler note number %d", i), Type: "pattern",
				QualityScore: 50, CreatedBy: "agent-alice"}
			if i == 200 {
				l.Pattern = "zebra crossing ahead"
			}
			if err := tx.AddLearning(e.ctx, l); err != nil {
				return err
			}
			zebra = l.ID
		}
		return nil
	})
	hits := e.searchLearnings(baton.LearningQuery{Text: `filler "zebra crossing"`, Project: "pool"})
	if len(hits) != 50 || hits[0].Learning.ID != zebra {
		first := ""
		if len(hits) > 0 {
			first = hits[0].Learning.Pattern
		}
		t.Errorf("%d hits, first %q; want 50 led by the rare phrase", len(hits), first)
	}
}

func testPoint16Malformed(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("bad", "B")
	e.create(newItem("bad", "deploy nginx"))
	e.send("bad", "deploy nginx")
	searches := []struct {
		field string
		run   func(tx baton.Tx, text string) error
	}{
		{"search", func(tx baton.Tx, text string) error {
			_, err := tx.ListItems(e.ctx, baton.ItemFilter{Search: text})
			return err
		}},
		{"query", func(tx baton.Tx, text string) error {
			_, err := tx.SearchMessages(e.ctx, "", text, "", 20)
			return err
		}},
		{"query", func(tx baton.Tx, text string) error {
			_, err := tx.SearchLearnings(e.ctx, baton.LearningQuery{Text: text})
			return err
		}},
	}
	for _, tc := range []struct {
		text string
		pos  int
	}{
		{`deploy "nginx`, 8}, {`""`, 1}, {"(deploy", 1}, {"deploy)", 7}, {"()", 1}, {"deploy AND", 8}, {"OR deploy", 1},
		{"NOT deploy", 1}, {"deploy AND OR nginx", 12}, {"*", 1}, {"deploy *", 8}, {"NEAR(deploy)", 1}, {"NEAR(a b, x)", 11},
		{"!!!", 1}, {"_", 1}, {"🚀", 1}, {`"*(-:^)*"`, 1}, {strings.Repeat("(", 11) + "a" + strings.Repeat(")", 11), 11},
	} {
		for _, s := range searches {
			err := e.s.View(e.ctx, func(tx baton.Tx) error { return s.run(tx, tc.text) })
			be := baton.AsError(err)
			if err == nil || be.Code != baton.ErrInvalidInput || be.Details["field"] != s.field ||
				fmt.Sprint(be.Details["position"]) != fmt.Sprint(tc.pos) || be.Hint == "" {
				t.Errorf("%s %q: %v, want ERR_INVALID_INPUT of %s at %d with a hint", s.field, tc.text, err, s.field, tc.pos)
			}
		}
	}
	// The store answers after the failures.
	if got := e.searchItems("bad", "deploy"); !slices.Equal(got, []string{"B-1"}) {
		t.Errorf("search after malformed queries = %q", got)
	}
}

// refDoc is a document of the random corpus: its fields' tokens.
type refDoc [][]string

// refMatch evaluates n on d as FTS5 does over unstemmed lower-case tokens.
func refMatch(n *ftsquery.Node, d refDoc) bool {
	switch n.Kind {
	case ftsquery.And:
		for _, c := range n.Children {
			if !refMatch(c, d) {
				return false
			}
		}
		return true
	case ftsquery.Or:
		return slices.ContainsFunc(n.Children, func(c *ftsquery.Node) bool { return refMatch(c, d) })
	case ftsquery.Not:
		return refMatch(n.Children[0], d) && !refMatch(n.Children[1], d)
	case ftsquery.Near:
		for _, field := range d {
			starts := make([][]int, len(n.Terms))
			for i, t := range n.Terms {
				starts[i] = refStarts(t, field)
			}
			// Some start m is the latest, and every term starts at most its
			// length plus the distance before it.
			for _, s := range starts {
				for _, m := range s {
					clump := true
					for i, t := range n.Terms {
						clump = clump && slices.ContainsFunc(starts[i], func(p int) bool { return p <= m && p >= m-len(t.Tokens)-n.Distance })
					}
					if clump {
						return true
					}
				}
			}
		}
		return false
	}
	return slices.ContainsFunc(d, func(field []string) bool { return len(refStarts(n, field)) > 0 })
}

// refStarts lists where word or phrase n starts in field.
func refStarts(n *ftsquery.Node, field []string) []int {
	var out []int
	for s := 0; s+len(n.Tokens) <= len(field); s++ {
		ok := true
		for j, tok := range n.Tokens {
			tok = strings.ToLower(tok)
			if n.Prefix && j == len(n.Tokens)-1 {
				ok = ok && strings.HasPrefix(field[s+j], tok)
			} else {
				ok = ok && field[s+j] == tok
			}
		}
		if ok {
			out = append(out, s)
		}
	}
	return out
}

// point16Vocab are words no stemmer changes, so stemmed and written
// matches agree and the reference needs no stemmer; "q" and "v" prefix two
// each.
var point16Vocab = []string{"qk", "qz", "vk", "vz", "xk", "xz"}

func randomField(r *rand.Rand, least int) []string {
	words := make([]string, least+r.Intn(6))
	for i := range words {
		words[i] = point16Vocab[r.Intn(len(point16Vocab))]
	}
	return words
}

func randomSearch(r *rand.Rand, depth int) string {
	term := func() string {
		w := point16Vocab[r.Intn(len(point16Vocab))]
		switch r.Intn(5) {
		case 0:
			return w[:1] // a prefix of two words
		case 1:
			return `"` + w + " " + point16Vocab[r.Intn(len(point16Vocab))] + `"`
		case 2:
			return `"` + w + " " + point16Vocab[r.Intn(len(point16Vocab))][:1] + `"*`
		case 3:
			return `"` + w + `"`
		}
		return w
	}
	if depth <= 0 {
		return term()
	}
	switch r.Intn(7) {
	case 0:
		return randomSearch(r, depth-1) + " OR " + randomSearch(r, depth-1)
	case 1:
		return randomSearch(r, depth-1) + " AND " + randomSearch(r, depth-1)
	case 2:
		return randomSearch(r, depth-1) + " NOT " + randomSearch(r, depth-1)
	case 3:
		return randomSearch(r, depth-1) + " " + randomSearch(r, depth-1)
	case 4:
		return "(" + randomSearch(r, depth-1) + ")"
	case 5:
		return fmt.Sprintf("NEAR(%s %s %s, %d)", term(), term(), term(), r.Intn(4))
	}
	return term()
}

func testPoint16Random(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("rnd", "R")
	r := rand.New(rand.NewSource(1612))
	const docs = 40
	var items, msgs, learns []refDoc
	itemIDs, bodies, learnIDs := map[string]int{}, map[string]int{}, map[string]int{}
	for i := range docs {
		title, desc := randomField(r, 1), randomField(r, 0)
		it := newItem("rnd", strings.Join(title, " "))
		it.Description, it.CreatedAt = strings.Join(desc, " "), at(i)
		e.create(it)
		items, itemIDs[it.ID] = append(items, refDoc{title, desc}), i

		body := fmt.Sprintf("%s m%d", strings.Join(randomField(r, 1), " "), i) // unique bodies
		e.send("rnd", body)
		msgs, bodies[body] = append(msgs, refDoc{strings.Fields(body)}), i

		pattern, context, applies := randomField(r, 1), randomField(r, 0), randomField(r, 0)
		host := e.create(newItem("rnd", "host"))
		l := &baton.Learning{ItemID: host.ID, Pattern: strings.Join(pattern, " "), Context: strings.Join(context, " "),
			AppliesTo: applies, Type: "pattern", QualityScore: 50, CreatedBy: "agent-alice"}
		e.update(func(tx baton.Tx) error { return tx.AddLearning(e.ctx, l) })
		// applies_to is indexed as its entries joined by spaces: one field.
		learns, learnIDs[l.ID] = append(learns, refDoc{pattern, context, applies}), i
	}
	want := func(q *ftsquery.Query, corpus []refDoc) []int {
		out := []int{}
		for i, d := range corpus {
			if refMatch(q.Root, d) {
				out = append(out, i)
			}
		}
		return out
	}
	index := func(names []string, of map[string]int) []int {
		out := []int{}
		for _, n := range names {
			out = append(out, of[n])
		}
		slices.Sort(out)
		return out
	}
	telling := 0
	for range 120 {
		text := randomSearch(r, 3)
		all, err := ftsquery.Parse(text, ftsquery.Options{})
		if err != nil {
			t.Fatalf("generated query %q: %v", text, err)
		}
		anyWord, _ := ftsquery.Parse(text, ftsquery.Options{AnyWord: true})

		itemsWant := want(all, items)
		if len(itemsWant) > 0 && len(itemsWant) < docs {
			telling++
		}
		page := e.list(baton.ItemFilter{Project: "rnd", Search: text})
		var got []string
		for _, it := range page.Items {
			if it.Title != "host" {
				got = append(got, it.ID)
			}
		}
		if g := index(got, itemIDs); !slices.Equal(g, itemsWant) {
			t.Errorf("items %q (%s): %v, want %v", text, all, g, itemsWant)
		}
		var found []string
		e.view(func(tx baton.Tx) error {
			ms, err := tx.SearchMessages(e.ctx, "rnd", text, "", 1000)
			for _, m := range ms {
				found = append(found, m.Body)
			}
			return err
		})
		if g := index(found, bodies); !slices.Equal(g, want(all, msgs)) {
			t.Errorf("messages %q (%s): %v, want %v", text, all, g, want(all, msgs))
		}
		var hits []string
		for _, h := range e.searchLearnings(baton.LearningQuery{Text: text, Project: "rnd", Limit: 100}) {
			hits = append(hits, h.Learning.ID)
		}
		if g := index(hits, learnIDs); !slices.Equal(g, want(anyWord, learns)) {
			t.Errorf("learnings %q (%s): %v, want %v", text, anyWord, g, want(anyWord, learns))
		}
	}
	if telling < 60 {
		t.Errorf("only %d of the random queries matched some items but not all", telling)
	}
}
