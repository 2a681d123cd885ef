package baton

import "encoding/json"

// Botholomew's error kinds (error_type), as its tools and the membot
// operations name them (spec/membot-operations.md §2). Every baton error
// carries one beside its code, so an agent prompt written for Botholomew
// branches on the words it knows.
const (
	ErrorTypeInvalidInput  = "invalid_input"
	ErrorTypeNotFound      = "not_found"
	ErrorTypeConflict      = "conflict"
	ErrorTypePathConflict  = "path_conflict"
	ErrorTypeForbiddenTool = "forbidden_tool"
	ErrorTypeAuth          = "auth_error"
	ErrorTypeRateLimited   = "rate_limited"
	ErrorTypeInternal      = "internal_error"
)

// errorTypes maps each code to its Botholomew kind. A code missing here
// (none today; TestEveryCodeHasAnErrorType keeps it so) reads as
// internal_error, Botholomew's word for "anything else".
var errorTypes = map[string]string{
	ErrInvalidInput:       ErrorTypeInvalidInput,
	ErrNotFound:           ErrorTypeNotFound,
	ErrTaskNotFound:       ErrorTypeNotFound,
	ErrProjectNotFound:    ErrorTypeNotFound,
	ErrSessionNotFound:    ErrorTypeNotFound,
	ErrSkillNotFound:      ErrorTypeNotFound,
	ErrAgentNotFound:      ErrorTypeNotFound,
	ErrInvalidTransition:  ErrorTypeConflict,
	ErrCircularDependency: ErrorTypeConflict,
	ErrAlreadyFinalized:   ErrorTypeConflict,
	ErrConflict:           ErrorTypeConflict,
	ErrClaimed:            ErrorTypeConflict,
	ErrPermissionDenied:   ErrorTypeForbiddenTool,
	ErrInvalidMode:        ErrorTypeForbiddenTool,
	ErrRateLimited:        ErrorTypeRateLimited,
	ErrConfigInvalid:      ErrorTypeInternal,
	ErrInitFailed:         ErrorTypeInternal,
	ErrInternal:           ErrorTypeInternal,
}

// botholomewTypes are the error_type words of Botholomew's tools and the
// membot operations. A baton error whose type is one of them (set with
// WithType, e.g. path_conflict or refresh_failed) keeps it as its
// error_type: it is already Botholomew's word for the case.
var botholomewTypes = map[string]bool{
	"input_error": true, "not_found": true, "conflict": true, "auth_error": true, "network_error": true,
	"unsupported_mime": true, "partial_failure": true, "internal_error": true, "invalid_input": true,
	"path_conflict": true, "forbidden_tool": true, "inner_tool_error": true, "unknown_tool": true,
	"refresh_failed": true, "source_not_found": true, "source_too_large": true, "invalid_json": true,
	"invalid_expression": true, "evaluation_error": true, "write_failed": true, "unknown_id": true,
	"page_out_of_range": true,
}

// ErrorType is the error's kind in Botholomew's vocabulary: its type when
// that is one of Botholomew's words, else derived from the code, except
// that a caller who was not recognised (rather than not allowed) is an
// auth_error.
func (e *Error) ErrorType() string {
	if botholomewTypes[e.Type] {
		return e.Type
	}
	switch e.Type {
	case "unauthenticated", "session_mismatch":
		return ErrorTypeAuth
	}
	if t, ok := errorTypes[e.Code]; ok {
		return t
	}
	return ErrorTypeInternal
}

// MarshalJSON writes the error with error_type beside code, computed when
// the error is written, so every error reaches clients with it however it
// was built.
func (e Error) MarshalJSON() ([]byte, error) {
	type fields Error // the same fields without this method
	return json.Marshal(struct {
		fields
		ErrorType string `json:"error_type"`
	}{fields(e), e.ErrorType()})
}
