package review

import (
	"fmt"

	"github.com/baton-dev/baton"
)

// Score computes a PR's risk from its files (Symphony's calculateRisk)
// under the project's settings: high when a file matches a sensitive path,
// or the changed lines exceed highLines, or the changed files exceed
// highFiles; else medium when lines exceed lowLines or files exceed
// lowFiles; else low. Lines are additions plus deletions over all files
// (a binary file counts none); a renamed file is matched by its old and
// its new path. Every rule that applies gives a reason, at its highest
// tier.
func Score(files []baton.FileStat, cfg *baton.ProjectConfig) baton.RiskScore {
	th := cfg.RiskThresholds
	r := baton.RiskScore{Level: baton.RiskLow, FilesChanged: len(files), SensitiveFiles: []string{}, Reasons: []string{},
		ConfigVersion: cfg.Version}
	for _, f := range files {
		r.LinesChanged += f.Added + f.Removed
	}
	level := 0
	raise := func(l int) { level = max(level, l) }
	for _, f := range files {
		m := cfg.SensitiveMatches(f.Path)
		if len(m) == 0 && f.OldPath != "" {
			m = cfg.SensitiveMatches(f.OldPath)
		}
		if len(m) > 0 {
			r.SensitiveFiles = append(r.SensitiveFiles, f.Path)
			r.Reasons = append(r.Reasons, fmt.Sprintf("%s matches the sensitive path %s", f.Path, m[0]))
			raise(2)
		}
	}
	switch {
	case r.LinesChanged > th.HighLines:
		r.Reasons = append(r.Reasons, fmt.Sprintf("%s changed, more than highLines %d", plural(r.LinesChanged, "line"), th.HighLines))
		raise(2)
	case r.LinesChanged > th.LowLines:
		r.Reasons = append(r.Reasons, fmt.Sprintf("%s changed, more than lowLines %d", plural(r.LinesChanged, "line"), th.LowLines))
		raise(1)
	}
	switch {
	case r.FilesChanged > th.HighFiles:
		r.Reasons = append(r.Reasons, fmt.Sprintf("%s changed, more than highFiles %d", plural(r.FilesChanged, "file"), th.HighFiles))
		raise(2)
	case r.FilesChanged > th.LowFiles:
		r.Reasons = append(r.Reasons, fmt.Sprintf("%s changed, more than lowFiles %d", plural(r.FilesChanged, "file"), th.LowFiles))
		raise(1)
	}
	r.Level = []string{baton.RiskLow, baton.RiskMedium, baton.RiskHigh}[level]
	if level == 0 {
		r.Reasons = append(r.Reasons, fmt.Sprintf("%s in %s: within lowLines %d and lowFiles %d, no sensitive path",
			plural(r.LinesChanged, "changed line"), plural(r.FilesChanged, "file"), th.LowLines, th.LowFiles))
	}
	return r
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
