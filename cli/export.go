package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/importers"
	"github.com/baton-dev/baton/knowledge"
	"github.com/baton-dev/baton/portable"
	"github.com/baton-dev/baton/postgres"
	"github.com/spf13/cobra"
)

// exportCmd is `baton export FILE`.
func (a *App) exportCmd() *cobra.Command {
	var project string
	var force bool
	cmd := &cobra.Command{
		Use:   "export FILE|-",
		Short: "Write the database (or one project) as one portable JSON Lines file, for baton import on SQLite or PostgreSQL",
		Long: "export writes every row of the database, from one consistent snapshot, to FILE (- for stdout) as JSON Lines\n" +
			"(format baton-export/1): a header line with the counts and the RFC 6962 Merkle root of the record lines, then\n" +
			"one record per line, {\"type\": ..., then every column}, a table at a time in a fixed order. The same rows give\n" +
			"the same bytes on SQLite and PostgreSQL, so `baton --db URL import FILE` moves a team to PostgreSQL (or back).\n\n" +
			"Everything is exported (projects, items with their labels and dependencies, findings, learnings, comments,\n" +
			"messages, proposals, PRs, knowledge documents, profiles, thoughts, audit sessions, the action log with its\n" +
			"checkpoints and identity, file reservations, runs, presence, events...) except agent bearer tokens, which are\n" +
			"secrets that stay with the server that issued them (issue new ones on the target with baton agent token),\n" +
			"and what is derived and made again on import: full-text indexes, counters, document chunks and embeddings.\n" +
			"--project SLUG writes only that project's rows and leaves out the server's own tables (profiles, agents, the\n" +
			"action log and its checkpoints). SOURCE_DATE_EPOCH, when set, is the header's generated_at, so two exports\n" +
			"of the same rows are the same bytes. FILE must not exist unless --force; it is written whole or not at all,\n" +
			"readable by its owner only (it holds the team's whole database).",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			file := args[0]
			if file == "-" && wantJSON(c) {
				return usageError("export - writes the export to stdout, so --json has nowhere to go: name a FILE")
			}
			now, err := a.exportTime()
			if err != nil {
				return err
			}
			s, err := a.openStore(ctx)
			if err != nil {
				return a.fail(err)
			}
			porter, ok := s.(portable.Porter)
			if !ok {
				return a.fail(baton.Errorf(baton.ErrInternal, "this store cannot export"))
			}
			opts := portable.ExportOptions{Project: project, Now: now}
			if file == "-" {
				if _, err := porter.Export(ctx, a.Stdout, opts); err != nil {
					return a.fail(err)
				}
				return nil
			}
			p := a.startProgress("exporting " + a.dbName(ctx))
			opts.Progress = func(done, total int64) {
				p.set(fmt.Sprintf("%s %d of %d records", progressBar(int(done), int(total)), done, total))
			}
			h, size, err := writeExport(ctx, porter, file, force, opts)
			p.finish()
			if err != nil {
				return a.fail(err)
			}
			if wantJSON(c) {
				counts := map[string]int64{}
				for _, n := range h.Counts {
					counts[n.Type] = n.N
				}
				return a.printJSON(map[string]any{"file": file, "records": h.Records, "bytes": size, "project": h.Project,
					"merkle_root": h.MerkleRoot, "counts": counts, "format": h.Format})
			}
			scope := "the whole server"
			if h.Project != "" {
				scope = "project " + h.Project
			}
			fmt.Fprintf(a.Stdout, "exported %d records of %s to %s (%s), Merkle root %s\n", h.Records, cleanLine(scope), file, mib(size), h.MerkleRoot)
			fmt.Fprintf(a.Stdout, "import it with: baton --db TARGET import %s\n", file)
			return nil
		},
	}
	cmd.Flags().StringVar(&project, "project", "", "export only this project's rows (default: everything; BATON_PROJECT does not apply)")
	cmd.Flags().BoolVar(&force, "force", false, "replace FILE if it exists")
	a.jsonFlag(cmd, `{"file", "records", "bytes", "project", "format", "merkle_root", "counts": {TYPE: records}} (not with FILE -).`)
	return cmd
}

// exportTime is the header's generated_at: SOURCE_DATE_EPOCH (Unix
// seconds) when set, for reproducible files, else now.
func (a *App) exportTime() (time.Time, error) {
	if v := a.Getenv("SOURCE_DATE_EPOCH"); v != "" {
		sec, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return time.Time{}, usageError("SOURCE_DATE_EPOCH %q is not a number of seconds", v)
		}
		return time.Unix(sec, 0).UTC(), nil
	}
	if a.Clock != nil {
		return a.Clock(), nil
	}
	return time.Now(), nil
}

// writeExport writes the export to a temporary file beside file, then
// renames it into place: file is the whole export or untouched.
func writeExport(ctx context.Context, porter portable.Porter, file string, force bool, opts portable.ExportOptions) (*portable.Header, int64, error) {
	if _, err := os.Stat(file); err == nil && !force {
		return nil, 0, baton.Errorf(baton.ErrConflict, "%s already exists", file).WithDetails("file", file).
			WithHint("name another file, or pass --force to replace it")
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".tmp-*")
	if err != nil {
		return nil, 0, baton.Errorf(baton.ErrInvalidInput, "cannot write %s: %v", file, err).WithDetails("file", file).
			WithHint("check the directory exists and is writable, or name another file")
	}
	defer os.Remove(tmp.Name()) // gone once renamed
	h, err := porter.Export(ctx, tmp, opts)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, 0, err
	}
	fi, err := os.Stat(tmp.Name())
	if err != nil {
		return nil, 0, err
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		return nil, 0, baton.Errorf(baton.ErrInvalidInput, "cannot write %s: %v", file, err).WithDetails("file", file)
	}
	return h, fi.Size(), nil
}

// importCmd is `baton import FILE`.
func (a *App) importCmd() *cobra.Command {
	var dryRun, noReindex bool
	var maxSize, from string
	cmd := &cobra.Command{
		Use:   "import FILE|-",
		Short: "Restore a baton export (- for stdin) into this database, in one transaction, never overwriting",
		Long: "import reads a file baton export wrote (- for stdin) into the database, SQLite or PostgreSQL, new or not. The\n" +
			"whole file is checked before anything is written: the format, every line within its limits (a record line at\n" +
			"most 16 MiB, the file at most --max-size), the header's Merkle root over the record lines (a line changed,\n" +
			"added or removed is refused, naming the line), every record's type, columns and values. Then every record is\n" +
			"written in ONE transaction, with its ids: a record whose key is already there with the same values is skipped\n" +
			"(importing twice changes nothing); one whose key is there with other values is a conflict. Any conflict leaves\n" +
			"the database as it was and exits 1, listing every conflict with the columns that differ: nothing is ever\n" +
			"overwritten. --dry-run does the same and rolls back: it says what would be added, skipped and in conflict.\n\n" +
			"Counters and full-text indexes are made by the import; the documents' chunks and embeddings are made after it\n" +
			"with the configured embedder, as baton knowledge reindex does (--no-reindex leaves that to you). Agent tokens\n" +
			"are never exported: issue new ones with baton agent token. The audit key file is not in the database either:\n" +
			"copy it beside the new database (or name it in [audit] key_file) to sign further checkpoints.\n\n" +
			"--from beads FILE or --from taskmaster FILE imports another tool's backlog instead (docs/import.md): beads'\n" +
			"JSONL (bd export, or the .beads/issues.jsonl of older versions) or Taskmaster's tasks.json become items of\n" +
			"--project (the database's only project by default), with a report of what mapped to what and what was\n" +
			"skipped; importing the same file again creates nothing. With --json that report is the document.\n\n" +
			"To move a team from SQLite to PostgreSQL: baton export team.jsonl, then baton --db postgres://... import\n" +
			"team.jsonl into a new, empty database (not one baton init has filled). A database that does not exist yet is\n" +
			"created, as init would create it.",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			file := args[0]
			if from != "" {
				return a.importForeign(c, from, file, dryRun)
			}
			limit, err := parseSize(maxSize)
			if err != nil {
				return usageError("--max-size: %v", err)
			}
			in, cleanup, err := a.importInput(file, limit)
			if err != nil {
				return a.fail(err)
			}
			defer cleanup()
			name := file
			if file == "-" {
				name = "stdin"
			}
			// The file is checked before the database is opened: a bad
			// file must not even create one.
			p := a.startProgress("checking " + name)
			_, err = portable.Check(ctx, in, portable.ImportOptions{MaxBytes: limit})
			p.finish()
			if err != nil {
				return a.fail(err)
			}
			s, done, err := a.importTarget(ctx, dryRun)
			if err != nil {
				return a.fail(err)
			}
			defer done()
			porter, ok := s.(portable.Porter)
			if !ok {
				return a.fail(baton.Errorf(baton.ErrInternal, "this store cannot import"))
			}
			p = a.startProgress("importing " + name)
			rep, err := porter.Import(ctx, in, portable.ImportOptions{DryRun: dryRun, MaxBytes: limit,
				Progress: func(done, total int64) {
					p.set(fmt.Sprintf("%s %d of %d records", progressBar(int(done), int(total)), done, total))
				}})
			p.finish()
			if rep == nil {
				return a.fail(err)
			}
			out := importOutput{Report: rep, Database: a.dbName(ctx)}
			if err == nil && rep.Imported && !noReindex && addedOf(rep, "document") > 0 {
				out.Reindexed, out.ReindexError = a.reindexAfterImport(ctx, s)
			}
			if wantJSON(c) {
				if perr := a.printJSON(out); perr != nil {
					return perr
				}
				if err != nil {
					return &ExitError{Code: ExitTool, Err: errors.New("")}
				}
				return nil
			}
			a.printImport(out)
			if err != nil {
				return a.fail(err)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "check and report what would be added, skipped and in conflict, writing nothing")
	cmd.Flags().StringVar(&from, "from", "", "import another tool's file instead: beads (bd export JSONL, .beads/issues.jsonl) or taskmaster (tasks.json), into --project")
	cmd.Flags().BoolVar(&noReindex, "no-reindex", false, "do not chunk and embed the imported documents afterwards (run baton knowledge reindex later)")
	cmd.Flags().StringVar(&maxSize, "max-size", "8GiB", "refuse a file larger than this (bytes, or with KiB, MiB, GiB, TiB)")
	a.jsonFlag(cmd, `{"format", "project", "generated_at", "merkle_root", "records", "dry_run", "imported", "added", "skipped",
"types": [{"type", "records", "added", "skipped", "conflicts"}], "conflicts": [{"line", "type", "key": {COLUMN: value}, "columns",
"reason"}], "database", "reindexed", "reindex_error"}; exit 1 when any record conflicts (then nothing was imported).`)
	return cmd
}

// importOutput is what import prints.
type importOutput struct {
	*portable.Report
	Database     string `json:"database"`
	Reindexed    int    `json:"reindexed"`
	ReindexError string `json:"reindex_error,omitempty"`
}

// importInput opens the file to import: stdin is copied to a temporary
// file first (the import reads the file twice: once to check it, once to
// write it), at most limit bytes of it.
func (a *App) importInput(file string, limit int64) (io.ReadSeeker, func(), error) {
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return nil, nil, fileError(file, err)
		}
		if fi, err := f.Stat(); err == nil && fi.Size() > limit {
			f.Close()
			return nil, nil, baton.Errorf(baton.ErrInvalidInput, "%s is %d bytes, over the limit of %d", file, fi.Size(), limit).
				WithDetails("file", file, "limit_bytes", limit).WithHint("if the export really is that large, raise the limit with --max-size")
		}
		return f, func() { f.Close() }, nil
	}
	tmp, err := os.CreateTemp("", "baton-import-*.jsonl")
	if err != nil {
		return nil, nil, err
	}
	cleanup := func() { tmp.Close(); os.Remove(tmp.Name()) }
	n, err := io.Copy(tmp, io.LimitReader(a.Stdin, limit+1))
	if err != nil {
		cleanup()
		return nil, nil, baton.Errorf(baton.ErrInvalidInput, "cannot read stdin: %v", err)
	}
	if n > limit {
		cleanup()
		return nil, nil, baton.Errorf(baton.ErrInvalidInput, "stdin holds more than the limit of %d bytes", limit).
			WithDetails("limit_bytes", limit).WithHint("if the export really is that large, raise the limit with --max-size")
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		cleanup()
		return nil, nil, err
	}
	return tmp, cleanup, nil
}

// importTarget opens the database to import into. An import may create
// it, as init does; a dry run against a SQLite file that does not exist
// yet runs on a temporary empty database instead, so it writes nothing.
func (a *App) importTarget(ctx context.Context, dryRun bool) (baton.Store, func(), error) {
	loc := a.location()
	if dryRun && !loc.Exists && !postgres.IsURL(loc.Path) {
		dir, err := os.MkdirTemp("", "baton-dry-run-*")
		if err != nil {
			return nil, nil, err
		}
		s, err := openSQLite(ctx, filepath.Join(dir, "baton.db"), a.Clock)
		if err != nil {
			os.RemoveAll(dir)
			return nil, nil, err
		}
		return s, func() { s.Close(); os.RemoveAll(dir) }, nil
	}
	a.mayCreate = !dryRun
	s, err := a.openStore(ctx)
	if err != nil {
		return nil, nil, err
	}
	return s, func() {}, nil
}

// reindexAfterImport chunks and embeds the documents the import added,
// as baton knowledge reindex does. Its failure does not undo the import:
// it is reported, with the command that finishes the work.
func (a *App) reindexAfterImport(ctx context.Context, s baton.Store) (int, string) {
	emb, err := a.configuredEmbedder()
	if err == nil {
		p := a.startProgress("indexing the imported documents")
		var n int
		n, err = (&knowledge.Reindexer{Store: s, Embedder: emb, Progress: func(done, total int) {
			p.set(fmt.Sprintf("%s %d of %d versions", progressBar(done, total), done, total))
		}}).Run(ctx)
		p.finish()
		if err == nil {
			return n, ""
		}
		return n, err.Error()
	}
	return 0, err.Error()
}

// addedOf is how many records of type typ the import added.
func addedOf(rep *portable.Report, typ string) int64 {
	for _, t := range rep.Types {
		if t.Type == typ {
			return t.Added
		}
	}
	return 0
}

// printImport shows an import's report to people.
func (a *App) printImport(out importOutput) {
	rep := out.Report
	scope := "the whole server"
	if rep.Project != "" {
		scope = "project " + rep.Project
	}
	verb := "imported"
	switch {
	case rep.DryRun:
		verb = "dry run, nothing written: would import"
	case !rep.Imported:
		verb = "nothing imported: refused"
	}
	fmt.Fprintf(a.Stdout, "%s %d records of %s (exported %s, Merkle root %s) into %s: %d added, %d already there, %d in conflict\n",
		verb, rep.Records, cleanLine(scope), rep.GeneratedAt, rep.MerkleRoot, cleanLine(out.Database), rep.Added, rep.Skipped, len(rep.Conflicts))
	if len(rep.Types) > 0 {
		tw := tabwriter.NewWriter(a.Stdout, 0, 2, 2, ' ', 0)
		fmt.Fprintln(tw, "TYPE\tRECORDS\tADDED\tSKIPPED\tCONFLICTS")
		for _, t := range rep.Types {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\n", t.Type, t.Records, t.Added, t.Skipped, t.Conflicts)
		}
		tw.Flush()
	}
	for _, c := range rep.Conflicts {
		cols := ""
		if len(c.Columns) > 0 {
			cols = " [" + strings.Join(c.Columns, ", ") + "]"
		}
		fmt.Fprintf(a.Stdout, "conflict: line %d, %s %s%s: %s\n", c.Line, c.Type, cleanLine(c.KeyText()), cols, cleanLine(c.Reason))
	}
	if out.Reindexed > 0 {
		fmt.Fprintf(a.Stdout, "indexed %d document versions for search\n", out.Reindexed)
	}
	if out.ReindexError != "" {
		fmt.Fprintf(a.Stderr, "baton: the records are imported, but indexing the documents for search failed: %s\n"+
			"baton: run baton knowledge reindex once the embedder answers\n", cleanLine(out.ReindexError))
	}
}

// parseSize reads a byte count: digits, optionally followed by KiB, MiB,
// GiB or TiB (K, M, G, T for short).
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}, {"B", 1}} {
		if rest, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(rest), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("%q is not a size (e.g. 8GiB, 500MiB, 1048576)", s)
	}
	return n * mult, nil
}

// foreignMax bounds a beads or Taskmaster file.
const foreignMax = 64 << 20

// importForeign is import --from: another tool's backlog into a project.
func (a *App) importForeign(c *cobra.Command, from, file string, dryRun bool) error {
	ctx := c.Context()
	if from != "beads" && from != "taskmaster" {
		return usageError("--from takes beads or taskmaster, not %q", from)
	}
	in, cleanup, err := a.importInput(file, foreignMax)
	if err != nil {
		return a.fail(err)
	}
	defer cleanup()
	plan, err := importers.Parse(from, in)
	if err != nil {
		return a.fail(err)
	}
	s, err := a.openStore(ctx)
	if err != nil {
		return a.fail(err)
	}
	project := a.project
	if project == "" {
		var ps []*baton.Project
		if err := s.View(ctx, func(tx baton.Tx) (err error) { ps, err = tx.Projects(ctx); return err }); err != nil {
			return a.fail(err)
		}
		if len(ps) != 1 {
			return usageError("the database holds %d projects: name the one to import into with --project", len(ps))
		}
		project = ps[0].Slug
	}
	by := a.agent
	if by == "" {
		by = baton.User
	}
	p := a.startProgress("importing " + from + " " + file)
	rep, err := importers.Apply(ctx, s, project, plan, importers.ApplyOptions{DryRun: dryRun, By: by,
		Progress: func(done, total int) { p.set(fmt.Sprintf("%s %d of %d items", progressBar(done, total), done, total)) }})
	p.finish()
	if err != nil {
		return a.fail(err)
	}
	if wantJSON(c) {
		return a.printJSON(rep)
	}
	fmt.Fprint(a.Stdout, rep.Text())
	return nil
}
