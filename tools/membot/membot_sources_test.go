package membot_test

import (
	"testing"

	"github.com/baton-dev/baton/internal/testkit"
)

// TestSourcesListsWhatBatonIngests: inline text (a scheme source) and
// project files (dynamic), neither needing a key, each with examples;
// total counts them.
func TestSourcesListsWhatBatonIngests(t *testing.T) {
	k := testkit.New(t)
	d := data(k, "membot_sources", nil)
	eq(t, "names", strs(d["sources"], "name"), []string{"inline", "file"})
	eq(t, "total", d["total"], 2.0)
	inline := d["sources"].([]any)[0].(map[string]any)
	eq(t, "inline kind", inline["match_kind"], "scheme")
	eq(t, "inline scheme", inline["scheme"], "inline:")
	file := d["sources"].([]any)[1].(map[string]any)
	eq(t, "file kind", file["match_kind"], "dynamic")
	if _, ok := file["scheme"]; ok {
		t.Errorf("a dynamic source has a scheme: %v", file)
	}
	for _, s := range d["sources"].([]any) {
		s := s.(map[string]any)
		if s["auth_kind"] != "none" || s["requires_api_key"] != false || len(s["examples"].([]any)) == 0 || s["description"] == "" {
			t.Errorf("source %v", s)
		}
		if _, ok := s["platform"]; ok {
			t.Errorf("platform set (it runs everywhere): %v", s)
		}
	}
	failWith(k, "membot_sources", map[string]any{"kind": "url"}, "ERR_INVALID_INPUT", "invalid_input")
}
