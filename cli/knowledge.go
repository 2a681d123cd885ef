package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/embedding"
	"github.com/baton-dev/baton/knowledge"
	"github.com/baton-dev/baton/plugin"
	"github.com/baton-dev/baton/sqlite"
	"github.com/spf13/cobra"
)

// knowledgeCmd is `baton knowledge eval|reindex`: the knowledge store's
// search quality, measured, and its vectors brought to the configured
// embedder.
func (a *App) knowledgeCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "knowledge", Short: "Measure knowledge search quality; re-embed documents after a change of embedder",
		Args: noArgs, RunE: func(c *cobra.Command, _ []string) error { return c.Help() }}
	cmd.PersistentFlags().StringVar(&a.pluginConfig, "config", "",
		"config file whose [embedding] table chooses the embedder (env BATON_CONFIG; default ./"+plugin.DefaultFile+" if present)")
	cmd.AddCommand(a.knowledgeEvalCmd(), a.knowledgeReindexCmd())
	return cmd
}

// embeddingConfig is the file whose [embedding] table chooses the
// embedder, found as the plugin file is (cli/plugins.go): --config, else
// BATON_CONFIG, else baton.toml in the working directory when there is
// one. named says the file was asked for, so it must exist.
func (a *App) embeddingConfig() (path string, named bool) {
	path, named = a.pluginConfig, true
	if path == "" {
		path = a.env("BATON_CONFIG", "")
	}
	if path == "" {
		path, named = plugin.DefaultFile, false
	}
	return path, named
}

// configuredEmbedder is the embedder the [embedding] table chooses: the
// built-in one when the file or the table is missing. A broken table, or
// an endpoint whose key variable is unset, is ERR_CONFIG_INVALID.
func (a *App) configuredEmbedder() (baton.Embedder, error) {
	path, named := a.embeddingConfig()
	c, err := embedding.LoadConfig(path, named)
	if err != nil {
		return nil, err
	}
	return embedding.New(c, a.Getenv)
}

// modeLabels name the evaluated search modes for people.
var modeLabels = map[string]string{
	knowledge.ModeKeyword:  "keyword (bm25 alone)",
	knowledge.ModeSemantic: "semantic (vectors alone)",
	knowledge.ModeHybrid:   "hybrid (fused)",
}

func (a *App) knowledgeEvalCmd() *cobra.Command {
	var dir string
	var weight float64
	cmd := &cobra.Command{
		Use:   "eval [--dir DIR]",
		Short: "Measure search quality: recall@5 and MRR of bm25 alone, vectors alone and hybrid on a labelled set",
		Long: "eval ingests a labelled evaluation set into a temporary SQLite database (never yours), indexed with the\n" +
			"configured embedder ([embedding] of baton.toml; the built-in one without it), runs every query in the three\n" +
			"search modes (keyword: bm25 alone, semantic: vectors alone, hybrid: both fused) for the 5 best distinct\n" +
			"documents, and prints recall@5 (the share of a query's relevant documents found) and MRR (the mean\n" +
			"reciprocal rank of the first relevant document), overall and per query kind (paraphrase: asked the way a\n" +
			"developer would, sharing few words with the answer; keyword: in the answer's own words).\n" +
			"The built-in set is some 300 documents of the Go tree's documentation and over a hundred hand-written\n" +
			"queries (knowledge/testdata/eval in baton's source); --dir evaluates another directory of the same layout:\n" +
			"docs/*.md and queries.json, [{\"id\", \"query\", \"relevant\": [\"docs/….md\"], \"kind\"}].",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			if weight < 0 || weight > 1 {
				return usageError("--semantic-weight %v is outside 0..1", weight)
			}
			emb, err := a.configuredEmbedder()
			if err != nil {
				return a.fail(err)
			}
			var set *knowledge.EvalSet
			if dir == "" {
				set, err = knowledge.DefaultEvalSet()
			} else if st, serr := os.Stat(dir); serr != nil || !st.IsDir() {
				err = baton.Errorf(baton.ErrInvalidInput, "--dir %s is not a directory", dir).
					WithHint("give a directory holding docs/*.md and queries.json, or leave --dir out for the built-in set")
			} else {
				set, err = knowledge.LoadEvalSet(os.DirFS(dir))
			}
			if err != nil {
				return a.fail(err)
			}
			tmp, err := os.MkdirTemp("", "baton-knowledge-eval-")
			if err != nil {
				return a.fail(err)
			}
			defer os.RemoveAll(tmp)
			s, err := sqlite.Open(ctx, filepath.Join(tmp, "eval.db"), sqlite.Options{Clock: a.Clock})
			if err != nil {
				return a.fail(err)
			}
			defer s.Close()
			p := a.startProgress("evaluating knowledge search")
			r, err := knowledge.Evaluate(ctx, s, emb, set, knowledge.EvalOptions{SemanticWeight: weight,
				Progress: func(stage string, done, total int) {
					what := "indexing"
					unit := "documents"
					if stage == "search" {
						what, unit = "searching", "queries"
					}
					p.set(fmt.Sprintf("%s %s %d of %d %s", what, progressBar(done, total), done, total, unit))
				}})
			p.finish()
			if err != nil {
				return a.fail(err)
			}
			if wantJSON(c) {
				return a.printJSON(r)
			}
			a.printEval(r)
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "the evaluation set: a directory with docs/*.md and queries.json (default: the built-in set)")
	cmd.Flags().Float64Var(&weight, "semantic-weight", 0, fmt.Sprintf("the hybrid fusion's weight of the vector list, 0..1 (0: the default, %.1f)", knowledge.DefaultSemanticWeight))
	a.jsonFlag(cmd, `{"model": the embedder's model, "docs", "chunks", "queries", "limit": 5, "max_per_file": 1, "semantic_weight",
"modes": [{"mode": keyword, semantic or hybrid, "queries", "recall", "mrr", "hit_rate", "by_kind": {"paraphrase"|"keyword": {"queries",
"recall", "mrr", "hit_rate"}}}], "per_query": [{"id", "kind", "rank": {mode: rank of the first relevant document, 0 when not
returned}, "recall": {mode: share}, "top": {mode: [document paths]}}], "index_ms", "search_ms"}.`)
	return cmd
}

// printEval shows an evaluation: one row per search mode.
func (a *App) printEval(r *knowledge.EvalReport) {
	var kinds []string
	count := map[string]int{}
	if len(r.Modes) > 0 {
		for _, k := range []string{knowledge.EvalParaphrase, knowledge.EvalKeyword} {
			if f, ok := r.Modes[0].ByKind[k]; ok {
				kinds = append(kinds, k)
				count[k] = f.Queries
			}
		}
	}
	var split []string
	for _, k := range kinds {
		split = append(split, fmt.Sprintf("%d %s", count[k], k))
	}
	fmt.Fprintf(a.Stdout, "knowledge search over %d documents (%d chunks) and %d queries (%s)\n", r.Docs, r.Chunks, r.Queries, strings.Join(split, ", "))
	fmt.Fprintf(a.Stdout, "embedder %s; the %d best distinct documents per query; hybrid semantic weight %.2f\n\n", cleanLine(r.Model), r.Limit, r.SemanticWeight)
	tw := tabwriter.NewWriter(a.Stdout, 0, 2, 2, ' ', 0)
	head := fmt.Sprintf("MODE\tRECALL@%d\tMRR", r.Limit)
	for _, k := range kinds {
		head += fmt.Sprintf("\t%s R@%d\tMRR", strings.ToUpper(k), r.Limit)
	}
	fmt.Fprintln(tw, head)
	for _, m := range r.Modes {
		row := fmt.Sprintf("%s\t%.3f\t%.3f", modeLabels[m.Mode], m.Recall, m.MRR)
		for _, k := range kinds {
			row += fmt.Sprintf("\t%.3f\t%.3f", m.ByKind[k].Recall, m.ByKind[k].MRR)
		}
		fmt.Fprintln(tw, row)
	}
	tw.Flush()
	fmt.Fprintf(a.Stdout, "\nindexed in %s; %d searches in %s\n", millis(r.IndexMillis), r.Queries*len(r.Modes), millis(r.SearchMillis))
}

func millis(ms int64) string {
	return (time.Duration(ms) * time.Millisecond).Round(10 * time.Millisecond).String()
}

// progressBar draws done of total as [#####-----].
func progressBar(done, total int) string {
	const width = 20
	n := 0
	if total > 0 {
		n = min(width, done*width/total)
	}
	return "[" + strings.Repeat("#", n) + strings.Repeat("-", width-n) + "]"
}

func (a *App) knowledgeReindexCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "reindex",
		Short: "Re-chunk and re-embed every current document whose chunks lack vectors of the configured embedder",
		Long: "reindex finds the current document versions, in every project and the global knowledge, whose chunks\n" +
			"have no vectors of the configured embedder's model ([embedding] of baton.toml; the built-in one without\n" +
			"it): after a change of embedder, or for documents written while the embedding endpoint failed. It\n" +
			"chunks and embeds them again, a batch at a time (embedding outside any transaction), and says how many\n" +
			"it re-indexed. A version rewritten meanwhile is left to its writer, which indexed it.",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			emb, err := a.configuredEmbedder()
			if err != nil {
				return a.fail(err)
			}
			s, err := a.openStore(ctx)
			if err != nil {
				return a.fail(err)
			}
			p := a.startProgress("re-indexing knowledge")
			n, err := (&knowledge.Reindexer{Store: s, Embedder: emb, Progress: func(done, total int) {
				p.set(fmt.Sprintf("%s %d of %d versions", progressBar(done, total), done, total))
			}}).Run(ctx)
			p.finish()
			if err != nil {
				if n > 0 {
					fmt.Fprintf(a.Stderr, "baton: %d versions were re-indexed before the error; run reindex again for the rest\n", n)
				}
				return a.fail(err)
			}
			if wantJSON(c) {
				return a.printJSON(map[string]any{"reindexed": n, "model": emb.Model()})
			}
			if n == 0 {
				fmt.Fprintf(a.Stdout, "nothing to re-index: every current document has vectors of %s\n", cleanLine(emb.Model()))
				return nil
			}
			fmt.Fprintf(a.Stdout, "re-indexed %d document versions with %s\n", n, cleanLine(emb.Model()))
			return nil
		},
	}
	a.jsonFlag(cmd, `{"reindexed": how many document versions were re-chunked and re-embedded, "model": the embedder's model}.`)
	return cmd
}
