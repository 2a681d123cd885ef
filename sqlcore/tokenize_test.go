package sqlcore_test

import (
	"slices"
	"testing"

	"github.com/baton-dev/baton/sqlcore"
)

func TestTerms(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		// Case, separators, digits.
		{"Retry the connection_pool v1.2.3, main.go!", []string{"retri", "connect", "pool", "v1", "2", "3", "main", "go"}},
		// English stop words go; the rest is stemmed (Porter2).
		{"The retries were exhausted", []string{"retri", "exhaust"}},
		{"running runs ran", []string{"run", "run", "ran"}},
		// Diacritics are removed, precomposed or combining.
		{"Café RÉSUMÉ nai\u0308ve Ångström", []string{"cafe", "resum", "naiv", "angstrom"}},
		// Letters of other scripts are words too.
		{"東京 Москва", []string{"東京", "москва"}},
		{"", nil},
		{"the of and", nil},
	}
	for _, tc := range cases {
		if got := sqlcore.Terms(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("Terms(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

func TestSearchTerms(t *testing.T) {
	cases := []struct {
		query string
		want  []string
	}{
		{"retry retries RETRYING", []string{"retri"}},
		{"the cafe, café and CAFÉ", []string{"cafe"}},
		{"the and of", nil},
		{"pool connection", []string{"pool", "connect"}},
	}
	for _, tc := range cases {
		if got := sqlcore.SearchTerms(sqlcore.SearchWords(tc.query)); !slices.Equal(got, tc.want) {
			t.Errorf("SearchTerms(%q) = %q, want %q", tc.query, got, tc.want)
		}
	}
}
