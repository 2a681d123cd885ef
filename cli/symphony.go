package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/baton-dev/baton"
	"github.com/spf13/cobra"
)

// symphonyFlags are Symphony's own launch flags, accepted by `baton mcp` so
// an orchestrator's launch line works with baton in place of Symphony's
// server: node server/mcp/index.ts --issue-id ID --db PATH [--project-id
// ID] [--worktree-path P] [--agent-type T] [--project-slug S]
// [--symphony-dir D].
type symphonyFlags struct {
	projectID   string
	projectSlug string
	dir         string
}

func (s *symphonyFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&s.projectSlug, "project-slug", "", "Symphony's name for --project: the session's project slug (memory goes to its folder)")
	cmd.Flags().StringVar(&s.projectID, "project-id", "", "Symphony's project id: a project slug or id prefix; an id baton does not know is ignored with a warning (the project then comes from --project-slug or the bound issue)")
	cmd.Flags().StringVar(&s.dir, "symphony-dir", "", "Symphony's root directory: agent memory is read and written under DIR/data/memory/, where Symphony reads it")
}

// beforeStore applies what needs no database: --project-slug is the
// session's project (before the store opens, so a first start names its
// project after it), and --symphony-dir must be a directory.
func (s *symphonyFlags) beforeStore(a *App) error {
	if slug := s.projectSlug; slug != "" {
		if a.project != "" && a.project != slug {
			return usageError("--project-slug %s and --project %s name different projects: give one", slug, a.project)
		}
		a.project = slug
	}
	if s.dir != "" {
		if fi, err := os.Stat(s.dir); err != nil || !fi.IsDir() {
			return usageError("--symphony-dir %s is not a directory: give Symphony's root directory (the one holding data/)", s.dir)
		}
	}
	return nil
}

// dataDir is where agent memory lives for this session: Symphony's
// DIR/data (memory.Dir adds memory/<project>/<profile>), or def.
func (s *symphonyFlags) dataDir(def string) string {
	if s.dir == "" {
		return def
	}
	abs, err := filepath.Abs(s.dir)
	if err != nil {
		abs = s.dir
	}
	return filepath.Join(abs, "data")
}

// resolveProject reads --project-id, which in Symphony is its database's
// project key: baton knows projects by slug and id prefix, so either is
// accepted (the prefix in any case). One that names another project than
// --project or --project-slug is a usage error; one baton does not know is
// reported and ignored, as Symphony itself falls back to the bound issue's
// project.
func (s *symphonyFlags) resolveProject(ctx context.Context, a *App, st baton.Store) error {
	if s.projectID == "" {
		return nil
	}
	var found *baton.Project
	err := st.View(ctx, func(tx baton.Tx) error {
		ps, err := tx.Projects(ctx)
		if err != nil {
			return err
		}
		for _, p := range ps {
			if p.Slug == s.projectID || strings.EqualFold(p.Prefix, s.projectID) {
				found = p
				return nil
			}
		}
		return nil
	})
	if err != nil {
		return a.fail(err)
	}
	switch {
	case found == nil:
		fmt.Fprintf(a.Stderr, "baton: --project-id %s names no project here (projects are known by slug or id prefix); "+
			"the session's project comes from --project-slug, --project or the bound issue\n", s.projectID)
	case a.project == "":
		a.project = found.Slug
	case a.project != found.Slug:
		return usageError("--project-id %s is project %s, but --project/--project-slug says %s: give one", s.projectID, found.Slug, a.project)
	}
	return nil
}
