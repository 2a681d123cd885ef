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
	cmd := &cobra.Command{
		Use:     spec.Name,
		Aliases: verbs(spec),
		Short:   firstSentence(spec.Description),
		Long:    spec.Description + "\n\nFlags set input fields; --input gives them as one JSON object (flags win).",
		Args:    positional(spec),
	}
	props := map[string]string{} // flag name -> property
	addFlags := func(schema bool) {
		fs := cmd.Flags()
		fs.StringVar(&input, "input", "", "input as a JSON object")
		fs.BoolVar(&asJSON, "json", false, "print exactly the structured output (or the error envelope) as JSON")
		if !schema {
			return
		}
		in := spec.InputSchema()
		for _, name := range in.PropertyOrder {
			addFlag(cmd, name, in.Properties[name], slices.Contains(in.Required, name))
			props[flagName(name)] = name
		}
	}
	addFlags(false)
	if a.schemaFlags == nil {
		a.schemaFlags = map[*cobra.Command]func(){}
	}
	a.schemaFlags[cmd] = func() {
		// Finding the command (root.Find) merged the root's persistent
		// flags into its set, and a tool's own field (--project) must
		// shadow the root's flag of that name, as when defined first:
		// the set starts again.
		cmd.ResetFlags()
		cmd.Use += argsUsage(spec)
		addFlags(true)
	}
	cmd.RunE = func(c *cobra.Command, pos []string) error {
		in := spec.InputSchema()
		args := map[string]any{}
		if input != "" {
			if err := json.Unmarshal([]byte(input), &args); err != nil {
				return usageError("--input is not a JSON object: %v", err)
			}
		}
		if err := positionalValues(spec, pos, args); err != nil {
			return err
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

// materialize gives the tool command that args run, or ask help or a
// shell completion of, its schema's flags and usage (App.schemaFlags).
// Found before any of them exist, a tool flag before the command's name
// is read as taking a value, as cobra itself reads it when it runs.
//
// The other builders are dropped: they hold the whole command tree, and
// cobra keeps every flag completion function (which hold the App) in a
// global map, so a process that runs many commands (the tests) would keep
// every tree it built.
func (a *App) materialize(root *cobra.Command, args []string) {
	if len(args) > 0 && slices.Contains([]string{"help", cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd}, args[0]) {
		args = args[1:]
	}
	if c, _, err := root.Find(args); err == nil {
		if add, ok := a.schemaFlags[c]; ok {
			add()
		}
	}
	a.schemaFlags = nil
}

// verbs are a tool's further command names: its kebab-case, its name
// without the toolset's prefix (membot_read is `baton membot read`) and
// the definition's own verbs.
func verbs(spec *tool.Spec) []string {
	var out []string
	add := func(v string) {
		if v != "" && v != spec.Name && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	add(flagName(spec.Name))
	if short, ok := strings.CutPrefix(spec.Name, spec.Toolset+"_"); ok {
		add(short)
		add(flagName(short))
	}
	for _, v := range spec.Verbs {
		add(v)
	}
	return out
}

// argsUsage shows a tool's positional arguments in its usage line.
func argsUsage(spec *tool.Spec) string {
	var b strings.Builder
	for _, a := range spec.Args {
		name := strings.ToUpper(flagName(a))
		if spec.InputSchema().Properties[a].Type == "array" {
			name += "..."
		}
		if slices.Contains(spec.InputSchema().Required, a) {
			b.WriteString(" " + name)
		} else {
			b.WriteString(" [" + name + "]")
		}
	}
	return b.String()
}

// positional accepts as many arguments as the tool names (any number for
// a trailing array); a tool with none refuses them all.
func positional(spec *tool.Spec) cobra.PositionalArgs {
	if len(spec.Args) == 0 {
		return noArgs
	}
	return func(c *cobra.Command, args []string) error {
		last := spec.Args[len(spec.Args)-1]
		if spec.InputSchema().Properties[last].Type != "array" && len(args) > len(spec.Args) {
			return usageError("%s takes at most %d argument(s) (%s); got %d", c.CommandPath(), len(spec.Args),
				strings.Join(spec.Args, ", "), len(args))
		}
		return nil
	}
}

// positionalValues sets the input properties named by the positional
// arguments; a flag or --input naming the same property as well is a
// usage error rather than a silent choice.
func positionalValues(spec *tool.Spec, pos []string, args map[string]any) error {
	for i, v := range pos {
		name := spec.Args[min(i, len(spec.Args)-1)]
		ps := spec.InputSchema().Properties[name]
		var val any = v
		switch ps.Type {
		case "array":
			list, _ := args[name].([]any)
			if i < len(spec.Args)-1 || (i == len(spec.Args)-1 && list != nil) {
				return usageError("%s is given twice, as an argument and as a flag", flagName(name))
			}
			args[name] = append(list, v)
			for _, rest := range pos[i+1:] {
				args[name] = append(args[name].([]any), rest)
			}
			return nil
		case "integer", "number":
			var n json.Number
			if err := json.Unmarshal([]byte(v), &n); err != nil {
				return usageError("argument %d (%s) is not a number: %q", i+1, flagName(name), v)
			}
			val = n
		case "boolean":
			return usageError("argument %s cannot be positional", name)
		}
		if _, dup := args[name]; dup {
			return usageError("%s is given twice, as an argument and in --input", flagName(name))
		}
		args[name] = val
	}
	return nil
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
	return render(a.Stdout, res.Output, spec.OutputSchema())
}
