package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	core "github.com/baton-dev/baton"
	"github.com/baton-dev/baton/cli"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools"
)

// effective is `baton tools --profile P --json`.
type effective struct {
	Tools []struct {
		Name    string `json:"name"`
		Toolset string `json:"toolset"`
		Tokens  int    `json:"tokens"`
	} `json:"tools"`
	Count    int      `json:"count"`
	Tokens   int      `json:"tokens"`
	Estimate string   `json:"estimate"`
	Rule     string   `json:"rule"`
	Warnings []string `json:"warnings"`
}

func (e effective) has(name string) bool {
	return slices.ContainsFunc(e.Tools, func(t struct {
		Name    string `json:"name"`
		Toolset string `json:"toolset"`
		Tokens  int    `json:"tokens"`
	}) bool {
		return t.Name == name
	})
}

func toolsOf(t *testing.T, env map[string]string, args ...string) effective {
	t.Helper()
	r := baton(t, env, append(args, "tools", "--json")...)
	if r.code != 0 {
		t.Fatalf("baton %v tools --json = %+v", args, r)
	}
	var e effective
	if err := json.Unmarshal([]byte(r.stdout), &e); err != nil {
		t.Fatalf("tools --json is not JSON: %v\n%s", err, r.stdout)
	}
	return e
}

// profileTools is the effective tools of a profile as `baton tools
// --profile` lists them.
func profileTools(t *testing.T, env map[string]string, profile string, extra ...string) effective {
	t.Helper()
	r := baton(t, env, append([]string{"tools", "--profile", profile, "--json"}, extra...)...)
	if r.code != 0 {
		t.Fatalf("tools --profile %s = %+v", profile, r)
	}
	var e effective
	if err := json.Unmarshal([]byte(r.stdout), &e); err != nil {
		t.Fatalf("tools --profile --json is not JSON: %v\n%s", err, r.stdout)
	}
	return e
}

// registryDefaults is what ComputeScope gives a built-in profile with no
// stored settings: the figures the commands must agree with.
func registryDefaults(profile string, scheduler bool) *tool.Scope {
	return tool.ComputeScope(tools.Registry(), core.Principal{Profile: profile, Source: core.SourceStdio, SchedulerMode: scheduler}, tool.ScopeInput{})
}

// notAllowable is a tool a worker neither has by default nor can be
// granted through allowed_tools (not privileged).
func notAllowable(t *testing.T) string {
	t.Helper()
	worker := registryDefaults("worker", false)
	for _, tl := range tools.All() {
		if s := tl.Spec(); !worker.Has(s.Name) && !s.Annotations.Privileged {
			return s.Name
		}
	}
	t.Skip("every tool is a worker default")
	return ""
}

// TestProfileCommands: each subcommand's success path, in the order an
// operator would use them, each change checked through `baton tools
// --profile`, which is what a session of the profile would list.
func TestProfileCommands(t *testing.T) {
	env := newDB(t)
	reg := tools.Registry()
	workerN := len(registryDefaults("worker", false).Names(reg))
	judgeN := len(registryDefaults("judge", false).Names(reg))
	count := func(n int) string { return fmt.Sprintf("now has %d tools", n) }

	steps := []struct {
		name  string
		args  []string
		want  []string // in stdout
		check func(t *testing.T)
	}{
		{"list built-ins", []string{"profile", "list"}, append(slices.Clone(core.BuiltinProfiles), "chars/4"), nil},
		{"show built-in", []string{"profile", "show", "worker"},
			[]string{"worker (built in)", "(none: the default set of worker)", "no: registry defaults", fmt.Sprintf("effective: %d tools (profile worker)", workerN)}, nil},
		{"create", []string{"profile", "create", "reviewer", "--extends", "judge", "--description", "reads and comments"},
			[]string{"created profile reviewer (extends judge)", "reviewer " + count(judgeN)}, func(t *testing.T) {
				if e := profileTools(t, env, "reviewer"); e.Count != judgeN || e.Rule != "profile reviewer" {
					t.Fatalf("reviewer = %d tools (%s), want judge's %d", e.Count, e.Rule, judgeN)
				}
			}},
		{"list shows custom", []string{"profile", "list"}, []string{"reviewer", "judge", "stored", "reads and comments"}, nil},
		{"disallow", []string{"profile", "disallow", "worker", "add_comment", "announce"}, []string{"worker " + count(workerN-2)}, func(t *testing.T) {
			if e := profileTools(t, env, "worker"); e.has("add_comment") || e.has("announce") || e.Count != workerN-2 {
				t.Fatalf("worker still lists a disallowed tool: %+v", e)
			}
		}},
		{"allow takes a tool off disallowed", []string{"profile", "allow", "worker", "add_comment"}, []string{"worker " + count(workerN-1)}, func(t *testing.T) {
			if !profileTools(t, env, "worker").has("add_comment") {
				t.Fatal("add_comment not back after allow")
			}
		}},
		{"allow grants a privileged tool", []string{"profile", "allow", "worker", "merkle_finalize"},
			[]string{"merkle_finalize is privileged", "lists its", "worker " + count(workerN)}, func(t *testing.T) {
				e := profileTools(t, env, "worker")
				if !e.has("merkle_finalize") || !e.has("get_issue") || e.has("announce") {
					t.Fatalf("after the grant worker = %+v", e)
				}
			}},
		{"scheduler sessions lose blocked tools", []string{"profile", "allow", "worker", "announce"},
			[]string{"announce is scheduler-blocked"}, func(t *testing.T) {
				if e := profileTools(t, env, "worker", "--scheduler"); e.has("announce") || e.has("ask_owner") || !strings.Contains(e.Rule, "scheduler mode") {
					t.Fatalf("scheduler worker = %+v", e)
				}
				if !profileTools(t, env, "worker").has("announce") {
					t.Fatal("an interactive worker lacks announce after allow")
				}
			}},
		{"set narrows and warns", []string{"profile", "set", "worker", "--allowed", "get_issue,add_finding", "--disallowed", ""},
			[]string{"worker " + count(2), "warning: profile worker lacks update_issue_status"}, func(t *testing.T) {
				e := profileTools(t, env, "worker")
				if e.Count != 2 || len(e.Warnings) != 1 {
					t.Fatalf("narrowed worker = %+v", e)
				}
			}},
		{"show stored", []string{"profile", "show", "worker"}, []string{"allowed_tools:     get_issue, add_finding", "stored:            updated", "warning:"}, nil},
		{"set clears with an empty value", []string{"profile", "set", "worker", "--allowed", ""}, []string{"worker " + count(workerN)}, nil},
		{"set skills notes a missing skill", []string{"profile", "set", "reviewer", "--skills", "coverage", "--description", "d2"},
			[]string{"no skill coverage under"}, nil},
		{"reset built-in", []string{"profile", "reset", "worker"}, []string{"worker " + count(workerN)}, func(t *testing.T) {
			if r := baton(t, env, "profile", "show", "worker"); !strings.Contains(r.stdout, "no: registry defaults") {
				t.Fatalf("after reset: %s", r.stdout)
			}
		}},
		{"reset built-in again", []string{"profile", "reset", "worker"}, []string{"has its registry defaults already"}, nil},
		{"reset custom keeps it", []string{"profile", "reset", "reviewer"}, []string{"reviewer " + count(judgeN)}, func(t *testing.T) {
			r := baton(t, env, "profile", "show", "reviewer")
			if !strings.Contains(r.stdout, "custom, extends judge") || !strings.Contains(r.stdout, "skills:            (none)") || !strings.Contains(r.stdout, "d2") {
				t.Fatalf("after reset: %s", r.stdout)
			}
		}},
		{"delete custom", []string{"profile", "delete", "reviewer"}, []string{"deleted profile reviewer"}, func(t *testing.T) {
			if r := baton(t, env, "tools", "--profile", "reviewer"); r.code != cli.ExitTool || !strings.Contains(r.stderr, "ERR_NOT_FOUND") {
				t.Fatalf("tools --profile of a deleted profile = %+v", r)
			}
		}},
	}
	for _, s := range steps {
		r := baton(t, env, s.args...)
		if r.code != 0 {
			t.Fatalf("%s: baton %v = %+v", s.name, s.args, r)
		}
		for _, w := range s.want {
			if !strings.Contains(r.stdout, w) {
				t.Fatalf("%s: baton %v printed\n%s\nwithout %q", s.name, s.args, r.stdout, w)
			}
		}
		if s.check != nil {
			s.check(t)
		}
	}
}

// TestProfileErrors: every refusal says what was wrong, with the exit
// code of its kind (2: the command line; 1: the database said no).
func TestProfileErrors(t *testing.T) {
	env := newDB(t)
	baton(t, env, "profile", "create", "mine", "--extends", "worker")
	stray := notAllowable(t)
	cases := []struct {
		name   string
		args   []string
		code   int
		stderr []string
	}{
		{"show unknown", []string{"profile", "show", "nope"}, 1, []string{"ERR_NOT_FOUND", `profile "nope" does not exist`, "baton profile create nope"}},
		{"show without a name", []string{"profile", "show"}, 2, []string{"takes one profile name"}},
		{"allow to unknown", []string{"profile", "allow", "nope", "get_issue"}, 1, []string{"ERR_NOT_FOUND"}},
		{"disallow to unknown", []string{"profile", "disallow", "nope", "get_issue"}, 1, []string{"ERR_NOT_FOUND"}},
		{"set unknown", []string{"profile", "set", "nope", "--skills", "x"}, 1, []string{"ERR_NOT_FOUND"}},
		{"reset unknown custom", []string{"profile", "reset", "nope"}, 1, []string{"ERR_NOT_FOUND"}},
		{"delete unknown", []string{"profile", "delete", "nope"}, 1, []string{"ERR_NOT_FOUND"}},
		{"bad name", []string{"profile", "create", "Bad Name", "--extends", "worker"}, 2, []string{"ERR_INVALID_INPUT", "not valid", "lowercase"}},
		{"too long", []string{"profile", "create", strings.Repeat("a", 41), "--extends", "worker"}, 2, []string{"not valid"}},
		{"custom without --extends", []string{"profile", "create", "solo"}, 2, []string{"must extend a built-in profile", "--extends"}},
		{"extends a custom", []string{"profile", "create", "solo", "--extends", "mine"}, 2, []string{"must extend a built-in profile"}},
		{"create a built-in", []string{"profile", "create", "worker", "--extends", "judge"}, 2, []string{"built-in profile", "exists already"}},
		{"create twice", []string{"profile", "create", "mine", "--extends", "judge"}, 1, []string{"ERR_CONFLICT", "exists already"}},
		{"allow unknown tool", []string{"profile", "allow", "worker", "get_issue", "fly", "soar"}, 2, []string{`unknown tool "fly", "soar"`, "get_issue, "}},
		{"disallow unknown tool", []string{"profile", "disallow", "worker", "fly"}, 2, []string{`unknown tool "fly"`}},
		{"set unknown tool", []string{"profile", "set", "worker", "--disallowed", "fly"}, 2, []string{`unknown tool "fly"`}},
		{"allow a tool allowed_tools cannot add", []string{"profile", "allow", "worker", stray}, 2, []string{stray, "not among the default tools of worker", "baton project tools"}},
		{"set a tool allowed_tools cannot add", []string{"profile", "set", "mine", "--allowed", stray}, 2, []string{"not among the default tools of worker"}},
		{"allow without tools", []string{"profile", "allow", "worker"}, 2, []string{"a profile name and one or more tools"}},
		{"set without flags", []string{"profile", "set", "worker"}, 2, []string{"changes nothing"}},
		{"delete a built-in", []string{"profile", "delete", "worker"}, 2, []string{"cannot be deleted", "baton profile reset worker"}},
		{"tools of unknown", []string{"tools", "--profile", "nope"}, 1, []string{"ERR_NOT_FOUND"}},
		{"tools --scheduler without --profile", []string{"tools", "--scheduler"}, 2, []string{"--scheduler needs --profile"}},
		{"tools --markdown with --profile", []string{"tools", "--markdown", "--profile", "worker"}, 2, []string{"--markdown"}},
		{"project tools of unknown", []string{"project", "tools", "nope"}, 1, []string{"ERR_PROJECT_NOT_FOUND"}},
		{"project tools unknown tool", []string{"project", "tools", "colibri", "--set", "fly"}, 2, []string{`unknown tool "fly"`}},
		{"unknown subcommand", []string{"profile", "fly"}, 2, []string{"unknown command"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := baton(t, env, c.args...)
			if r.code != c.code {
				t.Fatalf("baton %v = exit %d (%s), want %d", c.args, r.code, r.stderr, c.code)
			}
			for _, w := range c.stderr {
				if !strings.Contains(r.stderr, w) {
					t.Fatalf("baton %v stderr %q lacks %q", c.args, r.stderr, w)
				}
			}
		})
	}
	// Nothing above changed a profile.
	if r := baton(t, env, "profile", "show", "worker"); !strings.Contains(r.stdout, "no: registry defaults") {
		t.Fatalf("a refused command stored something: %s", r.stdout)
	}
}

// TestBundles: a project's bundle and a profile's skills add tools that
// allowed_tools cannot, to sessions of that project or profile only.
func TestBundles(t *testing.T) {
	env := newDB(t)
	stray := notAllowable(t)
	r := baton(t, env, "project", "tools", "colibri", "--set", stray+",merkle_finalize")
	if r.code != 0 || !strings.Contains(r.stdout, "project colibri bundle: "+stray+", merkle_finalize") || !strings.Contains(r.stdout, "merkle_finalize is privileged") {
		t.Fatalf("project tools --set = %+v", r)
	}
	if r := baton(t, env, "project", "tools", "colibri"); !strings.Contains(r.stdout, "bundle: "+stray+", merkle_finalize") {
		t.Fatalf("project tools = %+v", r)
	}
	if e := profileTools(t, env, "worker"); e.has(stray) {
		t.Fatalf("a session of no project has the project's bundle")
	}
	withProject := map[string]string{"BATON_DB": env["BATON_DB"], "BATON_PROJECT": "colibri"}
	if e := profileTools(t, withProject, "worker"); !e.has(stray) || !e.has("merkle_finalize") {
		t.Fatalf("a colibri worker lacks the bundle: %+v", e)
	}
	if r := baton(t, env, "project", "tools", "colibri", "--set", ""); r.code != 0 || !strings.Contains(r.stdout, "bundle: (none)") {
		t.Fatalf("clearing the bundle = %+v", r)
	}

	dir := t.TempDir()
	t.Chdir(dir)
	skill := filepath.Join(dir, ".agents", "skills", "coverage", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(skill), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(skill, []byte("---\ndescription: track coverage\nbaton-tools: ["+stray+"]\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := baton(t, env, "profile", "set", "worker", "--skills", "coverage"); r.code != 0 || strings.Contains(r.stdout, "no skill") {
		t.Fatalf("set --skills = %+v", r)
	}
	if e := profileTools(t, env, "worker"); !e.has(stray) {
		t.Fatalf("the skill's tool is missing: %+v", e)
	}
	if e := profileTools(t, env, "judge"); e.has(stray) && !registryDefaults("judge", false).Has(stray) {
		t.Fatalf("another profile got worker's skill bundle")
	}
}

// TestProfilesDocIsFresh fails when the matrix in docs/profiles.md differs
// from the registry's defaults. Refresh it with UPDATE_DOCS=1.
func TestProfilesDocIsFresh(t *testing.T) {
	path := filepath.Join("..", "docs", "profiles.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	begin, end := strings.Index(doc, cli.MatrixBegin), strings.Index(doc, cli.MatrixEnd)
	if begin < 0 || end < begin {
		t.Fatalf("docs/profiles.md lacks the markers %q and %q", cli.MatrixBegin, cli.MatrixEnd)
	}
	fresh := doc[:begin] + cli.MatrixBegin + "\n" + cli.ProfilesMatrix(tools.Registry()) + doc[end:]
	if os.Getenv("UPDATE_DOCS") != "" {
		if err := os.WriteFile(path, []byte(fresh), 0o644); err != nil {
			t.Fatal(err)
		}
		doc = fresh
	}
	if doc != fresh {
		t.Fatal("the matrix in docs/profiles.md is stale; regenerate it with: UPDATE_DOCS=1 go test ./cli -run Fresh")
	}
}
