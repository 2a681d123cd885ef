package baton

import (
	"context"
	"encoding/json"
	"time"
)

// Thought types of Colibri's thought_record.
var ThoughtTypes = []string{"reflection", "decision", "discovery", "risk", "blockers"}

// ThoughtRecord is one hash-chained decision record. Each task has its own
// chain: Position counts from 1 and PreviousHash is the hash of the
// record before ("" for the first, which Colibri's catalogue writes null).
type ThoughtRecord struct {
	ID           string // Θ-0001
	TaskID       string
	Type         string
	Content      string
	Branch       string
	CommitSHA    string
	TestsRun     []string
	Blockers     []string
	Metadata     json.RawMessage
	Hash         string
	PreviousHash string
	RecordedAt   time.Time
	RecordedBy   string
	Position     int
	SessionIDs   []string // open audit sessions the record joined
}

// ThoughtFilter selects thought records; zero values do not filter.
type ThoughtFilter struct {
	TaskID    string
	SessionID string
	Type      string
	Limit     int
}

// AuditSession scopes records for review and, once finalized, freezes
// their Merkle root.
type AuditSession struct {
	ID          string // A-0001
	TaskID      string
	AuditorID   string
	Reason      string
	Scope       string // shallow: the task; deep: the task and its dependents
	StartedBy   string
	StartedAt   time.Time
	FinalizedAt time.Time // zero while open
	// TrackingEndedAt is when audit_verify_chain verified the session:
	// from then on no new record joins it (zero while it tracks).
	TrackingEndedAt time.Time
	MerkleRoot      string
	RootTask        string // the task the frozen root was limited to, if any
	TreeDepth       int
	LeafCount       int
	LastChange      time.Time
}

// Finalized reports whether the session's root is frozen.
func (s *AuditSession) Finalized() bool { return !s.FinalizedAt.IsZero() }

// Tracking reports whether new records still join the session: until it
// is verified (audit_verify_chain) or finalized.
func (s *AuditSession) Tracking() bool { return !s.Finalized() && s.TrackingEndedAt.IsZero() }

// SessionRecord is a record as a leaf of its session's Merkle tree.
type SessionRecord struct {
	Kind     string // "thought" or "action"
	RecordID string // thought id, or the action's chain position
	TaskID   string // the task it concerns
	Hash     string
	At       time.Time
}

// Action is one entry of the action log: every successful mutating tool
// call, on any transport, chained by hash in one log for the whole store.
type Action struct {
	Position     int64
	Agent        string
	Source       string
	Tool         string
	Subject      string // the work item the call was about, if any
	InputDigest  string
	ResultDigest string
	At           time.Time
	PreviousHash string
	Hash         string
}

// AuditTx keeps the thought chains, audit sessions and the action log.
// Hashes are computed by the store inside the write transaction, where
// the previous record is certain.
type AuditTx interface {
	// AddThought appends to the task's chain and joins the open sessions
	// that cover the task.
	AddThought(ctx context.Context, r *ThoughtRecord) error
	Thoughts(ctx context.Context, f ThoughtFilter) ([]*ThoughtRecord, error)
	StartSession(ctx context.Context, s *AuditSession) error
	// Session returns ERR_SESSION_NOT_FOUND for an unknown id.
	Session(ctx context.Context, id string) (*AuditSession, error)
	// Sessions lists every audit session, oldest first.
	Sessions(ctx context.Context) ([]*AuditSession, error)
	// SessionRecords lists a session's records in the order they joined.
	SessionRecords(ctx context.Context, id string) ([]SessionRecord, error)
	// FinalizeSession freezes the root; a second call is ERR_ALREADY_FINALIZED.
	FinalizeSession(ctx context.Context, s *AuditSession) error
	// EndTracking stops new records joining the session, once: it reports
	// whether this call ended it (false when it had ended already).
	EndTracking(ctx context.Context, id string, at time.Time) (bool, error)
	// AppendAction chains a; the store sets Position, PreviousHash and Hash.
	AppendAction(ctx context.Context, a *Action) error
	// AppendActionEvent is AppendAction(a) then AppendEvent(e), in as few
	// statements as the store can make them: every write call records
	// both, and on PostgreSQL each statement is a round trip under the
	// writers' lock.
	AppendActionEvent(ctx context.Context, a *Action, e *Event) error
	// Actions returns up to limit actions after position, in chain order.
	Actions(ctx context.Context, after int64, limit int) ([]*Action, error)
	// RecentActions returns the newest limit actions of agent (matched as
	// agent names are, ASCII case-insensitively; "" for every agent),
	// newest first: the dashboard's "recent calls", which must not read a
	// log that grows without bound.
	RecentActions(ctx context.Context, agent string, limit int) ([]*Action, error)
	// LogIdentity is the action log's name and public key; nil before its
	// key is made.
	LogIdentity(ctx context.Context) (*LogIdentity, error)
	// SetLogIdentity names the log, once: a second call changes nothing
	// (read LogIdentity again to see which won).
	SetLogIdentity(ctx context.Context, id *LogIdentity) error
	// AddCheckpoint stores a signed checkpoint; one of the same size
	// stored already is kept.
	AddCheckpoint(ctx context.Context, c *Checkpoint) error
	// Checkpoints lists the stored checkpoints, the largest first, at
	// most limit (every one when limit <= 0).
	Checkpoints(ctx context.Context, limit int) ([]*Checkpoint, error)
	// ActionRechains lists the re-hashings of the action log at upgrade.
	ActionRechains(ctx context.Context) ([]ActionRechain, error)
}

// LogIdentity names the action log as a transparency log: its origin
// (the first line of its checkpoints and its key's name) and its public
// key, as a note verifier key (name+hash+base64).
type LogIdentity struct {
	Origin    string
	PublicKey string
	CreatedAt time.Time
}

// Checkpoint is a signed checkpoint of the action log as stored: the size
// and Merkle root (hex) it commits to, the signed note itself (C2SP
// tlog-checkpoint), the tree's right edge at that size (the compact
// range, hex), where the next checkpoint resumes, and Head, the hash of
// the record at Size then.
type Checkpoint struct {
	Size int64
	Root string
	Note string
	Edge []string
	Head string
	At   time.Time
}

// ActionRechain records the one re-hashing of an action log written
// before the log hashed standard bytes: how many records, the hash the old
// chain ended at, the first position where the old chain did not verify
// (0: it verified whole), and the position of the action recording it.
type ActionRechain struct {
	At         time.Time
	Records    int64
	OldHead    string
	FirstBreak int64
	Position   int64
}
