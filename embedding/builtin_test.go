package embedding

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
)

func embedOne(t *testing.T, text string) []float32 {
	t.Helper()
	vs, err := NewBuiltin().Embed(context.Background(), []string{text})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 1 || len(vs[0]) != BuiltinDims {
		t.Fatalf("Embed(%q) gave %d vectors of %d dims, want 1 of %d", text, len(vs), len(vs[0]), BuiltinDims)
	}
	return vs[0]
}

func cosine(a, b []float32) float64 {
	var d, na, nb float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return d / math.Sqrt(na*nb)
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

func TestBuiltinModelAndDims(t *testing.T) {
	b := NewBuiltin()
	if b.Model() != "baton-glove-100d-int8-v2" || b.Dims() != 100 {
		t.Fatalf("Model, Dims = %q, %d", b.Model(), b.Dims())
	}
	if err := b.Load(); err != nil {
		t.Fatal(err)
	}
	tb, _ := loaded()
	// 50,000 frequent words, some technical ones, those of the manual
	// pages; at most 70,000 (about 8 MB).
	if n := len(tb.index); n < 51000 || n > 52000 {
		t.Fatalf("table has %d words, want about 51,000", n)
	}
	// Technical words past the 50,000 most frequent come from the manual
	// pages.
	for _, w := range []string{"printf", "hexadecimal", "descriptor", "mmap", "superuser"} {
		if _, ok := tb.index[w]; !ok {
			t.Errorf("%q is not in the table", w)
		}
	}
}

func TestBuiltinIsDeterministic(t *testing.T) {
	text := "Retry the webhook delivery when the endpoint times out."
	a, b := embedOne(t, text), embedOne(t, text)
	if !slices.Equal(a, b) {
		t.Fatal("two embeddings of the same text differ")
	}
	// Same words, other case and punctuation: same tokens, same vector.
	if c := embedOne(t, "RETRY the Webhook delivery -- when the ENDPOINT times out"); !slices.Equal(a, c) {
		t.Fatal("case or punctuation changed the vector")
	}
}

func TestBuiltinVectorsAreUnitLength(t *testing.T) {
	for _, text := range []string{"cache", "the", "Connection pool exhausted under load", strings.Repeat("database index rebuild ", 500)} {
		if n := norm(embedOne(t, text)); math.Abs(n-1) > 1e-5 {
			t.Errorf("|Embed(%.30q)| = %v, want 1", text, n)
		}
	}
}

func TestBuiltinSimilarTextsAreCloserThanUnrelated(t *testing.T) {
	cases := []struct{ a, similar, unrelated string }{
		{"the database queries are slow", "SQL query latency is high", "the cat slept in the sunny garden"},
		{"the server crashed with a memory leak", "process ran out of RAM and died", "merge the feature branch into main"},
		{"user login fails with an invalid password", "authentication error when signing in", "the cache is stale after deploy"},
		{"merge the feature branch into main", "git rebase and merge a pull request", "the server crashed with a memory leak"},
		{"the cache is stale after deploy", "cached data outdated following deployment", "user login fails with an invalid password"},
		{"encrypt the password with a hash", "store credentials securely using sha256 hashing", "the football team won the match"},
	}
	for _, c := range cases {
		a, s, u := embedOne(t, c.a), embedOne(t, c.similar), embedOne(t, c.unrelated)
		if cs, cu := cosine(a, s), cosine(a, u); cs <= cu {
			t.Errorf("%q: similar %q scores %.3f, unrelated %q %.3f", c.a, c.similar, cs, c.unrelated, cu)
		}
	}
}

func TestBuiltinTextWithoutKnownWordsIsZero(t *testing.T) {
	for _, text := range []string{"", "   ", "!!! --- ### ...", "zzqxv qwzzkt xxyyzzq"} {
		if n := norm(embedOne(t, text)); n != 0 {
			t.Errorf("|Embed(%q)| = %v, want the zero vector", text, n)
		}
	}
	// Unknown words among known ones are ignored.
	if a, b := embedOne(t, "restart the server"), embedOne(t, "restart zzqxv the server qwzzkt"); !slices.Equal(a, b) {
		t.Error("unknown words changed the vector")
	}
}

func TestBuiltinEmbedsEveryTextInOrder(t *testing.T) {
	texts := []string{"database", "", "network timeout", "database"}
	vs, err := NewBuiltin().Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != len(texts) {
		t.Fatalf("got %d vectors for %d texts", len(vs), len(texts))
	}
	for i, text := range texts {
		if !slices.Equal(vs[i], embedOne(t, text)) {
			t.Errorf("vector %d is not the embedding of %q", i, text)
		}
	}
	vs[0][0] = 42 // vectors do not share memory
	if vs[3][0] == 42 {
		t.Error("two result vectors share memory")
	}
	if vs, err := NewBuiltin().Embed(context.Background(), nil); err != nil || len(vs) != 0 {
		t.Errorf("Embed(nil) = %v, %v", vs, err)
	}
}

func TestBuiltinHonoursCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewBuiltin().Embed(ctx, []string{"anything"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestBuiltinIsSafeForConcurrentUse(t *testing.T) {
	texts := []string{"deadlock in the scheduler", "rotate the TLS certificates", "flaky integration test", "disk full on the build agent"}
	want := make([][]float32, len(texts))
	for i, text := range texts {
		want[i] = embedOne(t, text)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := NewBuiltin()
			for n := 0; n < 50; n++ {
				vs, err := b.Embed(context.Background(), texts)
				if err != nil {
					errs <- err.Error()
					return
				}
				for i := range texts {
					if !slices.Equal(vs[i], want[i]) {
						errs <- "concurrent embedding of " + texts[i] + " differs"
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestTokens(t *testing.T) {
	cases := []struct{ text, want string }{
		{"Hello, World!", "hello world"},
		{"the user's token", "the user token"},
		{"the user’s token", "the user token"},
		{"don't stop; we'll see, they're here, I've, I'd, I'm", "don stop we see they here i i i"},
		{"'s alone and users' list", "s alone and users list"},
		{"HTTP/2 on port 8080", "http 2 on port 8080"},
		{"snake_case and kebab-case", "snake case and kebab case"},
		{"Café Über naïve", "café über naïve"},
		{"", ""},
		{"  ...  ", ""},
	}
	for _, c := range cases {
		var got []string
		tokens(c.text, nil, func(w []byte) { got = append(got, string(w)) })
		if s := strings.Join(got, " "); s != c.want {
			t.Errorf("tokens(%q) = %q, want %q", c.text, s, c.want)
		}
	}
}

func TestLookupFindsSingularOfUnknownPlural(t *testing.T) {
	tb, err := loaded()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ word, singular string }{
		{"retries", "retry"},     // -ies -> -y
		{"stashes", "stash"},     // -es
		{"keyrings", "keyring"},  // -s
		{"inodes", "inode"},      // -s
		{"database", "database"}, // known as is
		{"queries", "queries"},   // a plural the table has is used as is
		{"hashes", "hashes"},     // ... as the manual pages brought it
		{"databasess", ""},       // -ss is not a plural (databases is not tried)
		{"zzqxvs", ""},           // no singular either
	}
	for _, c := range cases {
		row, ok := tb.lookup([]byte(c.word))
		want, wantOK := tb.index[c.singular]
		if ok != wantOK || (ok && row != want) {
			t.Errorf("lookup(%q) = %d, %v; want the row of %q (%d, %v)", c.word, row, ok, c.singular, want, wantOK)
		}
	}
}

func TestFrequentWordsWeighLess(t *testing.T) {
	tb, err := loaded()
	if err != nil {
		t.Fatal(err)
	}
	// A text of one frequent word and one rare word points at the rare one.
	text := embedOne(t, "the deadlock")
	if cd, ct := cosine(text, embedOne(t, "deadlock")), cosine(text, embedOne(t, "the")); cd <= ct {
		t.Errorf("\"the deadlock\" is closer to \"the\" (%.3f) than to \"deadlock\" (%.3f)", ct, cd)
	}
	if the, dl := tb.index["the"], tb.index["deadlock"]; the >= dl {
		t.Errorf("rank of the (%d) not below rank of deadlock (%d): the table is not in frequency order", the, dl)
	}
}

// A one-word text is that word's table row, dequantised and normalised:
// every byte of the row counts, whatever its value.
func TestBuiltinSingleWordIsItsTableRow(t *testing.T) {
	tb, err := loaded()
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"database", "deadlock", "postgresql", "cache"} {
		row, ok := tb.index[w]
		if !ok {
			t.Fatalf("%q is not in the table", w)
		}
		// The rows are the file's tail, int8.
		base := len(tableData) - len(tb.vecs)
		raw := []byte(tableData[base+int(row)*BuiltinDims : base+int(row+1)*BuiltinDims])
		want := make([]float32, BuiltinDims)
		for d, q := range raw {
			want[d] = float32(int8(q))
		}
		n := norm(want)
		got := embedOne(t, w)
		for d := range want {
			if math.Abs(float64(got[d])-float64(want[d])/n) > 1e-6 {
				t.Fatalf("Embed(%q)[%d] = %v, want %v", w, d, got[d], float64(want[d])/n)
			}
		}
	}
}
