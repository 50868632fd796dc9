package modern

import (
	"fmt"

	"github.com/storecheck/storecheck/reference"
)

// Helpers that encode M-GET-1 and M-SWAP-1..3 once, for every store that evaluates them
// in process (the memory stores, a store that locks a row before writing).

// VisibleAt reports whether the stored task t is found by caller at nowMillis (M-GET-1):
// not expired, and visible under the owner truth table with require_owner off (the
// store's setting, section 2.1).
func (t Task) VisibleAt(caller reference.Caller, nowMillis int64) bool {
	return !t.Expired(nowMillis) && reference.CanSee(t.Owner, caller, false)
}

// CheckSwap decides a Swap of next over cur (found = cur exists) at nowMillis: nil when
// the swap may proceed; reference.NotFound when cur is missing, expired or invisible to
// caller (never ErrConflict then: no existence leak, M-SWAP-2); reference.ErrInvalid when
// next changes owner or created_at (M-SWAP-3); reference.ErrConflict when cur's version
// is not expectedVersion (M-SWAP-2).
func CheckSwap(cur Task, found bool, caller reference.Caller, expectedVersion int64, next Task, nowMillis int64) error {
	if !found {
		return CheckSwapRow(nil, caller, expectedVersion, &next, nowMillis)
	}
	return CheckSwapRow(&cur, caller, expectedVersion, &next, nowMillis)
}

// CheckSwapRow is CheckSwap over pointers, for a store that keeps its rows behind
// pointers and would otherwise copy two whole tasks per Swap: cur nil = no such task.
// Neither task is modified.
func CheckSwapRow(cur *Task, caller reference.Caller, expectedVersion int64, next *Task, nowMillis int64) error {
	id := next.TaskID
	if cur == nil || cur.Expired(nowMillis) || !reference.CanSee(cur.Owner, caller, false) {
		return reference.NotFound(id)
	}
	if next.Owner != cur.Owner {
		return fmt.Errorf("%w: swap of task %s would change owner from %q to %q", reference.ErrInvalid, id, cur.Owner, next.Owner)
	}
	if next.CreatedAt != cur.CreatedAt {
		return fmt.Errorf("%w: swap of task %s would change created_at from %d to %d", reference.ErrInvalid, id, cur.CreatedAt, next.CreatedAt)
	}
	if cur.Version != expectedVersion {
		return fmt.Errorf("%w: task %s is at version %d, not %d", reference.ErrConflict, id, cur.Version, expectedVersion)
	}
	return nil
}
