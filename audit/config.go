package audit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/baton-dev/baton"
	"github.com/baton-dev/baton/tomlconf"
)

// Defaults of the [audit] table.
const (
	DefaultCheckpointEvery   = 5 * time.Minute
	DefaultCheckpointRecords = 1000
	// KeyFile is the key's file name beside the database (SQLite) or in
	// the shared .baton directory (PostgreSQL) when key_file is unset.
	KeyFile = "audit.key"
)

// Config is the [audit] table of baton.toml:
//
//	[audit]
//	key_file = "/etc/baton/audit.key"  # the log's private key; default .baton/audit.key
//	checkpoint_every = "5m"            # baton serve signs a checkpoint this often (when the log grew)
//	checkpoint_records = 1000          # and after this many new records
//	witness_file = "/backup/baton-checkpoints"  # append every checkpoint here
//	witness_git = "/backup/baton-witness"       # and commit it to this git repository
//
// Relative paths are taken from the file's directory. No file, or no
// table, means the defaults and no witness.
type Config struct {
	KeyFile           string        `toml:"key_file"`
	CheckpointEvery   string        `toml:"checkpoint_every"`
	CheckpointRecords int           `toml:"checkpoint_records"`
	WitnessFile       string        `toml:"witness_file"`
	WitnessGit        string        `toml:"witness_git"`
	Every             time.Duration `toml:"-"`
}

var configKeys = "key_file, checkpoint_every, checkpoint_records, witness_file, witness_git"

// LoadConfig reads the [audit] table of the TOML file at path. A missing
// file is the defaults unless mustExist.
func LoadConfig(path string, mustExist bool) (Config, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && !mustExist {
		return Config{Every: DefaultCheckpointEvery, CheckpointRecords: DefaultCheckpointRecords}, nil
	}
	if err != nil {
		return Config{}, baton.Errorf(baton.ErrConfigInvalid, "cannot read the config %s: %v", path, err).
			WithDetails("file", path).
			WithHint("pass --config (or BATON_CONFIG) a readable TOML file, or leave both unset to use ./baton.toml if it exists")
	}
	return ParseConfig(path, b)
}

// ParseConfig decodes and checks the [audit] table of a TOML file's
// contents; path names the file in errors and anchors relative paths.
func ParseConfig(path string, data []byte) (Config, error) {
	var f struct {
		Audit Config `toml:"audit"`
	}
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		return Config{}, configError(path, []tomlconf.Violation{tomlconf.Decoding(err, "audit")})
	}
	var vs []tomlconf.Violation
	bad := func(field, rule, format string, args ...any) {
		vs = append(vs, tomlconf.Violation{Field: field, Rule: rule, Message: fmt.Sprintf(format, args...)})
	}
	for _, k := range md.Undecoded() {
		if len(k) == 2 && k[0] == "audit" {
			bad(k[1], "unknown_key", "unknown key %q in [audit] (known keys: %s)", k[1], configKeys)
		}
	}
	c := f.Audit
	c.Every = DefaultCheckpointEvery
	if c.CheckpointEvery != "" {
		d, err := time.ParseDuration(c.CheckpointEvery)
		switch {
		case err != nil:
			bad("checkpoint_every", "duration", "checkpoint_every = %q is not a duration such as \"5m\"", c.CheckpointEvery)
		case d < time.Second || d > 24*time.Hour:
			bad("checkpoint_every", "range", "checkpoint_every = %s must be between 1s and 24h", d)
		default:
			c.Every = d
		}
	}
	switch {
	case c.CheckpointRecords == 0:
		c.CheckpointRecords = DefaultCheckpointRecords
	case c.CheckpointRecords < 1 || c.CheckpointRecords > 10_000_000:
		bad("checkpoint_records", "range", "checkpoint_records = %d must be between 1 and 10000000", c.CheckpointRecords)
	}
	for _, p := range []struct {
		field string
		v     *string
	}{{"key_file", &c.KeyFile}, {"witness_file", &c.WitnessFile}, {"witness_git", &c.WitnessGit}} {
		if len(*p.v) > 4096 {
			bad(p.field, "max_length", "%s is longer than 4096 bytes", p.field)
		} else if *p.v != "" && !filepath.IsAbs(*p.v) {
			*p.v = filepath.Join(filepath.Dir(path), *p.v)
		}
	}
	if len(vs) > 0 {
		return Config{}, configError(path, vs)
	}
	return c, nil
}

func configError(path string, vs []tomlconf.Violation) error {
	return tomlconf.Error(path, "audit", vs, "see docs/audit.md for the [audit] keys")
}
