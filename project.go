package baton

import (
	"regexp"
	"sync"
	"time"
)

// Project groups work items. Its prefix starts every item id (SYM-42).
type Project struct {
	Slug   string
	Prefix string
	Name   string
	Root   string // repository directory; docs/tickets/<ID>/ lives under it
	// Tools is the project's tool bundle: tools every session of the
	// project gets besides its profile's (see AccessTx.SetProjectTools).
	Tools     []string
	CreatedAt time.Time
}

var (
	slugRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`) })
	prefixRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]{0,9}$`) })
)

// Validate checks the slug and prefix formats.
func (p *Project) Validate() error {
	if !slugRE().MatchString(p.Slug) {
		return Errorf(ErrInvalidInput, "project slug %q is not valid", p.Slug).
			WithDetails("field", "project", "rule", "pattern", "pattern", slugRE().String()).
			WithHint("use 1-63 lowercase letters, digits, '-' or '_', starting with a letter or digit")
	}
	if !prefixRE().MatchString(p.Prefix) {
		return Errorf(ErrInvalidInput, "identifier prefix %q is not valid", p.Prefix).
			WithDetails("field", "prefix", "rule", "pattern", "pattern", prefixRE().String()).
			WithHint("use 1-10 letters or digits, starting with a letter, e.g. SYM")
	}
	return nil
}

// ProjectNotFound is the error for an unknown project slug.
func ProjectNotFound(slug string) *Error {
	return Errorf(ErrProjectNotFound, "project %q does not exist", slug).
		WithDetails("project", slug).
		WithHint("create it with `baton init --project %s --prefix P`, or pass an existing project slug", slug)
}

// TaskNotFound is the error for an unknown work item id.
func TaskNotFound(id string) *Error {
	return Errorf(ErrTaskNotFound, "task %q does not exist", id).
		WithDetails("task_id", id).
		WithHint("check the id with task_list; ids look like PREFIX-NUMBER")
}
