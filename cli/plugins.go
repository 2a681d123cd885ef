package cli

import (
	"context"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/plugin"
	"github.com/baton-dev/baton/tool"
	"github.com/spf13/cobra"
)

// configFlag adds --config, the plugin file, to a server command.
func (a *App) configFlag(cmd *cobra.Command) {
	cmd.Flags().StringVar(&a.pluginConfig, "config", "",
		"plugin config: TOML naming external MCP servers whose tools baton proxies (env BATON_CONFIG; default ./"+plugin.DefaultFile+" if present)")
}

// usePlugins connects the plugins of the config file and adds their tools
// to a.Registry, so everything after it (the servers' registry, scopes,
// `baton tools`) sees them. The file is --config, else BATON_CONFIG, else
// baton.toml in the working directory when there is one. A plugin that
// cannot be started fails the command: an agent would otherwise find its
// tools missing with no word why. Calling it again does nothing.
func (a *App) usePlugins(ctx context.Context) error {
	if a.plugins != nil {
		return nil
	}
	path, named := a.pluginConfig, true
	if path == "" {
		path = a.env("BATON_CONFIG", "")
	}
	if path == "" {
		path, named = plugin.DefaultFile, false
	}
	if plugin.InChain(path, a.Getenv(plugin.ChainEnv)) {
		// This baton is a plugin of a baton using the same file (another
		// baton started in the same directory, most often); loading it
		// again would start baton after baton. Silent: every such plugin
		// would say it on the shared stderr.
		a.plugins = &plugin.Set{}
		return nil
	}
	cfg, err := plugin.Load(path, named)
	if err != nil {
		return a.fail(err)
	}
	if len(cfg.Plugins) == 0 {
		a.plugins = &plugin.Set{}
		return nil
	}
	set, err := plugin.Connect(ctx, cfg, plugin.Options{Version: a.Version, Stderr: a.Stderr, Chain: a.Getenv(plugin.ChainEnv)})
	if err != nil {
		return a.fail(err)
	}
	a.plugins = set
	reg := tool.NewRegistry(a.Registry.All()...)
	for _, t := range set.Tools() {
		name := t.Spec().Name
		if _, dup := reg.Get(name); dup {
			return a.fail(baton.Errorf(baton.ErrConfigInvalid, "%s: plugin %s offers %s, which is already a tool here", path, pluginOf(t), name).
				WithDetails("file", path, "plugin", pluginOf(t), "field", "name", "rule", "unique_tools", "tool", name).
				WithHint("rename the plugin (its name is the prefix of its tools), or leave the tool out with its tools allowlist"))
		}
		reg.Add(t)
	}
	a.Registry = reg
	return nil
}

// pluginOf is the plugin a proxied tool comes from.
func pluginOf(t tool.Tool) string {
	return strings.TrimPrefix(t.Spec().Toolset, "plugin:")
}
