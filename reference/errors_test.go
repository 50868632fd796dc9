package reference

import (
	"errors"
	"fmt"
	"testing"
)

func TestNotFoundMessage(t *testing.T) {
	err := NotFound("t1")
	if !errors.Is(err, ErrNotFound) || err.Error() != "task not found: t1" {
		t.Errorf("S-OWN-2: NotFound(t1): want ErrNotFound with message %q, got %v", "task not found: t1", err)
	}
	if wrapped := fmt.Errorf("ctx: %w", ErrorFor(ErrTerminal, "t2")); !errors.Is(wrapped, ErrTerminal) {
		t.Errorf("ErrorFor(ErrTerminal) must unwrap to ErrTerminal, got %v", wrapped)
	}
}

func TestCodes(t *testing.T) {
	want := map[error]string{
		ErrNotFound: "not_found", ErrExists: "exists", ErrConflict: "conflict", ErrInvalid: "invalid",
		ErrTooLarge: "too_large", ErrTerminal: "terminal", ErrLimitReached: "limit_reached",
		ErrUnsupported: "unsupported", ErrInternal: "internal", ErrNoResult: "no_result",
		ErrInvalidTransition: "invalid_transition", ErrKeyReused: "key_reused", errors.New("other"): "internal",
	}
	for err, code := range want {
		if got := Code(fmt.Errorf("wrapped: %w", err)); got != code {
			t.Errorf("Code(%v): want %q, got %q", err, code, got)
		}
		if code == "internal" && err != ErrInternal {
			continue
		}
		back, ok := FromCode(code)
		if !ok || back != err {
			t.Errorf("FromCode(%q): want (%v, true), got (%v, %v)", code, err, back, ok)
		}
	}
	if _, ok := FromCode("nope"); ok {
		t.Errorf("FromCode(\"nope\"): want false")
	}
}
