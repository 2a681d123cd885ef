package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
	"github.com/spf13/cobra"
)

// auditCmds are the audit commands beside the audit tools: whole-trail
// verification, export, and offline checks that need no database.
func (a *App) auditCmds() []*cobra.Command {
	var bundle string
	verify := &cobra.Command{
		Use:   "verify [--bundle FILE]",
		Short: "Verify the whole audit trail (action log and thought chains), or an exported bundle",
		Long: "verify recomputes every hash of the action log and of every task's thought chain and reports each\n" +
			"broken link. With --bundle it checks an exported bundle instead, with no database. Exit 1 when anything is broken.",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			var rep *audit.Report
			if bundle != "" {
				p := a.startProgress("reading and verifying " + bundle)
				b, err := readBundle(bundle)
				if err == nil {
					rep = b.Verify()
				}
				p.finish()
				if err != nil {
					return a.fail(err)
				}
			} else {
				s, err := a.openStore(c.Context())
				if err != nil {
					return a.fail(err)
				}
				p := a.startProgress("verifying the audit trail")
				rep, err = audit.VerifyStore(c.Context(), s)
				p.finish()
				if err != nil {
					return a.fail(err)
				}
			}
			if wantJSON(c) {
				// The report, then exit 1 when anything is broken, as without --json.
				if err := a.printJSON(struct {
					OK bool `json:"ok"`
					*audit.Report
				}{rep.OK(), rep}); err != nil {
					return err
				}
				if !rep.OK() {
					return &ExitError{Code: ExitTool, Err: errors.New("")}
				}
				return nil
			}
			return a.printReport(rep)
		},
	}
	verify.Flags().StringVar(&bundle, "bundle", "", "verify this exported bundle instead of the database")
	a.jsonFlag(verify, `{"ok", "actions", "action_breaks": [{"position", "reason", "expected_hash", "actual_hash", ...}], "thoughts",
"thought_breaks": {TASK: [...]}, "sessions", "session_breaks": {SESSION: why}, "integrity_score"}; exit 1 when not ok.`)

	export := &cobra.Command{
		Use:   "export FILE",
		Short: "Write the audit trail as a self-contained bundle that can be verified elsewhere",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			s, err := a.openStore(c.Context())
			if err != nil {
				return a.fail(err)
			}
			p := a.startProgress("exporting the audit trail")
			b, err := audit.Export(c.Context(), s, time.Now())
			if err != nil {
				p.finish()
				return a.fail(err)
			}
			out, err := json.MarshalIndent(b, "", "  ")
			if err == nil {
				err = os.WriteFile(args[0], append(out, '\n'), 0o644)
			}
			p.finish()
			if err != nil {
				return a.fail(baton.Errorf(baton.ErrInternal, "cannot write the bundle %s: %v", args[0], err).
					WithDetails("file", args[0]).WithHint("check the directory exists and is writable, or name another file"))
			}
			if wantJSON(c) {
				return a.printJSON(map[string]any{"file": args[0], "actions": len(b.Actions), "thoughts": len(b.Thoughts), "sessions": len(b.Sessions)})
			}
			fmt.Fprintf(a.Stdout, "wrote %s: %d actions, %d thought records, %d finalized sessions\n", args[0],
				len(b.Actions), len(b.Thoughts), len(b.Sessions))
			return nil
		},
	}

	proof := &cobra.Command{
		Use:   "verify-proof FILE",
		Short: "Check a merkle_proof result offline, with no database",
		Long: "verify-proof reads a file holding merkle_proof's output (baton audit merkle_proof ... --json > FILE)\n" +
			"and recomputes the root from the leaf and the path. Exit 0 when it reaches the root, 1 when not.",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			raw, err := os.ReadFile(args[0])
			if err != nil {
				return a.fail(fileError(args[0], err))
			}
			var p audit.Proof
			if err := json.Unmarshal(raw, &p); err != nil || p.Root == "" || p.Leaf == "" {
				return usageError("%s is not a merkle proof (want leaf, path and root as merkle_proof returns them)", args[0])
			}
			if err := p.Check(); err != nil {
				if wantJSON(c) {
					if err := a.printJSON(map[string]any{"verifies": false, "reason": err.Error(), "leaf": p.Leaf, "root": p.Root}); err != nil {
						return err
					}
					return &ExitError{Code: ExitTool, Err: errors.New("")}
				}
				return &ExitError{Code: ExitTool, Err: fmt.Errorf("proof does not verify: %v", err)}
			}
			if wantJSON(c) {
				return a.printJSON(map[string]any{"verifies": true, "leaf": p.Leaf, "leaf_index": p.LeafIndex, "leaf_count": p.LeafCount, "root": p.Root})
			}
			fmt.Fprintf(a.Stdout, "proof verifies: leaf %s is leaf %d of %d under root %s\n", p.Leaf, p.LeafIndex, p.LeafCount, p.Root)
			return nil
		},
	}
	a.jsonFlag(export, `{"file", "actions", "thoughts", "sessions"}: what the bundle holds.`)
	a.jsonFlag(proof, `{"verifies": true, "leaf", "leaf_index", "leaf_count", "root"}, or {"verifies": false, "reason", "leaf",
"root"} with exit 1.`)
	return []*cobra.Command{verify, export, proof}
}

// fileError is a file that cannot be read, as an error that says which.
func fileError(path string, err error) error {
	if errors.Is(err, os.ErrNotExist) {
		return baton.Errorf(baton.ErrNotFound, "%s does not exist", path).WithDetails("file", path).WithHint("check the file name")
	}
	return baton.Errorf(baton.ErrInvalidInput, "cannot read %s: %v", path, err).WithDetails("file", path)
}

// orNone shows an empty hash (the null before a chain's first record, or
// a record that is gone) as "none".
func orNone(h string) string {
	if h == "" {
		return "none"
	}
	return h
}

func readBundle(path string) (*audit.Bundle, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fileError(path, err)
	}
	var b audit.Bundle
	if err := json.Unmarshal(raw, &b); err != nil {
		return nil, baton.Errorf(baton.ErrInvalidInput, "%s is not an audit bundle: %v", path, err).WithDetails("file", path).
			WithHint("give a file written by `baton audit export`")
	}
	if b.Format != audit.BundleFormat {
		return nil, baton.Errorf(baton.ErrInvalidInput, "%s has format %q, want %q", path, b.Format, audit.BundleFormat).
			WithDetails("file", path).WithHint("give a file written by `baton audit export`")
	}
	return &b, nil
}

func (a *App) printReport(rep *audit.Report) error {
	fmt.Fprintf(a.Stdout, "action log: %d records\n", rep.Actions)
	for _, b := range rep.ActionBreaks {
		fmt.Fprintf(a.Stdout, "  broken at position %d: %s (expected %s, found %s)\n", b.Position, b.Reason, orNone(b.ExpectedHash),
			orNone(cleanLine(b.ActualHash)))
	}
	fmt.Fprintf(a.Stdout, "thought chains: %d records\n", rep.Thoughts)
	tasks := make([]string, 0, len(rep.ThoughtBreaks))
	for t := range rep.ThoughtBreaks {
		tasks = append(tasks, t)
	}
	sort.Strings(tasks)
	for _, t := range tasks {
		for _, b := range rep.ThoughtBreaks[t] {
			fmt.Fprintf(a.Stdout, "  %s broken at position %d: %s (expected %s, found %s)\n", cleanLine(t), b.Position, b.Reason,
				orNone(b.ExpectedHash), orNone(cleanLine(b.ActualHash)))
		}
	}
	if rep.Sessions > 0 || len(rep.SessionBreaks) > 0 {
		fmt.Fprintf(a.Stdout, "finalized sessions: %d\n", rep.Sessions)
		for id, why := range rep.SessionBreaks {
			fmt.Fprintf(a.Stdout, "  %s: %s\n", cleanLine(id), cleanLine(why))
		}
	}
	fmt.Fprintf(a.Stdout, "integrity: %d%%\n", rep.IntegrityScore)
	if !rep.OK() {
		return &ExitError{Code: ExitTool, Err: errors.New("the audit trail is broken")}
	}
	fmt.Fprintln(a.Stdout, "every link verifies")
	return nil
}
