package embedding_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/embedding"
	"github.com/baton-dev/baton/plugin"
)

func TestParseConfigValid(t *testing.T) {
	cases := []struct {
		name, toml string
		want       embedding.Config
	}{
		{"no table", "", embedding.Config{Provider: "builtin"}},
		{"empty table", "[embedding]\n", embedding.Config{Provider: "builtin"}},
		{"builtin", "[embedding]\nprovider = 'builtin'\n", embedding.Config{Provider: "builtin"}},
		{"builtin with its dims", "[embedding]\nprovider = 'builtin'\ndims = 100\n", embedding.Config{Provider: "builtin", Dims: 100}},
		{"openai with defaults", "[embedding]\nprovider = 'openai'\nurl = 'http://localhost:11434/v1'\nmodel = 'nomic-embed-text'\ndims = 768\n",
			embedding.Config{Provider: "openai", URL: "http://localhost:11434/v1", Model: "nomic-embed-text", Dims: 768, BatchSize: 64, Timeout: "30s"}},
		{"openai in full", "[embedding]\nprovider = 'openai'\nurl = 'https://api.openai.com/v1'\nmodel = 'text-embedding-3-small'\ndims = 1536\napi_key_env = 'OPENAI_API_KEY'\nbatch_size = 256\ntimeout = '2m'\n",
			embedding.Config{Provider: "openai", URL: "https://api.openai.com/v1", Model: "text-embedding-3-small", Dims: 1536, APIKeyEnv: "OPENAI_API_KEY", BatchSize: 256, Timeout: "2m"}},
		{"beside plugins", "[[plugin]]\nname = 'gh'\nurl = 'http://h/mcp'\n\n[embedding]\nprovider = 'builtin'\n", embedding.Config{Provider: "builtin"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := embedding.ParseConfig("baton.toml", []byte(c.toml))
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestParseConfigInvalid(t *testing.T) {
	const openai = "[embedding]\nprovider = 'openai'\n"
	const full = openai + "url = 'http://h/v1'\nmodel = 'm'\ndims = 8\n"
	cases := []struct{ name, toml, field, rule, inMessage string }{
		{"syntax", "[embedding\n", "", "syntax", "line 2"},
		{"not a table", "embedding = 'openai'\n", "embedding", "type", "expected table"},
		{"dims not a number", "[embedding]\ndims = '768'\n", "embedding", "type", "incompatible types"},
		{"unknown key", "[embedding]\nprovder = 'openai'\n", "provder", "unknown_key", "known keys: provider"},
		{"unknown provider", "[embedding]\nprovider = 'onnx'\n", "provider", "enum", `"onnx" is not one of`},
		{"url with builtin", "[embedding]\nurl = 'http://h/v1'\n", "url", "openai_only", "built-in embedder takes no settings"},
		{"other dims with builtin", "[embedding]\ndims = 384\n", "dims", "enum", "100-dimensional"},
		{"url missing", openai + "model = 'm'\ndims = 8\n", "url", "required", "base URL"},
		{"url relative", openai + "url = 'localhost:11434'\nmodel = 'm'\ndims = 8\n", "url", "format", "absolute"},
		{"url with credentials", openai + "url = 'https://u:p@h/v1'\nmodel = 'm'\ndims = 8\n", "url", "credentials", "api_key_env"},
		{"model missing", openai + "url = 'http://h/v1'\ndims = 8\n", "model", "required", "model is required"},
		{"dims missing", openai + "url = 'http://h/v1'\nmodel = 'm'\n", "dims", "required", "768 for nomic-embed-text"},
		{"dims negative", openai + "url = 'http://h/v1'\nmodel = 'm'\ndims = -1\n", "dims", "range", "outside"},
		{"key instead of variable", full + "api_key_env = 'sk-abc-123'\n", "api_key_env", "pattern", "not hold the key"},
		{"batch too large", full + "batch_size = 5000\n", "batch_size", "range", "outside 1..2048"},
		{"timeout unparsable", full + "timeout = 'soon'\n", "timeout", "format", "duration"},
		{"timeout zero", full + "timeout = '0s'\n", "timeout", "format", "duration"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := embedding.ParseConfig("baton.toml", []byte(c.toml))
			var e *baton.Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want ERR_CONFIG_INVALID", err)
			}
			if e.Code != baton.ErrConfigInvalid || e.Details["field"] != c.field || e.Details["rule"] != c.rule ||
				!strings.Contains(e.Message, c.inMessage) || !strings.HasPrefix(e.Message, "baton.toml: ") || e.Hint == "" {
				t.Fatalf("err = %s %q details %v hint %q; want field %q rule %q, message with %q", e.Code, e.Message, e.Details, e.Hint, c.field, c.rule, c.inMessage)
			}
		})
	}
}

func TestParseConfigReportsEveryViolation(t *testing.T) {
	_, err := embedding.ParseConfig("baton.toml", []byte("[embedding]\nprovider = 'openai'\ncolour = 'red'\n"))
	var e *baton.Error
	if !errors.As(err, &e) {
		t.Fatal(err)
	}
	vs, _ := e.Details["violations"].([]embedding.Violation)
	// colour unknown; url, model, dims required.
	if len(vs) != 4 || !strings.Contains(e.Message, "(and 3 more)") {
		t.Fatalf("violations = %+v, message %q; want 4", vs, e.Message)
	}
}

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "baton.toml")
	if c, err := embedding.LoadConfig(missing, false); err != nil || c.Provider != embedding.ProviderBuiltin {
		t.Fatalf("optional missing file: %+v, %v; want the built-in provider", c, err)
	}
	_, err := embedding.LoadConfig(missing, true)
	var e *baton.Error
	if !errors.As(err, &e) || e.Code != baton.ErrConfigInvalid {
		t.Fatalf("named missing file: err = %v, want ERR_CONFIG_INVALID", err)
	}
	path := filepath.Join(dir, "named.toml")
	if err := os.WriteFile(path, []byte("[embedding]\nprovider = 'openai'\nurl = 'http://h/v1'\nmodel = 'm'\ndims = 8\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if c, err := embedding.LoadConfig(path, true); err != nil || c.Provider != "openai" || c.Model != "m" {
		t.Fatalf("LoadConfig = %+v, %v", c, err)
	}
}

// The plugin loader reads the same baton.toml: an [embedding] table must
// not be an unknown key to it, and a misspelt top-level key still is.
func TestPluginConfigAcceptsEmbeddingTable(t *testing.T) {
	src := "[embedding]\nprovider = 'openai'\nurl = 'http://h/v1'\nmodel = 'm'\ndims = 8\n\n[[plugin]]\nname = 'gh'\nurl = 'http://h/mcp'\n"
	c, err := plugin.Parse("baton.toml", []byte(src))
	if err != nil || len(c.Plugins) != 1 {
		t.Fatalf("plugin.Parse = %+v, %v", c, err)
	}
	if _, err := plugin.Parse("baton.toml", []byte("[embeding]\nprovider = 'openai'\n")); err == nil {
		t.Fatal("plugin.Parse accepted the misspelt table [embeding]")
	}
}

func TestNew(t *testing.T) {
	e, err := embedding.New(embedding.Config{}, os.Getenv)
	if err != nil || e.Model() != embedding.BuiltinModel || e.Dims() != embedding.BuiltinDims {
		t.Fatalf("New(zero) = %v, %v; want the built-in embedder", e, err)
	}
	e, err = embedding.New(embedding.Config{Provider: "openai", URL: "http://h/v1", Model: "m", Dims: 8}, os.Getenv)
	if _, ok := e.(*embedding.OpenAI); err != nil || !ok || e.Model() != "m" || e.Dims() != 8 {
		t.Fatalf("New(openai) = %T %v, %v", e, e, err)
	}
	for _, c := range []embedding.Config{{Provider: "onnx"}, {Provider: "openai"}, {URL: "http://h/v1"}} {
		_, err := embedding.New(c, os.Getenv)
		var be *baton.Error
		if !errors.As(err, &be) || be.Code != baton.ErrConfigInvalid {
			t.Errorf("New(%+v) err = %v, want ERR_CONFIG_INVALID", c, err)
		}
	}
}
