package cli

import (
	"fmt"

	"github.com/baton-dev/baton/postgres"
	"github.com/spf13/cobra"
)

func (a *App) migrateCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Bring the database to the newest schema",
		Long: "migrate applies the schema migrations this baton carries and reports the versions. Every\n" +
			"baton command migrates on start as well; run this ahead of a rollout. Replicas starting\n" +
			"together on one PostgreSQL database migrate once: they take turns on an advisory lock.",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			p := a.startProgress("migrating") // a big database can take a while
			if postgres.IsURL(a.dbPath) {
				from, to, err := postgres.Migrate(ctx, a.dbPath, postgres.Options{})
				p.finish()
				if err != nil {
					return a.fail(err)
				}
				if wantJSON(c) {
					return a.printJSON(map[string]any{"schema_version": to, "previous_version": from})
				}
				fmt.Fprintf(a.Stdout, "schema version %d (was %d)\n", to, from)
				return nil
			}
			s, err := a.openStore(ctx)
			p.finish()
			if err != nil {
				return a.fail(err)
			}
			if wantJSON(c) {
				return a.printJSON(map[string]any{"schema_version": s.Info(ctx).SchemaVersion})
			}
			fmt.Fprintf(a.Stdout, "schema version %d\n", s.Info(ctx).SchemaVersion)
			return nil
		},
	}
	a.jsonFlag(cmd, `{"schema_version", "previous_version" (PostgreSQL: the version before)}.`)
	return cmd
}
