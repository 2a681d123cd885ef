// Package tomlconf holds what the tables of baton.toml share when they
// are read: a broken rule (Violation), the error that reports all of a
// table's broken rules, and the violation a TOML decoding error is.
// Each table ([embedding], [dispatch]) keeps its own keys and rules.
package tomlconf

import (
	"errors"
	"fmt"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/baton-dev/baton"
)

// Violation is one broken rule of a table.
type Violation struct {
	Field   string `json:"field"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// Decoding is the violation a decoding error of table is: a syntax error
// with its line, or a value of the wrong type.
func Decoding(err error, table string) Violation {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return Violation{Rule: "syntax", Message: fmt.Sprintf("line %d: %s", pe.Position.Line, pe.Message)}
	}
	return Violation{Field: table, Rule: "type", Message: strings.TrimPrefix(err.Error(), "toml: ")}
}

// Error is ERR_CONFIG_INVALID for the broken rules of table in the file
// at path: the first in the message, all of them in details. The hint
// says to fix the first one's field, then advice.
func Error(path, table string, vs []Violation, advice string) *baton.Error {
	v := vs[0]
	msg := fmt.Sprintf("%s: [%s]: %s", path, table, v.Message)
	if len(vs) > 1 {
		msg += fmt.Sprintf(" (and %d more)", len(vs)-1)
	}
	field := v.Field
	if field == "" {
		field = "the TOML syntax"
	}
	return baton.Errorf(baton.ErrConfigInvalid, "%s", msg).
		WithDetails("file", path, "field", v.Field, "rule", v.Rule, "violations", vs).
		WithHint("fix %s in %s; %s", field, path, advice)
}
