// Command agent is the small real agent baton dispatch's tests start: it
// reads the MCP configuration the dispatcher wrote, starts the baton server
// it names, and works its issue through MCP as a coding agent would (check
// the workspace, read the issue, commit a change, hand the work in),
// printing Claude Code's stream-json as it goes. Its -mode makes it
// misbehave in the ways the tests need: crash, hang, ignore SIGTERM, or
// work slowly.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	mode := flag.String("mode", "work", "work, judge, research, judge-phase, crash, hang, trap, idle, giveup")
	mcpFile := flag.String("mcp", "", "the MCP configuration ({mcp_config})")
	issue := flag.String("issue", "", "the issue ({issue})")
	promptFile := flag.String("prompt-file", "", "the prompt ({prompt_file})")
	sleep := flag.Duration("sleep", 0, "wait this long before handing the work in")
	child := flag.String("child", "", "start a child process that sleeps, and write its pid to this file")
	flag.Parse()
	emit(map[string]any{"type": "system", "subtype": "init", "model": "test-model", "cwd": mustWd()})

	if *child != "" {
		c := exec.Command("sleep", "300")
		if err := c.Start(); err != nil {
			fail("starting the child: %v", err)
		}
		_ = os.WriteFile(*child, []byte(strconv.Itoa(c.Process.Pid)), 0o644)
	}
	switch *mode {
	case "crash":
		fmt.Fprintln(os.Stderr, "agent: something broke")
		os.Exit(3)
	case "hang":
		time.Sleep(time.Hour)
	case "trap":
		signal.Ignore(syscall.SIGTERM)
		time.Sleep(time.Hour)
	}
	if os.Getenv("BATON_ISSUE") != *issue || *issue == "" {
		fail("BATON_ISSUE=%q, {issue}=%q", os.Getenv("BATON_ISSUE"), *issue)
	}
	if os.Getenv("BATON_MCP_CONFIG") != *mcpFile {
		fail("BATON_MCP_CONFIG=%q, {mcp_config}=%q", os.Getenv("BATON_MCP_CONFIG"), *mcpFile)
	}
	prompt, err := os.ReadFile(*promptFile)
	if err != nil || !strings.Contains(string(prompt), *issue) {
		fail("the prompt file does not name %s (%v)", *issue, err)
	}

	ctx := context.Background()
	cs := connect(ctx, *mcpFile)
	defer cs.Close()
	judge := strings.HasPrefix(*mode, "judge")
	if !judge { // a judge has no verify_workspace: it reviews, it does not write
		ws := call(ctx, cs, "verify_workspace", map[string]any{})
		if ws["valid"] != true || ws["issue"] != *issue {
			fail("verify_workspace: %v", ws)
		}
	}
	it := call(ctx, cs, "get_issue", map[string]any{})
	say(fmt.Sprintf("working on %v: %v", it["id"], it["title"]))
	if *mode == "giveup" { // hands the work back and exits 0, as if done
		call(ctx, cs, "update_issue_status", map[string]any{"status": "todo", "reason": "not today"})
		return
	}
	if *mode == "idle" {
		emit(map[string]any{"type": "result", "subtype": "success", "is_error": false, "total_cost_usd": 0.01, "num_turns": 1, "duration_ms": 5})
		return
	}
	time.Sleep(*sleep)
	artifact := filepath.Join("docs", "tickets", *issue, "research.md")
	switch *mode {
	case "judge":
		call(ctx, cs, "approve_pr", map[string]any{"reason": "the change does what the issue asks"})
	case "judge-phase":
		b, err := os.ReadFile(artifact)
		if err != nil {
			fail("reading the artifact: %v", err)
		}
		sum := sha256.Sum256(b)
		call(ctx, cs, "approve_phase", map[string]any{"phase": "research", "artifact_hash": hex.EncodeToString(sum[:]),
			"reason": "the research answers the question"})
	case "research":
		text := "# Research\n\n## Problem Statement\n\nWhat the issue asks for, and what is in the way.\n\n" +
			"## Recommendation\n\nBuild it in the smallest way that does the job, with tests.\n"
		if err := os.MkdirAll(filepath.Dir(artifact), 0o755); err != nil {
			fail("%v", err)
		}
		if err := os.WriteFile(artifact, []byte(text), 0o644); err != nil {
			fail("%v", err)
		}
		git("add", artifact)
		git("-c", "user.name=agent", "-c", "user.email=agent@example.com", "commit", "-q", "-m", "research for "+*issue)
		sum := sha256.Sum256([]byte(text))
		call(ctx, cs, "complete_phase", map[string]any{"completed_phase": "research", "contract_version": 1,
			"artifact_path": filepath.ToSlash(artifact), "artifact_hash": hex.EncodeToString(sum[:]), "summary": "researched",
			"recommended_next_phase": "architecture", "project_path": mustWd()})
	default:
		name := strings.ToLower(*issue) + ".txt"
		if err := os.WriteFile(name, []byte("done by the test agent\n"), 0o644); err != nil {
			fail("writing: %v", err)
		}
		git("add", name)
		git("-c", "user.name=agent", "-c", "user.email=agent@example.com", "commit", "-q", "-m", "work on "+*issue)
		wd := mustWd()
		call(ctx, cs, "complete_phase", map[string]any{"completed_phase": "ready", "summary": "committed " + name, "project_path": wd})
	}
	emit(map[string]any{"type": "result", "subtype": "success", "is_error": false, "total_cost_usd": 0.25, "num_turns": 3, "duration_ms": 1200})
}

// connect starts the server the configuration names, as Claude Code does
// with --mcp-config.
func connect(ctx context.Context, path string) *mcp.ClientSession {
	b, err := os.ReadFile(path)
	if err != nil {
		fail("reading the MCP configuration: %v", err)
	}
	var conf struct {
		MCPServers map[string]struct {
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(b, &conf); err != nil {
		fail("parsing the MCP configuration: %v", err)
	}
	srv, ok := conf.MCPServers["baton"]
	if !ok {
		fail("the MCP configuration has no baton server")
	}
	cmd := exec.Command(srv.Command, srv.Args...)
	cmd.Env = os.Environ()
	for k, v := range srv.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stderr = os.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		fail("connecting to baton: %v", err)
	}
	return cs
}

// call calls a tool and returns its structured result; a failed call ends
// the agent with status 2.
func call(ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) map[string]any {
	emit(map[string]any{"type": "assistant", "message": map[string]any{"model": "test-model",
		"content": []any{map[string]any{"type": "tool_use", "name": name, "input": args}}}})
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		fail("%s: %v", name, err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	emit(map[string]any{"type": "user", "message": map[string]any{"content": []any{
		map[string]any{"type": "tool_result", "content": string(b), "is_error": res.IsError}}}})
	if res.IsError {
		fail("%s failed: %s", name, b)
	}
	out := map[string]any{}
	_ = json.Unmarshal(b, &out)
	return out
}

func git(args ...string) {
	if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
		fail("git %s: %v: %s", strings.Join(args, " "), err, out)
	}
}

func say(text string) {
	emit(map[string]any{"type": "assistant", "message": map[string]any{"model": "test-model",
		"content": []any{map[string]any{"type": "text", "text": text}}}})
}

func emit(v any) {
	b, _ := json.Marshal(v)
	fmt.Println(string(b))
}

func mustWd() string {
	wd, err := os.Getwd()
	if err != nil {
		fail("%v", err)
	}
	abs, _ := filepath.EvalSymlinks(wd)
	return abs
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "agent: "+format+"\n", args...)
	os.Exit(2)
}
