// Package gitenv is the environment baton runs the git binary with.
package gitenv

import (
	"os"
	"strings"
)

// Env is the process environment without the variables that would point
// git at another repository, work tree, index, object store or
// configuration than the folder it runs in (a server started from a git
// hook, or under a wrapper that exports them, must not act on that
// repository), with prompts off and messages untranslated.
func Env() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
			"GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_EXTERNAL_DIFF", "GIT_DIFF_OPTS", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS",
			"GIT_CONFIG_COUNT", "GIT_PREFIX", "GIT_TERMINAL_PROMPT", "LC_ALL", "GIT_OPTIONAL_LOCKS":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_OPTIONAL_LOCKS=0")
}
