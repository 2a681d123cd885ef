package baton_test

import (
	"encoding/json"
	"testing"

	"github.com/baton-dev/baton"
)

// TestPoint20ErrorType: every error reaches a client with Botholomew's
// error_type beside baton's code, in the envelope's JSON, whatever built it.
func TestPoint20ErrorType(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  *baton.Error
		want string
	}{
		{"invalid input", baton.Errorf(baton.ErrInvalidInput, "x"), "invalid_input"},
		{"task not found", baton.TaskNotFound("COL-9"), "not_found"},
		{"project not found", baton.ProjectNotFound("nope"), "not_found"},
		{"agent not found", baton.Errorf(baton.ErrAgentNotFound, "x"), "not_found"},
		{"generic not found", baton.Errorf(baton.ErrNotFound, "x"), "not_found"},
		{"transition", baton.Errorf(baton.ErrInvalidTransition, "x"), "conflict"},
		{"claimed", baton.Errorf(baton.ErrClaimed, "x"), "conflict"},
		{"duplicate", baton.Errorf(baton.ErrConflict, "x").WithType("duplicate"), "conflict"},
		{"path conflict keeps Botholomew's own word", baton.Errorf(baton.ErrConflict, "x").WithType("path_conflict"), "path_conflict"},
		{"refresh failed keeps Botholomew's own word", baton.Errorf(baton.ErrInternal, "x").WithType("refresh_failed"), "refresh_failed"},
		{"out of scope", baton.Errorf(baton.ErrPermissionDenied, "x").WithType("out_of_scope"), "forbidden_tool"},
		{"no token", baton.Errorf(baton.ErrPermissionDenied, "x").WithType("unauthenticated"), "auth_error"},
		{"rate limited", baton.Errorf(baton.ErrRateLimited, "x"), "rate_limited"},
		{"internal", baton.Errorf(baton.ErrInternal, "x"), "internal_error"},
		{"built as a literal", &baton.Error{Code: baton.ErrSkillNotFound, Message: "x"}, "not_found"},
		{"unknown code", &baton.Error{Code: "ERR_SOMETHING_NEW", Message: "x"}, "internal_error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.err.ErrorType(); got != tc.want {
				t.Errorf("ErrorType() = %q, want %q", got, tc.want)
			}
			b, err := json.Marshal(baton.Envelope{Error: tc.err})
			if err != nil {
				t.Fatal(err)
			}
			var env struct {
				Error map[string]any `json:"error"`
			}
			if err := json.Unmarshal(b, &env); err != nil {
				t.Fatal(err)
			}
			if env.Error["error_type"] != tc.want || env.Error["code"] != tc.err.Code || env.Error["message"] != tc.err.Message {
				t.Errorf("envelope = %s, want error_type %q beside code %s", b, tc.want, tc.err.Code)
			}
			// The rest of the envelope is unchanged by the extra field.
			var back baton.Error
			if err := json.Unmarshal(b[len(`{"error":`):len(b)-1], &back); err != nil || back.Code != tc.err.Code || back.Type != tc.err.Type {
				t.Errorf("round trip = %+v, %v", back, err)
			}
		})
	}
}

// TestEveryCodeHasAnErrorType: a new code must say which Botholomew kind it
// is, rather than falling silently into internal_error.
func TestEveryCodeHasAnErrorType(t *testing.T) {
	for _, code := range baton.ErrorCodes {
		e := &baton.Error{Code: code}
		if got := e.ErrorType(); got == baton.ErrorTypeInternal &&
			code != baton.ErrInternal && code != baton.ErrInitFailed && code != baton.ErrConfigInvalid {
			t.Errorf("%s reads as %s: give it its Botholomew kind in errorTypes", code, got)
		}
	}
}
