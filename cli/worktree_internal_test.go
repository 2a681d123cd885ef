package cli

import (
	"os"
	"os/exec"
	"path/filepath"
)

// worktreeRepo7 makes dir (the project's root) a git repository with one
// commit, so the worktree commands of TestPoint7JSONOnEveryHumanCommand
// succeed, and returns the exit codes they may end with: 0, or 2 (the
// root is not a repository) on a machine without git.
func worktreeRepo7(dir string) []int {
	if _, err := exec.LookPath("git"); err != nil {
		return []int{ExitUsage}
	}
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("r\n"), 0o644); err != nil {
		return []int{ExitUsage}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "README"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", "commit", "-q", "-m", "first"}} {
		if exec.Command("git", append([]string{"-C", dir}, args...)...).Run() != nil {
			return []int{ExitUsage}
		}
	}
	return []int{ExitOK}
}
