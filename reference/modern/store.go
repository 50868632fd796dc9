package modern

import (
	"context"

	"github.com/storecheck/storecheck/reference"
)

// Store is the modern store contract (docs/spec.md 2.1). It has no List: task ids are bearer
// tokens. A store takes its clock (for expiry) from its constructor. Every method is safe
// for concurrent use (S-CONC-1) and honours its context (S-CTX-1).
type Store interface {
	// Create stores task with Version = 1 and returns it; an existing id (expired or
	// not, until swept) fails with reference.ErrExists (M-CREATE-1). The task is
	// durable, visible to every instance sharing the backend, on return (M-CREATE-2).
	Create(ctx context.Context, task Task) (Task, error)
	// Get returns the task, or reference.ErrNotFound when it is missing, expired
	// (now ≥ created_at + ttl) or not visible to caller (M-GET-1). At the store an
	// owned task is visible to its principal and to the system; an unowned one to all.
	Get(ctx context.Context, id string, caller reference.Caller) (Task, error)
	// Swap replaces the task next.TaskID atomically iff it exists, is visible to caller
	// and its version equals expectedVersion; it stores Version = expectedVersion + 1
	// and returns the stored task (M-SWAP-1). A version mismatch is
	// reference.ErrConflict; a missing, expired or foreign task reference.ErrNotFound
	// (M-SWAP-2); a change of task_id, owner or created_at reference.ErrInvalid
	// (M-SWAP-3). A failed Swap changes nothing.
	Swap(ctx context.Context, caller reference.Caller, expectedVersion int64, next Task) (Task, error)
	// Delete removes the task; it is idempotent (M-DELETE-1).
	Delete(ctx context.Context, id string) error
	// Sweep deletes every expired task, and only those, and returns the count
	// (M-SWEEP-1).
	Sweep(ctx context.Context) (int, error)
}
