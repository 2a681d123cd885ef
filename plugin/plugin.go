package plugin

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ChainEnv names the environment variable that carries, to the servers
// baton starts, the config files of the batons that started them. A baton
// whose config is already in it loads no plugins: a plugin that is baton
// itself, run in the same directory, would otherwise start itself forever.
const ChainEnv = "BATON_PLUGIN_CHAIN"

// Options tune Connect.
type Options struct {
	// Version is what baton tells the plugins it is.
	Version string
	// Stderr receives the stderr of stdio plugins; nil discards it.
	Stderr io.Writer
	// Log receives what a running plugin does wrong; nil is slog.Default.
	Log *slog.Logger
	// Timeout bounds starting each plugin and listing its tools; zero is
	// 30 seconds.
	Timeout time.Duration
	// Chain is this process's ChainEnv value, passed on, extended, to
	// stdio plugins.
	Chain string
}

// Set is the connected plugins of one baton process and their tools.
type Set struct {
	clients []*client
	tools   []tool.Tool
}

// Tools are the proxied tools, plugin by plugin in config order, each
// plugin's in the order its server listed them.
func (s *Set) Tools() []tool.Tool {
	if s == nil {
		return nil
	}
	return s.tools
}

// Close ends every plugin session; stdio plugins see their stdin close
// and are stopped if they do not exit.
func (s *Set) Close() error {
	if s == nil {
		return nil
	}
	var errs []error
	for _, c := range s.clients {
		errs = append(errs, c.close())
	}
	return errors.Join(errs...)
}

// Connect starts a client session per plugin and lists its tools. A plugin
// that cannot be reached, or whose allowlist names a tool it lacks, fails
// the whole call with ERR_INIT_FAILED or ERR_CONFIG_INVALID naming it;
// the sessions opened so far are closed.
func Connect(ctx context.Context, cfg *Config, opts Options) (*Set, error) {
	if opts.Timeout == 0 {
		opts.Timeout = 30 * time.Second
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	set := &Set{}
	for _, p := range cfg.Plugins {
		c := &client{p: p, opts: opts, chain: chain(opts.Chain, cfg.Path)}
		set.clients = append(set.clients, c)
		ts, err := c.start(ctx)
		if err != nil {
			_ = set.Close()
			return nil, err
		}
		set.tools = append(set.tools, ts...)
	}
	return set, nil
}

// InChain reports whether the config at path is among those of the batons
// that started this one (see ChainEnv).
func InChain(path, env string) bool {
	abs := canonical(path)
	for _, p := range filepath.SplitList(env) {
		if p == abs {
			return true
		}
	}
	return false
}

// chain is ChainEnv's value for the servers started under the config at
// path, when this process got prev.
func chain(prev, path string) string {
	if path == "" {
		return prev
	}
	if prev == "" {
		return canonical(path)
	}
	return prev + string(filepath.ListSeparator) + canonical(path)
}

func canonical(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// client is the session with one plugin. A session that breaks is dropped
// and opened again on the next call.
type client struct {
	p     Plugin
	opts  Options
	chain string

	mu     sync.Mutex
	cs     *mcp.ClientSession
	closed bool
}

// where describes the plugin's server for messages.
func (c *client) where() string {
	if c.p.URL != "" {
		return c.p.URL
	}
	return strings.Join(c.p.Command, " ")
}

func (c *client) transport() mcp.Transport {
	if c.p.URL != "" {
		hc := &http.Client{}
		if len(c.p.Headers) > 0 {
			hc.Transport = &headers{h: c.p.Headers, next: http.DefaultTransport}
		}
		return &mcp.StreamableClientTransport{Endpoint: c.p.URL, HTTPClient: hc, MaxRetries: 1}
	}
	// Not CommandContext: the child lives as long as the session, not as
	// long as the call that started it; close ends it.
	cmd := exec.Command(c.p.Command[0], c.p.Command[1:]...)
	cmd.Env = append(os.Environ(), ChainEnv+"="+c.chain)
	cmd.Stderr = c.opts.Stderr
	return &mcp.CommandTransport{Command: cmd, TerminateDuration: 3 * time.Second}
}

// connect opens a session; the caller holds c.mu.
func (c *client) connect(ctx context.Context) (*mcp.ClientSession, error) {
	if c.closed {
		return nil, errors.New("baton is shutting down")
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	cl := mcp.NewClient(&mcp.Implementation{Name: "baton", Version: c.opts.Version}, &mcp.ClientOptions{Logger: c.opts.Log})
	cs, err := cl.Connect(ctx, c.transport(), nil)
	if err != nil {
		return nil, err
	}
	c.cs = cs
	return cs, nil
}

// session is the live session, opened again if the last one broke.
func (c *client) session(ctx context.Context) (*mcp.ClientSession, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cs != nil {
		return c.cs, nil
	}
	return c.connect(ctx)
}

// drop forgets a broken session, unless another call replaced it already.
func (c *client) drop(cs *mcp.ClientSession) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cs == cs {
		c.cs = nil
		go cs.Close() // a dead peer may take a while to say so
	}
}

func (c *client) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	if c.cs == nil {
		return nil
	}
	err := c.cs.Close()
	c.cs = nil
	return err
}

// start connects and turns the plugin's tools into baton tools.
func (c *client) start(ctx context.Context) ([]tool.Tool, error) {
	c.mu.Lock()
	cs, err := c.connect(ctx)
	c.mu.Unlock()
	if err != nil {
		return nil, baton.Errorf(baton.ErrInitFailed, "plugin %s cannot be started (%s): %v", c.p.Name, c.where(), err).
			WithDetails("plugin", c.p.Name, "server", c.where()).
			WithHint("check that %s runs and speaks MCP, or remove plugin %s from the config", c.where(), c.p.Name)
	}
	lctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	var remote []*mcp.Tool
	for t, err := range cs.Tools(lctx, nil) {
		if err != nil {
			return nil, baton.Errorf(baton.ErrInitFailed, "plugin %s did not list its tools: %v", c.p.Name, err).
				WithDetails("plugin", c.p.Name, "server", c.where()).
				WithHint("check that %s answers tools/list", c.where())
		}
		remote = append(remote, t)
	}
	return c.proxies(remote)
}
