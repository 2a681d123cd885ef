package cli

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// BuildInfo says which source a binary was built from. Go records the
// commit of a build made inside a git checkout, so a release needs no
// -ldflags stamping beyond the version number.
type BuildInfo struct {
	Version  string `json:"version"`
	Commit   string `json:"commit,omitempty"`
	Time     string `json:"commit_time,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

// ReadBuildInfo describes the running binary.
func ReadBuildInfo(version string) BuildInfo {
	bi := BuildInfo{Version: version, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				bi.Commit = s.Value
			case "vcs.time":
				bi.Time = s.Value
			case "vcs.modified":
				bi.Modified = s.Value == "true"
			}
		}
	}
	return bi
}

// String is the one line `baton version` prints.
func (b BuildInfo) String() string {
	commit := b.Commit
	if commit == "" {
		commit = "unknown commit (built outside a git checkout)"
	} else if b.Modified {
		commit += " (with uncommitted changes)"
	}
	s := fmt.Sprintf("baton %s, commit %s", b.Version, commit)
	if b.Time != "" {
		s += ", committed " + b.Time
	}
	return s + ", " + b.Go + " " + b.Platform
}

func (a *App) versionCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version and the commit this binary was built from",
		Args:  noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			bi := ReadBuildInfo(a.Version)
			if asJSON {
				enc := json.NewEncoder(c.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(bi)
			}
			_, err := fmt.Fprintln(c.OutOrStdout(), bi.String())
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the build facts as JSON")
	return cmd
}
