package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteEvalSet writes a small labelled evaluation set under dir, for
// the knowledge tests here and in cli_test.
func WriteEvalSet(t *testing.T, dir string) {
	t.Helper()
	files := map[string]string{
		"docs/bread.md":  "# Bread\n\nBakers knead flour, water and yeast into dough, let it rise and bake it in an oven.\n",
		"docs/cars.md":   "# Cars\n\nAn automobile has an engine, four wheels and a steering wheel; drivers refuel it at a station.\n",
		"docs/rivers.md": "# Rivers\n\nA river carries fresh water from mountain springs to the sea through valleys and deltas.\n",
		"queries.json": `[{"id":"bread","query":"knead the dough","relevant":["docs/bread.md"],"kind":"keyword"},
			{"id":"car","query":"a vehicle with a motor","relevant":["docs/cars.md"],"kind":"paraphrase"}]`,
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
