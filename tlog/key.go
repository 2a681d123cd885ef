package tlog

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"golang.org/x/mod/sumdb/note"
)

// Key is a log's Ed25519 signing key, read from its private key file.
type Key struct {
	Signer note.Signer
	// Verifier is the public half, and VerifierKey its text
	// (name+hash+base64): what `baton audit key` prints and anyone checks
	// checkpoints and bundles with.
	Verifier    note.Verifier
	VerifierKey string
}

// Origin is the log's name, which is the key's.
func (k *Key) Origin() string { return k.Signer.Name() }

// NewOrigin names a new log: a schema-less URL, as the tlog-checkpoint
// format asks, unique to the deployment.
func NewOrigin() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "baton.local/log/" + hex.EncodeToString(b[:])
}

// ErrNoKey is wrapped by LoadKey when the file does not exist.
var ErrNoKey = errors.New("no log key file")

// maxKeyFile bounds what LoadKey reads: a key is one short line.
const maxKeyFile = 4 << 10

// LoadKey reads the private key file at path. A file others can read is
// refused, as ssh refuses such a key: the key signs the log's checkpoints.
func LoadKey(path string) (*Key, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w at %s", ErrNoKey, path)
	}
	if err != nil {
		return nil, err
	}
	if fi.Size() > maxKeyFile || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a log key file", path)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("the log key file %s can be read by others (mode %#o): run chmod 600 %s", path, fi.Mode().Perm(), path)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseKey(strings.TrimSpace(string(raw)), path)
}

func parseKey(skey, path string) (*Key, error) {
	signer, err := note.NewSigner(skey)
	if err != nil {
		// The error of note names no key material; say only what is wrong.
		return nil, fmt.Errorf("%s does not hold a log key (PRIVATE+KEY+name+hash+base64)", path)
	}
	vkey, err := verifierKey(skey)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	v, err := note.NewVerifier(vkey)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &Key{Signer: signer, Verifier: v, VerifierKey: vkey}, nil
}

// verifierKey derives the public verifier key from a private one: the
// private key's last field is the algorithm byte (1, Ed25519) and the
// 32-byte seed.
func verifierKey(skey string) (string, error) {
	// The last field is standard base64, which has '+' among its digits.
	parts := strings.SplitN(skey, "+", 5)
	if len(parts) != 5 {
		return "", errors.New("malformed private key")
	}
	raw, err := base64.StdEncoding.DecodeString(parts[4])
	if err != nil || len(raw) != 1+ed25519.SeedSize || raw[0] != 1 {
		return "", errors.New("not an Ed25519 private key")
	}
	pub := ed25519.NewKeyFromSeed(raw[1:]).Public().(ed25519.PublicKey)
	return note.NewEd25519VerifierKey(parts[2], pub)
}

// CreateKey makes a new key for the log origin and writes it to path,
// mode 0600, in a directory made 0700 when missing. An existing file is
// never overwritten: ErrKeyExists.
func CreateKey(path, origin string) (*Key, error) {
	skey, _, err := GenerateKey(origin)
	if err != nil {
		return nil, err
	}
	k, err := parseKey(skey, path)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil, ErrKeyExists
	}
	if err != nil {
		return nil, err
	}
	if _, err := f.WriteString(skey + "\n"); err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	return k, f.Close()
}

// ErrKeyExists is CreateKey's answer when the file is there already.
var ErrKeyExists = errors.New("the log key file exists already")
