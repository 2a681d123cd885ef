package tlog_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"

	"github.com/baton-dev/baton/tlog"
)

// TestCreateKey shows CreateKey writes a private key file of mode 0600 in
// a directory it makes 0700, holding PRIVATE+KEY+<origin>+..., and returns
// a Key whose origin, verifier and verifier key belong together.
func TestCreateKey(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "keys", "sub")
	path := filepath.Join(dir, "log.key")
	origin := tlog.NewOrigin()
	k, err := tlog.CreateKey(path, origin)
	if err != nil {
		t.Fatalf("CreateKey: %v", err)
	}
	if k.Origin() != origin || k.Signer.Name() != origin || k.Verifier.Name() != origin {
		t.Errorf("names %q %q %q, want %q", k.Origin(), k.Signer.Name(), k.Verifier.Name(), origin)
	}
	if k.Signer.KeyHash() != k.Verifier.KeyHash() {
		t.Errorf("signer key hash %08x, verifier %08x", k.Signer.KeyHash(), k.Verifier.KeyHash())
	}
	v, err := note.NewVerifier(k.VerifierKey)
	if err != nil {
		t.Fatalf("VerifierKey %q: %v", k.VerifierKey, err)
	}
	if v.Name() != origin || v.KeyHash() != k.Verifier.KeyHash() {
		t.Errorf("VerifierKey %q does not name the key", k.VerifierKey)
	}
	if !strings.HasPrefix(k.VerifierKey, origin+"+") || strings.Contains(k.VerifierKey, "PRIVATE") {
		t.Errorf("VerifierKey = %q", k.VerifierKey)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(raw), "PRIVATE+KEY+"+origin+"+") || !strings.HasSuffix(string(raw), "\n") {
		t.Errorf("key file holds %q", raw)
	}
	if runtime.GOOS == "linux" {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("key file mode %#o, want 0600", fi.Mode().Perm())
		}
		di, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if di.Mode().Perm()&0o077 != 0 {
			t.Errorf("key directory mode %#o, want 0700", di.Mode().Perm())
		}
	}
}

// TestCreateKeyExists shows CreateKey never overwrites: a second call on
// the same path returns ErrKeyExists and leaves the first key in place.
func TestCreateKeyExists(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.key")
	k1, err := tlog.CreateKey(path, "example.com/log/one")
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	k2, err := tlog.CreateKey(path, "example.com/log/two")
	if !errors.Is(err, tlog.ErrKeyExists) {
		t.Fatalf("second CreateKey = %v, %v; want ErrKeyExists", k2, err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Error("second CreateKey changed the key file")
	}
	k, err := tlog.LoadKey(path)
	if err != nil {
		t.Fatal(err)
	}
	if k.VerifierKey != k1.VerifierKey {
		t.Errorf("after a refused CreateKey the file holds %s, want %s", k.VerifierKey, k1.VerifierKey)
	}
}

// TestLoadKey shows LoadKey reads back the key CreateKey wrote: same
// origin, verifier key and key hash; a checkpoint its Signer signs opens
// with its VerifierKey (the public key derived from the private one) and
// with the one CreateKey returned.
func TestLoadKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.key")
	origin := tlog.NewOrigin()
	created, err := tlog.CreateKey(path, origin)
	if err != nil {
		t.Fatal(err)
	}
	k, err := tlog.LoadKey(path)
	if err != nil {
		t.Fatalf("LoadKey: %v", err)
	}
	if k.Origin() != origin || k.VerifierKey != created.VerifierKey || k.Verifier.KeyHash() != created.Verifier.KeyHash() {
		t.Errorf("loaded {%q %q}, created {%q %q}", k.Origin(), k.VerifierKey, created.Origin(), created.VerifierKey)
	}
	cp := testCheckpoint(t, k.Signer, 21)
	for _, vkey := range []string{k.VerifierKey, created.VerifierKey} {
		got, err := tlog.Open(cp.Note, vkey)
		if err != nil {
			t.Fatalf("Open with %s: %v", vkey, err)
		}
		if got.Origin != origin || got.Size != 21 {
			t.Errorf("opened {%q %d}", got.Origin, got.Size)
		}
	}
	if _, err := tlog.OpenWith(testCheckpoint(t, created.Signer, 2).Note, k.Verifier); err != nil {
		t.Errorf("a checkpoint by the created key does not open with the loaded verifier: %v", err)
	}
}

// genKey is a fresh key pair for a new origin whose private key's base64
// field does (plus) or does not contain a '+' (standard base64 has '+'
// as a digit: about half of all keys do).
func genKey(t *testing.T, plus bool) (origin, skey, vkey string) {
	t.Helper()
	for i := 0; i < 1000; i++ {
		origin = tlog.NewOrigin()
		var err error
		skey, vkey, err = tlog.GenerateKey(origin)
		if err != nil {
			t.Fatal(err)
		}
		field := skey[strings.LastIndex(skey, "+"+origin+"+")+len(origin)+2:]
		field = field[strings.Index(field, "+")+1:] // after the key hash
		if strings.Contains(field, "+") == plus {
			return origin, skey, vkey
		}
	}
	t.Fatalf("no key with plus=%v in 1000 tries", plus)
	return
}

// TestLoadKeyDerivesVerifierKey shows the verifier key LoadKey derives from
// a private key is exactly the one note.GenerateKey paired with it, for
// keys with and without a '+' in their base64 field, also when the file
// has surrounding whitespace or a CRLF ending; and that what the loaded
// Signer signs opens with that verifier key.
func TestLoadKeyDerivesVerifierKey(t *testing.T) {
	dir := t.TempDir()
	i := 0
	for _, plus := range []bool{false, true} {
		for _, wrap := range []string{"%s", "%s\n", "  %s\r\n\n"} {
			i++
			origin, skey, vkey := genKey(t, plus)
			path := filepath.Join(dir, fmt.Sprintf("k%d", i))
			if err := os.WriteFile(path, []byte(strings.Replace(wrap, "%s", skey, 1)), 0o600); err != nil {
				t.Fatal(err)
			}
			k, err := tlog.LoadKey(path)
			if err != nil {
				t.Errorf("LoadKey (key with '+' in base64: %v, file %q): %v", plus, wrap, err)
				continue
			}
			if k.VerifierKey != vkey {
				t.Errorf("derived verifier key %q, want %q", k.VerifierKey, vkey)
			}
			if k.Origin() != origin {
				t.Errorf("Origin = %q, want %q", k.Origin(), origin)
			}
			cp := testCheckpoint(t, k.Signer, 3)
			if _, err := tlog.Open(cp.Note, vkey); err != nil {
				t.Errorf("a checkpoint signed by the loaded key does not open: %v", err)
			}
		}
	}
}

// TestCreateKeyRepeatedly shows CreateKey succeeds for many fresh keys in
// a row (each has a random base64 field, about half of them with a '+'),
// and each key it writes loads back with the same verifier key.
func TestCreateKeyRepeatedly(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 40; i++ {
		path := filepath.Join(dir, fmt.Sprintf("k%d", i))
		k, err := tlog.CreateKey(path, tlog.NewOrigin())
		if err != nil {
			t.Fatalf("CreateKey #%d: %v", i, err)
		}
		l, err := tlog.LoadKey(path)
		if err != nil {
			t.Fatalf("LoadKey #%d: %v", i, err)
		}
		if l.VerifierKey != k.VerifierKey {
			t.Fatalf("#%d: loaded %q, created %q", i, l.VerifierKey, k.VerifierKey)
		}
	}
}

// TestLoadKeyMissing shows a missing file's error wraps ErrNoKey.
func TestLoadKeyMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope", "log.key")
	k, err := tlog.LoadKey(path)
	if !errors.Is(err, tlog.ErrNoKey) {
		t.Fatalf("LoadKey of a missing file = %v, %v; want ErrNoKey", k, err)
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name the path", err)
	}
	// Any other failure does not claim the key is missing.
	if _, err := tlog.LoadKey(t.TempDir()); err == nil || errors.Is(err, tlog.ErrNoKey) {
		t.Errorf("LoadKey of a directory = %v, want a non-ErrNoKey error", err)
	}
}

// TestLoadKeyPermissions shows a key file group or other can read (or
// write) is refused, with advice to chmod 600, and is accepted again after
// chmod 600.
func TestLoadKeyPermissions(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file modes are not checked on Windows")
	}
	path := filepath.Join(t.TempDir(), "log.key")
	if _, err := tlog.CreateKey(path, "example.com/log/perm"); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []os.FileMode{0o644, 0o640, 0o604, 0o620, 0o602, 0o660, 0o777} {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		k, err := tlog.LoadKey(path)
		if err == nil {
			t.Errorf("mode %#o: LoadKey = %v, want an error", mode, k)
			continue
		}
		if !strings.Contains(err.Error(), "chmod 600") {
			t.Errorf("mode %#o: error %q does not say chmod 600", mode, err)
		}
		if errors.Is(err, tlog.ErrNoKey) {
			t.Errorf("mode %#o: error wraps ErrNoKey", mode)
		}
	}
	for _, mode := range []os.FileMode{0o600, 0o400} {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		if _, err := tlog.LoadKey(path); err != nil {
			t.Errorf("mode %#o: %v", mode, err)
		}
	}
}

// TestLoadKeyJunk shows files that do not hold a usable Ed25519 private key
// (junk, a verifier key, a corrupted or renamed private key, another
// algorithm, an oversized file) are refused, and that the error never
// repeats the file's contents or any part of the key material.
func TestLoadKeyJunk(t *testing.T) {
	dir := t.TempDir()
	skey, vkey, err := tlog.GenerateKey("example.com/log/junk")
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.SplitN(skey, "+", 5) // the base64 field may hold '+'
	seed64 := parts[4]
	seed, _ := base64.StdEncoding.DecodeString(seed64)
	otherAlg := append([]byte{2}, seed[1:]...)

	cases := map[string]string{
		"junk":          "hunter2-Sup3rSecretJunkValue",
		"binary":        "\x00\x01\x02secretbytes\xff\xfe",
		"verifier key":  vkey,
		"truncated":     skey[:len(skey)-3],
		"bad base64":    strings.Join(append(parts[:4:4], "!!"+seed64[2:]), "+"),
		"renamed":       strings.Join([]string{"PRIVATE", "KEY", "example.com/log/other", parts[3], seed64}, "+"),
		"wrong hash":    strings.Join([]string{"PRIVATE", "KEY", parts[2], "00000000", seed64}, "+"),
		"other alg":     strings.Join([]string{"PRIVATE", "KEY", parts[2], parts[3], base64.StdEncoding.EncodeToString(otherAlg)}, "+"),
		"short seed":    strings.Join([]string{"PRIVATE", "KEY", parts[2], parts[3], base64.StdEncoding.EncodeToString(seed[:17])}, "+"),
		"two keys":      skey + "\n" + skey,
		"extra field":   skey + "+AAAA",
		"oversized":     skey + "\n" + strings.Repeat("#"+seed64+"\n", 200),
		"private lower": "private+key+" + strings.Join(parts[2:], "+"),
	}
	for name, content := range cases {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "_"))
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		k, err := tlog.LoadKey(path)
		if err == nil {
			t.Errorf("%s: LoadKey = %+v, want an error", name, k)
			continue
		}
		msg := err.Error()
		leaks := []string{strings.TrimSpace(content), seed64, seed64[:12], seed64[len(seed64)-12:], "Sup3rSecret", "secretbytes"}
		for _, l := range leaks {
			if l != "" && strings.Contains(msg, l) {
				t.Errorf("%s: error %q repeats key material or file contents (%q)", name, msg, l)
			}
		}
	}
}

// TestNewOrigin shows NewOrigin gives distinct names fit for a note key:
// no spaces, no '+', and GenerateKey accepts them.
func TestNewOrigin(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 50; i++ {
		o := tlog.NewOrigin()
		if seen[o] {
			t.Fatalf("NewOrigin repeated %q", o)
		}
		seen[o] = true
		if o == "" || strings.ContainsAny(o, " \t\n+") {
			t.Errorf("NewOrigin = %q: empty, or has a space or '+'", o)
		}
		if strings.Contains(o, "://") {
			t.Errorf("NewOrigin = %q has a URL scheme", o)
		}
		if i < 3 {
			if _, _, err := tlog.GenerateKey(o); err != nil {
				t.Errorf("GenerateKey(%q): %v", o, err)
			}
		}
	}
}
