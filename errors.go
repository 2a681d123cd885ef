// Package baton holds the domain of the baton coordination server: work
// items, projects, principals, errors and the store interfaces every backend
// implements. Packages below the root hold one dependency each.
package baton

import (
	"errors"
	"fmt"
	"strings"
)

// Error codes. The set is DESIGN.md's, a superset of the catalogues'.
const (
	ErrInvalidInput       = "ERR_INVALID_INPUT"
	ErrNotFound           = "ERR_NOT_FOUND"
	ErrTaskNotFound       = "ERR_TASK_NOT_FOUND"
	ErrProjectNotFound    = "ERR_PROJECT_NOT_FOUND"
	ErrSessionNotFound    = "ERR_SESSION_NOT_FOUND"
	ErrSkillNotFound      = "ERR_SKILL_NOT_FOUND"
	ErrAgentNotFound      = "ERR_AGENT_NOT_FOUND"
	ErrInvalidTransition  = "ERR_INVALID_TRANSITION"
	ErrCircularDependency = "ERR_CIRCULAR_DEPENDENCY"
	ErrAlreadyFinalized   = "ERR_ALREADY_FINALIZED"
	ErrPermissionDenied   = "ERR_PERMISSION_DENIED"
	ErrConflict           = "ERR_CONFLICT"
	ErrClaimed            = "ERR_CLAIMED"
	ErrRateLimited        = "ERR_RATE_LIMITED"
	ErrInvalidMode        = "ERR_INVALID_MODE"
	ErrConfigInvalid      = "ERR_CONFIG_INVALID"
	ErrInitFailed         = "ERR_INIT_FAILED"
	ErrInternal           = "ERR_INTERNAL"
)

// ErrorCodes lists every code a tool may return, in documentation order.
var ErrorCodes = []string{
	ErrInvalidInput, ErrNotFound, ErrTaskNotFound, ErrProjectNotFound,
	ErrSessionNotFound, ErrSkillNotFound, ErrAgentNotFound, ErrInvalidTransition,
	ErrCircularDependency, ErrAlreadyFinalized, ErrPermissionDenied, ErrConflict,
	ErrClaimed, ErrRateLimited, ErrInvalidMode, ErrConfigInvalid, ErrInitFailed,
	ErrInternal,
}

// Error is the one failure shape of every tool, on every transport. It
// marshals as the inner object of the envelope {"error": {...}}.
type Error struct {
	Code    string         `json:"code"`
	Type    string         `json:"type"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
	Hint    string         `json:"next_action_hint,omitempty"`
}

// Envelope is the structured content of a failed tool call.
type Envelope struct {
	Error *Error `json:"error"`
}

func (e *Error) Error() string {
	if e.Hint != "" {
		return e.Code + ": " + e.Message + " (" + e.Hint + ")"
	}
	return e.Code + ": " + e.Message
}

// Errorf builds an Error whose type is derived from its code
// (ERR_INVALID_TRANSITION -> invalid_transition).
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Type: typeOf(code), Message: fmt.Sprintf(format, args...)}
}

// WithDetails adds key/value pairs to the error's details and returns it.
func (e *Error) WithDetails(kv ...any) *Error {
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		e.Details[fmt.Sprint(kv[i])] = kv[i+1]
	}
	return e
}

// WithHint sets the next_action_hint: what the caller should do now.
func (e *Error) WithHint(format string, args ...any) *Error {
	e.Hint = fmt.Sprintf(format, args...)
	return e
}

// WithType overrides the derived type, e.g. ERR_CONFLICT of type path_conflict.
func (e *Error) WithType(t string) *Error {
	e.Type = t
	return e
}

func typeOf(code string) string {
	return strings.ToLower(strings.TrimPrefix(code, "ERR_"))
}

// AsError returns err as an *Error; anything else becomes ERR_INTERNAL, so a
// caller never sees a bare Go error.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return Errorf(ErrInternal, "internal error: %v", err).
		WithHint("this is a bug in baton or its storage; retry once, then report it with the message")
}

// ErrorCode returns the code of err, or "" when err is nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	return AsError(err).Code
}
