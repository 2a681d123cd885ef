package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/baton-dev/baton/tlog"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
	"github.com/spf13/cobra"
)

// auditCmds are the audit commands beside the audit tools: whole-trail
// verification, export, and offline checks that need no database.
func (a *App) auditCmds() []*cobra.Command {
	var bundle, key, proofKey string
	var checkpoints []string
	verify := &cobra.Command{
		Use:   "verify [--checkpoint FILE]... [--key KEY] | --bundle FILE [--key KEY]",
		Short: "Verify the whole audit trail against its signed checkpoints, or an exported bundle",
		Long: "verify recomputes every hash of the action log and of every task's thought chain and reports each\n" +
			"broken link, then checks the log against its signed checkpoints: the log must still give each one's\n" +
			"root (RFC 6962), so a record deleted (the newest too), reordered or rewritten, even with every hash\n" +
			"after it recomputed, is reported with the position it lies at or after. --checkpoint FILE adds the\n" +
			"checkpoints kept outside the database (a witness file, or a note `baton audit checkpoint` printed) and\n" +
			"shows the RFC 6962 consistency proof from the latest of them to the log today.\n\n" +
			"--bundle FILE checks an exported bundle instead, with no database: the checkpoint's signature, every\n" +
			"hash, that the checkpoint's root is the Merkle root of exactly the bundle's records, and its consistency\n" +
			"proofs. --key is the log's public key (`baton audit key` prints it) that signatures are checked with;\n" +
			"without it a bundle is checked with the key it carries, which shows only that it is self-consistent.\n" +
			"Exit 1 when anything is broken.",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			var rep *audit.Report
			keySource := "--key"
			if bundle != "" {
				if len(checkpoints) > 0 {
					return usageError("--checkpoint checks the database's log; a bundle carries its own checkpoints")
				}
				p := a.startProgress("reading and verifying " + bundle)
				b, err := readBundle(bundle)
				if err == nil {
					if key == "" {
						keySource = "bundle"
					}
					rep, err = b.Verify(key)
				}
				p.finish()
				if err != nil {
					return a.fail(err)
				}
			} else {
				opts := audit.VerifyOptions{Key: key}
				for _, f := range checkpoints {
					given, err := readCheckpoints(f)
					if err != nil {
						return a.fail(err)
					}
					opts.Checkpoints = append(opts.Checkpoints, given...)
				}
				s, err := a.openStore(c.Context())
				if err != nil {
					return a.fail(err)
				}
				if key == "" {
					keySource = "log"
				}
				p := a.startProgress("verifying the audit trail")
				rep, err = audit.VerifyStoreWith(c.Context(), s, opts)
				p.finish()
				if err != nil {
					return a.fail(err)
				}
			}
			if wantJSON(c) {
				// The report, then exit 1 when anything is broken, as without --json.
				if err := a.printJSON(struct {
					OK        bool   `json:"ok"`
					KeySource string `json:"key_source"`
					*audit.Report
				}{rep.OK(), keySource, rep}); err != nil {
					return err
				}
				if !rep.OK() {
					return &ExitError{Code: ExitTool, Err: errors.New("")}
				}
				return nil
			}
			return a.printReport(rep, keySource)
		},
	}
	verify.Flags().StringVar(&bundle, "bundle", "", "verify this exported bundle instead of the database")
	verify.Flags().StringArrayVar(&checkpoints, "checkpoint", nil, "also check the log against the signed checkpoints in this file (repeatable)")
	verify.Flags().StringVar(&key, "key", "", "the log's public key (as `baton audit key` prints it), or a file holding it")
	a.jsonFlag(verify, `{"ok", "key_source", "actions", "action_breaks": [{"position", "reason", "expected_hash", "actual_hash", ...}],
"root", "checkpoints": [{"source", "size", "root", "signature", "status", "position", "detail", "consistency_proof"}], "thoughts",
"thought_breaks": {TASK: [...]}, "sessions", "session_breaks": {SESSION: why}, "integrity_score"}; exit 1 when not ok.`)
	verify.PreRunE = func(*cobra.Command, []string) error {
		k, err := readKeyArg(key)
		key = k
		return err
	}

	export := &cobra.Command{
		Use:   "export FILE",
		Short: "Write the audit trail as a self-contained, signed bundle that can be verified elsewhere",
		Long: "export writes every record of the action log and the thought chains, and the finalized sessions, with a\n" +
			"checkpoint over exactly those records signed by the log's key and the consistency proofs from the log's\n" +
			"earlier checkpoints (docs/audit.md describes the format, so the bundle can be checked without baton).\n" +
			"A log that does not verify is not exported: run baton audit verify.",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			s, err := a.openStore(c.Context())
			if err != nil {
				return a.fail(err)
			}
			k, cfg, err := a.auditKey(c.Context(), s)
			if err != nil {
				return a.fail(err)
			}
			p := a.startProgress("exporting the audit trail")
			b, err := audit.Export(c.Context(), s, k, time.Now())
			if w := a.checkpointer(s, k, cfg).Witness; err == nil && w.Enabled() {
				err = audit.GiveWitness(c.Context(), w, b.Checkpoint)
			}
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
				return a.printJSON(map[string]any{"file": args[0], "actions": len(b.Actions), "thoughts": len(b.Thoughts), "sessions": len(b.Sessions),
					"public_key": b.PublicKey})
			}
			fmt.Fprintf(a.Stdout, "wrote %s: %d actions under a signed checkpoint, %d thought records, %d finalized sessions\n", args[0],
				len(b.Actions), len(b.Thoughts), len(b.Sessions))
			fmt.Fprintf(a.Stdout, "check it anywhere with the log's public key: baton audit verify --bundle %s --key %s\n", args[0], b.PublicKey)
			return nil
		},
	}

	proof := &cobra.Command{
		Use:   "verify-proof FILE [--key KEY]",
		Short: "Check a merkle_proof result or an action's inclusion proof offline, with no database",
		Long: "verify-proof reads a file holding merkle_proof's output (baton audit merkle_proof ... --json > FILE)\n" +
			"and recomputes the root from the leaf and the path, or one `baton audit prove POSITION` wrote: the\n" +
			"record's fields give its RFC 6962 leaf, the inclusion path leads to the root, and the checkpoint (its\n" +
			"signature checked with --key) commits to it. Exit 0 when it verifies, 1 when not.",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			raw, err := os.ReadFile(args[0])
			if err != nil {
				return a.fail(fileError(args[0], err))
			}
			var head struct {
				Format string `json:"format"`
			}
			if json.Unmarshal(raw, &head) == nil && head.Format == audit.InclusionProofFormat {
				return a.checkInclusion(c, args[0], raw, proofKey)
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
	proof.Flags().StringVar(&proofKey, "key", "", "for an inclusion proof: the log's public key (as `baton audit key` prints it), or a file holding it")
	proof.PreRunE = func(*cobra.Command, []string) error {
		k, err := readKeyArg(proofKey)
		proofKey = k
		return err
	}

	prove := &cobra.Command{
		Use:   "prove POSITION",
		Short: "Prove one action is in the log under its latest signed checkpoint (RFC 6962 inclusion proof)",
		Long: "prove writes, as JSON, the action at POSITION with its fields, its RFC 6962 leaf hash, the inclusion path\n" +
			"from that leaf to the root of the log's latest signed checkpoint, and the checkpoint itself: enough for\n" +
			"anyone to check that this record is in the log the checkpoint commits to, with SHA-256 and the log's public\n" +
			"key (baton audit verify-proof FILE --key KEY does). The log is checked up to the checkpoint first.",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			pos, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil || pos < 1 {
				return usageError("POSITION is an action's position in the log, 1 or more, not %q", args[0])
			}
			s, err := a.openStore(c.Context())
			if err != nil {
				return a.fail(err)
			}
			p, err := audit.ProveAction(c.Context(), s, pos)
			if err != nil {
				return a.fail(err)
			}
			return a.printJSON(p)
		},
	}
	a.jsonFlag(prove, `the proof (always JSON): {"format", "record": {the action's fields, "hash"}, "leaf_index", "tree_size", "leaf_hash",
"inclusion_path": [hex], "root", "checkpoint"}.`)

	a.jsonFlag(export, `{"file", "actions", "thoughts", "sessions", "public_key"}: what the bundle holds and the key its checkpoint is signed with.`)
	export.Flags().StringVar(&a.pluginConfig, "config", "", "config file whose [audit] table names the key file and the witness (env BATON_CONFIG; default ./baton.toml if present)")
	a.jsonFlag(proof, `{"verifies": true, "leaf", "leaf_index", "leaf_count", "root"}, or {"verifies": false, "reason", "leaf",
"root"} with exit 1.`)
	return append([]*cobra.Command{verify, export, proof, prove}, a.auditKeyCmds()...)
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

func (a *App) printReport(rep *audit.Report, keySource string) error {
	fmt.Fprintf(a.Stdout, "action log: %d records, Merkle root %s\n", rep.Actions, rep.Root)
	for _, b := range rep.ActionBreaks {
		fmt.Fprintf(a.Stdout, "  broken at position %d: %s (expected %s, found %s)\n", b.Position, b.Reason, orNone(b.ExpectedHash),
			orNone(cleanLine(b.ActualHash)))
	}
	a.printCheckpoints(rep.Checkpoints, keySource)
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

// printCheckpoints says what each checkpoint says of the log: the
// consistent ones in one line per source, each other one in full.
func (a *App) printCheckpoints(checks []audit.CheckpointCheck, keySource string) {
	if len(checks) == 0 {
		fmt.Fprintln(a.Stdout, "checkpoints: none yet (baton audit checkpoint signs one)")
		return
	}
	type tally struct {
		n      int
		latest *audit.CheckpointCheck
	}
	ok := map[string]*tally{}
	var order []string
	for i := range checks {
		c := &checks[i]
		if c.Status != "consistent" {
			fmt.Fprintf(a.Stdout, "  checkpoint at size %d (%s) %s: %s\n", c.Size, cleanLine(c.Source), c.Status, cleanLine(c.Detail))
			continue
		}
		t := ok[c.Source]
		if t == nil {
			t = &tally{}
			ok[c.Source] = t
			order = append(order, c.Source)
		}
		t.n++
		if t.latest == nil || c.Size > t.latest.Size {
			t.latest = c
		}
	}
	for _, src := range order {
		t := ok[src]
		fmt.Fprintf(a.Stdout, "checkpoints (%s): %d consistent, signature %s (key from %s); the latest, at size %d, extends to the log today by a consistency proof of %d hashes\n",
			cleanLine(src), t.n, t.latest.Signature, keySource, t.latest.Size, len(t.latest.Proof))
	}
}

// readCheckpoints reads a file of signed checkpoints (one, or a witness
// file of many).
func readCheckpoints(path string) ([]audit.Given, error) {
	raw, err := readLimited(path, 64<<20)
	if err != nil {
		return nil, err
	}
	notes, err := tlog.Split(raw)
	if err != nil {
		return nil, baton.Errorf(baton.ErrInvalidInput, "%s holds no signed checkpoint: %v", path, err).WithDetails("file", path).
			WithHint("give a file `baton audit checkpoint` wrote, or the [audit] witness_file")
	}
	out := make([]audit.Given, len(notes))
	for i, n := range notes {
		out[i] = audit.Given{Source: path, Note: n}
	}
	return out, nil
}

// readKeyArg is --key's value: a file holding the key when one of that
// name exists, else the key itself.
func readKeyArg(v string) (string, error) {
	if fi, err := os.Stat(v); v == "" || err != nil || !fi.Mode().IsRegular() {
		return v, nil
	}
	raw, err := readLimited(v, 4<<10)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(raw)), nil
}

// readLimited reads a file of at most max bytes.
func readLimited(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fileError(path, err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fileError(path, err)
	}
	if int64(len(raw)) > max {
		return nil, baton.Errorf(baton.ErrInvalidInput, "%s is larger than %d bytes", path, max).WithDetails("file", path).
			WithHint("give the right file")
	}
	return raw, nil
}

// checkInclusion is verify-proof of an inclusion proof `baton audit
// prove` wrote.
func (a *App) checkInclusion(c *cobra.Command, file string, raw []byte, key string) error {
	var p audit.InclusionProof
	if err := json.Unmarshal(raw, &p); err != nil {
		return usageError("%s is not an inclusion proof: %v", file, err)
	}
	signed, err := p.Check(key)
	if err != nil {
		if wantJSON(c) {
			if err := a.printJSON(map[string]any{"verifies": false, "reason": err.Error(), "position": p.Record.Position}); err != nil {
				return err
			}
			return &ExitError{Code: ExitTool, Err: errors.New("")}
		}
		return &ExitError{Code: ExitTool, Err: fmt.Errorf("proof does not verify: %v", err)}
	}
	if wantJSON(c) {
		return a.printJSON(map[string]any{"verifies": true, "position": p.Record.Position, "tree_size": p.TreeSize, "root": p.Root,
			"signature_checked": signed})
	}
	fmt.Fprintf(a.Stdout, "proof verifies: action %d (%s by %s) is in the log of %d records under root %s\n", p.Record.Position,
		cleanLine(p.Record.Tool), cleanLine(p.Record.Agent), p.TreeSize, p.Root)
	if !signed {
		fmt.Fprintln(a.Stdout, "the checkpoint's signature was not checked: pass --key (baton audit key prints it)")
	}
	return nil
}
