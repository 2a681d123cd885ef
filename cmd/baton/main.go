// Command baton is the coordination server for teams of AI coding agents.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/baton-dev/baton/cli"
	"github.com/baton-dev/baton/tools"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	app := &cli.App{Registry: tools.Registry(), Version: version, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	code := app.Run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
