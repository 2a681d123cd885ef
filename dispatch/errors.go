package dispatch

import (
	"errors"
	"fmt"
	"io/fs"
	"os/exec"

	"github.com/baton-dev/baton"
)

// message is what an error says, without a structured error's code.
func message(err error) string {
	var e *baton.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}

// explain is message with a structured error's hint, so the person who
// reads a run's error learns what to do about it.
func explain(err error) string {
	var e *baton.Error
	if errors.As(err, &e) && e.Hint != "" {
		return e.Message + " (" + e.Hint + ")"
	}
	var se *startError
	if errors.As(err, &se) && se.misconfigured() {
		return se.Error() + " (" + se.hint() + ")"
	}
	return message(err)
}

// startError is an agent command that could not start.
type startError struct {
	profile, program, path string
	err                    error
}

func (e *startError) Error() string {
	return fmt.Sprintf("[dispatch.profiles.%s] command cannot start %s: %v", e.profile, e.program, e.err)
}

func (e *startError) Unwrap() error { return e.err }

// misconfigured reports whether the command itself is wrong (no such
// program, not executable): every item would fail alike, so it is the
// configuration's fault, not the item's.
func (e *startError) misconfigured() bool {
	return errors.Is(e.err, exec.ErrNotFound) || errors.Is(e.err, fs.ErrNotExist) || errors.Is(e.err, fs.ErrPermission) ||
		errors.Is(e.err, exec.ErrDot)
}

// hint says how to fix a misconfigured command.
func (e *startError) hint() string {
	where := e.path
	if where == "" {
		where = "baton.toml"
	}
	return fmt.Sprintf("fix command in [dispatch.profiles.%s] of %s (the program must exist and be executable; a bare name is looked up in PATH), then restart the dispatcher", e.profile, where)
}
