package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/phases"
	"github.com/baton-dev/baton/tool"
	"github.com/baton-dev/baton/tools/pipeline"
	"github.com/spf13/cobra"
)

// phaseView is one phase contract in `baton project show`.
type phaseView struct {
	Phase            string   `json:"phase"`
	Version          int      `json:"version"`
	DispatchProfile  string   `json:"dispatch_profile"`
	ArtifactPath     string   `json:"artifact_path,omitempty"`
	RequiredSections []string `json:"required_sections"`
	Validation       string   `json:"validation"`
	NextPhase        string   `json:"next_phase,omitempty"`
	Source           string   `json:"source"`
}

// projectShow is what `baton project show --json` prints.
type projectShow struct {
	Project     string                `json:"project"`
	Prefix      string                `json:"prefix"`
	Config      pipeline.ConfigView   `json:"config"`
	History     []pipeline.ConfigView `json:"history,omitempty"`
	Phases      []phaseView           `json:"phases"`
	PhasesError string                `json:"phases_error,omitempty"`
}

// projectRoot is where a project's contracts are read: its registered
// root, else the repository this command runs in.
func (a *App) projectRoot(p *baton.Project) string {
	if p.Root != "" {
		return p.Root
	}
	return a.location().Root
}

// projectSlug is the project a project subcommand acts on: the one named,
// else --project, else the only one.
func (a *App) projectSlug(ctx context.Context, s baton.Store, args []string) (string, error) {
	if len(args) > 0 {
		return args[0], nil
	}
	return a.projectOf(ctx, s)
}

// projectShowCmd is `baton project show`: a project's settings (the
// configuration in force, optionally every version) and its phase
// contracts.
func (a *App) projectShowCmd() *cobra.Command {
	var history bool
	cmd := &cobra.Command{
		Use:   "show [SLUG] [--history]",
		Short: "Show a project's review and pipeline settings (gates, sensitive paths, risk thresholds, instructions) and its phase contracts",
		Args:  argsBetween(0, 1, "at most one project slug"),
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			s, err := a.openStore(ctx)
			if err != nil {
				return a.fail(err)
			}
			slug, err := a.projectSlug(ctx, s, args)
			if err != nil {
				return a.fail(err)
			}
			var out projectShow
			var p *baton.Project
			err = s.View(ctx, func(tx baton.Tx) error {
				if p, err = tx.Project(ctx, slug); err != nil {
					return err
				}
				cfg, err := tx.ProjectConfig(ctx, slug)
				if err != nil {
					return err
				}
				out = projectShow{Project: p.Slug, Prefix: p.Prefix, Config: pipeline.View(cfg), Phases: []phaseView{}}
				if !history {
					return nil
				}
				hs, err := tx.ProjectConfigHistory(ctx, slug)
				out.History = []pipeline.ConfigView{}
				for _, h := range hs {
					out.History = append(out.History, pipeline.View(h))
				}
				return err
			})
			if err != nil {
				return a.fail(err)
			}
			contracts, cerr := phases.All(a.projectRoot(p))
			if cerr != nil {
				out.PhasesError = baton.AsError(cerr).Message
			}
			for _, ct := range contracts {
				out.Phases = append(out.Phases, phaseView{Phase: string(ct.Phase), Version: ct.Version, DispatchProfile: ct.DispatchProfile,
					ArtifactPath: ct.Artifact("<ID>"), RequiredSections: nonNil(ct.RequiredSections), Validation: ct.Validation,
					NextPhase: string(ct.NextPhase), Source: ct.Source})
			}
			if wantJSON(c) {
				return a.printJSON(out)
			}
			printConfig(a.Stdout, out.Config)
			if history {
				fmt.Fprintf(a.Stdout, "\nhistory (newest first):\n")
				if len(out.History) == 0 {
					fmt.Fprintln(a.Stdout, "  (never configured)")
				}
				for _, h := range out.History {
					fmt.Fprintf(a.Stdout, "  version %d by %s at %s\n", h.Version, cleanLine(h.UpdatedBy), h.UpdatedAt)
				}
			}
			fmt.Fprintf(a.Stdout, "\nphase contracts (%s, else built in):\n", phases.DefaultDir)
			if out.PhasesError != "" {
				fmt.Fprintf(a.Stdout, "  error: %s\n", cleanLine(out.PhasesError))
				return nil
			}
			tw := tabwriter.NewWriter(a.Stdout, 0, 2, 2, ' ', 0)
			fmt.Fprintln(tw, "  PHASE\tVERSION\tPROFILE\tARTIFACT\tREQUIRED SECTIONS\tNEXT\tSOURCE")
			for _, ph := range out.Phases {
				fmt.Fprintf(tw, "  %s\tv%d\t%s\t%s\t%s\t%s\t%s\n", ph.Phase, ph.Version, cleanLine(ph.DispatchProfile),
					cleanLine(dash(ph.ArtifactPath)), cleanLine(listOr(ph.RequiredSections, "-")), dash(ph.NextPhase), cleanLine(ph.Source))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&history, "history", false, "also list every stored version of the configuration")
	a.jsonFlag(cmd, `{"project", "prefix", "config": {"project", "version" (0: never configured, the defaults), "gates": [{"command", "label",
"required"}], "sensitive_paths", "risk_thresholds": {"lowLines", "highLines", "lowFiles", "highFiles"}, "worker_instructions",
"judge_instructions", "updated_by", "updated_at"}, "history": [configs, newest first] (with --history), "phases": [{"phase", "version",
"dispatch_profile", "artifact_path", "required_sections", "validation", "next_phase", "source" (built-in or the contract file)}],
"phases_error" (when a contract file is broken)}.`)
	return cmd
}

// dash is s, or "-" for nothing.
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// projectPhasesCmd is `baton project phases`: the phase contracts in
// force, prompts included, and --write to start the project's own from
// the built-in ones.
func (a *App) projectPhasesCmd() *cobra.Command {
	var write bool
	cmd := &cobra.Command{
		Use:   "phases [SLUG] [--write]",
		Short: "Print the phase contracts in force (prompts/phases/<phase>.md, else built in); --write copies the built-in ones into prompts/phases/",
		Long: "phases prints each phase's contract as agents get it: its frontmatter (version, dispatch_profile, artifact_path,\n" +
			"required_sections, validation, next_phase) and its prompt. --write copies the built-in contract of every phase\n" +
			"that has no file yet into the project's prompts/phases/, to edit there (existing files are never overwritten).",
		Args: argsBetween(0, 1, "at most one project slug"),
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			s, err := a.openStore(ctx)
			if err != nil {
				return a.fail(err)
			}
			slug, err := a.projectSlug(ctx, s, args)
			if err != nil {
				return a.fail(err)
			}
			var p *baton.Project
			if err := s.View(ctx, func(tx baton.Tx) (err error) { p, err = tx.Project(ctx, slug); return err }); err != nil {
				return a.fail(err)
			}
			root := a.projectRoot(p)
			written := []string{}
			if write {
				if root == "" {
					return a.fail(baton.Errorf(baton.ErrInvalidInput, "project %s has no root directory to write prompts/phases/ into", slug).
						WithHint("run baton from the project's repository"))
				}
				dir := filepath.Join(root, filepath.FromSlash(phases.DefaultDir))
				if err := os.MkdirAll(dir, 0o755); err != nil {
					return a.fail(baton.Errorf(baton.ErrInternal, "cannot create %s: %v", phases.DefaultDir, err))
				}
				for _, ph := range phases.Order() {
					src, err := phases.DefaultFile(ph)
					if err != nil {
						return a.fail(err)
					}
					f, err := os.OpenFile(filepath.Join(dir, string(ph)+".md"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
					if errors.Is(err, fs.ErrExist) {
						continue // the project's own contract stays as it is
					}
					if err == nil {
						_, err = f.Write(src)
						err = errors.Join(err, f.Close())
					}
					if err != nil {
						return a.fail(baton.Errorf(baton.ErrInternal, "cannot write %s/%s.md: %v", phases.DefaultDir, ph, err))
					}
					written = append(written, phases.DefaultDir+"/"+string(ph)+".md")
				}
			}
			contracts, err := phases.All(root)
			if err != nil {
				return a.fail(err)
			}
			type full struct {
				phaseView
				Body string `json:"body"`
			}
			out := struct {
				Project string   `json:"project"`
				Phases  []full   `json:"phases"`
				Written []string `json:"written"`
			}{Project: slug, Written: written}
			for _, ct := range contracts {
				out.Phases = append(out.Phases, full{phaseView{Phase: string(ct.Phase), Version: ct.Version, DispatchProfile: ct.DispatchProfile,
					ArtifactPath: ct.Artifact("<ID>"), RequiredSections: nonNil(ct.RequiredSections), Validation: ct.Validation,
					NextPhase: string(ct.NextPhase), Source: ct.Source}, ct.Body})
			}
			if wantJSON(c) {
				return a.printJSON(out)
			}
			for _, w := range written {
				fmt.Fprintf(a.Stdout, "wrote %s\n", w)
			}
			for _, ph := range out.Phases {
				fmt.Fprintf(a.Stdout, "=== %s v%d (%s): %s works on it", ph.Phase, ph.Version, cleanLine(ph.Source), cleanLine(ph.DispatchProfile))
				if ph.ArtifactPath != "" {
					fmt.Fprintf(a.Stdout, ", writes %s with sections %s, then %s", cleanLine(ph.ArtifactPath),
						cleanLine(listOr(ph.RequiredSections, "(none)")), ph.NextPhase)
				}
				fmt.Fprintf(a.Stdout, "\n%s\n", strings.TrimRight(cleanText(ph.Body), "\n"))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&write, "write", false, "copy the built-in contracts of phases without a file into prompts/phases/ (never overwrites)")
	a.jsonFlag(cmd, `{"project", "phases": [{"phase", "version", "dispatch_profile", "artifact_path", "required_sections", "validation",
"next_phase", "source", "body" (the prompt)}], "written": [files --write created]}.`)
	return cmd
}

// printConfig writes a configuration for people.
func printConfig(w io.Writer, v pipeline.ConfigView) {
	if v.Version == 0 {
		fmt.Fprintf(w, "project %s: never configured (the defaults)\n", v.Project)
	} else {
		fmt.Fprintf(w, "project %s: configuration version %d, by %s at %s\n", v.Project, v.Version, cleanLine(v.UpdatedBy), v.UpdatedAt)
	}
	fmt.Fprintln(w, "gates:")
	if len(v.Gates) == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	for _, g := range v.Gates {
		req := "optional"
		if g.Required {
			req = "required"
		}
		fmt.Fprintf(w, "  %s (%s): %s\n", cleanLine(g.Label), req, cleanLine(g.Command))
	}
	fmt.Fprintf(w, "sensitive paths: %s\n", cleanLine(listOr(v.SensitivePaths, "(none)")))
	t := v.RiskThresholds
	fmt.Fprintf(w, "risk thresholds: medium above %d lines or %d files, high above %d lines or %d files\n",
		t.LowLines, t.LowFiles, t.HighLines, t.HighFiles)
	for _, x := range []struct{ name, text string }{{"worker instructions", v.WorkerInstructions}, {"judge instructions", v.JudgeInstructions}} {
		if x.text == "" {
			fmt.Fprintf(w, "%s: (none)\n", x.name)
			continue
		}
		fmt.Fprintf(w, "%s:\n", x.name)
		for _, l := range strings.Split(cleanText(x.text), "\n") {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
}

// projectConfigureCmd is `baton project configure`: configure_project for
// the person at the terminal, the setup wizard's owner. The arguments pass
// the tool's own schema and checks (same rules, same messages); the change
// is recorded as a configure_project action and event by the user.
func (a *App) projectConfigureCmd() *cobra.Command {
	var (
		input, worker, judge                     string
		gates, optional, sensitive               []string
		clearGates                               bool
		lowLines, highLines, lowFiles, highFiles int
	)
	cmd := &cobra.Command{
		Use:   "configure [SLUG] [--gate LABEL=COMMAND]... [--sensitive-paths GLOBS] [--low-lines N] ... [--worker-instructions TEXT]",
		Short: "Set a project's quality gates, sensitive paths, risk thresholds and worker/judge instructions (a new version each change)",
		Long: "configure sets what configure_project sets, as the user. Each setting given replaces the stored one; settings\n" +
			"left out are kept. --gate adds a required gate and --optional-gate one that may fail; giving either replaces\n" +
			"all gates (in that order: required first), and --clear-gates removes them. --sensitive-paths '' clears the list.\n" +
			"--input takes configure_project's JSON input; flags win.",
		Args: argsBetween(0, 1, "at most one project slug"),
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			t, ok := a.Registry.Get("configure_project")
			if !ok {
				return a.fail(baton.Errorf(baton.ErrConfigInvalid, "configure_project is not registered in this baton").
					WithHint("run without --toolsets limits, or with the pipeline toolset"))
			}
			in := map[string]any{}
			if input != "" {
				if err := json.Unmarshal([]byte(input), &in); err != nil {
					return usageError("--input is not a JSON object: %v", err)
				}
			}
			f := c.Flags()
			if f.Changed("gate") || f.Changed("optional-gate") || clearGates {
				list := []map[string]any{}
				for _, set := range []struct {
					specs    []string
					required bool
					flag     string
				}{{gates, true, "--gate"}, {optional, false, "--optional-gate"}} {
					for _, s := range set.specs {
						label, command, ok := strings.Cut(s, "=")
						if !ok {
							return usageError("%s %q: write LABEL=COMMAND, e.g. %s 'Tests=go test ./...'", set.flag, s, set.flag)
						}
						list = append(list, map[string]any{"label": strings.TrimSpace(label), "command": strings.TrimSpace(command), "required": set.required})
					}
				}
				if clearGates && len(list) > 0 {
					return usageError("--clear-gates removes every gate: give it without --gate or --optional-gate")
				}
				in["gates"] = list
			}
			if f.Changed("sensitive-paths") {
				in["sensitive_paths"] = compact(sensitive)
			}
			th, _ := in["risk_thresholds"].(map[string]any)
			for _, x := range []struct {
				flag, key string
				v         int
			}{{"low-lines", "lowLines", lowLines}, {"high-lines", "highLines", highLines}, {"low-files", "lowFiles", lowFiles}, {"high-files", "highFiles", highFiles}} {
				if f.Changed(x.flag) {
					if th == nil {
						th = map[string]any{}
					}
					th[x.key] = x.v
				}
			}
			if th != nil {
				in["risk_thresholds"] = th
			}
			if f.Changed("worker-instructions") {
				in["worker_instructions"] = worker
			}
			if f.Changed("judge-instructions") {
				in["judge_instructions"] = judge
			}
			s, err := a.openStore(ctx)
			if err != nil {
				return a.fail(err)
			}
			slug, _ := in["project"].(string)
			if len(args) > 0 || slug == "" {
				if slug, err = a.projectSlug(ctx, s, args); err != nil {
					return a.fail(err)
				}
			}
			in["project"] = slug
			raw, _ := json.Marshal(in)
			norm, verr := tool.Validate(t.Spec().InputSchema(), raw)
			if verr != nil {
				return a.fail(verr)
			}
			var ci pipeline.ConfigureInput
			if err := json.Unmarshal(norm, &ci); err != nil {
				return a.fail(err)
			}
			patch := ci.Patch()
			if patch.Empty() {
				return usageError("nothing to configure: give --gate, --optional-gate, --clear-gates, --sensitive-paths, a threshold " +
					"(--low-lines, --high-lines, --low-files, --high-files), --worker-instructions or --judge-instructions; " +
					"`baton project show` prints the settings")
			}
			who, now := a.human(), a.agentNow()
			var out pipeline.ConfigureOutput
			err = s.Update(ctx, func(tx baton.Tx) error {
				cfg, changed, err := pipeline.Configure(ctx, tx, slug, patch, who.Agent, now)
				if err != nil {
					return err
				}
				out = pipeline.ConfigureOutput{ConfigView: pipeline.View(cfg), Changed: changed}
				return record(ctx, tx, "configure_project", pipeline.Event, who.Agent, slug, "", ci, out, now)
			})
			if err != nil {
				return a.fail(err)
			}
			if wantJSON(c) {
				return a.printJSON(out)
			}
			if !out.Changed {
				fmt.Fprintf(a.Stdout, "unchanged: that is the configuration in force already\n")
			}
			printConfig(a.Stdout, out.ConfigView)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&input, "input", "", "configure_project's input as a JSON object (flags win)")
	f.StringArrayVar(&gates, "gate", nil, "a required gate, LABEL=COMMAND (repeat for more); replaces the gates")
	f.StringArrayVar(&optional, "optional-gate", nil, "a gate that may fail without blocking approval, LABEL=COMMAND (repeat for more)")
	f.BoolVar(&clearGates, "clear-gates", false, "remove every gate")
	f.StringSliceVar(&sensitive, "sensitive-paths", nil, "glob patterns of sensitive files, comma-separated; replaces the list ('' clears it)")
	f.IntVar(&lowLines, "low-lines", 0, "more changed lines than this is medium risk")
	f.IntVar(&highLines, "high-lines", 0, "more changed lines than this is high risk")
	f.IntVar(&lowFiles, "low-files", 0, "more changed files than this is medium risk")
	f.IntVar(&highFiles, "high-files", 0, "more changed files than this is high risk")
	f.StringVar(&worker, "worker-instructions", "", "instructions for workers ('' clears them)")
	f.StringVar(&judge, "judge-instructions", "", "instructions for judges ('' clears them)")
	a.jsonFlag(cmd, `configure_project's output: the full resulting configuration ({"project", "version", "gates", "sensitive_paths",
"risk_thresholds", "worker_instructions", "judge_instructions", "updated_by", "updated_at"}) and "changed" (false when it was in force already).`)
	return cmd
}
