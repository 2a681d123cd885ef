// Package audit holds baton's tamper-evidence: canonical JSON, the hashes
// that chain thought records and tool-call actions, chain verification and
// Merkle trees with inclusion proofs. It needs no database, so proofs and
// exported bundles can be checked anywhere.
package audit

import (
	"fmt"
	"strconv"
	"time"

	"crypto/sha256"
	"encoding/hex"

	"github.com/baton-dev/baton"
)

// Genesis is the previous_hash of the first record of every chain.
const Genesis = "0000000000000000000000000000000000000000000000000000000000000000"

// Canonical renders v as RFC 8785 canonical JSON (JCS): object members
// sorted by the UTF-16 code units of their names, no insignificant white
// space, strings as JSON.stringify writes them, numbers in ECMAScript's
// form. Two equal values always give the same bytes, in any language with
// a JCS library. v is marshalled and decoded first unless Decode returned
// it, so struct field order and custom marshalers cannot change the bytes.
func Canonical(v any) ([]byte, error) { return JCS(v) }

// Sum is the hex SHA-256 of b.
func Sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// Digest is the hex SHA-256 of v's canonical JSON (JCS). DigestJSON and
// DigestValue give the same digest from v already marshalled or decoded.
func Digest(v any) (string, error) {
	b, err := Canonical(v)
	if err != nil {
		return "", err
	}
	return Sum(b), nil
}

// ThoughtFields are the fields Colibri's thought_record hash covers.
// PreviousHash is "" for the first record of a chain, which the hash (and
// every output) writes as null, as the catalogue has it.
type ThoughtFields struct {
	TaskID       string `json:"task_id"`
	Type         string `json:"type"`
	Content      string `json:"content"`
	PreviousHash string `json:"previous_hash"`
	RecordedAt   string `json:"recorded_at"`
	RecordedBy   string `json:"recorded_by"`
}

// Hash is the catalogue's formula: SHA-256 of JSON.stringify({task_id,
// type, content, previous_hash, recorded_at, recorded_by}), lowercase hex.
func (f ThoughtFields) Hash() string { return Sum(f.JSON()) }

// JSON is exactly what JavaScript's JSON.stringify writes for the object
// literal {task_id, type, content, previous_hash, recorded_at, recorded_by}
// built from the fields: keys in that order, no spaces, previous_hash
// null for the first record. These are the bytes Hash hashes.
func (f ThoughtFields) JSON() []byte {
	b := make([]byte, 0, 256+len(f.Content))
	b = append(b, `{"task_id":`...)
	b = AppendJSString(b, f.TaskID)
	b = append(b, `,"type":`...)
	b = AppendJSString(b, f.Type)
	b = append(b, `,"content":`...)
	b = AppendJSString(b, f.Content)
	b = append(b, `,"previous_hash":`...)
	if f.PreviousHash == "" {
		b = append(b, "null"...)
	} else {
		b = AppendJSString(b, f.PreviousHash)
	}
	b = append(b, `,"recorded_at":`...)
	b = AppendJSString(b, f.RecordedAt)
	b = append(b, `,"recorded_by":`...)
	b = AppendJSString(b, f.RecordedBy)
	return append(b, '}')
}

// LegacyHash is the rule baton hashed thought records by before schema
// version 15: SHA-256 over the fields' canonical JSON (keys sorted) with
// 64 zeros as the first record's previous_hash. It is kept only so the
// re-chaining at upgrade can tell an intact old chain from a tampered one.
func (f ThoughtFields) LegacyHash() string {
	b := make([]byte, 0, 256+len(f.Content))
	b = appendField(b, '{', "content", f.Content)
	b = appendField(b, ',', "previous_hash", f.PreviousHash)
	b = appendField(b, ',', "recorded_at", f.RecordedAt)
	b = appendField(b, ',', "recorded_by", f.RecordedBy)
	b = appendField(b, ',', "task_id", f.TaskID)
	b = appendField(b, ',', "type", f.Type)
	return Sum(append(b, '}'))
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

// Stamp is the one time format hashed into audit records.
func Stamp(t time.Time) string { return baton.Timestamp(t) }

// ActionOf gives the hashed fields of a stored action.
func ActionOf(a *baton.Action) ActionFields {
	return ActionFields{Position: a.Position, Agent: a.Agent, Source: a.Source, Tool: a.Tool, Subject: a.Subject,
		InputDigest: a.InputDigest, ResultDigest: a.ResultDigest, At: Stamp(a.At), PreviousHash: a.PreviousHash}
}

// ThoughtOf gives the hashed fields of a stored thought record.
func ThoughtOf(r *baton.ThoughtRecord) ThoughtFields {
	return ThoughtFields{TaskID: r.TaskID, Type: r.Type, Content: r.Content, PreviousHash: r.PreviousHash,
		RecordedAt: Stamp(r.RecordedAt), RecordedBy: r.RecordedBy}
}

// Hash is the record's RFC 6962 leaf hash: hex SHA-256 of the byte 0x00
// followed by the fields' RFC 8785 canonical JSON (JSON). One hash is both
// the record's link in the chain (the next record's previous_hash) and its
// leaf in the log's Merkle tree, as Sigstore's Rekor names an entry by its
// leaf hash.
func (f ActionFields) Hash() string {
	var h [32]byte
	f.LeafHash(&h)
	return hex.EncodeToString(h[:])
}

// LeafHash writes the record's RFC 6962 leaf hash, raw, into h.
func (f ActionFields) LeafHash(h *[32]byte) {
	var buf [512]byte
	b := append(buf[:0], 0x00)
	b = f.AppendJSON(b)
	*h = sha256.Sum256(b)
}

// JSON is the fields' RFC 8785 canonical JSON: the leaf's data.
func (f ActionFields) JSON() []byte { return f.AppendJSON(make([]byte, 0, 400)) }

// AppendJSON appends JSON. The members are strings and one integer, so
// JCS is written here directly: names in order, strings as JSON.stringify
// writes them, the position in decimal.
func (f ActionFields) AppendJSON(b []byte) []byte {
	b = append(b, `{"agent":`...)
	b = AppendJSString(b, f.Agent)
	b = append(b, `,"at":`...)
	b = AppendJSString(b, f.At)
	b = append(b, `,"input_digest":`...)
	b = AppendJSString(b, f.InputDigest)
	b = append(b, `,"position":`...)
	b = strconv.AppendInt(b, f.Position, 10)
	b = append(b, `,"previous_hash":`...)
	b = AppendJSString(b, f.PreviousHash)
	b = append(b, `,"result_digest":`...)
	b = AppendJSString(b, f.ResultDigest)
	b = append(b, `,"source":`...)
	b = AppendJSString(b, f.Source)
	b = append(b, `,"subject":`...)
	b = AppendJSString(b, f.Subject)
	b = append(b, `,"tool":`...)
	b = AppendJSString(b, f.Tool)
	return append(b, '}')
}

// LegacyHash is the rule baton hashed actions by before schema version
// 28: SHA-256 over the fields' JSON as Go's encoding/json writes it (keys
// sorted, U+2028 and U+2029 escaped), no leaf prefix. It is kept only so
// the re-chaining at upgrade can tell an intact old chain from a tampered
// one.
func (f ActionFields) LegacyHash() string {
	b := make([]byte, 0, 512)
	b = appendField(b, '{', "agent", f.Agent)
	b = appendField(b, ',', "at", f.At)
	b = appendField(b, ',', "input_digest", f.InputDigest)
	b = append(b, `,"position":`...)
	b = strconv.AppendInt(b, f.Position, 10)
	b = appendField(b, ',', "previous_hash", f.PreviousHash)
	b = appendField(b, ',', "result_digest", f.ResultDigest)
	b = appendField(b, ',', "source", f.Source)
	b = appendField(b, ',', "subject", f.Subject)
	b = appendField(b, ',', "tool", f.Tool)
	return Sum(append(b, '}'))
}

func appendField(b []byte, sep byte, key, value string) []byte {
	b = append(b, sep, '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return appendLegacyString(b, value)
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

// BrokenLink says where a chain breaks and how: always by the hashes
// involved, so a deleted record is named by the hash its successor still
// points to.
type BrokenLink struct {
	Position     int64  `json:"position" jsonschema:"Where the chain breaks (1-indexed): the position of the record found broken."`
	ExpectedHash string `json:"expected_hash" jsonschema:"The hash the chain says should be there (empty where the chain starts, whose previous_hash is null)."`
	ActualHash   string `json:"actual_hash" jsonschema:"The hash found (empty when the record is gone)."`
	Reason       string `json:"reason" jsonschema:"What the break means."`
}

// Verify walks an action-log chain (first previous_hash: Genesis) in
// order and reports every broken link; see Verifier.
func Verify(links []Link) []BrokenLink {
	var v Verifier
	for _, l := range links {
		v.Add(l)
	}
	return v.Broken
}

// VerifyThoughts walks a task's thought chain (first previous_hash: null)
// in order and reports every broken link; see Verifier.
func VerifyThoughts(links []Link) []BrokenLink {
	v := Verifier{Null: true}
	for _, l := range links {
		v.Add(l)
	}
	return v.Broken
}

// Verifier checks a chain one link at a time, so a chain of millions of
// records is verified without holding it in memory. A record is broken
// when its previous_hash is not the stored hash of the record before it
// (one was deleted, inserted or reordered: expected is the hash before,
// actual the hash the record points to) or when its content no longer
// gives its stored hash (it was changed: expected is the stored hash,
// actual the recomputed one). Positions only say where: a deleted record
// shows as its successor pointing to a hash that is no longer there.
type Verifier struct {
	// Null says the chain starts from null (a thought chain, as Colibri's
	// catalogue has it) rather than from Genesis (the action log).
	Null   bool
	prev   string
	n      int64
	Broken []BrokenLink
}

// Add checks the next link of the chain.
func (v *Verifier) Add(l Link) {
	if v.n == 0 && !v.Null {
		v.prev = Genesis
	}
	v.n++
	switch {
	case !v.Null && l.Position != v.n:
		// The action log numbers its records 1, 2, 3...: a gap is a
		// record deleted even when the links around it were rewritten.
		v.Broken = append(v.Broken, BrokenLink{Position: l.Position, ExpectedHash: v.prev, ActualHash: l.PreviousHash,
			Reason: fmt.Sprintf("the record at position %d comes where position %d should (records were deleted or renumbered)", l.Position, v.n)})
		v.n = l.Position
	case l.PreviousHash != v.prev:
		reason := "previous_hash does not match the record before it (a record was deleted, inserted or reordered)"
		if v.n == 1 {
			reason = "the first record of the chain does not start it (the records before it were deleted)"
		}
		v.Broken = append(v.Broken, BrokenLink{Position: l.Position, ExpectedHash: v.prev, ActualHash: l.PreviousHash, Reason: reason})
	case l.Computed != l.Stored:
		v.Broken = append(v.Broken, BrokenLink{Position: l.Position, ExpectedHash: l.Stored, ActualHash: l.Computed,
			Reason: "the record's content no longer gives its stored hash (it was changed)"})
	}
	v.prev = l.Stored
}

// Count is the number of links checked.
func (v *Verifier) Count() int64 { return v.n }

// IntegrityScore is the percentage of links that verify (100 for an empty
// chain).
func IntegrityScore(total, broken int) int {
	if total == 0 {
		return 100
	}
	return (total - broken) * 100 / total
}
