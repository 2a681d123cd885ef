package sqlcore

import (
	"context"
	"strconv"
	"time"

	"github.com/baton-dev/baton/audit"
)

// RechainTool is the tool name of the action that records, in the log
// itself, that the log was re-hashed at upgrade.
const RechainTool = "audit_rechain"

// rechainBatch is how many actions one query of the re-hash reads.
const rechainBatch = 10_000

// RechainActions re-hashes the action log migration 28 queued, once,
// inside the caller's transaction. Until version 28 an action's hash was
// SHA-256 over Go's encoding/json of its fields; from then on it is the
// RFC 6962 leaf hash of their RFC 8785 canonical JSON, which any JCS and
// SHA-256 implementation rebuilds. So:
//
//   - every action gets its new hash and link, in order;
//   - whether the old chain verified by the old rule is checked first, and
//     the first position where it did not is kept in action_rechain (and
//     reported by every verification after), so re-hashing cannot launder
//     a record changed before the upgrade;
//   - audit-session leaves holding an action's old hash take the new one,
//     and finalized roots that still matched are recomputed (releaf);
//   - an action appended at the end records the re-chain in the log
//     itself: tool audit_rechain, its input digest over the old head, the
//     count and the first break.
//
// Placeholders are ?, so PostgreSQL callers pass a rebinding Querier.
func RechainActions(ctx context.Context, q Querier, now time.Time) (bool, error) {
	pending, err := Column(ctx, q, `SELECT id FROM action_rechain WHERE pending = 1`)
	if err != nil || len(pending) == 0 {
		return false, err
	}
	inSessions := map[string]bool{}
	ids, err := Column(ctx, q, `SELECT DISTINCT record_id FROM session_records WHERE kind = 'action'`)
	if err != nil {
		return false, err
	}
	for _, id := range ids {
		inSessions[id] = true
	}
	renamed := map[string][2]string{}
	var records, last, firstBreak int64
	oldPrev, newPrev := audit.Genesis, audit.Genesis
	for after := int64(0); ; {
		acts, err := (&Tx{Q: q}).scanActions(q.QueryContext(ctx, `SELECT `+actionColumns+` FROM actions WHERE position > ?
			ORDER BY position LIMIT `+strconv.Itoa(rechainBatch), after))
		if err != nil {
			return false, err
		}
		for _, a := range acts {
			f := audit.ActionOf(a)
			if firstBreak == 0 && (a.PreviousHash != oldPrev || f.LegacyHash() != a.Hash || a.Position != records+1) {
				firstBreak = a.Position
			}
			oldPrev = a.Hash
			f.PreviousHash = newPrev
			h := f.Hash()
			if _, err := q.ExecContext(ctx, `UPDATE actions SET previous_hash = ?, hash = ? WHERE position = ?`, newPrev, h, a.Position); err != nil {
				return false, err
			}
			if id := strconv.FormatInt(a.Position, 10); inSessions[id] {
				renamed[id] = [2]string{a.Hash, h}
			}
			newPrev, after, last = h, a.Position, a.Position
			records++
		}
		if len(acts) < rechainBatch {
			break
		}
	}
	if len(renamed) > 0 {
		if _, err := releaf(ctx, q, "action", renamed); err != nil {
			return false, err
		}
	}
	at := audit.Stamp(now)
	in, err := audit.DigestValue(map[string]any{"from": "sha256(encoding/json)", "to": "rfc6962 leaf of rfc8785",
		"records": records, "old_head": oldPrev, "first_break": firstBreak})
	if err != nil {
		return false, err
	}
	out, err := audit.DigestValue(map[string]any{"head": newPrev})
	if err != nil {
		return false, err
	}
	rec := audit.ActionFields{Position: last + 1, Agent: "baton", Source: "upgrade", Tool: RechainTool,
		InputDigest: in, ResultDigest: out, At: at, PreviousHash: newPrev}
	if _, err := q.ExecContext(ctx, `INSERT INTO actions (position, agent, source, tool, subject, input_digest, result_digest,
		at, previous_hash, hash) VALUES (?, ?, ?, ?, '', ?, ?, ?, ?, ?)`, rec.Position, rec.Agent, rec.Source, rec.Tool,
		rec.InputDigest, rec.ResultDigest, rec.At, rec.PreviousHash, rec.Hash()); err != nil {
		return false, err
	}
	_, err = q.ExecContext(ctx, `UPDATE action_rechain SET pending = 0, records = ?, old_head = ?, first_break = ?, position = ?, at = ?
		WHERE id = 1`, records, oldPrev, firstBreak, rec.Position, at)
	return err == nil, err
}
