package tlog

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"

	"github.com/transparency-dev/formats/log"
	"golang.org/x/mod/sumdb/note"
)

// Checkpoint is a log's signed statement of its size and root, in the
// C2SP tlog-checkpoint format: the origin line, the size in decimal, the
// root in standard base64, then the signed note's blank line and its
// signature lines (C2SP signed-note, Ed25519).
type Checkpoint struct {
	Origin string
	Size   uint64
	Root   []byte
	// Note is the whole signed text, as written to witnesses and bundles.
	Note []byte
}

// MaxNote bounds a checkpoint read from a file or a bundle: the three
// lines and a few signatures fit in far less.
const MaxNote = 16 << 10

// Sign makes the checkpoint of the tree of size leaves with root, signed
// by signer, whose name is the log's origin.
func Sign(signer note.Signer, size uint64, root []byte) (*Checkpoint, error) {
	cp := log.Checkpoint{Origin: signer.Name(), Size: size, Hash: root}
	msg, err := note.Sign(&note.Note{Text: string(cp.Marshal())}, signer)
	if err != nil {
		return nil, fmt.Errorf("tlog: signing the checkpoint: %w", err)
	}
	return &Checkpoint{Origin: cp.Origin, Size: size, Root: root, Note: msg}, nil
}

// Open checks text's signature by the key vkey (a note verifier key,
// name+hash+base64, as `baton audit key` prints it) and reads the
// checkpoint; the origin must be the key's name.
func Open(text []byte, vkey string) (*Checkpoint, error) {
	v, err := note.NewVerifier(strings.TrimSpace(vkey))
	if err != nil {
		return nil, fmt.Errorf("the key is not a note verifier key (name+hash+base64, as `baton audit key` prints it): %v", err)
	}
	return OpenWith(text, v)
}

// OpenWith is Open with a verifier already made.
func OpenWith(text []byte, v note.Verifier) (*Checkpoint, error) {
	if len(text) > MaxNote {
		return nil, fmt.Errorf("the checkpoint is %d bytes, more than the %d a checkpoint can be", len(text), MaxNote)
	}
	cp, _, _, err := log.ParseCheckpoint(text, v.Name(), v)
	if err != nil {
		var unknown *note.UnknownVerifierError
		if errors.As(err, &unknown) {
			return nil, fmt.Errorf("the checkpoint is not signed by the key %s", v.Name())
		}
		return nil, fmt.Errorf("the checkpoint does not verify with the key %s: %v", v.Name(), err)
	}
	return &Checkpoint{Origin: cp.Origin, Size: cp.Size, Root: cp.Hash, Note: text}, nil
}

// Parse reads a checkpoint without checking its signature (to say what a
// file holds before it is checked, or when no key is at hand).
func Parse(text []byte) (*Checkpoint, error) {
	if len(text) > MaxNote {
		return nil, fmt.Errorf("the checkpoint is %d bytes, more than the %d a checkpoint can be", len(text), MaxNote)
	}
	body, _, ok := bytes.Cut(text, []byte("\n\n"))
	if !ok {
		return nil, errors.New("not a signed note: no blank line before the signatures")
	}
	var cp log.Checkpoint
	if _, err := cp.Unmarshal(append(body, '\n')); err != nil {
		return nil, err
	}
	return &Checkpoint{Origin: cp.Origin, Size: cp.Size, Root: cp.Hash, Note: text}, nil
}

// GenerateKey makes a new Ed25519 log key named origin: the private key
// (PRIVATE+KEY+name+hash+base64) and the public verifier key.
func GenerateKey(origin string) (skey, vkey string, err error) {
	return note.GenerateKey(rand.Reader, origin)
}

// Split cuts a file of checkpoints (a witness file: notes one after the
// other, blank lines between them) into its notes, in order.
func Split(data []byte) ([][]byte, error) {
	var out [][]byte
	lines := strings.SplitAfter(string(data), "\n")
	i := 0
	for i < len(lines) {
		for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
			i++
		}
		if i == len(lines) {
			break
		}
		var b strings.Builder
		for i < len(lines) && strings.TrimSpace(lines[i]) != "" { // the body
			b.WriteString(lines[i])
			i++
		}
		if i == len(lines) {
			return nil, fmt.Errorf("checkpoint %d has no signature lines", len(out)+1)
		}
		b.WriteString("\n")
		i++
		sigs := 0
		for i < len(lines) && strings.HasPrefix(lines[i], "— ") {
			b.WriteString(lines[i])
			i++
			sigs++
		}
		if sigs == 0 {
			return nil, fmt.Errorf("checkpoint %d has no signature lines", len(out)+1)
		}
		s := b.String()
		if !strings.HasSuffix(s, "\n") {
			s += "\n"
		}
		out = append(out, []byte(s))
	}
	if len(out) == 0 {
		return nil, errors.New("no checkpoint in it")
	}
	return out, nil
}
