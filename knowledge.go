package baton

import (
	"context"
	"strings"
	"time"
	"unicode"
)

// Knowledge scopes: a document belongs to one project or to every project
// (DESIGN "Knowledge"; the scope comes from the principal, never the path).
const (
	ScopeProject = "project"
	ScopeGlobal  = "global"
)

// Limits of the knowledge store.
const (
	// MaxDocumentPath is the longest logical path, in bytes
	// (membot-operations.md §4).
	MaxDocumentPath = 1024
	// MaxDocumentBytes is the largest content one version may hold.
	MaxDocumentBytes = 10 << 20
	// MaxChunkSearchWords is how many distinct words of a full-text query
	// count; the rest are ignored so no query makes the SQL large.
	MaxChunkSearchWords = 32
	// MaxChunkSearchLimit caps the hits one full-text search returns.
	MaxChunkSearchLimit = 1000
	// MaxVectorDims is the widest vector the store accepts.
	MaxVectorDims = 4096
)

// VersionLayout formats a version id: the insertion instant in UTC with
// millisecond precision (membot-operations.md §3.2). Ids of one path are
// strictly increasing and sort as strings.
const VersionLayout = "2006-01-02T15:04:05.000Z"

// DocSpace is where a document lives: one project's knowledge, or the
// global knowledge every project reads (Project empty).
type DocSpace struct {
	Scope   string // ScopeProject or ScopeGlobal
	Project string // the project slug for ScopeProject, "" for ScopeGlobal
}

// DocKey names one document: a logical path in a space.
type DocKey struct {
	DocSpace
	Path string
}

// Document is one version of a document, with its content.
type Document struct {
	DocKey
	Version     string // version id (VersionLayout), assigned by PutDocument
	Content     string // empty for a deletion
	ContentType string // mime type, e.g. text/markdown
	Size        int64  // UTF-8 byte length of Content, set by the store
	SHA256      string // hex sha256 of Content, set by the store
	// SourcePath is the project-relative file the content was read from,
	// "" for inline writes.
	SourcePath string
	// SourceSHA256 is the hash of the bytes read from SourcePath (equal
	// to SHA256 for inline writes).
	SourceSHA256 string
	ChangeNote   string
	// SourceType is SourceInline for written content, SourceLocal for a
	// project file read from SourcePath (membot's source_type).
	SourceType string
	// Description is the version's one-paragraph summary, made once per
	// version (knowledge.Describe) and indexed with every chunk.
	Description string
	// RefreshFrequencySec is how often membot_refresh re-reads the source
	// (0: never); RefreshedAt when it last did (zero: never) and
	// LastRefreshStatus what came of it (ok, unchanged, failed:<message>).
	RefreshFrequencySec int64
	RefreshedAt         time.Time
	LastRefreshStatus   string
	// Deleted marks a tombstone: the version that deleted the path (or
	// moved it away). A path whose newest version is one has no current
	// version.
	Deleted bool
	// CreatedBy/CreatedAt are those of the path's oldest kept version;
	// UpdatedBy/UpdatedAt those of this version. PutDocument reads
	// UpdatedBy (the writer) and sets the rest.
	CreatedBy string
	CreatedAt time.Time
	UpdatedBy string
	UpdatedAt time.Time
}

// DocumentVersion describes one stored version, without its content.
type DocumentVersion struct {
	Version      string
	Deleted      bool
	ContentType  string
	Size         int64
	SHA256       string
	SourcePath   string
	SourceSHA256 string
	ChangeNote   string
	// LastRefreshStatus is the version's refresh outcome ("" before any).
	LastRefreshStatus string
	CreatedBy         string
	CreatedAt         time.Time
}

// Source types of a document version (membot's source_type).
const (
	SourceInline = "inline" // content written through a tool
	SourceLocal  = "local"  // a file of the project directory
)

// KnowledgeStats counts what the knowledge store holds in some spaces
// (membot_stats).
type KnowledgeStats struct {
	CurrentFiles       int            // paths with a current version
	TombstonedPaths    int            // paths whose newest version is a tombstone
	TotalVersions      int            // every kept version, tombstones included
	DistinctPaths      int            // every path with a kept version
	BySourceType       map[string]int // current versions by source type
	ByMimeType         map[string]int // current versions by mime type
	CurrentBytes       int64          // content bytes of current versions
	TotalVersionsBytes int64          // content bytes of every version
	CurrentChunks      int            // chunks of current versions
	TotalChunks        int            // chunks of every version
	RefreshScheduled   int            // current versions with a refresh frequency
	RefreshDue         int            // ... whose refresh is due at the time asked
	LastRefreshStatus  map[string]int // current versions by last refresh status (not empty)
}

// StaleVersion is a current version whose chunks lack a model's vectors.
type StaleVersion struct {
	Key     DocKey
	Version string
}

// Chunk is one piece of a document version, as it is full-text indexed and
// embedded. Start and End are byte offsets of Text in the version's content
// (Text may begin with overlap carried from the previous chunk, which
// Start covers).
type Chunk struct {
	ID      int64 // assigned by ReplaceChunks
	Key     DocKey
	Version string
	Ordinal int // 0-based, contiguous
	Text    string
	// Context is the heading breadcrumb ("A > B"), "" when there is none.
	Context string
	// SearchText is what is indexed and embedded; empty means Text.
	SearchText string
	Start, End int
	// SourcePath is the file the chunk's version was read from ("" for
	// inline writes) and ContentType the version's mime type; set by
	// ChunksByID only.
	SourcePath, ContentType string
}

// ChunkVector is the embedding of one chunk by one model.
type ChunkVector struct {
	ChunkID int64
	Model   string
	Vector  []float32 // len(Vector) is the model's dimension count
	// Set on reads: where the chunk comes from.
	Key     DocKey
	Version string
	Ordinal int
}

// ChunkQuery is a full-text search over the chunks of current versions.
type ChunkQuery struct {
	Spaces     []DocSpace // searched spaces (at least one)
	PathPrefix string     // raw string prefix of the logical path
	// Text is matched word by word: a chunk matches when any of the
	// words (letters and digits, lower-cased, stemmed) occurs in it.
	Text  string
	Limit int // at most MaxChunkSearchLimit; <= 0 means 50
}

// ChunkHit is one full-text match: lower Score is better (SQLite's bm25,
// PostgreSQL's ts_rank negated).
type ChunkHit struct {
	Chunk Chunk
	Score float64
}

// VectorHit is one vector search result: the chunk and its cosine
// similarity to the query.
type VectorHit struct {
	ChunkID int64
	Key     DocKey
	Version string
	Ordinal int
	Score   float64
}

// VectorFilter selects the vectors of current versions to search.
type VectorFilter struct {
	Spaces     []DocSpace
	PathPrefix string
	Model      string // only vectors of this model
	// IncludeHistory also returns the vectors of older, kept versions.
	IncludeHistory bool
}

// DocumentFilter selects current documents.
type DocumentFilter struct {
	Spaces     []DocSpace
	PathPrefix string // raw string prefix
	Limit      int    // <= 0: all
}

// PruneResult is what PruneDocuments did (or would do on a dry run).
type PruneResult struct {
	RemovedVersions int
	RemovedChunks   int
	ReclaimedBytes  int64
}

// KnowledgeTx stores knowledge documents, their versions, chunks and
// vectors, and searches them (membot-operations.md §3, §5).
type KnowledgeTx interface {
	// PutDocument stores d as a new version of its path (even when the
	// content is unchanged), setting Version, Size, SHA256, CreatedBy/At
	// and UpdatedAt. ERR_PROJECT_NOT_FOUND for an unknown project,
	// ERR_INVALID_INPUT for a bad path, space or size.
	PutDocument(ctx context.Context, d *Document) error
	// Document returns the current version of key (version "") or the
	// named version, tombstones included when named. ERR_NOT_FOUND when
	// there is none.
	Document(ctx context.Context, key DocKey, version string) (*Document, error)
	// ListDocuments returns the current documents under a prefix, by
	// path, without their content.
	ListDocuments(ctx context.Context, f DocumentFilter) ([]*Document, error)
	// MoveDocument writes the current version of from, with its chunks
	// and vectors, as a new version at toPath (change note "move from
	// <src>"), then a tombstone at from ("moved to <dest>"). ERR_NOT_FOUND
	// when from has no current version, ERR_CONFLICT when toPath has one.
	MoveDocument(ctx context.Context, from DocKey, toPath, by string) (*Document, error)
	// DeleteDocument writes a tombstone version of key (note "" means
	// "deleted"). ERR_NOT_FOUND when key has no current version.
	DeleteDocument(ctx context.Context, key DocKey, note, by string) (*DocumentVersion, error)
	// DocumentVersions lists every kept version of key, newest first,
	// tombstones included. ERR_NOT_FOUND when there is none.
	DocumentVersions(ctx context.Context, key DocKey) ([]*DocumentVersion, error)
	// PruneDocuments removes, in the given spaces, the versions older than
	// before that are not the newest of their path, with their chunks and
	// vectors; with dryRun it only counts them.
	PruneDocuments(ctx context.Context, spaces []DocSpace, before time.Time, dryRun bool) (PruneResult, error)
	// ReplaceChunks replaces the chunks (and so the vectors) of one
	// version, assigning their IDs. ERR_NOT_FOUND for an unknown version,
	// ERR_INVALID_INPUT for a tombstone or non-contiguous ordinals.
	ReplaceChunks(ctx context.Context, key DocKey, version string, chunks []*Chunk) error
	// Chunks returns a version's chunks by ordinal.
	Chunks(ctx context.Context, key DocKey, version string) ([]*Chunk, error)
	// PutVectors stores (or replaces) the vector of each chunk for its
	// model. ERR_NOT_FOUND for an unknown chunk.
	PutVectors(ctx context.Context, vs []ChunkVector) error
	// ChunkVectors returns the vectors matching f.
	ChunkVectors(ctx context.Context, f VectorFilter) ([]ChunkVector, error)
	// ChunksByID returns the chunks with the given ids (at most
	// MaxChunkSearchLimit), each with its version's source path, in no set
	// order; an id with no chunk is left out. It is how a search fills in
	// its few hits without reading whole versions.
	ChunksByID(ctx context.Context, ids []int64) ([]*Chunk, error)
	// SearchVectors ranks the vectors matching f by exact cosine
	// similarity to q (vectors of another length are skipped), best first,
	// ties by chunk id, at most limit (<= 0: 50) of them.
	SearchVectors(ctx context.Context, f VectorFilter, q []float32, limit int) ([]VectorHit, error)
	// MarkRefreshed records a refresh attempt on a version in place
	// (refreshed_at, last_refresh_status): an attempt that found nothing
	// new is not a new version. ERR_NOT_FOUND for an unknown version.
	MarkRefreshed(ctx context.Context, key DocKey, version, status string, at time.Time) error
	// KnowledgeStats counts the documents, versions and chunks of the
	// spaces under a raw path prefix; due is the instant refreshes are
	// judged due at.
	KnowledgeStats(ctx context.Context, spaces []DocSpace, prefix string, due time.Time) (*KnowledgeStats, error)
	// StaleVersions lists up to limit current versions, in every space,
	// with content whose chunks are missing or lack a vector of model:
	// what a re-index must embed.
	StaleVersions(ctx context.Context, model string, limit int) ([]StaleVersion, error)
	// DropVectors deletes the vectors of every kept version of key (its
	// chunks stay, readable in its history) and returns how many went:
	// what vault_delete does besides the tombstone, so deleted knowledge is
	// not found by meaning even in history.
	DropVectors(ctx context.Context, key DocKey) (int, error)
	// SearchChunks ranks the chunks of current versions by full-text
	// relevance, best first (ties by chunk id).
	SearchChunks(ctx context.Context, q ChunkQuery) ([]ChunkHit, error)
}

// Embedder turns texts into vectors. The built-in one runs locally; an
// OpenAI-compatible endpoint can replace it. Model names the model (stored
// with every vector, so a change of model is seen) and Dims its width.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	Model() string
	Dims() int
}

// NormalizeDocPath applies membot's path rules (membot-operations.md §4):
// every \ becomes /, leading / are removed; then empty paths, NUL or
// control characters, ".." or empty segments and paths over
// MaxDocumentPath bytes are ERR_INVALID_INPUT.
func NormalizeDocPath(p string) (string, error) {
	p = strings.TrimLeft(strings.ReplaceAll(p, `\`, "/"), "/")
	const hint = "use a relative path like notes/design.md"
	switch {
	case p == "":
		return "", Errorf(ErrInvalidInput, "logical_path is empty").WithHint(hint)
	case len(p) > MaxDocumentPath:
		return "", Errorf(ErrInvalidInput, "logical_path is %d bytes, over the limit of %d", len(p), MaxDocumentPath).
			WithDetails("max_bytes", MaxDocumentPath).WithHint("use a shorter path")
	case strings.IndexFunc(p, unicode.IsControl) >= 0:
		return "", Errorf(ErrInvalidInput, "logical_path holds a control character").WithHint(hint)
	}
	segs := strings.Split(strings.TrimSuffix(p, "/"), "/")
	for _, s := range segs {
		if s == "" || s == ".." {
			return "", Errorf(ErrInvalidInput, "logical_path %q has an empty or '..' segment", p).WithHint(hint)
		}
	}
	return p, nil
}

// CheckDocSpace reports a malformed space as ERR_INVALID_INPUT.
func CheckDocSpace(s DocSpace) error {
	switch {
	case s.Scope == ScopeGlobal && s.Project == "":
		return nil
	case s.Scope == ScopeProject && s.Project != "":
		return nil
	}
	return Errorf(ErrInvalidInput, "scope %q with project %q is not a knowledge space", s.Scope, s.Project).
		WithHint("use scope project with a project slug, or scope global with none")
}
