package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
)

// The access conformance group: profiles, agent tokens and project tool
// bundles (baton.AccessTx, Project.Tools).

var accessCases = []testCase{
	{"BuiltinProfileWithoutRow", testProfileBuiltinWithoutRow},
	{"UnknownCustomProfile", testProfileUnknownCustom},
	{"ProfileValidation", testProfileValidation},
	{"ProfileRoundTrip", testProfileRoundTrip},
	{"ProfileUpdatedAtDefaults", testProfileUpdatedAtDefaults},
	{"ProfileUpsertReplaces", testProfileUpsert},
	{"ProfilesSortedByName", testProfilesSorted},
	{"DeleteProfile", testProfileDelete},
	{"NilAndEmptyLists", testProfileNilAndEmptyLists},
	{"TokenCreateAndLookup", testTokenCreateAndLookup},
	{"TokenDuplicate", testTokenDuplicate},
	{"TokensOldestFirst", testTokensOldestFirst},
	{"RevokeTokens", testTokenRevoke},
	{"RevokedTokenFoundByHash", testTokenRevokedFound},
	{"ProjectToolsUnknownProject", testProjectToolsUnknown},
	{"ProjectToolsRoundTrip", testProjectToolsRoundTrip},
	{"ProjectReadAcrossABatch", testProjectReadAcrossABatch},
	{"FailedTxChangesNothing", testAccessTxRollsBack},
	{"ViewRejectsWrites", testAccessViewRejectsWrites},
}

// ---- helpers ----

func (e *env) profile(name string) (*baton.Profile, error) {
	var p *baton.Profile
	err := e.s.View(e.ctx, func(tx baton.Tx) (err error) { p, err = tx.Profile(e.ctx, name); return err })
	return p, err
}

func (e *env) profiles() []*baton.Profile {
	e.t.Helper()
	var ps []*baton.Profile
	e.view(func(tx baton.Tx) (err error) { ps, err = tx.Profiles(e.ctx); return err })
	return ps
}

func (e *env) putProfile(p *baton.Profile) {
	e.t.Helper()
	e.update(func(tx baton.Tx) error { c := *p; return tx.PutProfile(e.ctx, &c) })
}

func (e *env) tokens() []*baton.AgentToken {
	e.t.Helper()
	var ts []*baton.AgentToken
	e.view(func(tx baton.Tx) (err error) { ts, err = tx.Tokens(e.ctx); return err })
	return ts
}

func (e *env) tokenByHash(hash string) (*baton.AgentToken, error) {
	var tok *baton.AgentToken
	err := e.s.View(e.ctx, func(tx baton.Tx) (err error) { tok, err = tx.TokenByHash(e.ctx, hash); return err })
	return tok, err
}

func (e *env) createToken(tok *baton.AgentToken) {
	e.t.Helper()
	e.update(func(tx baton.Tx) error { c := *tok; return tx.CreateToken(e.ctx, &c) })
}

func (e *env) revoke(who string, when time.Time) int {
	e.t.Helper()
	var n int
	e.update(func(tx baton.Tx) (err error) { n, err = tx.RevokeTokens(e.ctx, who, when); return err })
	return n
}

func profileNames(ps []*baton.Profile) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}

func tokenIDs(ts []*baton.AgentToken) []string {
	out := []string{}
	for _, tok := range ts {
		out = append(out, tok.ID)
	}
	return out
}

// diffProfile lists how got differs from want; UpdatedAt compares at
// millisecond precision and must come back in UTC. Lists must be non-nil.
func diffProfile(want, got *baton.Profile) []string {
	var d []string
	eq := func(name string, w, g any) {
		if !reflect.DeepEqual(w, g) {
			d = append(d, fmt.Sprintf("%s = %#v, want %#v", name, g, w))
		}
	}
	eq("Name", want.Name, got.Name)
	eq("Extends", want.Extends, got.Extends)
	eq("Description", want.Description, got.Description)
	for _, l := range []struct {
		name      string
		want, got []string
	}{
		{"AllowedTools", want.AllowedTools, got.AllowedTools},
		{"DisallowedTools", want.DisallowedTools, got.DisallowedTools},
		{"Skills", want.Skills, got.Skills},
	} {
		if !eqStrings(l.want, l.got) {
			d = append(d, fmt.Sprintf("%s = %q, want %q", l.name, l.got, l.want))
		}
		if l.got == nil {
			d = append(d, l.name+" is nil, want a non-nil slice")
		}
	}
	if !ms(want.UpdatedAt).Equal(got.UpdatedAt) || got.UpdatedAt.Location() != time.UTC {
		d = append(d, fmt.Sprintf("UpdatedAt = %v, want %v in UTC", got.UpdatedAt, ms(want.UpdatedAt).UTC()))
	}
	return d
}

func checkProfile(t *testing.T, want, got *baton.Profile) {
	t.Helper()
	if got == nil {
		t.Fatalf("profile %s is nil", want.Name)
	}
	if d := diffProfile(want, got); len(d) > 0 {
		t.Errorf("profile %s differs:\n\t%s", want.Name, strings.Join(d, "\n\t"))
	}
}

// diffToken lists how got differs from want; times compare at millisecond
// precision and must come back in UTC.
func diffToken(want, got *baton.AgentToken) []string {
	var d []string
	eq := func(name string, w, g any) {
		if !reflect.DeepEqual(w, g) {
			d = append(d, fmt.Sprintf("%s = %#v, want %#v", name, g, w))
		}
	}
	eq("ID", want.ID, got.ID)
	eq("Agent", want.Agent, got.Agent)
	eq("Profile", want.Profile, got.Profile)
	eq("Project", want.Project, got.Project)
	eq("Scheduler", want.Scheduler, got.Scheduler)
	eq("Hash", want.Hash, got.Hash)
	if !ms(want.CreatedAt).Equal(got.CreatedAt) || got.CreatedAt.Location() != time.UTC {
		d = append(d, fmt.Sprintf("CreatedAt = %v, want %v in UTC", got.CreatedAt, ms(want.CreatedAt).UTC()))
	}
	switch {
	case want.RevokedAt == nil && got.RevokedAt != nil:
		d = append(d, fmt.Sprintf("RevokedAt = %v, want nil", *got.RevokedAt))
	case want.RevokedAt != nil && got.RevokedAt == nil:
		d = append(d, fmt.Sprintf("RevokedAt = nil, want %v", ms(*want.RevokedAt)))
	case want.RevokedAt != nil && (!ms(*want.RevokedAt).Equal(*got.RevokedAt) || got.RevokedAt.Location() != time.UTC):
		d = append(d, fmt.Sprintf("RevokedAt = %v, want %v in UTC", *got.RevokedAt, ms(*want.RevokedAt).UTC()))
	}
	return d
}

func checkToken(t *testing.T, want, got *baton.AgentToken) {
	t.Helper()
	if got == nil {
		t.Fatalf("token %s is nil", want.ID)
	}
	if d := diffToken(want, got); len(d) > 0 {
		t.Errorf("token %s differs:\n\t%s", want.ID, strings.Join(d, "\n\t"))
	}
}

// newToken is an active worker token of agent created min minutes after base.
func newToken(id, agent string, min int) *baton.AgentToken {
	return &baton.AgentToken{ID: id, Agent: agent, Profile: "worker", Hash: "hash-" + id, CreatedAt: at(min)}
}

// ---- profiles ----

func testProfileBuiltinWithoutRow(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	for _, name := range baton.BuiltinProfiles {
		p, err := e.profile(name)
		if err != nil {
			t.Errorf("Profile(%s) without a row: %v, want the bare built-in", name, err)
			continue
		}
		if p.Name != name || p.Extends != "" || p.Description != "" || !p.UpdatedAt.IsZero() ||
			len(p.AllowedTools) != 0 || len(p.DisallowedTools) != 0 || len(p.Skills) != 0 {
			t.Errorf("Profile(%s) = %+v, want only the name set", name, p)
		}
	}
	if ps := e.profiles(); len(ps) != 0 {
		t.Errorf("a new store lists profiles %q, want none (built-ins need no row)", profileNames(ps))
	}
}

func testProfileUnknownCustom(t *testing.T, open func(t *testing.T) baton.Store) {
	for _, name := range []string{"reviewer", "Worker", "", "not a name"} {
		t.Run(fmt.Sprintf("%q", name), func(t *testing.T) {
			e := newEnv(t, open)
			e.putProfile(&baton.Profile{Name: "other", Extends: "worker"})
			_, err := e.profile(name)
			wantCode(t, err, baton.ErrNotFound)
		})
	}
}

func testProfileValidation(t *testing.T, open func(t *testing.T) baton.Store) {
	for _, tc := range []struct {
		name string
		p    baton.Profile
	}{
		{"empty name", baton.Profile{Name: "", Extends: "worker"}},
		{"uppercase name", baton.Profile{Name: "Reviewer", Extends: "worker"}},
		{"name starting with a digit", baton.Profile{Name: "1reviewer", Extends: "worker"}},
		{"name starting with a dash", baton.Profile{Name: "-reviewer", Extends: "worker"}},
		{"name with a space", baton.Profile{Name: "code reviewer", Extends: "worker"}},
		{"name of 41 characters", baton.Profile{Name: strings.Repeat("a", 41), Extends: "worker"}},
		{"custom without extends", baton.Profile{Name: "reviewer"}},
		{"custom extending a custom profile", baton.Profile{Name: "reviewer", Extends: "other"}},
		{"built-in with extends", baton.Profile{Name: "judge", Extends: "worker"}},
		{"built-in extending itself", baton.Profile{Name: "worker", Extends: "worker"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, open)
			e.putProfile(&baton.Profile{Name: "other", Extends: "worker"})
			err := e.tryUpdate(func(tx baton.Tx) error { p := tc.p; return tx.PutProfile(e.ctx, &p) })
			wantCode(t, err, baton.ErrInvalidInput)
			if got := profileNames(e.profiles()); !slices.Equal(got, []string{"other"}) {
				t.Errorf("profiles after the invalid put = %q, want only other", got)
			}
		})
	}
	t.Run("longest name", func(t *testing.T) {
		e := newEnv(t, open)
		name := "a" + strings.Repeat("b-_9", 9) + "cde"
		e.putProfile(&baton.Profile{Name: name, Extends: "scanner"})
		if _, err := e.profile(name); err != nil {
			t.Errorf("Profile(%s) after storing it: %v", name, err)
		}
	})
}

func testProfileRoundTrip(t *testing.T, open func(t *testing.T) baton.Store) {
	zone := time.FixedZone("UTC-3", -3*3600)
	for _, want := range []*baton.Profile{
		{Name: "reviewer", Extends: "judge", AllowedTools: []string{"task_get", "finding_add", "admin_tool"},
			DisallowedTools: []string{"task_delete"}, Skills: []string{"review", "go"}, Description: "Reviews diffs.\nCarefully.",
			UpdatedAt: time.Date(2025, 6, 7, 8, 9, 10, 987654321, zone)},
		{Name: "worker", DisallowedTools: []string{"message_send"}, UpdatedAt: at(3)},
		{Name: "scan_2-x", Extends: "scanner", Skills: []string{"ünïcode", "with space"}, UpdatedAt: at(4)},
	} {
		t.Run(want.Name, func(t *testing.T) {
			e := newEnv(t, open)
			e.putProfile(want)
			got, err := e.profile(want.Name)
			if err != nil {
				t.Fatalf("Profile(%s): %v", want.Name, err)
			}
			checkProfile(t, want, got)
			ps := e.profiles()
			if len(ps) != 1 {
				t.Fatalf("Profiles() = %q, want one", profileNames(ps))
			}
			checkProfile(t, want, ps[0])
		})
	}
}

func testProfileUpdatedAtDefaults(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	p := &baton.Profile{Name: "reviewer", Extends: "worker"}
	e.update(func(tx baton.Tx) error { return tx.PutProfile(e.ctx, p) })
	if p.UpdatedAt.IsZero() || p.UpdatedAt.Location() != time.UTC {
		t.Fatalf("PutProfile left UpdatedAt %v, want the time of the put in UTC", p.UpdatedAt)
	}
	got, err := e.profile("reviewer")
	if err != nil {
		t.Fatal(err)
	}
	checkProfile(t, p, got)
}

func testProfileUpsert(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.putProfile(&baton.Profile{Name: "reviewer", Extends: "judge", AllowedTools: []string{"a", "b"},
		DisallowedTools: []string{"c"}, Skills: []string{"s1"}, Description: "first", UpdatedAt: at(1)})
	e.putProfile(&baton.Profile{Name: "worker", Skills: []string{"go"}, UpdatedAt: at(1)})
	for _, want := range []*baton.Profile{
		{Name: "reviewer", Extends: "worker", AllowedTools: []string{"d"}, Description: "second", UpdatedAt: at(2)},
		{Name: "worker", AllowedTools: []string{"x"}, DisallowedTools: []string{"y", "z"}, UpdatedAt: at(5)},
	} {
		e.putProfile(want)
		got, err := e.profile(want.Name)
		if err != nil {
			t.Fatalf("Profile(%s): %v", want.Name, err)
		}
		checkProfile(t, want, got)
	}
	if got := profileNames(e.profiles()); !slices.Equal(got, []string{"reviewer", "worker"}) {
		t.Errorf("Profiles() after the replacements = %q, want reviewer and worker once each", got)
	}
}

func testProfilesSorted(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	for _, name := range []string{"zeta", "worker", "mid_1", "alpha", "mid-2", "judge", "a9", "a10"} {
		p := &baton.Profile{Name: name, Extends: "worker"}
		if baton.IsBuiltinProfile(name) {
			p.Extends = ""
		}
		e.putProfile(p)
	}
	// Byte order: '1' < '9', '-' < '_'.
	want := []string{"a10", "a9", "alpha", "judge", "mid-2", "mid_1", "worker", "zeta"}
	if got := profileNames(e.profiles()); !slices.Equal(got, want) {
		t.Errorf("Profiles() = %q, want %q", got, want)
	}
}

func testProfileDelete(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.putProfile(&baton.Profile{Name: "reviewer", Extends: "judge", Skills: []string{"review"}})
	e.putProfile(&baton.Profile{Name: "worker", DisallowedTools: []string{"x"}})
	e.putProfile(&baton.Profile{Name: "keeper", Extends: "worker"})

	e.update(func(tx baton.Tx) error { return tx.DeleteProfile(e.ctx, "reviewer") })
	_, err := e.profile("reviewer")
	wantCode(t, err, baton.ErrNotFound)

	// A deleted built-in returns to its defaults.
	e.update(func(tx baton.Tx) error { return tx.DeleteProfile(e.ctx, "worker") })
	p, err := e.profile("worker")
	if err != nil {
		t.Fatalf("Profile(worker) after deleting its row: %v", err)
	}
	if p.Name != "worker" || len(p.DisallowedTools) != 0 || !p.UpdatedAt.IsZero() {
		t.Errorf("Profile(worker) after deleting its row = %+v, want the bare built-in", p)
	}
	if got := profileNames(e.profiles()); !slices.Equal(got, []string{"keeper"}) {
		t.Errorf("Profiles() after the deletes = %q, want keeper", got)
	}

	for _, name := range []string{"reviewer", "worker", "judge", "never", ""} {
		t.Run("absent "+name, func(t *testing.T) {
			err := e.tryUpdate(func(tx baton.Tx) error { return tx.DeleteProfile(e.ctx, name) })
			wantCode(t, err, baton.ErrNotFound)
		})
	}
	if got := profileNames(e.profiles()); !slices.Equal(got, []string{"keeper"}) {
		t.Errorf("Profiles() after deleting absent ones = %q, want keeper", got)
	}
}

func testProfileNilAndEmptyLists(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.putProfile(&baton.Profile{Name: "nils", Extends: "worker"})
	e.putProfile(&baton.Profile{Name: "empties", Extends: "worker", AllowedTools: []string{}, DisallowedTools: []string{}, Skills: []string{}})
	check := func(where string, p *baton.Profile) {
		t.Helper()
		for name, l := range map[string][]string{"AllowedTools": p.AllowedTools, "DisallowedTools": p.DisallowedTools, "Skills": p.Skills} {
			if l == nil || len(l) != 0 {
				t.Errorf("%s: %s.%s = %#v, want a non-nil empty slice", where, p.Name, name, l)
			}
		}
	}
	for _, name := range []string{"nils", "empties"} {
		p, err := e.profile(name)
		if err != nil {
			t.Fatal(err)
		}
		check("Profile", p)
	}
	for _, p := range e.profiles() {
		check("Profiles", p)
	}
}

// ---- tokens ----

func testTokenCreateAndLookup(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	zone := time.FixedZone("UTC+9", 9*3600)
	want := []*baton.AgentToken{
		{ID: "tok_1", Agent: "agent-alice", Profile: "reviewer", Project: "alpha", Scheduler: true,
			Hash: strings.Repeat("ab", 32), CreatedAt: time.Date(2025, 2, 3, 4, 5, 6, 789012345, zone)},
		{ID: "tok_2", Agent: "agent-bob", Profile: "worker", Hash: strings.Repeat("cd", 32), CreatedAt: at(1)},
	}
	for _, tok := range want {
		e.createToken(tok)
	}
	for _, w := range want {
		got, err := e.tokenByHash(w.Hash)
		if err != nil {
			t.Fatalf("TokenByHash(%s): %v", w.ID, err)
		}
		checkToken(t, w, got)
		if !got.Active() {
			t.Errorf("token %s is not active", w.ID)
		}
	}
	for _, hash := range []string{"nope", "", strings.Repeat("AB", 32)} {
		_, err := e.tokenByHash(hash)
		if be := wantCode(t, err, baton.ErrNotFound); be.Hint == "" {
			t.Errorf("TokenByHash(%q): the error has no hint", hash)
		}
	}
	// Unset CreatedAt: the time of creation, in UTC.
	tok := &baton.AgentToken{ID: "tok_3", Agent: "carol", Profile: "worker", Hash: "h3"}
	e.update(func(tx baton.Tx) error { return tx.CreateToken(e.ctx, tok) })
	if tok.CreatedAt.IsZero() || tok.CreatedAt.Location() != time.UTC {
		t.Errorf("CreateToken left CreatedAt %v, want the time of creation in UTC", tok.CreatedAt)
	}
	got, err := e.tokenByHash("h3")
	if err != nil {
		t.Fatal(err)
	}
	checkToken(t, tok, got)
}

func testTokenDuplicate(t *testing.T, open func(t *testing.T) baton.Store) {
	for _, tc := range []struct {
		name string
		tok  *baton.AgentToken
	}{
		{"same id", &baton.AgentToken{ID: "tok_1", Agent: "bob", Profile: "judge", Hash: "other", CreatedAt: at(2)}},
		{"same hash", &baton.AgentToken{ID: "tok_2", Agent: "bob", Profile: "judge", Hash: "hash-tok_1", CreatedAt: at(2)}},
		{"same id and hash", newToken("tok_1", "alice", 2)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, open)
			e.createToken(newToken("tok_1", "alice", 1))
			err := e.tryUpdate(func(tx baton.Tx) error { c := *tc.tok; return tx.CreateToken(e.ctx, &c) })
			if be := wantCode(t, err, baton.ErrConflict); be.Type != "duplicate" {
				t.Errorf("error type = %q, want duplicate", be.Type)
			}
			ts := e.tokens()
			if len(ts) != 1 {
				t.Fatalf("tokens after the conflict = %q, want only tok_1", tokenIDs(ts))
			}
			checkToken(t, newToken("tok_1", "alice", 1), ts[0])

			// The conflict is an answer, not a broken transaction: the
			// caller may carry on and commit.
			e.update(func(tx baton.Tx) error {
				c := *tc.tok
				if err := tx.CreateToken(e.ctx, &c); baton.ErrorCode(err) != baton.ErrConflict {
					return fmt.Errorf("CreateToken of a duplicate = %v, want %s", err, baton.ErrConflict)
				}
				return tx.CreateToken(e.ctx, newToken("tok_9", "dave", 3))
			})
			if got := tokenIDs(e.tokens()); !slices.Equal(got, []string{"tok_1", "tok_9"}) {
				t.Errorf("tokens after carrying on = %q, want tok_1 and tok_9", got)
			}
		})
	}
}

func testTokensOldestFirst(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	if ts := e.tokens(); len(ts) != 0 {
		t.Fatalf("a new store lists tokens %q, want none", tokenIDs(ts))
	}
	for _, tok := range []*baton.AgentToken{
		newToken("tok_c", "alice", 5), newToken("tok_a", "bob", 9), newToken("tok_b", "alice", 1), newToken("tok_d", "carol", 7),
	} {
		e.createToken(tok)
	}
	e.revoke("tok_d", at(10))
	want := []string{"tok_b", "tok_c", "tok_d", "tok_a"}
	ts := e.tokens()
	if got := tokenIDs(ts); !slices.Equal(got, want) {
		t.Fatalf("Tokens() = %q, want %q (oldest first, revoked ones included)", got, want)
	}
	checkToken(t, &baton.AgentToken{ID: "tok_d", Agent: "carol", Profile: "worker", Hash: "hash-tok_d",
		CreatedAt: at(7), RevokedAt: ptr(at(10))}, ts[2])
}

func testTokenRevoke(t *testing.T, open func(t *testing.T) baton.Store) {
	type step struct {
		who  string
		want int
	}
	for _, tc := range []struct {
		name    string
		steps   []step
		revoked []string // the token ids revoked at the end
	}{
		{"by id", []step{{"tok_2", 1}}, []string{"tok_2"}},
		{"by agent", []step{{"agent-alice", 2}}, []string{"tok_1", "tok_2"}},
		{"by agent in another case", []step{{"AGENT-Alice", 2}}, []string{"tok_1", "tok_2"}},
		{"by agent, once", []step{{"agent-alice", 2}, {"agent-alice", 0}, {"Agent-Alice", 0}}, []string{"tok_1", "tok_2"}},
		{"by id then agent", []step{{"tok_1", 1}, {"agent-alice", 1}, {"tok_2", 0}}, []string{"tok_1", "tok_2"}},
		{"id of one, agent of another", []step{{"bob", 2}}, []string{"bob", "tok_3"}},
		{"unknown", []step{{"nobody", 0}, {"", 0}}, nil},
		{"a prefix is no match", []step{{"agent", 0}, {"tok_", 0}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, open)
			for _, tok := range []*baton.AgentToken{
				newToken("tok_1", "agent-alice", 1), newToken("tok_2", "Agent-Alice", 2),
				newToken("tok_3", "bob", 3), newToken("bob", "carol", 4),
			} {
				e.createToken(tok)
			}
			for i, s := range tc.steps {
				if n := e.revoke(s.who, at(10+i)); n != s.want {
					t.Errorf("RevokeTokens(%q) #%d = %d, want %d", s.who, i+1, n, s.want)
				}
			}
			var revoked []string
			for _, tok := range e.tokens() {
				if !tok.Active() {
					revoked = append(revoked, tok.ID)
				}
			}
			if !eqStrings(sorted(revoked), sorted(tc.revoked)) {
				t.Errorf("revoked tokens = %q, want %q", sorted(revoked), sorted(tc.revoked))
			}
		})
	}
}

func testTokenRevokedFound(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	tok := newToken("tok_1", "alice", 1)
	tok.Scheduler, tok.Project = true, "alpha"
	e.createToken(tok)
	e.createToken(newToken("tok_2", "bob", 2))
	when := time.Date(2025, 4, 5, 6, 7, 8, 999999999, time.FixedZone("UTC+1", 3600))
	if n := e.revoke("tok_1", when); n != 1 {
		t.Fatalf("RevokeTokens(tok_1) = %d, want 1", n)
	}
	got, err := e.tokenByHash("hash-tok_1")
	if err != nil {
		t.Fatalf("TokenByHash of a revoked token: %v, want the token", err)
	}
	want := *tok
	want.RevokedAt = &when
	checkToken(t, &want, got)
	if got.Active() {
		t.Error("the revoked token is active")
	}
	// Revoking again keeps the first time.
	if n := e.revoke("alice", at(99)); n != 0 {
		t.Errorf("RevokeTokens(alice) after revoking her only token = %d, want 0", n)
	}
	got, _ = e.tokenByHash("hash-tok_1")
	checkToken(t, &want, got)
	other, err := e.tokenByHash("hash-tok_2")
	if err != nil {
		t.Fatal(err)
	}
	if !other.Active() {
		t.Error("revoking tok_1 revoked tok_2")
	}
}

// ---- project tools ----

func testProjectToolsUnknown(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	err := e.tryUpdate(func(tx baton.Tx) error { return tx.SetProjectTools(e.ctx, "nope", []string{"x"}) })
	wantCode(t, err, baton.ErrProjectNotFound)
	if p := e.getProject("alpha"); len(p.Tools) != 0 {
		t.Errorf("alpha's tools = %q after setting another project's, want none", p.Tools)
	}
}

// getProject reads a project, failing the test when it is missing.
func (e *env) getProject(slug string) *baton.Project {
	e.t.Helper()
	var p *baton.Project
	e.view(func(tx baton.Tx) (err error) { p, err = tx.Project(e.ctx, slug); return err })
	return p
}

func testProjectToolsRoundTrip(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.update(func(tx baton.Tx) error {
		if err := tx.CreateProject(e.ctx, &baton.Project{Slug: "alpha", Prefix: "ALP", Tools: []string{"b", "a", "b"}}); err != nil {
			return err
		}
		if err := tx.CreateProject(e.ctx, &baton.Project{Slug: "beta", Prefix: "BET"}); err != nil {
			return err
		}
		return tx.CreateProject(e.ctx, &baton.Project{Slug: "gamma", Prefix: "GAM", Tools: []string{}})
	})
	check := func(step string, want map[string][]string) {
		t.Helper()
		for slug, w := range want {
			p := e.getProject(slug)
			if p.Tools == nil || !slices.Equal(p.Tools, w) {
				t.Errorf("%s: Project(%s).Tools = %#v, want %#v", step, slug, p.Tools, w)
			}
		}
		var ps []*baton.Project
		e.view(func(tx baton.Tx) (err error) { ps, err = tx.Projects(e.ctx); return err })
		if len(ps) != len(want) {
			t.Fatalf("%s: Projects() lists %d projects, want %d", step, len(ps), len(want))
		}
		for _, p := range ps {
			if p.Tools == nil || !slices.Equal(p.Tools, want[p.Slug]) {
				t.Errorf("%s: Projects() has %s.Tools = %#v, want %#v", step, p.Slug, p.Tools, want[p.Slug])
			}
		}
	}
	check("created", map[string][]string{"alpha": {"b", "a"}, "beta": {}, "gamma": {}})

	for _, tc := range []struct {
		slug  string
		tools []string
		want  []string
	}{
		{"beta", []string{"x", "y", "x", "z", "y"}, []string{"x", "y", "z"}},
		{"alpha", nil, []string{}},
		{"gamma", []string{"only"}, []string{"only"}},
		{"gamma", []string{}, []string{}},
		{"alpha", []string{"task_get", "Task_Get", "task_get"}, []string{"task_get", "Task_Get"}},
	} {
		e.update(func(tx baton.Tx) error { return tx.SetProjectTools(e.ctx, tc.slug, slices.Clone(tc.tools)) })
		p := e.getProject(tc.slug)
		if p.Tools == nil || !slices.Equal(p.Tools, tc.want) {
			t.Errorf("after SetProjectTools(%s, %#v): Tools = %#v, want %#v", tc.slug, tc.tools, p.Tools, tc.want)
		}
	}
	check("set", map[string][]string{"alpha": {"task_get", "Task_Get"}, "beta": {"x", "y", "z"}, "gamma": {}})
	// Setting tools leaves the rest of the project alone.
	if p := e.getProject("alpha"); p.Prefix != "ALP" {
		t.Errorf("alpha's prefix = %q after setting its tools, want ALP", p.Prefix)
	}
}

// testProjectReadAcrossABatch: writes queued behind a busy writer commit
// together (group commit), and a store may keep the projects one call read
// for the next calls of the batch. What they read must still be the
// project as it stands: not a copy an earlier caller changed, not what a
// call that failed wrote and was rolled back, not what was there before a
// call changed it.
func testProjectReadAcrossABatch(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	e.update(func(tx baton.Tx) error { return tx.SetProjectTools(e.ctx, "alpha", []string{"keep"}) })
	errRefused := errors.New("refused after changing the project")
	name := e.getProject("alpha").Name
	read := func(tx baton.Tx, want string) error {
		p, err := tx.Project(e.ctx, "alpha")
		if err != nil {
			return err
		}
		if p.Name != name || !slices.Equal(p.Tools, []string{want}) {
			return fmt.Errorf("Project(alpha) has name %q, tools %q; want %q and [%s]", p.Name, p.Tools, name, want)
		}
		return nil
	}
	calls := []func(tx baton.Tx) error{
		func(tx baton.Tx) error { return read(tx, "keep") },
		func(tx baton.Tx) error {
			p, err := tx.Project(e.ctx, "alpha")
			if err != nil {
				return err
			}
			p.Name, p.Tools[0] = "changed by a caller", "changed by a caller"
			return nil
		},
		func(tx baton.Tx) error { return read(tx, "keep") },
		func(tx baton.Tx) error {
			if err := tx.SetProjectTools(e.ctx, "alpha", []string{"lost"}); err != nil {
				return err
			}
			if err := read(tx, "lost"); err != nil {
				return err
			}
			return errRefused
		},
		func(tx baton.Tx) error { return read(tx, "keep") },
		func(tx baton.Tx) error { return tx.SetProjectTools(e.ctx, "alpha", []string{"new"}) },
		func(tx baton.Tx) error { return read(tx, "new") },
	}
	errs := e.queuedBehindAWrite(calls...)
	for i, err := range errs {
		if i == 3 {
			if !errors.Is(err, errRefused) {
				t.Errorf("write %d: %v, want its own error", i, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("write %d: %v", i, err)
		}
	}
	if p := e.getProject("alpha"); !slices.Equal(p.Tools, []string{"new"}) {
		t.Errorf("alpha's tools after the batch = %q, want [new]", p.Tools)
	}
}

// ---- transactions ----

func testAccessTxRollsBack(t *testing.T, open func(t *testing.T) baton.Store) {
	e := newEnv(t, open)
	e.project("alpha", "ALP")
	e.update(func(tx baton.Tx) error { return tx.SetProjectTools(e.ctx, "alpha", []string{"keep"}) })
	keepProfile := &baton.Profile{Name: "reviewer", Extends: "judge", Skills: []string{"keep"}, UpdatedAt: at(1)}
	e.putProfile(keepProfile)
	e.putProfile(&baton.Profile{Name: "doomed", Extends: "worker", UpdatedAt: at(1)})
	keepToken := newToken("tok_1", "alice", 1)
	e.createToken(keepToken)

	err := e.tryUpdate(func(tx baton.Tx) error {
		steps := []func() error{
			func() error {
				return tx.PutProfile(e.ctx, &baton.Profile{Name: "reviewer", Extends: "worker", Skills: []string{"lost"}})
			},
			func() error { return tx.PutProfile(e.ctx, &baton.Profile{Name: "fresh", Extends: "worker"}) },
			func() error { return tx.DeleteProfile(e.ctx, "doomed") },
			func() error { return tx.CreateToken(e.ctx, newToken("tok_2", "bob", 2)) },
			func() error {
				if n, err := tx.RevokeTokens(e.ctx, "alice", at(3)); err != nil || n != 1 {
					return fmt.Errorf("RevokeTokens(alice) = %d, %v inside the transaction", n, err)
				}
				return nil
			},
			func() error { return tx.SetProjectTools(e.ctx, "alpha", []string{"lost"}) },
			// A handled failure inside, then the whole transaction fails.
			func() error {
				if err := tx.CreateToken(e.ctx, newToken("tok_1", "x", 4)); baton.ErrorCode(err) != baton.ErrConflict {
					return fmt.Errorf("duplicate CreateToken = %v", err)
				}
				return nil
			},
		}
		for _, s := range steps {
			if err := s(); err != nil {
				return err
			}
		}
		// The transaction reads its own writes.
		if tok, err := tx.TokenByHash(e.ctx, "hash-tok_2"); err != nil || tok.ID != "tok_2" {
			return fmt.Errorf("TokenByHash(tok_2) inside = %v, %v", tok, err)
		}
		if p, err := tx.Project(e.ctx, "alpha"); err != nil || !slices.Equal(p.Tools, []string{"lost"}) {
			return fmt.Errorf("Project(alpha) inside = %v, %v", p, err)
		}
		return fmt.Errorf("wrapped: %w", errBoom)
	})
	if !errors.Is(err, errBoom) {
		t.Fatalf("Update returned %v, want the error fn returned", err)
	}
	if got := profileNames(e.profiles()); !slices.Equal(got, []string{"doomed", "reviewer"}) {
		t.Errorf("profiles after the failed transaction = %q, want doomed and reviewer", got)
	}
	if p, err := e.profile("reviewer"); err != nil {
		t.Error(err)
	} else {
		checkProfile(t, keepProfile, p)
	}
	ts := e.tokens()
	if len(ts) != 1 {
		t.Fatalf("tokens after the failed transaction = %q, want tok_1", tokenIDs(ts))
	}
	checkToken(t, keepToken, ts[0])
	if p := e.getProject("alpha"); !slices.Equal(p.Tools, []string{"keep"}) {
		t.Errorf("alpha's tools after the failed transaction = %q, want [keep]", p.Tools)
	}
}

func testAccessViewRejectsWrites(t *testing.T, open func(t *testing.T) baton.Store) {
	for _, tc := range []struct {
		name  string
		write func(ctx context.Context, tx baton.Tx) error
	}{
		{"PutProfile", func(ctx context.Context, tx baton.Tx) error {
			return tx.PutProfile(ctx, &baton.Profile{Name: "sneaky", Extends: "worker"})
		}},
		{"DeleteProfile", func(ctx context.Context, tx baton.Tx) error { return tx.DeleteProfile(ctx, "reviewer") }},
		{"CreateToken", func(ctx context.Context, tx baton.Tx) error { return tx.CreateToken(ctx, newToken("tok_2", "bob", 2)) }},
		{"RevokeTokens", func(ctx context.Context, tx baton.Tx) error {
			_, err := tx.RevokeTokens(ctx, "alice", at(3))
			return err
		}},
		{"SetProjectTools", func(ctx context.Context, tx baton.Tx) error { return tx.SetProjectTools(ctx, "alpha", []string{"x"}) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, open)
			e.project("alpha", "ALP")
			e.putProfile(&baton.Profile{Name: "reviewer", Extends: "judge"})
			e.createToken(newToken("tok_1", "alice", 1))
			var writeErr error
			err := e.s.View(e.ctx, func(tx baton.Tx) error { writeErr = tc.write(e.ctx, tx); return writeErr })
			if writeErr == nil || err == nil {
				t.Errorf("%s inside View: fn got %v and View returned %v, want errors", tc.name, writeErr, err)
			}
			if got := profileNames(e.profiles()); !slices.Equal(got, []string{"reviewer"}) {
				t.Errorf("profiles = %q, want reviewer", got)
			}
			if ts := e.tokens(); len(ts) != 1 || !ts[0].Active() {
				t.Errorf("tokens = %q (first active: %v), want tok_1 active", tokenIDs(ts), len(ts) > 0 && ts[0].Active())
			}
			if p := e.getProject("alpha"); len(p.Tools) != 0 {
				t.Errorf("alpha's tools = %q, want none", p.Tools)
			}
		})
	}
}
