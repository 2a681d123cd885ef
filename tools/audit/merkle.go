package audit

import (
	"context"
	"strconv"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
	"github.com/baton-dev/baton/tool"
)

type finalizeIn struct {
	SessionID string `json:"session_id" jsonschema:"Session to finalize."`
	TaskID    string `json:"task_id,omitempty" jsonschema:"Include only records about this task."`
}

type finalizeOut struct {
	SessionID   string `json:"session_id" jsonschema:"The session."`
	MerkleRoot  string `json:"merkle_root" jsonschema:"SHA-256 of the final root node."`
	TreeDepth   int    `json:"tree_depth" jsonschema:"Height of the tree in levels, leaves included (0 for no leaves)."`
	LeafCount   int    `json:"leaf_count" jsonschema:"Total leaf nodes: the session's record hashes."`
	FinalizedAt string `json:"finalized_at" jsonschema:"ISO-8601 UTC timestamp."`
	Frozen      bool   `json:"frozen" jsonschema:"Always true on success."`
}

// MerkleFinalize is merkle_finalize.
var MerkleFinalize = tool.New(tool.Definition[finalizeIn, finalizeOut]{
	Name:    "merkle_finalize",
	Event:   "audit.finalized",
	Toolset: Toolset,
	Description: "Build the Merkle tree of an audit session's records and freeze its root: leaves are record hashes, nodes " +
		"SHA256(left||right), an odd node is promoted, the empty tree's root is sha256(\"\"). A second call is ERR_ALREADY_FINALIZED.",
	// Sealing a session is the auditor's decision and cannot be undone:
	// an agent gets it only by an explicit grant.
	Annotations: tool.Annotations{Privileged: true},
	Profiles:    tool.Profiles,
	Input:       tool.Rules{"session_id": sessionIDRule, "task_id": taskIDRule},
	Execute: func(ctx context.Context, c *tool.Call, in finalizeIn) (finalizeOut, error) {
		s, err := c.Tx.Session(ctx, in.SessionID)
		if err != nil {
			return finalizeOut{}, err
		}
		if s.Finalized() {
			// Same answer as the store gives, before any work.
			s.FinalizedAt = c.Now
			return finalizeOut{}, c.Tx.FinalizeSession(ctx, s)
		}
		if in.TaskID != "" {
			if in.TaskID, err = taskID(ctx, c, in.TaskID); err != nil {
				return finalizeOut{}, err
			}
		}
		_, hashes, err := leaves(ctx, c, s.ID, in.TaskID)
		if err != nil {
			return finalizeOut{}, err
		}
		root, depth, err := audit.Root(hashes)
		if err != nil {
			return finalizeOut{}, err
		}
		s.MerkleRoot, s.RootTask, s.TreeDepth, s.LeafCount, s.FinalizedAt = root, in.TaskID, depth, len(hashes), c.Now
		if err := c.Tx.FinalizeSession(ctx, s); err != nil {
			return finalizeOut{}, err
		}
		return finalizeOut{SessionID: s.ID, MerkleRoot: root, TreeDepth: depth, LeafCount: len(hashes),
			FinalizedAt: baton.Timestamp(c.Now), Frozen: true}, nil
	},
})

type rootIn struct {
	SessionID string `json:"session_id" jsonschema:"Session to query."`
}

type rootOut struct {
	SessionID   string `json:"session_id" jsonschema:"The session."`
	MerkleRoot  string `json:"merkle_root" jsonschema:"SHA-256 of the current root: frozen once finalized, else over the records so far."`
	IsFinalized bool   `json:"is_finalized" jsonschema:"true if merkle_finalize has been called."`
	LeafCount   int    `json:"leaf_count" jsonschema:"Leaves under the root."`
	AsOf        string `json:"as_of" jsonschema:"ISO-8601 timestamp of the last change."`
}

// MerkleRoot is merkle_root.
var MerkleRoot = tool.New(tool.Definition[rootIn, rootOut]{
	Name:        "merkle_root",
	Toolset:     Toolset,
	Description: "Retrieve the current Merkle root of an audit session: the frozen root once finalized, else the root over its records so far.",
	Profiles:    tool.Profiles,
	Annotations: tool.Annotations{ReadOnly: true},
	Input:       tool.Rules{"session_id": sessionIDRule},
	Execute: func(ctx context.Context, c *tool.Call, in rootIn) (rootOut, error) {
		s, err := c.Tx.Session(ctx, in.SessionID)
		if err != nil {
			return rootOut{}, err
		}
		out := rootOut{SessionID: s.ID, IsFinalized: s.Finalized(), AsOf: baton.Timestamp(s.LastChange)}
		if s.Finalized() {
			out.MerkleRoot, out.LeafCount = s.MerkleRoot, s.LeafCount
			return out, nil
		}
		_, hashes, err := leaves(ctx, c, s.ID, "")
		if err != nil {
			return rootOut{}, err
		}
		out.MerkleRoot, _, err = audit.Root(hashes)
		out.LeafCount = len(hashes)
		return out, err
	},
})

type proofIn struct {
	SessionID string `json:"session_id" jsonschema:"A finalized audit session."`
	RecordID  string `json:"record_id" jsonschema:"A thought id (Θ-0001), or an action's position in the action log."`
}

type proofOut struct {
	SessionID string       `json:"session_id" jsonschema:"The session."`
	RecordID  string       `json:"record_id" jsonschema:"The record."`
	Kind      string       `json:"kind" jsonschema:"thought or action."`
	Leaf      string       `json:"leaf" jsonschema:"The record's hash: the leaf."`
	LeafIndex int          `json:"leaf_index" jsonschema:"Its index among the leaves, from 0."`
	LeafCount int          `json:"leaf_count" jsonschema:"Leaves in the tree."`
	Path      []audit.Step `json:"path" jsonschema:"Siblings from the leaf up; side says where the sibling stands."`
	Root      string       `json:"root" jsonschema:"The session's frozen Merkle root."`
	Algorithm string       `json:"algorithm" jsonschema:"How to check the proof."`
}

// MerkleProof is merkle_proof, baton's own.
var MerkleProof = tool.New(tool.Definition[proofIn, proofOut]{
	Name:    "merkle_proof",
	Toolset: Toolset,
	Description: "Return a record's inclusion proof against its audit session's finalized Merkle root. Save it as a file and check " +
		"it offline with `baton audit verify-proof FILE`.",
	Profiles:    tool.Profiles,
	Annotations: tool.Annotations{ReadOnly: true},
	Input:       tool.Rules{"session_id": sessionIDRule, "record_id": tool.Length(1, 64)},
	Execute: func(ctx context.Context, c *tool.Call, in proofIn) (proofOut, error) {
		s, err := c.Tx.Session(ctx, in.SessionID)
		if err != nil {
			return proofOut{}, err
		}
		if !s.Finalized() {
			return proofOut{}, baton.Errorf(baton.ErrConflict, "audit session %s is not finalized: its root can still change", s.ID).
				WithType("not_finalized").WithDetails("session_id", s.ID).
				WithHint("call merkle_finalize first; proofs are against a frozen root")
		}
		recs, hashes, err := leaves(ctx, c, s.ID, s.RootTask)
		if err != nil {
			return proofOut{}, err
		}
		for i, r := range recs {
			if r.RecordID != in.RecordID {
				continue
			}
			p, err := audit.Prove(hashes, i)
			if err != nil {
				return proofOut{}, err
			}
			current, err := currentHash(ctx, c, r)
			if err != nil {
				return proofOut{}, err
			}
			if p.Root != s.MerkleRoot || current != r.Hash {
				return proofOut{}, baton.Errorf(baton.ErrConflict, "the records of %s no longer give its frozen root", s.ID).
					WithType("tampered").WithDetails("session_id", s.ID, "frozen_root", s.MerkleRoot, "current_root", p.Root).
					WithHint("the audit trail was changed after finalization; run audit_verify_chain session_id=%s to find where", s.ID)
			}
			return proofOut{SessionID: s.ID, RecordID: r.RecordID, Kind: r.Kind, Leaf: p.Leaf, LeafIndex: p.LeafIndex,
				LeafCount: p.LeafCount, Path: p.Path, Root: p.Root, Algorithm: algorithm}, nil
		}
		return proofOut{}, baton.Errorf(baton.ErrNotFound, "record %s is not in audit session %s", in.RecordID, s.ID).
			WithDetails("session_id", s.ID, "record_id", in.RecordID).
			WithHint("list the session's thought records with thought_record_list session_id=%s", s.ID)
	},
})

// currentHash recomputes a session record's hash from the record as it is
// stored now ("" when it is gone), so a proof is never given for a record
// changed after its session was finalized.
func currentHash(ctx context.Context, c *tool.Call, r baton.SessionRecord) (string, error) {
	switch r.Kind {
	case "thought":
		chain, err := c.Tx.Thoughts(ctx, baton.ThoughtFilter{TaskID: r.TaskID})
		if err != nil {
			return "", err
		}
		for _, t := range chain {
			if t.ID == r.RecordID {
				return audit.ThoughtOf(t).Hash(), nil
			}
		}
	case "action":
		pos, _ := strconv.ParseInt(r.RecordID, 10, 64)
		acts, err := c.Tx.Actions(ctx, pos-1, 1)
		if err != nil {
			return "", err
		}
		if len(acts) == 1 && acts[0].Position == pos {
			return audit.ActionOf(acts[0]).Hash(), nil
		}
	}
	return "", nil
}

const algorithm = "SHA-256; start from leaf; for each step, hash = SHA256(sibling||hash) when side is left, " +
	"SHA256(hash||sibling) when right (hashes as raw 32 bytes); the result must equal root."
