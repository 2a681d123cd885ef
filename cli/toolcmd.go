package cli

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// toolsetCmds builds `baton <toolset> <tool>` for every registered tool.
func (a *App) toolsetCmds() []*cobra.Command {
	groups := map[string]*cobra.Command{}
	var out []*cobra.Command
	for _, t := range a.Registry.All() {
		spec := t.Spec()
		g, ok := groups[spec.Toolset]
		if !ok {
			g = &cobra.Command{
				Use:   spec.Toolset,
				Short: fmt.Sprintf("The %s tools", spec.Toolset),
				Args:  noArgs,
				RunE:  func(c *cobra.Command, _ []string) error { return c.Help() },
			}
			groups[spec.Toolset] = g
			out = append(out, g)
		}
		g.AddCommand(a.toolCmd(spec))
	}
	return out
}

// flagName is a property name in kebab-case: task_id and threadId both
// become flags as a shell user expects them (--task-id, --thread-id).
func flagName(prop string) string {
	var b strings.Builder
	for i, r := range prop {
		switch {
		case r == '_':
			b.WriteByte('-')
		case unicode.IsUpper(r):
			if i > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func (a *App) toolCmd(spec *tool.Spec) *cobra.Command {
	var input string
	var asJSON bool
	in := spec.InputSchema
	cmd := &cobra.Command{
		Use:     spec.Name,
		Aliases: []string{flagName(spec.Name)},
		Short:   firstSentence(spec.Description),
		Long:    spec.Description + "\n\nFlags set input fields; --input gives them as one JSON object (flags win).",
		Args:    noArgs,
	}
	fs := cmd.Flags()
	fs.StringVar(&input, "input", "", "input as a JSON object")
	fs.BoolVar(&asJSON, "json", false, "print exactly the structured output (or the error envelope) as JSON")
	props := map[string]string{} // flag name -> property
	for _, name := range in.PropertyOrder {
		addFlag(cmd, name, in.Properties[name], slices.Contains(in.Required, name))
		props[flagName(name)] = name
	}
	cmd.RunE = func(c *cobra.Command, _ []string) error {
		args := map[string]any{}
		if input != "" {
			if err := json.Unmarshal([]byte(input), &args); err != nil {
				return usageError("--input is not a JSON object: %v", err)
			}
		}
		var ferr error
		c.Flags().Visit(func(f *pflag.Flag) {
			prop := props[f.Name]
			ps, ok := in.Properties[prop]
			if !ok || ferr != nil {
				return
			}
			v, err := flagValue(f, ps)
			if err != nil {
				ferr = usageError("--%s: %v", f.Name, err)
				return
			}
			args[prop] = v
		})
		if ferr != nil {
			return ferr
		}
		raw, _ := json.Marshal(args)
		env, err := a.toolEnv(c.Context(), a.Registry, "FULL")
		if err != nil {
			return &ExitError{Code: ExitTool, Err: err}
		}
		res := a.Registry.Call(c.Context(), env, a.principal(baton.SourceCLI, "user"), spec.Name, raw)
		return a.print(spec, res, asJSON)
	}
	return cmd
}

func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}

func usageText(s *jsonschema.Schema, required bool) string {
	text := strings.TrimSuffix(s.Description, ".")
	var notes []string
	if required {
		notes = append(notes, "required")
	}
	if len(s.Enum) > 0 {
		vals := make([]string, len(s.Enum))
		for i, v := range s.Enum {
			vals[i] = fmt.Sprint(v)
		}
		notes = append(notes, "one of "+strings.Join(vals, "|"))
	}
	notes = append(notes, limits(s)...)
	if s.Items != nil && len(s.Items.Enum) > 0 {
		vals := make([]string, len(s.Items.Enum))
		for i, v := range s.Items.Enum {
			vals[i] = fmt.Sprint(v)
		}
		notes = append(notes, "any of "+strings.Join(vals, "|"))
	}
	if len(s.Default) > 0 {
		notes = append(notes, "default "+string(s.Default))
	}
	if len(notes) > 0 {
		text += " (" + strings.Join(notes, "; ") + ")"
	}
	return text
}

// limits describes length, range and size rules in a few words.
func limits(s *jsonschema.Schema) []string {
	var out []string
	span := func(lo, hi *float64, unit string) {
		switch {
		case lo != nil && hi != nil:
			out = append(out, fmt.Sprintf("%v-%v%s", *lo, *hi, unit))
		case lo != nil:
			out = append(out, fmt.Sprintf(">= %v%s", *lo, unit))
		case hi != nil:
			out = append(out, fmt.Sprintf("<= %v%s", *hi, unit))
		}
	}
	toF := func(p *int) *float64 {
		if p == nil {
			return nil
		}
		f := float64(*p)
		return &f
	}
	span(toF(s.MinLength), toF(s.MaxLength), " chars")
	span(s.Minimum, s.Maximum, "")
	span(toF(s.MinItems), toF(s.MaxItems), " items")
	if s.Format != "" {
		out = append(out, s.Format)
	}
	return out
}

// addFlag declares one input property as a flag. Defaults are not set on
// the flag: an unset flag sends nothing and the validator applies the
// schema's default, exactly as over MCP.
func addFlag(cmd *cobra.Command, prop string, s *jsonschema.Schema, required bool) {
	fs := cmd.Flags()
	name, usage := flagName(prop), usageText(s, required)
	switch s.Type {
	case "boolean":
		fs.Bool(name, false, usage)
	case "integer":
		fs.Int64(name, 0, usage)
	case "number":
		fs.Float64(name, 0, usage)
	case "array":
		if s.Items != nil && s.Items.Type == "string" {
			fs.StringSlice(name, nil, usage+"; repeat or separate with commas")
		} else {
			fs.String(name, "", usage+"; a JSON array")
		}
	case "object":
		fs.String(name, "", usage+"; a JSON object")
	default:
		fs.String(name, "", usage)
	}
	var values []string
	for _, v := range s.Enum {
		values = append(values, fmt.Sprint(v))
	}
	if s.Items != nil {
		for _, v := range s.Items.Enum {
			values = append(values, fmt.Sprint(v))
		}
	}
	if len(values) > 0 {
		_ = cmd.RegisterFlagCompletionFunc(name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return values, cobra.ShellCompDirectiveNoFileComp
		})
	}
}

func flagValue(f *pflag.Flag, s *jsonschema.Schema) (any, error) {
	fs := &pflag.FlagSet{}
	fs.AddFlag(f)
	switch s.Type {
	case "boolean":
		return fs.GetBool(f.Name)
	case "integer":
		return fs.GetInt64(f.Name)
	case "number":
		return fs.GetFloat64(f.Name)
	case "array":
		if s.Items != nil && s.Items.Type == "string" {
			return fs.GetStringSlice(f.Name)
		}
		fallthrough
	case "object":
		var v any
		if err := json.Unmarshal([]byte(f.Value.String()), &v); err != nil {
			return nil, fmt.Errorf("not valid JSON: %v", err)
		}
		return v, nil
	}
	return f.Value.String(), nil
}

// print writes a result and maps it to an exit code: invalid input is a
// usage error (2), any other failure a tool error (1).
func (a *App) print(spec *tool.Spec, res tool.Result, asJSON bool) error {
	if res.Err != nil {
		if asJSON {
			fmt.Fprintln(a.Stdout, res.Text)
			return &ExitError{Code: exitCode(res.Err), Err: fmt.Errorf("")}
		}
		return a.fail(res.Err)
	}
	if asJSON {
		b, err := json.Marshal(res.Output)
		if err != nil {
			return err
		}
		fmt.Fprintln(a.Stdout, string(b))
		return nil
	}
	if spec.PlainText {
		fmt.Fprintln(a.Stdout, cleanText(res.Text)) // tool text quotes what agents wrote
		return nil
	}
	return render(a.Stdout, res.Output, spec.OutputSchema)
}
