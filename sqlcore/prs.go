package sqlcore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/baton-dev/baton"
)

// prColumns are the columns of a PR record but its diff, read as p with the
// item's project as i.project.
const prColumns = `p.id, p.item_id, i.project, p.branch_name, p.base_branch, p.base_sha, p.head_sha, p.commits, p.repo_dir,
	p.diff_truncated, p.files, p.gates, p.risk, p.status, p.reason, p.fix_instructions, p.reviewed_by, p.reviewed_at,
	p.created_by, p.created_at, p.updated_at`

// CreatePR stores a PR record (id PR-N) for an existing item.
func (t *Tx) CreatePR(ctx context.Context, p *baton.PR) error {
	it, err := t.Self.Item(ctx, p.ItemID)
	if err != nil {
		return err
	}
	p.ItemID, p.Project = it.ID, it.Project // the item's current id, when p named an older one
	id, err := t.NextRecordID(ctx, "prs", "PR")
	if err != nil {
		return err
	}
	if p.CreatedAt.IsZero() {
		p.CreatedAt = t.Now().UTC()
	}
	if p.UpdatedAt.IsZero() {
		p.UpdatedAt = p.CreatedAt
	}
	if p.Status == "" {
		p.Status = baton.PROpen
	}
	files, gates, risk, err := prJSON(p)
	if err != nil {
		return err
	}
	_, err = t.Q.ExecContext(ctx, `INSERT INTO prs (id, item_id, branch_name, base_branch, base_sha, head_sha, commits, repo_dir,
		diff, diff_truncated, files, gates, risk, risk_level, status, reason, fix_instructions, reviewed_by, reviewed_at,
		created_by, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		id, p.ItemID, p.BranchName, p.BaseBranch, p.BaseSHA, p.HeadSHA, p.Commits, p.RepoDir,
		p.Diff, boolInt(p.DiffTruncated), files, gates, risk, p.Risk.Level, string(p.Status), p.Reason, p.FixInstructions,
		p.ReviewedBy, optMS(p.ReviewedAt), p.CreatedBy, MS(p.CreatedAt), MS(p.UpdatedAt))
	if err != nil {
		return err
	}
	p.ID = id
	return nil
}

// PR returns one record with its diff.
func (t *Tx) PR(ctx context.Context, id string) (*baton.PR, error) {
	row := t.Q.QueryRowContext(ctx, `SELECT `+prColumns+`, p.diff FROM prs p JOIN items i ON i.id = p.item_id WHERE p.id = ?`, id)
	var diff string
	p, err := scanPR(row.Scan, &diff)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, baton.PRNotFound(id)
	}
	if err != nil {
		return nil, err
	}
	p.Diff = diff
	return p, nil
}

// PRs returns matching records newest first, without their diffs.
func (t *Tx) PRs(ctx context.Context, f baton.PRFilter) ([]*baton.PR, error) {
	var conds []string
	var args []any
	if f.Project != "" {
		conds, args = append(conds, "i.project = ?"), append(args, f.Project)
	}
	if f.ItemID != "" {
		// An item's PRs follow it across a move: name it by any id it had.
		conds, args = append(conds, "p.item_id = "+currentItemID), append(args, currentItemIDArgs(f.ItemID)...)
	}
	if len(f.Statuses) > 0 {
		conds = append(conds, "p.status IN ("+Placeholders(len(f.Statuses))+")")
		for _, s := range f.Statuses {
			args = append(args, string(s))
		}
	}
	query := `SELECT ` + prColumns + ` FROM prs p JOIN items i ON i.id = p.item_id`
	if len(conds) > 0 {
		query += ` WHERE ` + JoinAnd(conds)
	}
	query += ` ORDER BY p.rid DESC LIMIT ` + t.D.LimitArg()
	if f.Limit > 0 {
		args = append(args, f.Limit)
	} else {
		args = append(args, t.D.NoLimit())
	}
	rows, err := t.Q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*baton.PR{}
	for rows.Next() {
		p, err := scanPR(rows.Scan)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// UpdatePR writes what changes in a record after its creation: status,
// review, gate results and the update time.
func (t *Tx) UpdatePR(ctx context.Context, p *baton.PR) error {
	_, gates, _, err := prJSON(p)
	if err != nil {
		return err
	}
	if p.UpdatedAt.IsZero() {
		p.UpdatedAt = t.Now().UTC()
	}
	res, err := t.Q.ExecContext(ctx, `UPDATE prs SET status = ?, reason = ?, fix_instructions = ?, reviewed_by = ?, reviewed_at = ?,
		gates = ?, updated_at = ? WHERE id = ?`,
		string(p.Status), p.Reason, p.FixInstructions, p.ReviewedBy, optMS(p.ReviewedAt), gates, MS(p.UpdatedAt), p.ID)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return baton.PRNotFound(p.ID)
	}
	return nil
}

func prJSON(p *baton.PR) (files, gates, risk string, err error) {
	if p.Files == nil {
		p.Files = []baton.FileStat{}
	}
	if p.Gates == nil {
		p.Gates = []baton.GateResult{}
	}
	if p.Risk.SensitiveFiles == nil {
		p.Risk.SensitiveFiles = []string{}
	}
	if p.Risk.Reasons == nil {
		p.Risk.Reasons = []string{}
	}
	var b []byte
	if b, err = json.Marshal(p.Files); err != nil {
		return
	}
	files = string(b)
	if b, err = json.Marshal(p.Gates); err != nil {
		return
	}
	gates = string(b)
	if b, err = json.Marshal(p.Risk); err != nil {
		return
	}
	return files, gates, string(b), nil
}

// scanPR reads prColumns (and any extra destinations after them).
func scanPR(scan func(...any) error, extra ...any) (*baton.PR, error) {
	var p baton.PR
	var truncated, reviewed, created, updated int64
	var status, files, gates, risk string
	dest := []any{&p.ID, &p.ItemID, &p.Project, &p.BranchName, &p.BaseBranch, &p.BaseSHA, &p.HeadSHA, &p.Commits, &p.RepoDir,
		&truncated, &files, &gates, &risk, &status, &p.Reason, &p.FixInstructions, &p.ReviewedBy, &reviewed,
		&p.CreatedBy, &created, &updated}
	if err := scan(append(dest, extra...)...); err != nil {
		return nil, err
	}
	p.DiffTruncated, p.Status = truncated != 0, baton.PRStatus(status)
	p.ReviewedAt, p.CreatedAt, p.UpdatedAt = fromOptMS(reviewed), FromMS(created), FromMS(updated)
	if err := json.Unmarshal([]byte(files), &p.Files); err != nil {
		return nil, fmt.Errorf("PR %s: files: %w", p.ID, err)
	}
	if err := json.Unmarshal([]byte(gates), &p.Gates); err != nil {
		return nil, fmt.Errorf("PR %s: gates: %w", p.ID, err)
	}
	if err := json.Unmarshal([]byte(risk), &p.Risk); err != nil {
		return nil, fmt.Errorf("PR %s: risk: %w", p.ID, err)
	}
	if p.Files == nil {
		p.Files = []baton.FileStat{}
	}
	if p.Gates == nil {
		p.Gates = []baton.GateResult{}
	}
	if p.Risk.SensitiveFiles == nil {
		p.Risk.SensitiveFiles = []string{}
	}
	if p.Risk.Reasons == nil {
		p.Risk.Reasons = []string{}
	}
	return &p, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
