package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
	"github.com/baton-dev/baton/internal/gittest"
	"github.com/baton-dev/baton/tools"
	"github.com/spf13/cobra"
)

// Issue 13, point 7: the human CLI. Tests here run the real commands
// in-process on a real SQLite file.

type result7 struct {
	code           int
	stdout, stderr string
}

// syncBuffer is a buffer a command may write while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newApp7(env map[string]string, stdin string, out, errw io.Writer) *App {
	return &App{Registry: tools.Registry(), Version: "test", Stdin: strings.NewReader(stdin), Stdout: out, Stderr: errw,
		Getenv: func(k string) string { return env[k] }}
}

func run7(t *testing.T, env map[string]string, args ...string) result7 {
	t.Helper()
	return run7in(t, env, "", args...)
}

func run7in(t *testing.T, env map[string]string, stdin string, args ...string) result7 {
	t.Helper()
	var out, errb bytes.Buffer
	code := newApp7(env, stdin, &out, &errb).Run(context.Background(), args)
	return result7{code, out.String(), errb.String()}
}

func ok7(t *testing.T, env map[string]string, args ...string) result7 {
	t.Helper()
	r := run7(t, env, args...)
	if r.code != 0 {
		t.Fatalf("baton %v: %+v", args, r)
	}
	return r
}

// db7 is a database with project colibri (prefix COL).
func db7(t *testing.T) map[string]string {
	t.Helper()
	env := map[string]string{"BATON_DB": filepath.Join(t.TempDir(), "b.db")}
	ok7(t, env, "init", "--project", "colibri", "--prefix", "COL")
	return env
}

// tree7 is baton's whole command tree, with the commands cobra adds only
// when it runs (help, completion).
func tree7() (*App, *cobra.Command) {
	a := newApp7(nil, "", io.Discard, io.Discard)
	root := a.root()
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	return a, root
}

// pathOf is a command's path below the root: "profile show".
func pathOf(c *cobra.Command) string {
	return strings.TrimPrefix(strings.TrimPrefix(c.CommandPath(), c.Root().Name()), " ")
}

// oneJSONValue fails unless s is exactly one JSON value.
func oneJSONValue(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return v, nil
}

// TestPoint7JSONOnEveryHumanCommand: the rule is that every command not
// generated from a tool, and not a group that only shows its help, takes
// --json and then prints exactly one JSON value (watch: JSON Lines),
// unless jsonExempt names it with a reason. The test walks the command
// tree, so a new command without --json (or without a row here) fails.
func TestPoint7JSONOnEveryHumanCommand(t *testing.T) {
	env := db7(t)
	wtCodes := worktreeRepo7(filepath.Dir(env["BATON_DB"])) // worktree_internal_test.go
	dir := t.TempDir()
	ok7(t, env, "tasks", "task_create", "--title", "Ship it", "--project", "colibri")
	ok7(t, env, "tasks", "task_update", "--task-id", "COL-1", "--status", "todo")
	ok7(t, env, "--agent", "builder", "messages", "send_message", "--to", "user", "--body", "tests pass", "--thread-id", "t-json")
	ok7(t, env, "--agent", "builder", "proposals", "create_proposal", "--title", "A", "--description", "Why: a", "--type", "product")
	ok7(t, env, "--agent", "builder", "proposals", "create_proposal", "--title", "B", "--description", "Why: b", "--type", "product")
	var props struct{ Proposals []struct{ ID string } }
	_ = json.Unmarshal([]byte(ok7(t, env, "proposals", "list_proposals", "--json").stdout), &props)
	if len(props.Proposals) != 2 {
		t.Fatalf("proposals: %+v", props)
	}
	leaves := []string{}
	for _, s := range []string{"a", "b", "c"} {
		h := sha256.Sum256([]byte(s))
		leaves = append(leaves, hex.EncodeToString(h[:]))
	}
	proof, err := audit.Prove(leaves, 1)
	if err != nil {
		t.Fatal(err)
	}
	proofFile := filepath.Join(dir, "proof.json")
	// A repository of its own for the git guard's hooks, never this one.
	guarded := filepath.Join(dir, "guarded")
	gittest.Need(t, "baton hooks install needs a git repository")
	gittest.Git(t, dir, "init", "-q", "guarded")
	evalDir := filepath.Join(dir, "evalset")
	WriteEvalSet(t, evalDir)
	if b, err := json.Marshal(proof); err != nil || os.WriteFile(proofFile, b, 0o644) != nil {
		t.Fatal(err)
	}
	dispatchConf := filepath.Join(dir, "baton.toml")
	if err := os.WriteFile(dispatchConf, []byte("[dispatch.profiles.worker]\ncommand = [\"true\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stream := `{"type":"system","subtype":"init","model":"m"}` + "\n" +
		`{"type":"result","subtype":"success","is_error":false,"duration_ms":1000,"total_cost_usd":0.25}` + "\n"

	type row struct {
		args   []string
		stdin  string
		codes  []int // exit codes allowed; default 0
		stream bool  // JSON Lines until stopped
	}
	rows := []row{
		{args: []string{"setup", "claude-code", "--file", filepath.Join(dir, "mcp.json")}},
		{args: []string{"doctor"}, codes: []int{0, 1}}, // 1: a problem found, reported in the document
		{args: []string{"migrate"}},
		{args: []string{"version"}},
		{args: []string{"tools"}},
		{args: []string{"capabilities"}},
		{args: []string{"agent", "create", "worker-1", "--profile", "worker"}},
		{args: []string{"agent", "token", "worker-1"}},
		{args: []string{"agent", "list"}},
		{args: []string{"agent", "revoke", "worker-1"}},
		{args: []string{"profile", "create", "reviewer", "--extends", "worker"}},
		{args: []string{"profile", "disallow", "reviewer", "task_create"}},
		{args: []string{"profile", "allow", "reviewer", "task_create"}},
		{args: []string{"profile", "set", "reviewer", "--description", "reviews"}},
		{args: []string{"profile", "show", "reviewer"}},
		{args: []string{"profile", "list"}},
		{args: []string{"profile", "reset", "reviewer"}},
		{args: []string{"profile", "delete", "reviewer"}},
		{args: []string{"project", "list"}},
		{args: []string{"project", "tools", "colibri"}},
		{args: []string{"project", "configure", "colibri", "--low-lines", "10"}},
		{args: []string{"project", "show", "colibri", "--history"}},
		{args: []string{"project", "phases", "colibri"}},
		{args: []string{"ready"}},
		{args: []string{"watch", "--every", "10ms"}, stream: true},
		{args: []string{"runs", "ingest", "--issue", "COL-1"}, stdin: stream},
		{args: []string{"runs", "list"}},
		{args: []string{"runs", "show", "R-1"}},
		{args: []string{"dispatch", "--dry-run", "--config", dispatchConf}},
		{args: []string{"memory", "show", "--profile", "worker"}},
		{args: []string{"inbox"}},
		{args: []string{"reply", "builder", "thanks", "--thread", "t-json"}},
		{args: []string{"proposals", "accept", props.Proposals[0].ID}},
		{args: []string{"proposals", "dismiss", props.Proposals[1].ID}},
		{args: []string{"claims", "force-release", "COL-1", "--reason", "gone"}, codes: []int{0, 1}}, // 1: not claimed here
		{args: []string{"audit", "export", filepath.Join(dir, "trail.json")}},
		{args: []string{"audit", "verify"}},
		{args: []string{"audit", "verify-proof", proofFile}},
		{args: []string{"audit", "checkpoint"}},
		{args: []string{"audit", "key"}},
		{args: []string{"audit", "prove", "1"}},
		{args: []string{"backup", filepath.Join(dir, "backup.db")}},
		{args: []string{"hooks", "install", "--repo", guarded}},
		{args: []string{"restore", "--check", filepath.Join(dir, "backup.db")}},
		{args: []string{"export", filepath.Join(dir, "export.jsonl")}},
		{args: []string{"import", filepath.Join(dir, "export.jsonl")}}, // right after export: every record is there already
		{args: []string{"skills", "reload"}},
		{args: []string{"worktree", "create", "COL-1"}, codes: wtCodes},
		{args: []string{"worktree", "list"}, codes: wtCodes},
		{args: []string{"worktree", "prune"}, codes: wtCodes},
		{args: []string{"orchestrator", "tick"}},
		{args: []string{"knowledge", "reindex"}},
		{args: []string{"knowledge", "eval", "--dir", evalDir}},
		{args: []string{"prs"}},
		{args: []string{"pr", "show", "PR-1"}, codes: []int{1}},           // no PR here: the error envelope
		{args: []string{"pr", "gates", "PR-1"}, codes: []int{1}},          // (cli/prs_test.go covers real PRs)
		{args: []string{"init", "--project", "other", "--prefix", "OTH"}}, // last: ready and watch need one project
	}

	// Every command of the tree is a tool's, a group, exempt or a row.
	a, root := tree7()
	covered := map[string]bool{}
	for _, r := range rows {
		path := strings.Join(r.args[:1], " ")
		for n := 2; n <= len(r.args); n++ {
			if c, _, err := root.Find(r.args[:n]); err == nil && pathOf(c) == strings.Join(r.args[:n], " ") {
				path = pathOf(c)
			}
		}
		covered[path] = true
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		path := pathOf(c)
		switch {
		case c == root || strings.HasPrefix(c.Name(), "__") || a.isToolCmd(c):
		case jsonExempt[path] != "":
			if c.Flags().Lookup("json") != nil {
				t.Errorf("%s is exempt from --json (%s) but has it: drop the exemption", path, jsonExempt[path])
			}
		case len(c.Commands()) > 0 && c.Flags().Lookup("json") == nil:
			// A group: it shows its subcommands.
		case c.Flags().Lookup("json") == nil:
			t.Errorf("baton %s has no --json: give it one (jsonFlag) or name it in jsonExempt with the reason", path)
		case !covered[path]:
			t.Errorf("baton %s has --json but no row in this test", path)
		case !strings.Contains(c.Long, "With --json") && !slices.Contains([]string{"doctor", "version", "capabilities"}, path):
			t.Errorf("baton %s --help does not document its --json document", path)
		}
	}
	walk(root)

	for _, r := range rows {
		args := append(slices.Clone(r.args), "--json")
		name := strings.Join(r.args[:min(2, len(r.args))], " ")
		if r.stream {
			out := &syncBuffer{}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan int, 1)
			go func() { done <- newApp7(env, "", out, io.Discard).Run(ctx, args) }()
			deadline := time.Now().Add(20 * time.Second)
			for strings.Count(out.String(), "\n") < 3 && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
			cancel()
			if code := <-done; code != 0 {
				t.Errorf("%s --json exited %d", name, code)
			}
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if len(lines) < 3 {
				t.Errorf("%s --json printed %q", name, out.String())
			}
			for _, l := range lines {
				var ev map[string]any
				if err := json.Unmarshal([]byte(l), &ev); err != nil || ev["seq"] == nil || ev["type"] == nil {
					t.Errorf("%s --json line %q is not an event object: %v", name, l, err)
				}
			}
			continue
		}
		res := run7in(t, env, r.stdin, args...)
		codes := r.codes
		if codes == nil {
			codes = []int{0}
		}
		if !slices.Contains(codes, res.code) {
			t.Errorf("%v --json exited %d: %+v", r.args, res.code, res)
			continue
		}
		v, err := oneJSONValue(res.stdout)
		if err != nil {
			t.Errorf("%v --json: %v:\n%s", r.args, err, res.stdout)
			continue
		}
		if _, isObject := v.(map[string]any); !isObject {
			t.Errorf("%v --json printed %T, want an object", r.args, v)
		}
	}
}

// TestPoint7JSONFailureIsTheEnvelope: with --json a failure is the error
// envelope on stdout (one JSON value), with the usual exit status and no
// second copy on stderr.
func TestPoint7JSONFailureIsTheEnvelope(t *testing.T) {
	env := db7(t)
	cases := []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"ready", "--project", "nope"}, ExitTool, baton.ErrProjectNotFound},
		{[]string{"proposals", "accept", "no-such-proposal"}, ExitTool, baton.ErrNotFound},
		{[]string{"agent", "revoke", "nobody"}, ExitTool, baton.ErrNotFound},
		{[]string{"profile", "show", "ghost"}, ExitTool, baton.ErrNotFound},
		{[]string{"reply", "builder", "hi", "--thread", "a", "--new-thread", "b"}, ExitUsage, baton.ErrInvalidInput},
		{[]string{"audit", "verify", "--bundle", filepath.Join(t.TempDir(), "missing.json")}, ExitTool, baton.ErrNotFound},
		{[]string{"watch", "--every", "0s"}, ExitUsage, baton.ErrInvalidInput},
	}
	for _, c := range cases {
		r := run7(t, env, append(c.args, "--json")...)
		var env baton.Envelope
		if r.code != c.code || json.Unmarshal([]byte(r.stdout), &env) != nil || env.Error == nil || env.Error.Code != c.err {
			t.Errorf("%v --json = %+v, want exit %d and an envelope with %s", c.args, r, c.code, c.err)
			continue
		}
		if env.Error.Message == "" || strings.Contains(r.stderr, env.Error.Message) {
			t.Errorf("%v --json: message %q (stderr %q)", c.args, env.Error.Message, r.stderr)
		}
		if _, err := oneJSONValue(r.stdout); err != nil {
			t.Errorf("%v --json: %v", c.args, err)
		}
	}
}

// shortestUnique is the shortest prefix of id that no other of ids has.
func shortestUnique(id string, ids []string) string {
	for n := 1; n <= len(id); n++ {
		if !slices.ContainsFunc(ids, func(o string) bool { return o != id && strings.HasPrefix(o, id[:n]) }) {
			return id[:n]
		}
	}
	return id
}

// sharedPrefix is a prefix at least two of ids share, and those ids.
func sharedPrefix(t *testing.T, ids []string) (string, []string) {
	t.Helper()
	for _, id := range ids {
		for _, o := range ids {
			if o != id && o[:1] == id[:1] {
				var all []string
				for _, x := range ids {
					if strings.HasPrefix(x, id[:1]) {
						all = append(all, x)
					}
				}
				slices.Sort(all)
				return id[:1], all
			}
		}
	}
	t.Fatalf("no two of %v share a first character", ids)
	return "", nil
}

// TestPoint7UniquePrefixIDs: proposals, threads and tokens are named by
// their id or any unique start of it; a start of several is
// ERR_INVALID_INPUT listing them (details.candidates, with a hint), a
// start of none ERR_NOT_FOUND. Each command resolves before it acts.
func TestPoint7UniquePrefixIDs(t *testing.T) {
	env := db7(t)
	// Seventeen proposals: two of their ids must share a first hex digit.
	for i := range 17 {
		ok7(t, env, "--agent", "builder", "proposals", "create_proposal", "--title", fmt.Sprint("P", i), "--description", "Why: x", "--type", "product")
	}
	var props struct{ Proposals []struct{ ID string } }
	_ = json.Unmarshal([]byte(ok7(t, env, "proposals", "list_proposals", "--json").stdout), &props)
	var proposalIDs []string
	for _, p := range props.Proposals {
		proposalIDs = append(proposalIDs, p.ID)
	}
	ok7(t, env, "--agent", "builder", "messages", "send_message", "--to", "user", "--body", "db?", "--thread-id", "design-db")
	ok7(t, env, "--agent", "builder", "messages", "send_message", "--to", "user", "--body", "ui?", "--thread-id", "design-ui")
	ok7(t, env, "agent", "create", "alpha", "--profile", "worker")
	ok7(t, env, "agent", "create", "beta", "--profile", "worker")
	var toks struct{ Tokens []struct{ ID, Agent string } }
	_ = json.Unmarshal([]byte(ok7(t, env, "agent", "list", "--json").stdout), &toks)
	tokenIDs := []string{toks.Tokens[0].ID, toks.Tokens[1].ID}

	ambiguousProposal, proposalCands := sharedPrefix(t, proposalIDs)
	target := proposalIDs[0]
	cases := []struct {
		name       string
		ambiguous  []string // the command with an ambiguous id
		candidates []string
		missing    []string // with an id nothing starts with
		unique     []string // with a unique start: succeeds
		check      func(t *testing.T)
	}{
		{
			name:      "proposals accept",
			ambiguous: []string{"proposals", "accept", ambiguousProposal}, candidates: proposalCands,
			missing: []string{"proposals", "accept", "zz-none"},
			unique:  []string{"proposals", "accept", shortestUnique(target, proposalIDs)},
			check: func(t *testing.T) {
				r := ok7(t, env, "proposals", "list_proposals", "--status", "accepted", "--json")
				if !strings.Contains(r.stdout, target) || !strings.Contains(r.stdout, `"count":1`) {
					t.Fatalf("accepted: %s", r.stdout)
				}
			},
		},
		{
			name:      "reply --thread",
			ambiguous: []string{"reply", "builder", "x", "--thread", "design-"}, candidates: []string{"design-db", "design-ui"},
			missing: []string{"reply", "builder", "x", "--thread", "nothing"},
			unique:  []string{"reply", "builder", "SQLite", "--thread", "design-d"},
			check: func(t *testing.T) {
				r := ok7(t, env, "--agent", "builder", "messages", "read_messages", "--thread-id", "design-db", "--json")
				if !strings.Contains(r.stdout, `"body":"SQLite"`) {
					t.Fatalf("the reply is not in thread design-db: %s", r.stdout)
				}
			},
		},
		{
			name:      "inbox --thread",
			ambiguous: []string{"inbox", "--thread", "design"}, candidates: []string{"design-db", "design-ui"},
			missing: []string{"inbox", "--thread", "nothing"},
			unique:  []string{"inbox", "--thread", "design-u"},
		},
		{
			name:      "agent revoke",
			ambiguous: []string{"agent", "revoke", "tok_"}, candidates: slices.Sorted(slices.Values(tokenIDs)),
			missing: []string{"agent", "revoke", "tok_zz"},
			unique:  []string{"agent", "revoke", shortestUnique(tokenIDs[1], tokenIDs)},
			check: func(t *testing.T) {
				r := ok7(t, env, "agent", "list", "--json")
				var got struct {
					Tokens []struct {
						ID        string `json:"id"`
						RevokedAt string `json:"revoked_at"`
					}
				}
				_ = json.Unmarshal([]byte(r.stdout), &got)
				for _, tk := range got.Tokens {
					if (tk.RevokedAt != "") != (tk.ID == tokenIDs[1]) {
						t.Fatalf("after revoking %s by a prefix: %s", tokenIDs[1], r.stdout)
					}
				}
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := run7(t, env, append(slices.Clone(c.ambiguous), "--json")...)
			var e baton.Envelope
			_ = json.Unmarshal([]byte(r.stdout), &e)
			if r.code != ExitUsage || e.Error == nil || e.Error.Code != baton.ErrInvalidInput || e.Error.Hint == "" {
				t.Fatalf("ambiguous: %+v", r)
			}
			var got []string
			for _, x := range e.Error.Details["candidates"].([]any) {
				got = append(got, x.(string))
			}
			if !slices.Equal(got, c.candidates) {
				t.Fatalf("candidates %v, want %v", got, c.candidates)
			}
			// The terminal shows the message and the hint.
			if r := run7(t, env, c.ambiguous...); r.code != ExitUsage || !strings.Contains(r.stderr, "ERR_INVALID_INPUT") ||
				!strings.Contains(r.stderr, "hint:") {
				t.Fatalf("ambiguous, without --json: %+v", r)
			}
			if r := run7(t, env, c.missing...); r.code != ExitTool || !strings.Contains(r.stderr, "ERR_NOT_FOUND") {
				t.Fatalf("missing: %+v", r)
			}
			ok7(t, env, c.unique...)
			if c.check != nil {
				c.check(t)
			}
		})
	}
	// An ambiguous prefix changed nothing: only the proposal named uniquely
	// was decided, and only one token revoked (checked above).
	r := ok7(t, env, "proposals", "list_proposals", "--status", "pending", "--json")
	if !strings.Contains(r.stdout, fmt.Sprintf(`"count":%d`, len(proposalIDs)-1)) {
		t.Fatalf("pending after one accept: %s", r.stdout)
	}
}

// TestPoint7ResolveID: the resolver on its own.
func TestPoint7ResolveID(t *testing.T) {
	ids := []string{"ab", "abc", "abd", "xyz"}
	for _, c := range []struct{ in, want, code string }{
		{"ab", "ab", ""},   // an exact id wins over the ids it starts
		{"abc", "abc", ""}, // exact
		{"x", "xyz", ""},   // a unique start
		{"abd", "abd", ""}, // exact
		{"a", "", baton.ErrInvalidInput},
		{"q", "", baton.ErrNotFound},
		{"", "", baton.ErrInvalidInput},
	} {
		got, err := resolveID("thing", c.in, ids, "list them")
		code := ""
		if e := baton.AsError(err); e != nil {
			code = e.Code
		}
		if got != c.want || code != c.code {
			t.Errorf("resolveID(%q) = %q, %v; want %q, %s", c.in, got, err, c.want, c.code)
		}
	}
	_, err := resolveID("thing", "a", ids, "list them")
	e := baton.AsError(err)
	if !slices.Equal(e.Details["candidates"].([]string), []string{"ab", "abc", "abd"}) || !strings.Contains(e.Hint, "ab, abc, abd") {
		t.Errorf("ambiguous: %+v", e)
	}
	// The hint says how much of each id to type.
	_, err = resolveID("token", "tok_3f", []string{"tok_3f2a91", "tok_3f7b00", "tok_9c0000"}, "list them")
	if e := baton.AsError(err); !strings.HasSuffix(e.Hint, "tok_3f2…, tok_3f7…") {
		t.Errorf("hint %q", e.Hint)
	}
}

// TestPoint7HelpGroups: baton --help lists every command under a group
// whose title says what it holds, and nothing under "Additional Commands".
func TestPoint7HelpGroups(t *testing.T) {
	r := run7(t, nil, "--help")
	if r.code != 0 {
		t.Fatalf("--help: %+v", r)
	}
	if strings.Contains(r.stdout, "Additional Commands") {
		t.Errorf("commands outside every group:\n%s", r.stdout)
	}
	for _, g := range commandGroups() {
		if !strings.Contains(r.stdout, g.Title) {
			t.Errorf("--help lacks the group %q", g.Title)
		}
	}
	_, root := tree7()
	count := map[string]int{}
	for _, c := range root.Commands() {
		if !c.IsAvailableCommand() {
			continue
		}
		if c.GroupID == "" || !root.ContainsGroup(c.GroupID) {
			t.Errorf("baton %s is in no help group: add it to commandGroupOf", c.Name())
		}
		count[c.GroupID]++
		if !strings.Contains(r.stdout, "\n  "+c.Name()+" ") {
			t.Errorf("--help does not list %s", c.Name())
		}
	}
	for _, g := range commandGroups() {
		if count[g.ID] == 0 {
			t.Errorf("group %q holds nothing", g.Title)
		}
	}
	for name, want := range map[string]string{"inbox": groupPeople, "proposals": groupPeople, "audit": groupAudit, "ready": groupWork,
		"agent": groupAccess, "init": groupSetup, "completion": groupSetup, "tasks": groupTools} {
		if c, _, err := root.Find([]string{name}); err != nil || c.GroupID != want {
			t.Errorf("%s is in group %q, want %q", name, c.GroupID, want)
		}
	}
}

// TestPoint7ShellCompletion: baton completion is listed and prints a
// script for each shell; completion offers enum values of tool flags from
// the schema and the names in the database (profiles, projects, clients
// of setup, proposals, threads, tokens).
func TestPoint7ShellCompletion(t *testing.T) {
	env := db7(t)
	ok7(t, env, "profile", "create", "reviewer", "--extends", "worker")
	ok7(t, env, "--agent", "builder", "proposals", "create_proposal", "--title", "T", "--description", "Why: x", "--type", "product")
	ok7(t, env, "--agent", "builder", "messages", "send_message", "--to", "user", "--body", "q", "--thread-id", "ask-1")
	ok7(t, env, "agent", "create", "alpha", "--profile", "worker")
	var props struct{ Proposals []struct{ ID string } }
	_ = json.Unmarshal([]byte(ok7(t, env, "proposals", "list_proposals", "--json").stdout), &props)
	var toks struct{ Tokens []struct{ ID string } }
	_ = json.Unmarshal([]byte(ok7(t, env, "agent", "list", "--json").stdout), &toks)

	if r := run7(t, nil, "--help"); !strings.Contains(r.stdout, "\n  completion ") {
		t.Errorf("completion is not listed:\n%s", r.stdout)
	}
	for _, sh := range []string{"bash", "zsh", "fish", "powershell"} {
		if r := run7(t, nil, "completion", sh); r.code != 0 || !strings.Contains(r.stdout, "baton") || len(r.stdout) < 500 {
			t.Errorf("completion %s: exit %d, %d bytes", sh, r.code, len(r.stdout))
		}
	}
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"tasks", "task_create", "--priority", ""}, []string{"critical", "high", "normal", "low"}},
		{[]string{"tasks", "task_update", "--status", ""}, []string{"todo", "in_progress", "done"}},
		{[]string{"profile", "show", ""}, []string{"worker", "judge", "reviewer"}},
		{[]string{"profile", "allow", "reviewer", ""}, []string{"task_create", "merkle_finalize"}},
		{[]string{"agent", "create", "x", "--profile", ""}, []string{"worker", "reviewer"}},
		{[]string{"tools", "--profile", ""}, []string{"planner", "reviewer"}},
		{[]string{"--agent-type", ""}, []string{"judge", "reviewer"}},
		{[]string{"ready", "--project", ""}, []string{"colibri"}},
		{[]string{"tasks", "task_list", "--project", ""}, []string{"colibri"}},
		{[]string{"setup", ""}, clientNames()},
		{[]string{"mcp", "--toolsets", ""}, []string{"all", "tasks", "issues"}},
		{[]string{"proposals", "accept", ""}, []string{props.Proposals[0].ID}},
		{[]string{"reply", "builder", "x", "--thread", ""}, []string{"ask-1"}},
		{[]string{"agent", "revoke", ""}, []string{"alpha", toks.Tokens[0].ID}},
	}
	for _, c := range cases {
		r := run7(t, env, append([]string{cobra.ShellCompRequestCmd}, c.args...)...)
		got := strings.Split(r.stdout, "\n")
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("completing %v: no %q in\n%s", c.args, w, r.stdout)
			}
		}
	}
}

// fakeClock is a clock a test moves by hand.
type fakeClock struct{ t time.Time }

func (f *fakeClock) now() time.Time      { return f.t }
func (f *fakeClock) add(d time.Duration) { f.t = f.t.Add(d) }

// TestPoint7ProgressLine: the progress line appears only on a terminal,
// only once the work has run a second, at most ten times a second, and is
// cleared at the end; a command whose stderr is not a terminal (a pipe, a
// file, this test's buffer) never gets one.
func TestPoint7ProgressLine(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	var pipe bytes.Buffer
	p := newProgress(&pipe, false, clock.now, "verifying")
	for range 30 {
		clock.add(200 * time.Millisecond)
		p.tick()
		p.set("1 of 2")
	}
	p.finish()
	if pipe.Len() != 0 {
		t.Fatalf("a non-terminal got %q", pipe.String())
	}

	var term bytes.Buffer
	p = newProgress(&term, true, clock.now, "verifying")
	clock.add(900 * time.Millisecond)
	p.tick()
	if term.Len() != 0 {
		t.Fatalf("drawn before a second: %q", term.String())
	}
	clock.add(100 * time.Millisecond)
	p.tick()
	if term.String() != "\rbaton: verifying (1s)" {
		t.Fatalf("after a second: %q", term.String())
	}
	clock.add(50 * time.Millisecond)
	p.set("3 of 10 records")
	if term.String() != "\rbaton: verifying (1s)" {
		t.Fatalf("redrawn within 100ms: %q", term.String())
	}
	clock.add(1000 * time.Millisecond)
	p.tick()
	want := "\rbaton: verifying (1s)\rbaton: verifying: 3 of 10 records (2s)"
	if term.String() != want {
		t.Fatalf("redraw: %q", term.String())
	}
	clock.add(time.Second)
	p.set("")
	long := len("baton: verifying: 3 of 10 records (2s)")
	want += "\rbaton: verifying (3s)" + strings.Repeat(" ", long-len("baton: verifying (3s)"))
	if term.String() != want {
		t.Fatalf("a shorter line must cover the longer one: %q", term.String())
	}
	p.finish()
	want += "\r" + strings.Repeat(" ", long) + "\r"
	if term.String() != want {
		t.Fatalf("finish must clear the line: %q", term.String())
	}
	clock.add(time.Second)
	p.tick()
	p.finish()
	if term.String() != want {
		t.Fatalf("drawn after finish: %q", term.String())
	}

	// The ticker of a real run redraws with the time going on, and stops.
	ticked := &syncBuffer{}
	var mu sync.Mutex
	start := time.Now()
	p = newProgress(ticked, true, func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		start = start.Add(300 * time.Millisecond) // each look at the clock: 0.3s later
		return start
	}, "exporting")
	p.run()
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(ticked.String(), "baton: exporting ("); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the ticker never drew the line")
		}
	}
	p.finish()
	p.finish() // twice is fine
	if s := ticked.String(); !strings.HasSuffix(s, " \r") {
		t.Fatalf("the ticker's line was not cleared: %q", s)
	}

	// Through a command: stderr here is a buffer, not a terminal.
	env := db7(t)
	var out, errb bytes.Buffer
	a := newApp7(env, "", &out, &errb)
	if a.stderrIsTerminal() {
		t.Fatal("a buffer taken for a terminal")
	}
	if code := a.Run(context.Background(), []string{"audit", "verify", "--json"}); code != 0 || strings.Contains(errb.String(), "\r") {
		t.Fatalf("audit verify: %d, stderr %q", code, errb.String())
	}
	if _, err := oneJSONValue(out.String()); err != nil {
		t.Fatalf("audit verify --json: %v", err)
	}
}
