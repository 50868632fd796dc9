package reference

import "errors"

// Sentinel errors. Stores and facades wrap them; callers test with errors.Is. Each has a
// wire form (docs/wire.md), see Code and FromCode.
var (
	ErrNotFound          = errors.New("task not found")
	ErrExists            = errors.New("task already exists")
	ErrConflict          = errors.New("version conflict")
	ErrInvalid           = errors.New("invalid argument")
	ErrTooLarge          = errors.New("task too large")
	ErrTerminal          = errors.New("task is in a terminal status")
	ErrInvalidTransition = errors.New("invalid status transition")
	ErrKeyReused         = errors.New("input key already issued")
	ErrLimitReached      = errors.New("store limit reached")
	ErrUnsupported       = errors.New("operation not supported")
	ErrInternal          = errors.New("internal store error")
	// ErrNoResult answers a request for the result of a task that has none (the SDK
	// profile's GetTaskResult of a task that is not terminal, or was cancelled).
	ErrNoResult = errors.New("task has no result")
)

// IDError is a sentinel error about one task id. Its message is the sentinel's text with
// the id substituted ("task not found: t1"), so a denied task and a missing one produce
// the same message (S-OWN-2).
type IDError struct {
	Err error
	ID  string
}

func (e *IDError) Error() string { return e.Err.Error() + ": " + e.ID }
func (e *IDError) Unwrap() error { return e.Err }

// NotFound is the one error for a missing, expired or invisible task (S-OWN-2, M-SWAP-2).
func NotFound(id string) error { return &IDError{Err: ErrNotFound, ID: id} }

// ErrorFor wraps sentinel with the id it concerns: "<sentinel text>: <id>".
func ErrorFor(sentinel error, id string) error { return &IDError{Err: sentinel, ID: id} }

var codes = []struct {
	err  error
	code string
}{
	{ErrNotFound, "not_found"},
	{ErrExists, "exists"},
	{ErrConflict, "conflict"},
	{ErrInvalid, "invalid"},
	{ErrTooLarge, "too_large"},
	{ErrTerminal, "terminal"},
	{ErrLimitReached, "limit_reached"},
	{ErrUnsupported, "unsupported"},
	{ErrInternal, "internal"},
	{ErrNoResult, "no_result"},
	// Facade errors, never a store's: wire protocol 2 carries them with codes of their own.
	{ErrInvalidTransition, "invalid_transition"},
	{ErrKeyReused, "key_reused"},
}

// Code is the wire code of err (docs/wire.md); errors without a sentinel map to
// "internal".
func Code(err error) string {
	for _, c := range codes {
		if errors.Is(err, c.err) {
			return c.code
		}
	}
	return "internal"
}

// FromCode returns the sentinel for a wire code, and false for an unknown code.
func FromCode(code string) (error, bool) {
	for _, c := range codes {
		if c.code == code {
			return c.err, true
		}
	}
	return nil, false
}
