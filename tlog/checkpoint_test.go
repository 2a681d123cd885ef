package tlog_test

import (
	"bytes"
	"encoding/base64"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"

	"github.com/baton-dev/baton/tlog"
)

// testKey is a fresh log key named origin: signer, verifier and the
// verifier key text.
func testKey(t *testing.T, origin string) (note.Signer, note.Verifier, string) {
	t.Helper()
	skey, vkey, err := tlog.GenerateKey(origin)
	if err != nil {
		t.Fatalf("GenerateKey(%q): %v", origin, err)
	}
	s, err := note.NewSigner(skey)
	if err != nil {
		t.Fatalf("NewSigner: %v", err)
	}
	v, err := note.NewVerifier(vkey)
	if err != nil {
		t.Fatalf("NewVerifier(%q): %v", vkey, err)
	}
	return s, v, vkey
}

// testCheckpoint signs the checkpoint of the first size of leaves "leaf i".
func testCheckpoint(t *testing.T, s note.Signer, size int) *tlog.Checkpoint {
	t.Helper()
	root := tlog.Root(leafHashes(testData(size)))
	cp, err := tlog.Sign(s, uint64(size), root)
	if err != nil {
		t.Fatalf("Sign(%d): %v", size, err)
	}
	return cp
}

// TestSignNoteFormat shows a signed checkpoint's Note is exactly the C2SP
// tlog-checkpoint signed note: origin, decimal size, standard base64 root,
// a blank line, then one "— <key name> <base64>" signature line whose
// payload is the 4-byte key hash and a 64-byte Ed25519 signature; and that
// the Checkpoint's fields say the same.
func TestSignNoteFormat(t *testing.T) {
	const origin = "example.com/log/test"
	s, v, _ := testKey(t, origin)
	for _, size := range []uint64{0, 1, 7, 1000, 1 << 40, ^uint64(0)} {
		root := tlog.LeafHash([]byte(strconv.FormatUint(size, 10)))
		if size == 0 {
			root = tlog.EmptyRoot()
		}
		cp, err := tlog.Sign(s, size, root)
		if err != nil {
			t.Fatalf("Sign(%d): %v", size, err)
		}
		if cp.Origin != origin || cp.Size != size || !bytes.Equal(cp.Root, root) {
			t.Errorf("Sign(%d) = {%q %d %x}, want {%q %d %x}", size, cp.Origin, cp.Size, cp.Root, origin, size, root)
		}
		text := string(cp.Note)
		if !strings.HasSuffix(text, "\n") {
			t.Fatalf("note does not end in a newline: %q", text)
		}
		lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
		if len(lines) != 5 {
			t.Fatalf("note has %d lines, want 5 (3 body, blank, signature):\n%s", len(lines), text)
		}
		if lines[0] != origin {
			t.Errorf("line 1 = %q, want the origin %q", lines[0], origin)
		}
		if lines[1] != strconv.FormatUint(size, 10) {
			t.Errorf("line 2 = %q, want %d in decimal", lines[1], size)
		}
		if lines[2] != base64.StdEncoding.EncodeToString(root) {
			t.Errorf("line 3 = %q, want the root in standard base64 %q", lines[2], base64.StdEncoding.EncodeToString(root))
		}
		if lines[3] != "" {
			t.Errorf("line 4 = %q, want a blank line", lines[3])
		}
		prefix := "\u2014 " + origin + " "
		if !strings.HasPrefix(lines[4], prefix) {
			t.Fatalf("line 5 = %q, want it to start with %q", lines[4], prefix)
		}
		sig, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(lines[4], prefix))
		if err != nil {
			t.Fatalf("signature is not standard base64: %v", err)
		}
		if len(sig) != 4+64 {
			t.Errorf("signature is %d bytes, want 4 (key hash) + 64 (Ed25519)", len(sig))
		}
		if h := uint32(sig[0])<<24 | uint32(sig[1])<<16 | uint32(sig[2])<<8 | uint32(sig[3]); h != v.KeyHash() {
			t.Errorf("signature key hash %08x, want %08x", h, v.KeyHash())
		}
	}
}

// TestOpen shows Open with the signing key's verifier key, and OpenWith
// with its verifier, give back the signed origin, size and root and the
// note itself; surrounding whitespace in the key text is tolerated.
func TestOpen(t *testing.T) {
	const origin = "example.com/log/open"
	s, v, vkey := testKey(t, origin)
	cp := testCheckpoint(t, s, 42)
	for name, open := range map[string]func() (*tlog.Checkpoint, error){
		"Open":           func() (*tlog.Checkpoint, error) { return tlog.Open(cp.Note, vkey) },
		"Open/spaces":    func() (*tlog.Checkpoint, error) { return tlog.Open(cp.Note, "  "+vkey+"\n") },
		"OpenWith":       func() (*tlog.Checkpoint, error) { return tlog.OpenWith(cp.Note, v) },
		"Open/cloneNote": func() (*tlog.Checkpoint, error) { return tlog.Open(bytes.Clone(cp.Note), vkey) },
	} {
		got, err := open()
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got.Origin != origin || got.Size != 42 || !bytes.Equal(got.Root, cp.Root) || !bytes.Equal(got.Note, cp.Note) {
			t.Errorf("%s = {%q %d %x}, want {%q 42 %x}", name, got.Origin, got.Size, got.Root, origin, cp.Root)
		}
	}
}

// TestOpenWrongKey shows a checkpoint does not open with another log's key,
// nor with a different key of the same name, nor with text that is not a
// verifier key.
func TestOpenWrongKey(t *testing.T) {
	s, _, _ := testKey(t, "example.com/log/a")
	cp := testCheckpoint(t, s, 3)
	_, otherV, otherKey := testKey(t, "example.com/log/b")
	if got, err := tlog.Open(cp.Note, otherKey); err == nil {
		t.Errorf("Open with another origin's key = %+v, want an error", got)
	}
	if got, err := tlog.OpenWith(cp.Note, otherV); err == nil {
		t.Errorf("OpenWith another origin's verifier = %+v, want an error", got)
	}
	_, sameNameV, sameNameKey := testKey(t, "example.com/log/a")
	if got, err := tlog.Open(cp.Note, sameNameKey); err == nil {
		t.Errorf("Open with another key of the same name = %+v, want an error", got)
	}
	if got, err := tlog.OpenWith(cp.Note, sameNameV); err == nil {
		t.Errorf("OpenWith another verifier of the same name = %+v, want an error", got)
	}
	for _, bad := range []string{"", "not a key", "PRIVATE+KEY+x+00000000+AAAA"} {
		if _, err := tlog.Open(cp.Note, bad); err == nil {
			t.Errorf("Open with key %q did not fail", bad)
		}
	}
}

// TestOpenTampered shows a note whose size, root, origin or signature was
// changed does not open, while Parse (which does not check the signature)
// reads the changed values.
func TestOpenTampered(t *testing.T) {
	const origin = "example.com/log/t"
	s, _, vkey := testKey(t, origin)
	cp := testCheckpoint(t, s, 12)
	text := string(cp.Note)
	b64 := base64.StdEncoding.EncodeToString(cp.Root)
	badRoot := bytes.Clone(cp.Root)
	badRoot[5] ^= 0x01
	badB64 := base64.StdEncoding.EncodeToString(badRoot)

	sigStart := strings.Index(text, "\u2014 ")
	sigLine := text[sigStart:]
	sigB64 := strings.TrimSuffix(strings.TrimPrefix(sigLine, "\u2014 "+origin+" "), "\n")
	sig, err := base64.StdEncoding.DecodeString(sigB64)
	if err != nil {
		t.Fatal(err)
	}
	sig[len(sig)-1] ^= 0x01
	badSig := text[:sigStart] + "\u2014 " + origin + " " + base64.StdEncoding.EncodeToString(sig) + "\n"

	cases := map[string]struct {
		text    string
		size    uint64
		root    []byte
		parseOK bool
	}{
		"size":      {strings.Replace(text, "\n12\n", "\n13\n", 1), 13, cp.Root, true},
		"root":      {strings.Replace(text, b64, badB64, 1), 12, badRoot, true},
		"origin":    {strings.Replace(text, origin+"\n", origin+"x\n", 1), 12, cp.Root, true},
		"signature": {badSig, 12, cp.Root, true},
		"no sigs":   {text[:sigStart], 12, cp.Root, true},
	}
	for name, c := range cases {
		if c.text == text {
			t.Fatalf("%s: the tampering changed nothing", name)
		}
		if got, err := tlog.Open([]byte(c.text), vkey); err == nil {
			t.Errorf("%s: tampered note opened: %+v", name, got)
		}
		p, err := tlog.Parse([]byte(c.text))
		if err != nil {
			t.Errorf("%s: Parse: %v", name, err)
			continue
		}
		if p.Size != c.size || !bytes.Equal(p.Root, c.root) {
			t.Errorf("%s: Parse = {%d %x}, want {%d %x}", name, p.Size, p.Root, c.size, c.root)
		}
	}
}

// TestParse shows Parse reads origin, size and root of a signed note
// without a key, and refuses text that is not a checkpoint note.
func TestParse(t *testing.T) {
	const origin = "example.com/log/p"
	s, _, _ := testKey(t, origin)
	cp := testCheckpoint(t, s, 9)
	p, err := tlog.Parse(cp.Note)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if p.Origin != origin || p.Size != 9 || !bytes.Equal(p.Root, cp.Root) || !bytes.Equal(p.Note, cp.Note) {
		t.Errorf("Parse = {%q %d %x}, want {%q 9 %x}", p.Origin, p.Size, p.Root, origin, cp.Root)
	}
	body := string(cp.Note[:bytes.Index(cp.Note, []byte("\n\n"))+1])
	for name, bad := range map[string]string{
		"empty":        "",
		"no blank":     body,
		"garbage":      "hello\nworld\n\n\u2014 x AAAA\n",
		"size not int": strings.Replace(string(cp.Note), "\n9\n", "\nnine\n", 1),
		"bad base64":   strings.Replace(string(cp.Note), base64.StdEncoding.EncodeToString(cp.Root), "!!!", 1),
		"two lines":    origin + "\n9\n\n\u2014 x AAAA\n",
	} {
		if got, err := tlog.Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%s) = %+v, want an error", name, got)
		}
	}
}

// signedPadded signs a checkpoint note whose body has an extension line
// padding the whole note to exactly total bytes.
func signedPadded(t *testing.T, s note.Signer, total int) []byte {
	t.Helper()
	body := func(pad int) string {
		return s.Name() + "\n1\n" + base64.StdEncoding.EncodeToString(tlog.LeafHash(nil)) + "\n" + strings.Repeat("p", pad) + "\n"
	}
	msg, err := note.Sign(&note.Note{Text: body(1)}, s)
	if err != nil {
		t.Fatal(err)
	}
	msg, err = note.Sign(&note.Note{Text: body(1 + total - len(msg))}, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(msg) != total {
		t.Fatalf("padded note is %d bytes, want %d", len(msg), total)
	}
	return msg
}

// TestMaxNote shows a validly signed note of exactly MaxNote bytes opens,
// while one byte more is refused by Open, OpenWith and Parse.
func TestMaxNote(t *testing.T) {
	s, v, vkey := testKey(t, "example.com/log/big")
	ok := signedPadded(t, s, tlog.MaxNote)
	if _, err := tlog.OpenWith(ok, v); err != nil {
		t.Errorf("a note of MaxNote bytes: %v", err)
	}
	if _, err := tlog.Parse(ok); err != nil {
		t.Errorf("Parse of a note of MaxNote bytes: %v", err)
	}
	big := signedPadded(t, s, tlog.MaxNote+1)
	if _, err := note.Open(big, note.VerifierList(v)); err != nil {
		t.Fatalf("the oversized note should be validly signed: %v", err)
	}
	if _, err := tlog.Open(big, vkey); err == nil {
		t.Error("Open accepted a note of MaxNote+1 bytes")
	}
	if _, err := tlog.OpenWith(big, v); err == nil {
		t.Error("OpenWith accepted a note of MaxNote+1 bytes")
	}
	if _, err := tlog.Parse(big); err == nil {
		t.Error("Parse accepted a note of MaxNote+1 bytes")
	}
}

// TestSplit shows notes written one after the other with a blank line
// between them (as Witness writes them) split back into exactly those
// notes, byte for byte and in order, also with extra blank lines around,
// and that a note with several signatures stays whole.
func TestSplit(t *testing.T) {
	s, _, _ := testKey(t, "example.com/log/split")
	s2, _, _ := testKey(t, "example.com/witness/w")
	var notes [][]byte
	for _, n := range []int{0, 1, 5, 17} {
		notes = append(notes, testCheckpoint(t, s, n).Note)
	}
	cosigned, err := note.Sign(&note.Note{Text: string(notes[2][:bytes.Index(notes[2], []byte("\n\n"))+1])}, s, s2)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Count(cosigned, []byte("\u2014 ")) != 2 {
		t.Fatalf("co-signed note lacks two signatures:\n%s", cosigned)
	}
	notes = append(notes, cosigned)

	file := bytes.Join(notes, []byte("\n"))
	for name, data := range map[string][]byte{
		"witness":     file,
		"extra blank": append(append([]byte("\n\n"), bytes.Join(notes, []byte("\n\n\n"))...), "\n\n"...),
	} {
		got, err := tlog.Split(data)
		if err != nil {
			t.Fatalf("%s: Split: %v", name, err)
		}
		if len(got) != len(notes) {
			t.Fatalf("%s: Split gave %d notes, want %d", name, len(got), len(notes))
		}
		for i := range notes {
			if !bytes.Equal(got[i], notes[i]) {
				t.Errorf("%s: note %d = %q, want %q", name, i, got[i], notes[i])
			}
		}
	}
	one, err := tlog.Split(notes[0])
	if err != nil || len(one) != 1 || !bytes.Equal(one[0], notes[0]) {
		t.Errorf("Split of one note = %q, %v", one, err)
	}
}

// TestSplitErrors shows empty input, garbage, and a body with no signature
// lines (at the end, or followed by another note) are refused.
func TestSplitErrors(t *testing.T) {
	s, _, _ := testKey(t, "example.com/log/split")
	good := testCheckpoint(t, s, 4).Note
	body := good[:bytes.Index(good, []byte("\n\n"))+1]
	for name, data := range map[string]string{
		"empty":              "",
		"blank":              "\n\n \n",
		"garbage":            "garbage\n",
		"garbage no newline": "garbage",
		"body only":          string(body),
		"body and blank":     string(body) + "\n",
		"body, blank, text":  string(body) + "\nnot a signature\n",
		"good then body":     string(good) + "\n" + string(body) + "\n",
		"good then garbage":  string(good) + "\ngarbage",
		"body then good":     string(body) + "\n\n" + string(good),
	} {
		if got, err := tlog.Split([]byte(data)); err == nil {
			t.Errorf("Split(%s) = %q, want an error", name, got)
		}
	}
}
