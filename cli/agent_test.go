package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/baton-dev/baton/mcpserver"
)

type issued struct {
	Token struct {
		ID, Agent, Profile, Project, Token string
		Scheduler                          bool
	}
	Note string
}

func agentJSON(t *testing.T, env map[string]string, args ...string) issued {
	t.Helper()
	r := baton(t, env, append(args, "--json")...)
	var out issued
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &out) != nil {
		t.Fatalf("%v: %+v", args, r)
	}
	return out
}

func TestAgentTokens(t *testing.T) {
	env := newDB(t)
	r := baton(t, env, "agent", "create", "agent-bob", "--profile", "worker", "--project", "colibri")
	if r.code != 0 || !strings.Contains(r.stdout, "will not be shown again") {
		t.Fatalf("create: %+v", r)
	}
	lines := strings.Split(r.stdout, "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[1], mcpserver.TokenPrefix) {
		t.Fatalf("the token is not on its own line: %q", r.stdout)
	}
	bob := lines[1]

	// Another token takes the newest's settings unless told otherwise.
	second := agentJSON(t, env, "agent", "token", "agent-bob")
	if second.Token.Profile != "worker" || second.Token.Project != "colibri" || second.Token.Scheduler || second.Note == "" {
		t.Fatalf("token: %+v", second)
	}
	third := agentJSON(t, env, "agent", "token", "agent-bob", "--profile", "judge", "--scheduler")
	if third.Token.Profile != "judge" || !third.Token.Scheduler || third.Token.Token == bob || third.Token.Token == second.Token.Token {
		t.Fatalf("token --profile judge: %+v", third)
	}
	agentJSON(t, env, "agent", "create", "sched-1", "--profile", "intake", "--scheduler")

	// The list names every token and never a secret or a hash.
	r = baton(t, env, "agent", "list")
	if r.code != 0 || strings.Count(r.stdout, "tok_") != 4 || !strings.Contains(r.stdout, "4 tokens") {
		t.Fatalf("list: %+v", r)
	}
	for _, secret := range []string{bob, second.Token.Token, mcpserver.TokenHash(bob)} {
		if strings.Contains(r.stdout, secret) {
			t.Fatalf("list shows a secret: %s", r.stdout)
		}
	}
	r = baton(t, env, "agent", "list", "sched-1", "--json")
	var list struct{ Tokens []map[string]any }
	if json.Unmarshal([]byte(r.stdout), &list); len(list.Tokens) != 1 || list.Tokens[0]["scheduler"] != true || strings.Contains(r.stdout, "hash") {
		t.Fatalf("list sched-1 --json: %s", r.stdout)
	}

	// Revoke by id, then by name; counts say what happened.
	if r := baton(t, env, "agent", "revoke", second.Token.ID); r.code != 0 || !strings.Contains(r.stdout, "revoked 1 ") {
		t.Fatalf("revoke id: %+v", r)
	}
	if r := baton(t, env, "agent", "revoke", "agent-bob", "--json"); r.code != 0 || !strings.Contains(r.stdout, `"revoked": 2`) {
		t.Fatalf("revoke name: %+v", r)
	}
	if r := baton(t, env, "agent", "revoke", "agent-bob"); r.code != 0 || !strings.Contains(r.stdout, "revoked 0 tokens of agent-bob (3 already revoked)") {
		t.Fatalf("revoke again: %+v", r)
	}
	r = baton(t, env, "agent", "list", "agent-bob", "--json")
	if strings.Count(r.stdout, "revoked_at") != 3 {
		t.Fatalf("after revoking: %s", r.stdout)
	}
	// Issuing and revoking are in the audit trail.
	if r := baton(t, env, "audit", "verify"); r.code != 0 {
		t.Fatalf("audit verify: %+v", r)
	}
}

func TestAgentErrors(t *testing.T) {
	env := newDB(t)
	agentJSON(t, env, "agent", "create", "agent-bob", "--profile", "worker")
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no profile", []string{"agent", "create", "a1"}, 2, "--profile or --preset is required"},
		{"unknown profile", []string{"agent", "create", "a1", "--profile", "wizard"}, 2, "worker, researcher, judge, scanner, architect, planner, intake"},
		{"no name", []string{"agent", "create", "--profile", "worker"}, 2, "NAME"},
		{"bad name", []string{"agent", "create", "a b", "--profile", "worker"}, 2, "not valid"},
		{"the user", []string{"agent", "create", "user", "--profile", "worker"}, 2, "not an agent"},
		{"unknown project", []string{"agent", "create", "a1", "--profile", "worker", "--project", "nope"}, 1, "ERR_PROJECT_NOT_FOUND"},
		{"taken name", []string{"agent", "create", "agent-bob", "--profile", "judge"}, 1, "baton agent token agent-bob"},
		{"token for nobody", []string{"agent", "token", "ghost"}, 2, "pass --profile"},
		{"token, unknown profile", []string{"agent", "token", "agent-bob", "--profile", "wizard"}, 2, "does not exist"},
		{"revoke nobody", []string{"agent", "revoke", "ghost"}, 1, "ERR_NOT_FOUND"},
		{"serve --insecure-local on all interfaces", []string{"serve", "--insecure-local", "--addr", "0.0.0.0:7420"}, 2, "loopback"},
		{"negative rate limit", []string{"serve", "--rate-limit", "-1", "--addr", "127.0.0.1:0"}, 2, "--rate-limit"},
		{"negative rate limit (mcp)", []string{"mcp", "--rate-limit", "-1"}, 2, "--rate-limit"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := baton(t, env, tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
				t.Fatalf("exit %d, want %d with %q: %+v", r.code, tc.code, tc.want, r)
			}
		})
	}
	if r := baton(t, env, "agent", "list", "--json"); strings.Count(r.stdout, `"id"`) != 1 {
		t.Fatalf("a refused create stored a token: %s", r.stdout)
	}
}
