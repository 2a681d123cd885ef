package embedding

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tomlconf"
)

// Providers of Config.Provider.
const (
	ProviderBuiltin = "builtin" // the local GloVe embedder (the default)
	ProviderOpenAI  = "openai"  // an OpenAI-compatible /embeddings endpoint
)

// Defaults of the openai provider.
const (
	DefaultBatchSize = 64
	DefaultTimeout   = 30 * time.Second
	maxBatchSize     = 2048
	maxTimeout       = 10 * time.Minute
	maxDims          = 65536
)

// Config is the [embedding] table of baton.toml:
//
//	[embedding]
//	provider = "openai"                  # or "builtin" (the default)
//	url = "http://localhost:11434/v1"    # base URL; baton POSTs {url}/embeddings
//	model = "nomic-embed-text"
//	dims = 768                           # the model's vector length
//	api_key_env = "OPENAI_API_KEY"       # optional: the variable holding the key
//	batch_size = 64                      # optional: texts per request
//	timeout = "30s"                      # optional: per request
//
// A file without the table, or no file, means the built-in embedder.
type Config struct {
	Provider  string `toml:"provider"`
	URL       string `toml:"url"`
	Model     string `toml:"model"`
	APIKeyEnv string `toml:"api_key_env"`
	Dims      int    `toml:"dims"`
	BatchSize int    `toml:"batch_size"`
	Timeout   string `toml:"timeout"`
}

// keys are the [embedding] keys, for the message on an unknown one.
var keys = "provider, url, model, dims, api_key_env, batch_size, timeout"

// envNameRE is what an environment variable's name looks like; a key
// pasted into api_key_env does not.
var envNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// Violation is one broken rule of the [embedding] table.
type Violation = tomlconf.Violation

// LoadConfig reads the [embedding] table of the TOML file at path (the
// other tables of the file are not its business). A missing file is the
// default config when mustExist is false, ERR_CONFIG_INVALID when true.
func LoadConfig(path string, mustExist bool) (Config, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && !mustExist {
		return Config{Provider: ProviderBuiltin}, nil
	}
	if err != nil {
		return Config{}, baton.Errorf(baton.ErrConfigInvalid, "cannot read the config %s: %v", path, err).
			WithDetails("file", path).
			WithHint("pass --config (or BATON_CONFIG) a readable TOML file, or leave both unset to use ./baton.toml if it exists")
	}
	return ParseConfig(path, b)
}

// ParseConfig decodes and validates the [embedding] table of a TOML
// file's contents; path names the file in errors. Every broken rule is
// reported in the details, the first in the message. Defaults are filled
// in: provider builtin, batch_size 64, timeout 30s.
func ParseConfig(path string, data []byte) (Config, error) {
	var f struct {
		Embedding Config `toml:"embedding"`
	}
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		// Not TOML at all, or a value of the wrong type.
		v := tomlconf.Decoding(err, "embedding")
		return Config{}, configError(path, []Violation{v})
	}
	var vs []Violation
	for _, k := range md.Undecoded() {
		if len(k) == 2 && k[0] == "embedding" {
			vs = append(vs, Violation{Field: k[1], Rule: "unknown_key",
				Message: fmt.Sprintf("unknown key %q in [embedding] (known keys: %s)", k[1], keys)})
		}
	}
	c := f.Embedding
	vs = append(vs, c.validate()...)
	if len(vs) > 0 {
		return Config{}, configError(path, vs)
	}
	if c.Provider == "" {
		c.Provider = ProviderBuiltin
	}
	if c.Provider == ProviderOpenAI {
		if c.BatchSize == 0 {
			c.BatchSize = DefaultBatchSize
		}
		if c.Timeout == "" {
			c.Timeout = DefaultTimeout.String()
		}
	}
	return c, nil
}

// validate checks c as written in the file (before defaults).
func (c Config) validate() []Violation {
	var vs []Violation
	bad := func(field, rule, format string, args ...any) {
		vs = append(vs, Violation{Field: field, Rule: rule, Message: fmt.Sprintf(format, args...)})
	}
	switch c.Provider {
	case "", ProviderBuiltin:
		// The built-in model has nothing to configure; a key set here was
		// meant for an endpoint, and ignoring it would hide the mistake.
		for _, f := range []struct {
			name string
			set  bool
		}{{"url", c.URL != ""}, {"model", c.Model != ""}, {"api_key_env", c.APIKeyEnv != ""},
			{"batch_size", c.BatchSize != 0}, {"timeout", c.Timeout != ""}} {
			if f.set {
				bad(f.name, "openai_only", "%s applies to provider = %q only; the built-in embedder takes no settings", f.name, ProviderOpenAI)
			}
		}
		if c.Dims != 0 && c.Dims != BuiltinDims {
			bad("dims", "enum", "dims = %d, but the built-in embedder makes %d-dimensional vectors", c.Dims, BuiltinDims)
		}
		return vs
	case ProviderOpenAI:
	default:
		bad("provider", "enum", "provider %q is not one of %q, %q", c.Provider, ProviderBuiltin, ProviderOpenAI)
		return vs
	}
	if c.URL == "" {
		bad("url", "required", "url is required with provider = %q: the base URL, e.g. http://localhost:11434/v1 for Ollama", ProviderOpenAI)
	} else if u, err := url.Parse(c.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		bad("url", "format", "url %q must be an absolute http:// or https:// URL", c.URL)
	} else if u.User != nil {
		bad("url", "credentials", "url must not carry credentials; name the variable holding the key in api_key_env")
	}
	if strings.TrimSpace(c.Model) == "" {
		bad("model", "required", "model is required with provider = %q, e.g. text-embedding-3-small or nomic-embed-text", ProviderOpenAI)
	}
	if c.Dims == 0 {
		bad("dims", "required", "dims is required with provider = %q: the length of the model's vectors (1536 for text-embedding-3-small, 768 for nomic-embed-text)", ProviderOpenAI)
	} else if c.Dims < 0 || c.Dims > maxDims {
		bad("dims", "range", "dims = %d is outside 1..%d", c.Dims, maxDims)
	}
	if c.APIKeyEnv != "" && !envNameRE().MatchString(c.APIKeyEnv) {
		bad("api_key_env", "pattern", "api_key_env must name an environment variable (letters, digits, _), not hold the key itself")
	}
	if c.BatchSize < 0 || c.BatchSize > maxBatchSize {
		bad("batch_size", "range", "batch_size = %d is outside 1..%d", c.BatchSize, maxBatchSize)
	}
	if c.Timeout != "" {
		if d, err := time.ParseDuration(c.Timeout); err != nil || d <= 0 || d > maxTimeout {
			bad("timeout", "format", "timeout %q must be a duration between 1ms and %s, e.g. \"30s\"", c.Timeout, maxTimeout)
		}
	}
	return vs
}

// configError is ERR_CONFIG_INVALID for vs: the first in the message, all
// of them in details.
func configError(path string, vs []Violation) *baton.Error {
	return tomlconf.Error(path, "embedding", vs, "[embedding] takes provider = \"builtin\" (no other keys) or provider = \"openai\" with url, model and dims")
}

// New returns the embedder c describes. getenv reads the API key (named by
// c.APIKeyEnv); pass os.Getenv. c should come from ParseConfig or
// LoadConfig; a zero Config is the built-in embedder.
func New(c Config, getenv func(string) string) (baton.Embedder, error) {
	switch c.Provider {
	case "", ProviderBuiltin:
		if vs := c.validate(); len(vs) > 0 {
			return nil, configError("config", vs)
		}
		return NewBuiltin(), nil
	case ProviderOpenAI:
		return NewOpenAI(c, getenv)
	}
	return nil, configError("config", c.validate())
}
