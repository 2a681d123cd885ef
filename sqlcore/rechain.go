package sqlcore

import (
	"context"

	"github.com/baton-dev/baton/audit"
)

// RechainResult says what RechainThoughts did.
type RechainResult struct {
	Chains   int // thought chains re-hashed by the catalogue's formula
	Kept     int // chains left as they were: they did not verify by the old rule
	Sessions int // finalized sessions whose frozen root was recomputed
}

type oldThought struct {
	id, typ, content, at, by, prev, hash string
}

// RechainThoughts re-hashes the thought chains that migration 15 queued in
// thought_rechain, once, inside the caller's transaction. Until version
// 15 baton hashed thought records over sorted keys with 64 zeros before
// the first record; Colibri's catalogue hashes JSON.stringify of six
// fields in its own order with null before the first, and a Colibri client
// checking hashes itself must accept baton's records. So:
//
//   - a chain that verifies by the old rule gets new hashes and links,
//     record by record (previous_hash "" for the first);
//   - a chain that does not verify by the old rule is left untouched: its
//     records were changed behind baton's back, and re-hashing them would
//     launder that; it keeps failing verification;
//   - audit-session leaves that held a re-hashed record's old hash take its
//     new hash, and a finalized session whose frozen root still matched its
//     old leaves gets the root of the new leaves (a root that no longer
//     matched stays as it was, so the tampering stays visible).
//
// Placeholders are ?, so PostgreSQL callers pass a rebinding Querier.
func RechainThoughts(ctx context.Context, q Querier) (RechainResult, error) {
	var res RechainResult
	tasks, err := Column(ctx, q, `SELECT task_id FROM thought_rechain ORDER BY task_id`)
	if err != nil || len(tasks) == 0 {
		return res, err
	}
	renamed := map[string][2]string{} // record id -> old hash, new hash
	for _, task := range tasks {
		chain, err := oldChain(ctx, q, task)
		if err != nil {
			return res, err
		}
		if !legacyIntact(task, chain) {
			res.Kept++
			continue
		}
		prev := ""
		for _, r := range chain {
			h := audit.ThoughtFields{TaskID: task, Type: r.typ, Content: r.content, PreviousHash: prev, RecordedAt: r.at,
				RecordedBy: r.by}.Hash()
			if _, err := q.ExecContext(ctx, `UPDATE thoughts SET previous_hash = ?, hash = ? WHERE id = ?`, prev, h, r.id); err != nil {
				return res, err
			}
			renamed[r.id] = [2]string{r.hash, h}
			prev = h
		}
		res.Chains++
	}
	if len(renamed) > 0 {
		if res.Sessions, err = releaf(ctx, q, "thought", renamed); err != nil {
			return res, err
		}
	}
	_, err = q.ExecContext(ctx, `DELETE FROM thought_rechain`)
	return res, err
}

func oldChain(ctx context.Context, q Querier, task string) ([]oldThought, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, type, content, recorded_at, recorded_by, previous_hash, hash FROM thoughts
		WHERE task_id = ? ORDER BY position`, task)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []oldThought
	for rows.Next() {
		var r oldThought
		if err := rows.Scan(&r.id, &r.typ, &r.content, &r.at, &r.by, &r.prev, &r.hash); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// legacyIntact reports whether a chain verifies by the rule before version 15.
func legacyIntact(task string, chain []oldThought) bool {
	prev := audit.Genesis
	for _, r := range chain {
		f := audit.ThoughtFields{TaskID: task, Type: r.typ, Content: r.content, PreviousHash: r.prev, RecordedAt: r.at, RecordedBy: r.by}
		if r.prev != prev || f.LegacyHash() != r.hash {
			return false
		}
		prev = r.hash
	}
	return true
}

type leaf struct {
	seq            int64
	kind, id, task string
	hash           string
}

// releaf moves session leaves of kind (thought or action) from old to new
// hashes and recomputes the frozen roots that still matched their leaves.
func releaf(ctx context.Context, q Querier, kind string, renamed map[string][2]string) (int, error) {
	ids, err := Column(ctx, q, `SELECT DISTINCT session_id FROM session_records WHERE kind = ?`, kind)
	if err != nil {
		return 0, err
	}
	roots := 0
	for _, id := range ids {
		leaves, err := sessionLeaves(ctx, q, id)
		if err != nil {
			return roots, err
		}
		var finalized bool
		var frozen, rootTask string
		if err := q.QueryRowContext(ctx, `SELECT finalized_at IS NOT NULL, merkle_root, root_task FROM audit_sessions WHERE id = ?`, id).
			Scan(&finalized, &frozen, &rootTask); err != nil {
			return roots, err
		}
		var before, after []string
		changed := false
		for _, l := range leaves {
			h := l.hash
			if ren, ok := renamed[l.id]; ok && l.kind == kind && l.hash == ren[0] {
				h = ren[1]
				if _, err := q.ExecContext(ctx, `UPDATE session_records SET hash = ? WHERE session_id = ? AND seq = ?`, h, id, l.seq); err != nil {
					return roots, err
				}
				changed = true
			}
			if rootTask == "" || l.task == rootTask {
				before, after = append(before, l.hash), append(after, h)
			}
		}
		if !finalized || !changed {
			continue
		}
		if old, _, err := audit.Root(before); err != nil || old != frozen {
			continue // tampered before the upgrade: leave the evidence
		}
		root, _, err := audit.Root(after)
		if err != nil {
			return roots, err
		}
		if _, err := q.ExecContext(ctx, `UPDATE audit_sessions SET merkle_root = ? WHERE id = ?`, root, id); err != nil {
			return roots, err
		}
		roots++
	}
	return roots, nil
}

func sessionLeaves(ctx context.Context, q Querier, id string) ([]leaf, error) {
	rows, err := q.QueryContext(ctx, `SELECT seq, kind, record_id, task_id, hash FROM session_records WHERE session_id = ? ORDER BY seq`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []leaf
	for rows.Next() {
		var l leaf
		if err := rows.Scan(&l.seq, &l.kind, &l.id, &l.task, &l.hash); err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}
