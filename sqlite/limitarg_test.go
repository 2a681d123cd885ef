package sqlite

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestNoBareLimitParameter: no SQL of the SQLite store binds a LIMIT
// through a bare "?". SQLite reads such a parameter at prepare time and
// marks the statement to be prepared again whenever it is bound, so a
// statement the store keeps prepared would be parsed again on every run
// (see limitArg). The SQL is in this package and in sqlcore, which both
// stores share; there a LIMIT takes Dialect.LimitArg.
func TestNoBareLimitParameter(t *testing.T) {
	bare := regexp.MustCompile(`(?i)\bLIMIT\s+\?`)
	for _, dir := range []string{".", "../sqlcore"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(string(b), "\n") {
				if code, _, _ := strings.Cut(line, "//"); bare.MatchString(code) {
					t.Errorf("%s:%d: LIMIT takes its count through a bare ?; use limitArg (Dialect.LimitArg in sqlcore): %s", f, i+1, strings.TrimSpace(line))
				}
			}
		}
	}
}
