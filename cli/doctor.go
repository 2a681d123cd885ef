package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/postgres"
	"github.com/baton-dev/baton/sqlite"
	"github.com/spf13/cobra"
)

// Check statuses of `baton doctor`.
const (
	checkOK      = "ok"
	checkWarn    = "warn"    // worth knowing, not broken
	checkProblem = "problem" // something to fix: doctor exits 1
)

// Check is one finding of `baton doctor`.
type Check struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// Diagnosis is what `baton doctor --json` prints.
type Diagnosis struct {
	OK       bool     `json:"ok"`
	Database Location `json:"database"`
	Checks   []Check  `json:"checks"`
}

// lowDisk is the free space under which doctor warns, and criticalDisk
// under which it calls it a problem: SQLite needs room for its WAL and
// checkpoints.
const (
	lowDisk      = 1 << 30
	criticalDisk = 100 << 20
)

func (a *App) doctorCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the set-up: which database and why, schema, WAL, disk, stale claims, clients, PostgreSQL",
		Long: "doctor says which database this directory uses and why, its schema version against this baton's,\n" +
			"the journal mode, free disk, claims that lapsed without being reaped, MCP clients configured for\n" +
			"another database (or a missing binary), and whether PostgreSQL answers. It changes nothing; it\n" +
			"exits 1 when it finds a problem.",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			d := a.diagnose(c.Context())
			if asJSON {
				enc := json.NewEncoder(a.Stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(d); err != nil {
					return err
				}
			} else {
				tw := tabwriter.NewWriter(a.Stdout, 0, 4, 2, ' ', 0)
				for _, ch := range d.Checks {
					fmt.Fprintf(tw, "%s\t%s\t%s\n", ch.Status, ch.Name, cleanLine(ch.Detail))
					if ch.Fix != "" && ch.Status != checkOK {
						fmt.Fprintf(tw, "\t\tfix: %s\n", cleanLine(ch.Fix))
					}
				}
				tw.Flush()
			}
			if !d.OK {
				return &ExitError{Code: ExitTool, Err: fmt.Errorf("")}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the findings as JSON")
	return cmd
}

// diagnose runs every check, changing nothing: the database is read as it
// is (SQLite read-only, PostgreSQL through Inspect), and the store, which
// would migrate an older schema and set WAL, is opened for the claims
// check only when the schema is already the newest and in WAL.
func (a *App) diagnose(ctx context.Context) Diagnosis {
	loc := a.location()
	d := Diagnosis{Database: loc}
	d.Database.Path = redactURL(loc.Path) // never a password in --json
	current := false                      // the schema is the newest: opening it changes nothing
	add := func(ch Check) { d.Checks = append(d.Checks, ch) }
	isPG := postgres.IsURL(loc.Path)
	if !loc.Exists {
		add(Check{Name: "database", Status: checkProblem, Detail: loc.Path + ": " + loc.Reason,
			Fix: "run `baton init` at the top of your repository, or pass --db / set BATON_DB"})
	} else if isPG {
		add(Check{Name: "database", Status: checkOK, Detail: redactURL(loc.Path) + " (" + loc.Reason + ")"})
	} else {
		add(Check{Name: "database", Status: checkOK, Detail: loc.Path + " (" + loc.Reason + ")"})
	}
	latest, _ := sqlite.LatestVersion()
	switch {
	case isPG:
		ictx, cancel := context.WithTimeout(ctx, 5*time.Second)
		f, err := postgres.Inspect(ictx, loc.Path)
		cancel()
		switch {
		case err != nil:
			add(Check{Name: "postgresql", Status: checkProblem, Detail: "does not answer: " + baton.AsError(err).Message,
				Fix: "check that the server runs and the URL (host, port, user, database) is right"})
		case f.SchemaVersion > f.Latest:
			add(Check{Name: "postgresql", Status: checkProblem, Detail: fmt.Sprintf("answers; schema version %d, newer than this baton's %d", f.SchemaVersion, f.Latest),
				Fix: "upgrade this baton binary: an older one must not write a newer schema"})
		case f.SchemaVersion < f.Latest:
			add(Check{Name: "postgresql", Status: checkWarn, Detail: fmt.Sprintf("answers; schema version %d; `baton migrate` (or the next start) brings it to %d", f.SchemaVersion, f.Latest)})
		default:
			add(Check{Name: "postgresql", Status: checkOK, Detail: fmt.Sprintf("answers; schema version %d, the newest", f.SchemaVersion)})
			current = true
		}
	case loc.Exists:
		facts, err := sqlite.Inspect(ctx, loc.Path)
		if err != nil {
			add(Check{Name: "schema", Status: checkProblem, Detail: "cannot read the file as SQLite: " + err.Error(),
				Fix: "restore the file from a backup, or point --db at the right one"})
			break
		}
		switch {
		case facts.SchemaVersion > latest:
			add(Check{Name: "schema", Status: checkProblem, Detail: fmt.Sprintf("version %d, newer than this baton's %d", facts.SchemaVersion, latest),
				Fix: "upgrade this baton binary: an older one must not write a newer schema"})
		case facts.SchemaVersion < latest:
			add(Check{Name: "schema", Status: checkWarn, Detail: fmt.Sprintf("version %d; this baton migrates it to %d on the next start", facts.SchemaVersion, latest)})
		default:
			add(Check{Name: "schema", Status: checkOK, Detail: fmt.Sprintf("version %d, the newest", facts.SchemaVersion)})
		}
		wal := strings.EqualFold(facts.JournalMode, "wal")
		current = wal && facts.SchemaVersion == latest
		if wal || facts.SchemaVersion < latest {
			add(Check{Name: "wal", Status: checkOK, Detail: "journal mode " + facts.JournalMode})
		} else {
			add(Check{Name: "wal", Status: checkProblem, Detail: "journal mode " + facts.JournalMode + ", not wal: readers and the writer block each other",
				Fix: "stop every baton on this file and run any baton command once: it sets WAL"})
		}
		if free, err := freeBytes(filepath.Dir(loc.Path)); err != nil {
			add(Check{Name: "disk", Status: checkWarn, Detail: "free space unknown: " + err.Error()})
		} else {
			ch := Check{Name: "disk", Status: checkOK, Detail: humanBytes(free) + " free beside the database"}
			if free < criticalDisk {
				ch.Status, ch.Fix = checkProblem, "free disk space: writes fail when the WAL cannot grow"
			} else if free < lowDisk {
				ch.Status = checkWarn
			}
			add(ch)
		}
	default:
		add(Check{Name: "postgresql", Status: checkOK, Detail: "not used (SQLite)"})
	}
	if loc.Exists && !isPG {
		add(Check{Name: "postgresql", Status: checkOK, Detail: "not used (SQLite)"})
	}
	switch {
	case loc.Exists && current:
		add(a.staleClaims(ctx))
	case loc.Exists:
		add(Check{Name: "claims", Status: checkWarn, Detail: "not checked: reading claims needs the newest schema, and doctor changes nothing"})
	}
	for _, ch := range a.clientChecks(loc) {
		add(ch)
	}
	d.OK = true
	for _, ch := range d.Checks {
		if ch.Status == checkProblem {
			d.OK = false
		}
	}
	return d
}

// staleClaims counts claims whose lease lapsed but that no reaper ended:
// their items look taken while nobody works on them.
func (a *App) staleClaims(ctx context.Context) Check {
	s, err := a.openStore(ctx)
	if err != nil {
		return Check{Name: "claims", Status: checkProblem, Detail: "cannot open the database: " + baton.AsError(err).Message}
	}
	now := time.Now()
	if a.Clock != nil {
		now = a.Clock()
	}
	var stale []string
	err = s.View(ctx, func(tx baton.Tx) error {
		page, err := tx.ListItems(ctx, baton.ItemFilter{Statuses: []baton.Status{baton.StatusInProgress, baton.StatusTodo, baton.StatusBlocked, baton.StatusReview}, Limit: 10000})
		if err != nil {
			return err
		}
		for _, it := range page.Items {
			c, err := tx.ClaimOf(ctx, it.ID)
			if err != nil {
				return err
			}
			if c != nil && !c.Active(now) {
				stale = append(stale, fmt.Sprintf("%s (%s, lapsed %s ago)", it.ID, c.Holder, now.Sub(c.ExpiresAt).Round(time.Second)))
			}
		}
		return nil
	})
	if err != nil {
		return Check{Name: "claims", Status: checkProblem, Detail: "cannot read claims: " + baton.AsError(err).Message}
	}
	if len(stale) == 0 {
		return Check{Name: "claims", Status: checkOK, Detail: "no lapsed claims waiting to be reaped"}
	}
	return Check{Name: "claims", Status: checkWarn, Detail: fmt.Sprintf("%d lapsed, not yet reaped: %s", len(stale), strings.Join(stale, ", ")),
		Fix: "`baton serve` reaps them within a minute; the items are free to claim meanwhile"}
}

// clientChecks reads the MCP clients' configurations that `baton setup`
// writes and reports servers that run baton on another database, or a
// binary that is not there.
func (a *App) clientChecks(loc Location) []Check {
	home, _ := os.UserHomeDir()
	var out []Check
	for _, cl := range clients {
		file := cl.file(loc.Root, home, a.Getenv)
		b, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		servers, err := readServers(cl, b)
		if err != nil {
			out = append(out, Check{Name: "client " + cl.name, Status: checkWarn, Detail: file + ": " + err.Error()})
			continue
		}
		for name, sv := range servers {
			if !isBatonServer(sv) {
				continue
			}
			ch := Check{Name: "client " + cl.name, Status: checkOK, Detail: fmt.Sprintf("%s: server %q uses this database", file, name)}
			db := argValue(sv.Args, "--db")
			switch {
			case filepath.IsAbs(sv.Command) && !isFile(sv.Command):
				ch.Status, ch.Detail = checkProblem, fmt.Sprintf("%s: server %q runs %s, which does not exist", file, name, sv.Command)
				ch.Fix = "run `baton setup " + cl.name + "` with the baton you use now"
			case db == "":
				ch.Detail = fmt.Sprintf("%s: server %q finds its database from where the client starts it", file, name)
			case !samePath(db, loc.Path):
				ch.Status, ch.Detail = checkProblem, fmt.Sprintf("%s: server %q uses %s, not %s", file, name, redactURL(db), redactURL(loc.Path))
				ch.Fix = "run `baton setup " + cl.name + "` here to point it at this database"
			}
			out = append(out, ch)
		}
	}
	return out
}

// server is a stdio MCP server entry as clients write it.
type server struct {
	Command string   `json:"command" toml:"command"`
	Args    []string `json:"args" toml:"args"`
}

func readServers(cl client, b []byte) (map[string]server, error) {
	if cl.format == "toml" {
		var cfg struct {
			MCPServers map[string]server `toml:"mcp_servers"`
		}
		if _, err := toml.Decode(string(b), &cfg); err != nil {
			return nil, fmt.Errorf("not valid TOML: %v", err)
		}
		return cfg.MCPServers, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	servers := map[string]server{}
	if raw, ok := top[cl.key]; ok {
		var all map[string]json.RawMessage
		if err := json.Unmarshal(raw, &all); err != nil {
			return nil, fmt.Errorf("%s is not an object", cl.key)
		}
		for name, e := range all {
			var sv server
			if json.Unmarshal(e, &sv) == nil {
				servers[name] = sv
			}
		}
	}
	return servers, nil
}

func isBatonServer(sv server) bool {
	base := strings.TrimSuffix(filepath.Base(sv.Command), ".exe")
	return base == "baton" || (len(sv.Args) > 0 && sv.Args[0] == "mcp" && strings.HasPrefix(base, "baton"))
}

// argValue finds --name VALUE or --name=VALUE in args.
func argValue(args []string, name string) string {
	for i, a := range args {
		if a == name && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v
		}
	}
	return ""
}

func samePath(a, b string) bool {
	if postgres.IsURL(a) || postgres.IsURL(b) {
		return a == b
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 == nil && err2 == nil {
		return ra == rb
	}
	return filepath.Clean(a) == filepath.Clean(b)
}

// redactURL hides a URL's password.
func redactURL(s string) string {
	if i := strings.Index(s, "://"); i >= 0 {
		rest := s[i+3:]
		if at := strings.Index(rest, "@"); at >= 0 {
			if colon := strings.Index(rest[:at], ":"); colon >= 0 {
				return s[:i+3] + rest[:colon] + ":***" + rest[at:]
			}
		}
	}
	return s
}

func humanBytes(n uint64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := uint64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
