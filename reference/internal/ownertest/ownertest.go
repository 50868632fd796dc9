// Package ownertest holds what the facade tests of both eras check owner scoping with:
// the owner truth table of docs/spec.md section 0 and the S-OWN-2 check that a denied
// task reads like a missing one.
package ownertest

import (
	"errors"
	"testing"

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
