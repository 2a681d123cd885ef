// Package portable writes a baton database as one JSON Lines file and
// reads it back into another, SQLite or PostgreSQL: `baton export` and
// `baton import`, the way a team moves from SQLite to PostgreSQL.
//
// The file (format baton-export/1) is a header line, then one record per
// line, a table at a time in the order of Tables, each table's rows in a
// fixed order. The header carries the RFC 6962 Merkle root (package tlog)
// of the record lines' bytes, so an import refuses a file with any line
// changed, added or dropped, and names the line. The same rows give the
// same bytes whichever database they come from: every column has one
// canonical JSON type (Kind), and text is compared by bytes when ordering.
//
// The code here is the stores' shared SQL: it runs on a Querier and a
// Dialect (package sqlcore); each store adds what its schema keeps apart
// (full-text indexes written by hand, identity sequences) through Backend.
package portable

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/baton-dev/baton"
)

// Format names the file format in the header.
const Format = "baton-export/1"

// Limits an import holds a file to.
const (
	// MaxLineBytes bounds one record line.
	MaxLineBytes = 16 << 20
	// MaxHeaderBytes bounds the header line, which carries four characters
	// per record (line_hashes): room for some 16 million records.
	MaxHeaderBytes = 64 << 20
	// DefaultMaxBytes bounds a whole file unless ImportOptions says
	// otherwise.
	DefaultMaxBytes int64 = 8 << 30
	// lineHashBytes is how much of each record's leaf hash the header
	// keeps: enough to name the line that changed.
	lineHashBytes = 3
)

// Porter is a store that exports and imports (both of baton's stores).
type Porter interface {
	// Export writes the database, or one project of it, to w from one
	// consistent snapshot.
	Export(ctx context.Context, w io.Writer, opts ExportOptions) (*Header, error)
	// Import checks the file r holds and writes its records in one
	// transaction (none with DryRun, or when any record conflicts).
	Import(ctx context.Context, r io.ReadSeeker, opts ImportOptions) (*Report, error)
}

// Header is the first line of an export.
type Header struct {
	Format        string
	SchemaVersion int64     // the exporting database's schema (migration) version
	GeneratedAt   time.Time // when the export was written
	Project       string    // the one project exported; "" for the whole server
	Records       int64     // record lines after the header
	Counts        []Count   // records by type, in the order of Tables
	MerkleRoot    string    // hex RFC 6962 root over the record lines' bytes
	// LineHashes is the first bytes of each record line's leaf hash, so an
	// import can say which line differs from what was exported.
	LineHashes []byte
}

// Count is how many records of one type an export holds.
type Count struct {
	Type string `json:"type"`
	N    int64  `json:"records"`
}

// CountOf is the number of records of type typ.
func (h *Header) CountOf(typ string) int64 {
	for _, c := range h.Counts {
		if c.Type == typ {
			return c.N
		}
	}
	return 0
}

// line is the header as its line (without newline): keys in a fixed order,
// counts in the order of Tables.
func (h *Header) line() []byte {
	b := []byte(`{"type":"header","format":`)
	b = appendString(b, h.Format)
	b = append(b, `,"schema_version":`...)
	b = strconv.AppendInt(b, h.SchemaVersion, 10)
	b = append(b, `,"generated_at":`...)
	b = appendString(b, baton.Timestamp(h.GeneratedAt))
	b = append(b, `,"project":`...)
	if h.Project == "" {
		b = append(b, "null"...)
	} else {
		b = appendString(b, h.Project)
	}
	b = append(b, `,"records":`...)
	b = strconv.AppendInt(b, h.Records, 10)
	b = append(b, `,"counts":{`...)
	for i, c := range h.Counts {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, c.Type)
		b = append(b, ':')
		b = strconv.AppendInt(b, c.N, 10)
	}
	b = append(b, `},"merkle_root":`...)
	b = appendString(b, h.MerkleRoot)
	b = append(b, `,"line_hashes":`...)
	b = appendString(b, base64.StdEncoding.EncodeToString(h.LineHashes))
	return append(b, '}')
}

// parseHeader reads the first line of a file.
func parseHeader(line []byte) (*Header, error) {
	var raw struct {
		Type          *string          `json:"type"`
		Format        *string          `json:"format"`
		SchemaVersion int64            `json:"schema_version"`
		GeneratedAt   string           `json:"generated_at"`
		Project       *string          `json:"project"`
		Records       *int64           `json:"records"`
		Counts        map[string]int64 `json:"counts"`
		MerkleRoot    string           `json:"merkle_root"`
		LineHashes    string           `json:"line_hashes"`
	}
	notExport := func(why string) error {
		return baton.Errorf(baton.ErrInvalidInput, "line 1: not the header of a baton export: %s", why).
			WithDetails("line", 1).
			WithHint("import reads the files baton export writes, whose first line is {\"type\":\"header\",\"format\":%q,...}", Format)
	}
	if err := json.Unmarshal(line, &raw); err != nil {
		return nil, notExport(err.Error())
	}
	if raw.Type == nil || *raw.Type != "header" {
		return nil, notExport(`no "type":"header"`)
	}
	if raw.Format == nil || *raw.Format != Format {
		got := "none"
		if raw.Format != nil {
			got = strconv.Quote(cut(*raw.Format))
		}
		return nil, baton.Errorf(baton.ErrInvalidInput, "line 1: the file's format is %s; this baton reads %s", got, Format).
			WithDetails("line", 1, "format", got).
			WithHint("import the file with the baton version that wrote it, or export it again with this one")
	}
	h := &Header{Format: *raw.Format, SchemaVersion: raw.SchemaVersion, MerkleRoot: raw.MerkleRoot}
	if raw.Project != nil {
		h.Project = *raw.Project
	}
	var err error
	if h.GeneratedAt, err = time.Parse(time.RFC3339Nano, raw.GeneratedAt); err != nil {
		return nil, notExport("generated_at is not an RFC 3339 time")
	}
	if raw.Records == nil || *raw.Records < 0 {
		return nil, notExport("no record count")
	}
	h.Records = *raw.Records
	if root, err := hex.DecodeString(raw.MerkleRoot); err != nil || len(root) != 32 {
		return nil, notExport("merkle_root is not 64 hex digits")
	}
	if h.LineHashes, err = base64.StdEncoding.DecodeString(raw.LineHashes); err != nil {
		return nil, notExport("line_hashes is not base64")
	}
	if len(h.LineHashes) != 0 && int64(len(h.LineHashes)) != lineHashBytes*h.Records {
		return nil, notExport(fmt.Sprintf("line_hashes covers %d records, not %d", len(h.LineHashes)/lineHashBytes, h.Records))
	}
	for _, t := range Tables() {
		if n, ok := raw.Counts[t.Type]; ok {
			h.Counts = append(h.Counts, Count{t.Type, n})
			delete(raw.Counts, t.Type)
		}
	}
	for _, typ := range slices.Sorted(maps.Keys(raw.Counts)) {
		return nil, baton.Errorf(baton.ErrInvalidInput, "line 1: the header counts records of unknown type %q", cut(typ)).
			WithDetails("line", 1, "type", cut(typ)).
			WithHint("the file was written by a baton with other tables: import it with that version")
	}
	return h, nil
}
