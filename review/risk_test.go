package review_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/review"
)

// files makes n modified files with lines changed lines in all (spread
// over them), none sensitive.
func files(n, lines int) []baton.FileStat {
	out := make([]baton.FileStat, n)
	for i := range out {
		out[i] = baton.FileStat{Path: fmt.Sprintf("src/f%d.go", i), Status: "modified"}
	}
	for i := 0; i < lines; i++ {
		if i%2 == 0 {
			out[i%n].Added++
		} else {
			out[i%n].Removed++
		}
	}
	return out
}

// TestScoreRiskThresholds: each threshold, exactly at it and one past it,
// with the defaults (20/100 lines, 3/8 files) and with a project's own.
func TestScoreRiskThresholds(t *testing.T) {
	def := baton.DefaultProjectConfig("p")
	own := baton.DefaultProjectConfig("p")
	own.Version = 4
	own.RiskThresholds = baton.RiskThresholds{LowLines: 50, HighLines: 500, LowFiles: 3, HighFiles: 15}
	cases := []struct {
		name         string
		cfg          *baton.ProjectConfig
		files, lines int
		level        string
		reason       string
	}{
		{"defaults: nothing", def, 1, 0, baton.RiskLow, "0 changed lines in 1 file: within lowLines 20 and lowFiles 3"},
		{"defaults: at lowLines", def, 1, 20, baton.RiskLow, "20 changed lines in 1 file"},
		{"defaults: past lowLines", def, 1, 21, baton.RiskMedium, "21 lines changed, more than lowLines 20"},
		{"defaults: at highLines", def, 1, 100, baton.RiskMedium, "100 lines changed, more than lowLines 20"},
		{"defaults: past highLines", def, 1, 101, baton.RiskHigh, "101 lines changed, more than highLines 100"},
		{"defaults: at lowFiles", def, 3, 3, baton.RiskLow, "3 changed lines in 3 files"},
		{"defaults: past lowFiles", def, 4, 4, baton.RiskMedium, "4 files changed, more than lowFiles 3"},
		{"defaults: at highFiles", def, 8, 8, baton.RiskMedium, "8 files changed, more than lowFiles 3"},
		{"defaults: past highFiles", def, 9, 9, baton.RiskHigh, "9 files changed, more than highFiles 8"},
		{"own: at lowLines", own, 1, 50, baton.RiskLow, "within lowLines 50"},
		{"own: past lowLines", own, 1, 51, baton.RiskMedium, "51 lines changed, more than lowLines 50"},
		{"own: at highLines", own, 2, 500, baton.RiskMedium, "500 lines changed, more than lowLines 50"},
		{"own: past highLines", own, 2, 501, baton.RiskHigh, "501 lines changed, more than highLines 500"},
		{"own: at highFiles", own, 15, 15, baton.RiskMedium, "15 files changed, more than lowFiles 3"},
		{"own: past highFiles", own, 16, 16, baton.RiskHigh, "16 files changed, more than highFiles 15"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := review.Score(files(c.files, c.lines), c.cfg)
			if r.Level != c.level || r.LinesChanged != c.lines || r.FilesChanged != c.files {
				t.Fatalf("level %s lines %d files %d, want %s %d %d (reasons %q)", r.Level, r.LinesChanged, r.FilesChanged,
					c.level, c.lines, c.files, r.Reasons)
			}
			if !slices.ContainsFunc(r.Reasons, func(s string) bool { return strings.Contains(s, c.reason) }) {
				t.Fatalf("reasons %q lack %q", r.Reasons, c.reason)
			}
			if r.ConfigVersion != c.cfg.Version {
				t.Fatalf("config version %d, want %d", r.ConfigVersion, c.cfg.Version)
			}
		})
	}
}

// TestScoreReasonsAtHighestTier: lines and files each give one reason, at
// the highest tier they reach, and the level is the highest of them.
func TestScoreReasonsAtHighestTier(t *testing.T) {
	r := review.Score(files(5, 150), baton.DefaultProjectConfig("p"))
	want := []string{"150 lines changed, more than highLines 100", "5 files changed, more than lowFiles 3"}
	if r.Level != baton.RiskHigh || !slices.Equal(r.Reasons, want) {
		t.Fatalf("level %s reasons %q; want high %q", r.Level, r.Reasons, want)
	}
}

// TestScoreSensitivePaths: a file matching a sensitive path makes the PR
// high whatever its size; a rename is matched by its old path too; a
// project's sensitive_paths replace the defaults, and an empty list has
// none.
func TestScoreSensitivePaths(t *testing.T) {
	def := baton.DefaultProjectConfig("p")
	own := baton.DefaultProjectConfig("p")
	own.SensitivePaths = []string{"server/database/*", ".env*"}
	none := baton.DefaultProjectConfig("p")
	none.SensitivePaths = []string{}
	cases := []struct {
		name      string
		cfg       *baton.ProjectConfig
		file      baton.FileStat
		sensitive bool
		pattern   string
	}{
		{"default database dir", def, baton.FileStat{Path: "app/database/schema.sql", Added: 1}, true, "**/database/**"},
		{"default migrate", def, baton.FileStat{Path: "db/migrate_2024.sql", Added: 1}, true, "**/migrate*"},
		{"default config", def, baton.FileStat{Path: "web/vite.config.ts", Added: 1}, true, "**/*.config.*"},
		{"default auth", def, baton.FileStat{Path: "server/auth/login.go", Added: 1}, true, "**/auth/**"},
		{"default env at the root", def, baton.FileStat{Path: ".env.local", Added: 1}, true, "**/.env*"},
		{"default: ordinary file", def, baton.FileStat{Path: "src/main.go", Added: 1}, false, ""},
		{"rename out of a sensitive dir", def, baton.FileStat{Path: "src/store.go", OldPath: "src/auth/store.go", Status: "renamed"}, true, "**/auth/**"},
		{"binary in a sensitive dir", def, baton.FileStat{Path: "security/key.bin", Binary: true}, true, "**/security/**"},
		{"own pattern", own, baton.FileStat{Path: "server/database/x.sql", Added: 1}, true, "server/database/*"},
		{"own replace the defaults", own, baton.FileStat{Path: "server/auth/login.go", Added: 1}, false, ""},
		{"own bare name at any depth", own, baton.FileStat{Path: "deploy/.env.prod", Added: 1}, true, ".env*"},
		{"empty list: none", none, baton.FileStat{Path: "app/database/schema.sql", Added: 1}, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := review.Score([]baton.FileStat{c.file}, c.cfg)
			if got := len(r.SensitiveFiles) == 1; got != c.sensitive {
				t.Fatalf("sensitive %v (%q), want %v", got, r.Reasons, c.sensitive)
			}
			if !c.sensitive {
				if r.Level != baton.RiskLow {
					t.Fatalf("level %s, want low", r.Level)
				}
				return
			}
			want := c.file.Path + " matches the sensitive path " + c.pattern
			if r.Level != baton.RiskHigh || r.SensitiveFiles[0] != c.file.Path || !slices.Contains(r.Reasons, want) {
				t.Fatalf("level %s files %v reasons %q; want high with %q", r.Level, r.SensitiveFiles, r.Reasons, want)
			}
		})
	}
}

// TestScoreBinaryCountsNoLines: binary files count as files, not lines.
func TestScoreBinaryCountsNoLines(t *testing.T) {
	fs := []baton.FileStat{{Path: "a.png", Binary: true}, {Path: "b.png", Binary: true}, {Path: "c.txt", Added: 5}}
	r := review.Score(fs, baton.DefaultProjectConfig("p"))
	if r.LinesChanged != 5 || r.FilesChanged != 3 || r.Level != baton.RiskLow {
		t.Fatalf("%+v, want 5 lines 3 files low", r)
	}
}
