package cli

import (
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/spf13/cobra"
)

// Every human command (the ones written by hand, not generated from a
// tool) that prints something takes --json: stdout is then exactly one
// JSON value (baton watch: one JSON object per line), whose shape the
// command's help states, so scripts never parse tables. A failure with
// --json prints the error envelope {"error": {...}} on stdout instead, as
// a tool command's --json does, and exits 1 or 2 as always. The commands
// without --json are listed in jsonExempt with the reason.

// jsonEnvelopeDoc is the failure half of every --json help text.
const jsonEnvelopeDoc = "On failure stdout is the error envelope {\"error\": {\"code\", \"type\", \"message\", \"details\", \"next_action_hint\"}}."

// jsonExempt are the human commands without --json, by command path
// below the root, with why: a test walks the command tree and fails on
// any other command that lacks it.
var jsonExempt = map[string]string{
	"mcp":                   "serves MCP on stdin/stdout: its output is the protocol",
	"serve":                 "serves MCP over HTTP until stopped: it reports nothing on stdout",
	"bench":                 "a load harness for baton's developers: its report is for reading, not a stable interface",
	"help":                  "prints help",
	"completion bash":       "prints a shell script",
	"completion zsh":        "prints a shell script",
	"completion fish":       "prints a shell script",
	"completion powershell": "prints a shell script",
	"hooks check":           "run by the git guard's hooks: git reads its exit status and the refusal on stderr",
}

// jsonFlag gives cmd --json, documents shape (the document it prints)
// in its help, and makes a failure under --json print the error envelope
// on stdout, unless the command has written its document already (a
// broken audit trail is reported, then exits 1).
func (a *App) jsonFlag(cmd *cobra.Command, shape string) {
	a.jsonFlagVar(cmd, new(bool), shape)
}

// jsonFlagVar is jsonFlag with the flag's value kept in on too.
func (a *App) jsonFlagVar(cmd *cobra.Command, on *bool, shape string) {
	cmd.Flags().BoolVar(on, "json", false, "print one JSON document instead of text (its shape is below)")
	long := cmd.Long
	if long == "" {
		long = cmd.Short + "."
	}
	cmd.Long = long + "\n\nWith --json, stdout is " + shape + "\n" + jsonEnvelopeDoc
	run := cmd.RunE
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if !wantJSON(c) {
			return run(c, args)
		}
		out := &countingWriter{w: a.Stdout}
		saved := a.Stdout
		a.Stdout = out
		err := run(c, args)
		a.Stdout = saved
		if err == nil || out.n > 0 {
			return err
		}
		return a.jsonFailure(err)
	}
}

// wantJSON reports whether the command runs with --json.
func wantJSON(c *cobra.Command) bool {
	on, err := c.Flags().GetBool("json")
	return err == nil && on
}

// printJSON writes v as one indented JSON document.
func (a *App) printJSON(v any) error {
	enc := json.NewEncoder(a.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// printJSONLine writes v as one line of JSON Lines.
func (a *App) printJSONLine(v any) error {
	return json.NewEncoder(a.Stdout).Encode(v)
}

// jsonFailure prints err as the error envelope and keeps its exit code;
// the terminal gets no second copy of the message.
func (a *App) jsonFailure(err error) error {
	code := ExitTool
	var ee *ExitError
	if errors.As(err, &ee) {
		code = ee.Code
	}
	var be *baton.Error
	if !errors.As(err, &be) {
		msg := strings.TrimSpace(err.Error())
		if code == ExitUsage {
			be = baton.Errorf(baton.ErrInvalidInput, "%s", msg)
		} else {
			be = baton.Errorf(baton.ErrInternal, "%s", msg)
		}
	}
	b, merr := json.Marshal(baton.Envelope{Error: be})
	if merr != nil {
		return err
	}
	if _, werr := a.Stdout.Write(append(b, '\n')); werr != nil {
		return err
	}
	return &ExitError{Code: code, Err: errors.New("")}
}

// failure is what a.fail returns inside its ExitError: the sanitised
// message for the terminal, with the structured error kept for --json.
type failure struct {
	msg string
	err *baton.Error
}

func (f *failure) Error() string { return f.msg }
func (f *failure) Unwrap() error { return f.err }

// countingWriter counts what a command wrote to stdout.
type countingWriter struct {
	w io.Writer
	n int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}

// nonNil keeps an empty list a JSON array ([]), never null.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
