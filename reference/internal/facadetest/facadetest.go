// Package facadetest holds the checks the facade tests of both eras share: owner scoping
// by the owner truth table of docs/spec.md section 0, the S-OWN-2 check that a denied
// task reads like a missing one, and the S-CTX-1 check of a facade's retry loop.
package facadetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/storecheck/storecheck/reference"
)

// Row is one line of the truth table: whether Caller may see a task owned by Owner with
// require_owner off (Default) and on (Require).
type Row struct {
	Owner            string
	Caller           reference.Caller
	Default, Require bool
}

// Allowed is the row's answer under requireOwner.
func (r Row) Allowed(requireOwner bool) bool {
	if requireOwner {
		return r.Require
	}
	return r.Default
}

// Table is the truth table plus the system caller; extra rows (a facade's own cases of
// exact matching) stand after the principal rows, before the system's.
func Table(extra ...Row) []Row {
	rows := []Row{
		{"", reference.Anonymous(), true, false},
		{"", reference.Principal("X"), true, false},
		{"Y", reference.Anonymous(), false, false},
		{"Y", reference.Principal("Y"), true, true},
		{"Y", reference.Principal("X"), false, false},
		{"Y", reference.Principal("y"), false, false},
	}
	rows = append(rows, extra...)
	return append(rows,
		Row{"", reference.System(), true, true},
		Row{"Y", reference.System(), true, true},
	)
}

// CheckNotFound checks that err, from op on task id, is the not-found of rule, and
// (S-OWN-2) that a denied task reads like a missing one, value and message.
func CheckNotFound(t testing.TB, rule, op string, err error, id string) {
	t.Helper()
	if !errors.Is(err, reference.ErrNotFound) {
		t.Errorf("%s: %s: want ErrNotFound, got %v", rule, op, err)
		return
	}
	if want := reference.NotFound(id).Error(); err.Error() != want {
		t.Errorf("S-OWN-2: %s: a denied task must read like a missing one: want message %q, got %q", op, want, err.Error())
	}
}

// CheckRetryHonoursContext checks S-CTX-1 for a facade's own retry loop: op, run by
// retry against a store that always conflicts, must end with its context's 50 ms
// deadline.
func CheckRetryHonoursContext(t testing.TB, op string, retry func(ctx context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- retry(ctx) }()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("S-CTX-1: %s retrying against a store that always conflicts: want context.DeadlineExceeded, got %v", op, err)
		}
	case <-time.After(2 * time.Second):
		t.Fatalf("S-CTX-1: %s retrying against a store that always conflicts ignored its context's 50 ms deadline", op)
	}
}
