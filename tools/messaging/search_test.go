package messaging_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/internal/testkit"
)

// search calls search_messages and returns the results, checking that
// count is their number.
func search(k *testkit.Kit, args map[string]any) []map[string]any {
	k.T.Helper()
	out := k.OK("search_messages", args)
	res := list(k.T, out, "results")
	if num(k.T, out["count"]) != len(res) {
		k.T.Errorf("count %v, but %d results", out["count"], len(res))
	}
	return res
}

// bodies returns the sorted bodies of results.
func bodies(res []map[string]any) []string {
	b := field(res, "body")
	slices.Sort(b)
	return b
}

func TestSearchMessages(t *testing.T) {
	k := testkit.New(t)
	withClock(k, time.Second)
	known(k, "agent-bob", "deploy-agent")
	deployer := k.As("deploy-agent")

	send(deployer, "user", "Deployment failed: nginx config error on port 443", nil)
	send(k, "agent-bob", "The deployment of the API succeeded", nil)
	send(k.As("agent-bob"), "agent-alice", "Redeploy after the nginx fix?", map[string]any{"threadId": "ops"})
	send(k, "agent-bob", "Café opens at nine; naïve résumé parsing fixed", nil)
	send(k, "user", "don't deploy on Fridays", nil)
	send(k, "agent-bob", "unrelated chatter", nil)

	failed := "Deployment failed: nginx config error on port 443"
	succeeded := "The deployment of the API succeeded"
	fridays := "don't deploy on Fridays"
	redeploy := "Redeploy after the nginx fix?"
	cafe := "Café opens at nine; naïve résumé parsing fixed"

	cases := []struct {
		name string
		args map[string]any
		want []string
	}{
		{"a word is a prefix: deploy finds deployment", map[string]any{"query": "deploy"}, []string{failed, succeeded, fridays}},
		{"case-insensitive", map[string]any{"query": "DEPLOYMENT"}, []string{failed, succeeded}},
		{"every word must match", map[string]any{"query": "deployment failed"}, []string{failed}},
		{"word order does not matter", map[string]any{"query": "nginx deploy"}, []string{failed}},
		{"a word matching nothing empties the result", map[string]any{"query": "deploy kubernetes"}, []string{}},
		{"a prefix inside a word does not match", map[string]any{"query": "ploy"}, []string{}},
		{"numbers", map[string]any{"query": "443"}, []string{failed}},
		{"diacritics are ignored", map[string]any{"query": "cafe naive resume"}, []string{cafe}},
		{"agent filter: the sender", map[string]any{"query": "nginx", "agentId": "agent-bob"}, []string{redeploy}},
		{"agent filter any case", map[string]any{"query": "nginx", "agentId": "DEPLOY-AGENT"}, []string{failed}},
		{"agent filter is not the recipient", map[string]any{"query": "deploy", "agentId": "user"}, []string{}},
		{"agent filter, nobody", map[string]any{"query": "deploy", "agentId": "agent-nobody"}, []string{}},
		{"punctuation is a separator", map[string]any{"query": "don't"}, []string{fridays}},
		{"limit", map[string]any{"query": "deploy", "limit": 1}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := search(on(k, t), tc.args)
			if tc.want == nil { // only the size
				if len(res) != 1 {
					t.Errorf("limit 1 returned %d", len(res))
				}
				return
			}
			want := slices.Clone(tc.want)
			slices.Sort(want)
			if got := bodies(res); !slices.Equal(got, want) {
				t.Errorf("results %q, want %q", got, want)
			}
		})
	}
}

func TestSearchMessagesResultShape(t *testing.T) {
	k := testkit.New(t)
	clock := withClock(k, time.Second)
	known(k, "agent-bob")
	id := send(k, "agent-bob", "rollout plan ready", map[string]any{"threadId": "rel", "metadata": map[string]any{"k": "v"}})
	at := clock.Peek()
	ann := k.As("deploy-agent").OK("announce", map[string]any{"type": "blocker", "title": "Rollout blocked",
		"body": "Deployment failed: nginx config error on port 443", "beadId": "COL-9"})
	annAt := clock.Peek()

	res := search(k, map[string]any{"query": "rollout"})
	if len(res) != 2 {
		t.Fatalf("results %v, want the message and the announcement", res)
	}
	want := map[string]map[string]any{
		id: {"id": id, "agentId": "agent-alice", "role": "agent", "body": "rollout plan ready",
			"eventType": "message", "threadId": "rel", "createdAt": stamp(at)},
		ann["messageId"].(string): {"id": ann["messageId"], "agentId": "deploy-agent", "role": "announcement",
			"body": "Rollout blocked\n\nDeployment failed: nginx config error on port 443", "eventType": "announcement",
			"createdAt": stamp(annAt)},
	}
	for _, r := range res {
		w := want[r["id"].(string)]
		if fmt.Sprint(r) != fmt.Sprint(w) {
			t.Errorf("result %v\nwant %v", r, w)
		}
	}
	// The announcement's body, not only its title, is searchable; so is its title.
	if got := field(search(k, map[string]any{"query": "nginx port"}), "role"); !slices.Equal(got, []string{"announcement"}) {
		t.Errorf("searching the announcement body: roles %v", got)
	}
	if got := field(search(k, map[string]any{"query": "blocked"}), "eventType"); !slices.Equal(got, []string{"announcement"}) {
		t.Errorf("searching the announcement title: %v", got)
	}
}

func TestSearchMessagesLimit(t *testing.T) {
	k := testkit.New(t)
	withClock(k, time.Second)
	known(k, "agent-bob")
	for i := range 130 {
		send(k, "agent-bob", fmt.Sprintf("status report %d", i), nil)
	}
	cases := []struct {
		args map[string]any
		want int
	}{
		{map[string]any{"query": "status"}, 20},
		{map[string]any{"query": "status", "limit": 1}, 1},
		{map[string]any{"query": "status", "limit": 7}, 7},
		{map[string]any{"query": "status", "limit": 100}, 100},
		{map[string]any{"query": "status report 42"}, 1},
		{map[string]any{"query": "nothing"}, 0},
	}
	for _, tc := range cases {
		if res := search(k, tc.args); len(res) != tc.want {
			t.Errorf("%v: %d results, want %d", tc.args, len(res), tc.want)
		}
	}
	runLimitCases(t, k, "search_messages", []limitCase{
		{"limit 0", map[string]any{"query": "x", "limit": 0}, "limit", "minimum"},
		{"limit 101", map[string]any{"query": "x", "limit": 101}, "limit", "maximum"},
		{"limit 1.5", map[string]any{"query": "x", "limit": 1.5}, "", ""}, // the catalogue types it number (point 18)
		{"query missing", map[string]any{}, "query", "required"},
		{"query empty", map[string]any{"query": ""}, "query", "minLength"},
		{"query blank", map[string]any{"query": "  \t"}, "query", "pattern"},
		{"query 500", map[string]any{"query": strings.Repeat("a", 500)}, "", ""},
		{"query 501", map[string]any{"query": strings.Repeat("a", 501)}, "query", "maxLength"},
		{"agentId empty", map[string]any{"query": "x", "agentId": ""}, "agentId", "minLength"},
		{"unknown field", map[string]any{"query": "x", "threadId": "t"}, "threadId", "additionalProperties"},
	})
}

// Issue 12, point 16: the query is FTS5 syntax, read by one parser; what
// FTS5 accepts works, and a malformed query is ERR_INVALID_INPUT naming
// where it goes wrong, never an empty result.
func TestPoint16SearchMessagesSyntax(t *testing.T) {
	k := testkit.New(t)
	known(k, "agent-bob")
	failed := "Deployment failed: nginx config error"
	spot := "x marks the spot"
	send(k, "agent-bob", failed, nil)
	send(k, "agent-bob", spot, nil)
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{`deploy* OR x`, []string{failed, spot}},
		{`deploy*`, []string{failed}},
		{`"deployment failed"`, []string{failed}},
		{`"failed deployment"`, []string{}},
		{`x NOT spot`, []string{}},
		{`(deploy OR spot) NOT nginx`, []string{spot}},
		{`NEAR(deployment error, 3)`, []string{failed}},
		{`NEAR(deployment error, 2)`, []string{}},
		{`deployment NEAR/3 error`, []string{failed}},
		{`body:deploy`, []string{}}, // column filters are not syntax: the words body and deploy
		{`'; DROP TABLE messages; --`, []string{}},
		{`ünïcödé 日本語 🚀 deploy`, []string{}},
	} {
		if got := bodies(search(on(k, t), map[string]any{"query": tc.query})); !slices.Equal(got, tc.want) {
			t.Errorf("%q: %q, want %q", tc.query, got, tc.want)
		}
	}
	for _, tc := range []struct {
		query string
		pos   int
	}{
		{`"deploy`, 1}, {`deploy"`, 7}, {`""`, 1}, {`"`, 1}, {`'`, 1}, {`*`, 1}, {`**`, 1}, {`deploy OR`, 8}, {`OR`, 1},
		{`AND`, 1}, {`NOT deploy`, 1}, {`(deploy`, 1}, {`deploy)`, 7}, {`()`, 1}, {`NEAR(deploy)`, 1}, {`a AND OR b`, 7},
		{`\`, 1}, {`%`, 1}, {`_`, 1}, {`deploy *`, 8},
	} {
		e := fail(on(k, t), "search_messages", map[string]any{"query": tc.query}, baton.ErrInvalidInput)
		if e.Details["field"] != "query" || num(t, e.Details["position"]) != tc.pos || e.Details["constraint"] != "syntax" ||
			!strings.Contains(e.Message, fmt.Sprintf("character %d", tc.pos)) || !strings.Contains(e.Hint, `"exact phrase"`) {
			t.Errorf("%q: %s %v (hint %q), want the query's position %d and the syntax", tc.query, e.Message, e.Details, e.Hint, tc.pos)
		}
	}
	// A failed search changes nothing.
	if msgs := read(k, map[string]any{}); len(msgs) != 2 {
		t.Errorf("%d messages after the queries, want 2", len(msgs))
	}
}

func TestSearchMessagesDoesNotDeliver(t *testing.T) {
	k := testkit.New(t)
	known(k, "agent-bob")
	id := send(k, "agent-bob", "searchable", nil)
	search(k.As("agent-bob"), map[string]any{"query": "searchable"})
	if got := peek(k, id).DeliveryStatus; got != baton.DeliveryPending {
		t.Errorf("search by the recipient moved the message to %s", got)
	}
}
