// Package legacywrite gives a legacy store's Update, UpdateIf and Cancel from the one
// read-merge-write its adapter implements, so the three keep the same op names and the
// same rule for a nil allowed in every adapter that writes that way (postgres, redis).
package legacywrite

import (
	"context"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

// Modify is an adapter's read-merge-write of changes into task id. op names the call in
// its errors; a nil allowed admits every status, a non-nil one only the statuses listed
// (reference.ErrConflict otherwise, with nothing written).
type Modify func(ctx context.Context, op, id string, allowed []reference.Status, changes legacy.Task) (legacy.Task, error)

// Writes is embedded by a legacy store to give it Update, UpdateIf and Cancel over its
// Modify.
type Writes struct{ Modify Modify }

// Update shallow-merges changes into the task (L-UPDATE-1); a missing id is
// reference.ErrNotFound and creates nothing (L-UPDATE-2).
func (w Writes) Update(ctx context.Context, id string, changes legacy.Task) (legacy.Task, error) {
	return w.Modify(ctx, "update", id, nil, changes)
}

// UpdateIf is Update applied only when the task's status (working when absent) is one of
// allowed; otherwise reference.ErrConflict and nothing is written (L-F-FIN-2).
func (w Writes) UpdateIf(ctx context.Context, id string, allowed []reference.Status, changes legacy.Task) (legacy.Task, error) {
	if allowed == nil {
		allowed = []reference.Status{} // nil would mean "any status" to Modify
	}
	return w.Modify(ctx, "update-if", id, allowed, changes)
}

// Cancel sets status cancelled and returns the task (L-CANCEL-1). Finality is the
// facade's: it claims the task with UpdateIf first.
func (w Writes) Cancel(ctx context.Context, id string) (legacy.Task, error) {
	return w.Modify(ctx, "cancel", id, nil, legacy.Task{legacy.KeyStatus: string(reference.StatusCancelled)})
}
