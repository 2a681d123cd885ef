package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/audit"
	"github.com/baton-dev/baton/tlog"
	"github.com/spf13/cobra"
)

// auditConfig is the [audit] table of the config file, found as the
// other tables are: --config, BATON_CONFIG, ./baton.toml.
func (a *App) auditConfig() (audit.Config, error) {
	path, named := a.embeddingConfig()
	return audit.LoadConfig(path, named)
}

// auditKeyPath is the log's private key file: [audit] key_file, else
// BATON_AUDIT_KEY_FILE, else audit.key in the directory baton keeps its
// files in (beside the SQLite file; .baton/ on PostgreSQL), outside the
// database either way.
func (a *App) auditKeyPath(ctx context.Context, s baton.Store, cfg audit.Config) string {
	if cfg.KeyFile != "" {
		return cfg.KeyFile
	}
	if p := a.env("BATON_AUDIT_KEY_FILE", ""); p != "" {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
		return p
	}
	return filepath.Join(a.dataDir(ctx, s), audit.KeyFile)
}

// auditKey opens the log's key, making it (and naming the log) when the
// log has none yet.
func (a *App) auditKey(ctx context.Context, s baton.Store) (*tlog.Key, audit.Config, error) {
	cfg, err := a.auditConfig()
	if err != nil {
		return nil, cfg, err
	}
	k, err := audit.OpenKey(ctx, s, a.auditKeyPath(ctx, s, cfg), true, a.now())
	return k, cfg, err
}

func (a *App) now() time.Time {
	if a.Clock != nil {
		return a.Clock()
	}
	return time.Now()
}

// auditKeyCmds are `baton audit key` and `baton audit checkpoint`.
func (a *App) auditKeyCmds() []*cobra.Command {
	key := &cobra.Command{
		Use:   "key",
		Short: "Print the action log's public key, to check its checkpoints and bundles with",
		Long: "key prints the log's public key as a note verifier key (origin+hash+base64 of the Ed25519 key), the form\n" +
			"`baton audit verify --key` and any C2SP signed-note verifier take. Publish it where the people who check\n" +
			"the log will find it. The private key is a file outside the database (" + audit.KeyFile + " beside the SQLite\n" +
			"file or in .baton/ on PostgreSQL, or [audit] key_file of baton.toml), made with mode 0600 the first time\n" +
			"a command needs it; the log has one key for its life.",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			s, err := a.openStore(ctx)
			if err != nil {
				return a.fail(err)
			}
			k, cfg, err := a.auditKey(ctx, s)
			if err != nil {
				return a.fail(err)
			}
			if wantJSON(c) {
				return a.printJSON(map[string]any{"origin": k.Origin(), "public_key": k.VerifierKey, "key_file": a.auditKeyPath(ctx, s, cfg)})
			}
			fmt.Fprintln(a.Stdout, k.VerifierKey)
			return nil
		},
	}
	a.jsonFlag(key, `{"origin", "public_key", "key_file"}.`)

	checkpoint := &cobra.Command{
		Use:   "checkpoint",
		Short: "Sign a checkpoint of the action log (its size and Merkle root) and print it",
		Long: "checkpoint checks the records since the latest checkpoint, signs the log's size and RFC 6962 Merkle root\n" +
			"with the log's key and prints the signed note (C2SP tlog-checkpoint). It is stored with the log and given\n" +
			"to the witness of [audit] (witness_file, witness_git) when one is set. Keep checkpoints somewhere the\n" +
			"database's writers cannot reach: `baton audit verify --checkpoint FILE` then proves the log still extends\n" +
			"them. baton serve signs one every [audit] checkpoint_every and after checkpoint_records new records.",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			s, err := a.openStore(ctx)
			if err != nil {
				return a.fail(err)
			}
			k, cfg, err := a.auditKey(ctx, s)
			if err != nil {
				return a.fail(err)
			}
			cp, made, err := a.checkpointer(s, k, cfg).Once(ctx)
			if err != nil {
				return a.fail(err)
			}
			if wantJSON(c) {
				return a.printJSON(map[string]any{"size": cp.Size, "root": cp.Root, "note": cp.Note, "new": made,
					"witness": cfg.WitnessFile != "" || cfg.WitnessGit != ""})
			}
			fmt.Fprint(a.Stdout, cp.Note)
			if !made {
				fmt.Fprintf(a.Stderr, "baton: no record since the latest checkpoint (size %d): that one is printed\n", cp.Size)
			}
			return nil
		},
	}
	a.jsonFlag(checkpoint, `{"size", "root" (hex), "note" (the signed checkpoint), "new" (false: no record since the latest, which
is returned), "witness"}.`)
	for _, c := range []*cobra.Command{key, checkpoint} {
		c.Flags().StringVar(&a.pluginConfig, "config", "", "config file whose [audit] table names the key file and the witness (env BATON_CONFIG; default ./baton.toml if present)")
	}
	return []*cobra.Command{key, checkpoint}
}

// checkpointer is the [audit] table's checkpointer for s.
func (a *App) checkpointer(s baton.Store, k *tlog.Key, cfg audit.Config) *audit.Checkpointer {
	return &audit.Checkpointer{Store: s, Key: k, Every: cfg.Every, Records: cfg.CheckpointRecords, Clock: a.Clock,
		Witness: tlog.Witness{File: cfg.WitnessFile, GitDir: cfg.WitnessGit}}
}
