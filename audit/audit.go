// Package audit holds baton's tamper-evidence: canonical JSON, the hashes
// that chain thought records and tool-call actions, chain verification and
// Merkle trees with inclusion proofs. It needs no database, so proofs and
// exported bundles can be checked anywhere.
package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// Genesis is the previous_hash of the first record of every chain.
const Genesis = "0000000000000000000000000000000000000000000000000000000000000000"

// Canonical renders v as canonical JSON: object keys sorted, no
// insignificant whitespace, no HTML escaping, numbers as Go writes them.
// Two equal values always give the same bytes.
func Canonical(v any) ([]byte, error) {
	// Round-trip through generic values so struct field order and custom
	// marshalers cannot change the key order.
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var generic any
	if err := dec.Decode(&generic); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(generic); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// Sum is the hex SHA-256 of b.
func Sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// Digest is the hex SHA-256 of v's canonical JSON.
func Digest(v any) (string, error) {
	b, err := Canonical(v)
	if err != nil {
		return "", err
	}
	return Sum(b), nil
}

// ThoughtFields are the fields Colibri's thought_record hash covers.
type ThoughtFields struct {
	TaskID       string `json:"task_id"`
	Type         string `json:"type"`
	Content      string `json:"content"`
	PreviousHash string `json:"previous_hash"`
	RecordedAt   string `json:"recorded_at"`
	RecordedBy   string `json:"recorded_by"`
}

// Hash is SHA-256 over the canonical JSON of the fields.
func (f ThoughtFields) Hash() string {
	h, _ := Digest(f) // strings only: cannot fail
	return h
}

// ActionFields are what an action record's hash covers: who called which
// tool, with what (input digest) and to what effect (result digest), when,
// and the record before it.
type ActionFields struct {
	Position     int64  `json:"position"`
	Agent        string `json:"agent"`
	Source       string `json:"source"`
	Tool         string `json:"tool"`
	Subject      string `json:"subject"`
	InputDigest  string `json:"input_digest"`
	ResultDigest string `json:"result_digest"`
	At           string `json:"at"`
	PreviousHash string `json:"previous_hash"`
}

// Hash is SHA-256 over the canonical JSON of the fields.
func (f ActionFields) Hash() string {
	h, _ := Digest(f)
	return h
}

// Link is one record of a chain as stored: its position (1-based), the
// hash it claims for itself, the previous hash it claims, and the hash its
// content actually gives.
type Link struct {
	Position     int64
	Stored       string // hash stored with the record
	PreviousHash string // previous_hash stored with the record
	Computed     string // hash recomputed from the stored content
}

// BrokenLink says where a chain breaks and how.
type BrokenLink struct {
	Position     int64  `json:"position"`
	ExpectedHash string `json:"expected_hash"`
	ActualHash   string `json:"actual_hash"`
	Reason       string `json:"reason"`
}

// Verify walks a chain in order and reports every broken link: a record
// whose content no longer gives its stored hash (changed), whose
// previous_hash is not the hash before it (deleted or reordered), or
// whose position is not the next one (deleted or reordered).
func Verify(links []Link) []BrokenLink {
	var broken []BrokenLink
	prev := Genesis
	for i, l := range links {
		want := int64(i + 1)
		switch {
		case l.Position != want:
			broken = append(broken, BrokenLink{Position: want, ExpectedHash: fmt.Sprintf("position %d", want),
				ActualHash: fmt.Sprintf("position %d", l.Position), Reason: "a record is missing or out of order"})
		case l.PreviousHash != prev:
			broken = append(broken, BrokenLink{Position: l.Position, ExpectedHash: prev, ActualHash: l.PreviousHash,
				Reason: "previous_hash does not match the record before it (a record was deleted, inserted or reordered)"})
		case l.Computed != l.Stored:
			broken = append(broken, BrokenLink{Position: l.Position, ExpectedHash: l.Stored, ActualHash: l.Computed,
				Reason: "the record's content no longer gives its stored hash (it was changed)"})
		}
		prev = l.Stored
	}
	return broken
}

// IntegrityScore is the percentage of links that verify (100 for an empty
// chain).
func IntegrityScore(total, broken int) int {
	if total == 0 {
		return 100
	}
	return (total - broken) * 100 / total
}
