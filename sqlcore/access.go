package sqlcore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/baton-dev/baton"
)

const profileColumns = `name, extends, allowed_tools, disallowed_tools, skills, description, updated_at`

// scanProfile reads one row of profileColumns.
func scanProfile(scan func(...any) error) (*baton.Profile, error) {
	var p baton.Profile
	var allowed, disallowed, skills string
	var updated int64
	if err := scan(&p.Name, &p.Extends, &allowed, &disallowed, &skills, &p.Description, &updated); err != nil {
		return nil, err
	}
	var err error
	if p.AllowedTools, err = ParseList(allowed); err != nil {
		return nil, err
	}
	if p.DisallowedTools, err = ParseList(disallowed); err != nil {
		return nil, err
	}
	if p.Skills, err = ParseList(skills); err != nil {
		return nil, err
	}
	p.UpdatedAt = FromMS(updated)
	return &p, nil
}

func (t *Tx) Profile(ctx context.Context, name string) (*baton.Profile, error) {
	p, err := scanProfile(t.Q.QueryRowContext(ctx, `SELECT `+profileColumns+` FROM profiles WHERE name = ?`, name).Scan)
	if errors.Is(err, sql.ErrNoRows) {
		if baton.IsBuiltinProfile(name) {
			return &baton.Profile{Name: name}, nil
		}
		return nil, baton.ProfileNotFound(name)
	}
	return p, err
}

func (t *Tx) Profiles(ctx context.Context) ([]*baton.Profile, error) {
	rows, err := t.Q.QueryContext(ctx, `SELECT `+profileColumns+` FROM profiles ORDER BY `+t.D.ByteOrder("name"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*baton.Profile{}
	for rows.Next() {
		p, err := scanProfile(rows.Scan)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

func (t *Tx) PutProfile(ctx context.Context, p *baton.Profile) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if p.UpdatedAt.IsZero() {
		p.UpdatedAt = t.Now().UTC()
	}
	_, err := t.Q.ExecContext(ctx, `INSERT INTO profiles (`+profileColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET extends = excluded.extends, allowed_tools = excluded.allowed_tools,
		disallowed_tools = excluded.disallowed_tools, skills = excluded.skills, description = excluded.description,
		updated_at = excluded.updated_at`,
		p.Name, p.Extends, JSONList(p.AllowedTools), JSONList(p.DisallowedTools), JSONList(p.Skills), p.Description,
		MS(p.UpdatedAt))
	return err
}

func (t *Tx) DeleteProfile(ctx context.Context, name string) error {
	res, err := t.Q.ExecContext(ctx, `DELETE FROM profiles WHERE name = ?`, name)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return baton.ProfileNotFound(name)
	}
	return nil
}

const tokenColumns = `id, agent, profile, project, scheduler, hash, created_at, revoked_at, preset`

// scanToken reads one row of tokenColumns.
func scanToken(scan func(...any) error) (*baton.AgentToken, error) {
	var tok baton.AgentToken
	var created int64
	var revoked sql.NullInt64
	if err := scan(&tok.ID, &tok.Agent, &tok.Profile, &tok.Project, &tok.Scheduler, &tok.Hash, &created, &revoked, &tok.Preset); err != nil {
		return nil, err
	}
	tok.CreatedAt = FromMS(created)
	if revoked.Valid {
		at := FromMS(revoked.Int64)
		tok.RevokedAt = &at
	}
	return &tok, nil
}

func (t *Tx) CreateToken(ctx context.Context, tok *baton.AgentToken) error {
	if tok.CreatedAt.IsZero() {
		tok.CreatedAt = t.Now().UTC()
	}
	var revoked any
	if tok.RevokedAt != nil {
		revoked = MS(*tok.RevokedAt)
	}
	scheduler := 0 // an integer column on both stores
	if tok.Scheduler {
		scheduler = 1
	}
	err := t.D.Attempt(ctx, func() error {
		_, err := t.Q.ExecContext(ctx, `INSERT INTO agent_tokens (`+tokenColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			tok.ID, tok.Agent, tok.Profile, tok.Project, scheduler, tok.Hash, MS(tok.CreatedAt), revoked, tok.Preset)
		return err
	})
	if t.D.IsUnique(err) {
		return baton.Errorf(baton.ErrConflict, "a token with id %q or the same hash already exists", tok.ID).
			WithType("duplicate").WithDetails("token_id", tok.ID).
			WithHint("issue a new token: its id and secret are drawn afresh")
	}
	return err
}

func (t *Tx) TokenByHash(ctx context.Context, hash string) (*baton.AgentToken, error) {
	tok, err := scanToken(t.Q.QueryRowContext(ctx, `SELECT `+tokenColumns+` FROM agent_tokens WHERE hash = ?`, hash).Scan)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, baton.Errorf(baton.ErrNotFound, "no agent token matches").
			WithHint("check the bearer token, or issue one with `baton agent create`")
	}
	return tok, err
}

func (t *Tx) Tokens(ctx context.Context) ([]*baton.AgentToken, error) {
	rows, err := t.Q.QueryContext(ctx, `SELECT `+tokenColumns+` FROM agent_tokens ORDER BY created_at, `+t.D.ByteOrder("id"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*baton.AgentToken{}
	for rows.Next() {
		tok, err := scanToken(rows.Scan)
		if err != nil {
			return nil, err
		}
		out = append(out, tok)
	}
	return out, rows.Err()
}

// RevokeTokens compares who with the agent column under its
// case-insensitive collation (SQLite NOCASE, PostgreSQL baton_nocase), as
// agent names compare everywhere.
func (t *Tx) RevokeTokens(ctx context.Context, who string, at time.Time) (int, error) {
	res, err := t.Q.ExecContext(ctx, `UPDATE agent_tokens SET revoked_at = ? WHERE revoked_at IS NULL AND (id = ? OR agent = ?)`,
		MS(at), who, who)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

func (t *Tx) SetProjectTools(ctx context.Context, slug string, tools []string) error {
	t.ProjectsRead.forget(slug)
	res, err := t.Q.ExecContext(ctx, `UPDATE projects SET tools = ? WHERE slug = ?`, JSONList(UniqueList(tools)), slug)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return baton.ProjectNotFound(slug)
	}
	return nil
}

// UniqueList is s without repeats, in order of first appearance.
func UniqueList(s []string) []string {
	out := make([]string, 0, len(s))
	seen := make(map[string]bool, len(s))
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
