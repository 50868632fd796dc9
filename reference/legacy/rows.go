package legacy

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/storecheck/storecheck/reference"
)

// Row helpers for in-process stores that keep rows as immutable values: a stored row is
// never mutated, so a new row may share values with the row it replaces and only what
// leaves the store needs a deep copy (Clone). They encode L-CREATE-1, L-UPDATE-1 and
// L-CLEAN-1 once, for every such store.

// NewRow is the row Create stores for id (L-CREATE-1): id validated (S-ID-2), meta
// normalised into a private deep copy, then task_id, status working and created_at =
// nowMillis set on that copy (legacy.Stamp without a second deep copy).
func NewRow(id string, meta Task, nowMillis int64) (Task, error) {
	if err := reference.ValidateID(id); err != nil {
		return nil, err
	}
	row, err := Normalize(meta)
	if err != nil {
		return nil, err
	}
	row[KeyTaskID] = id
	row[KeyStatus] = string(reference.StatusWorking)
	row[KeyCreatedAt] = json.Number(strconv.FormatInt(nowMillis, 10))
	return row, nil
}

// MergeRow is Merge for immutable rows (L-UPDATE-1): a new top-level map holding row's
// values, each replaced by the key of changes when present. changes must be a private
// normalised copy (Normalize); values are shared, not copied, with both inputs.
func MergeRow(row, changes Task) Task {
	out := make(Task, len(row)+len(changes))
	for k, v := range row {
		out[k] = v
	}
	for k, v := range changes {
		out[k] = v
	}
	return out
}

// MergeIf is the row an UpdateIf of task id writes over cur (ok false when no task is
// stored): changes merged in (MergeRow) when cur's status is one of allowed, a nil allowed
// admitting every status; otherwise reference.ErrConflict, and reference.ErrNotFound for a
// missing task.
func MergeIf(id string, cur Task, ok bool, allowed []reference.Status, changes Task) (Task, error) {
	if !ok {
		return nil, reference.NotFound(id)
	}
	if allowed != nil && !cur.StatusIn(allowed) {
		return nil, fmt.Errorf("%w: task %s is %s", reference.ErrConflict, id, cur.Status())
	}
	return MergeRow(cur, changes), nil
}

// StatusIn reports whether t's status (working when absent, L-CLEAN-1) is one of allowed:
// the condition of ConditionalUpdater.UpdateIf.
func (t Task) StatusIn(allowed []reference.Status) bool {
	s := t.Status()
	for _, a := range allowed {
		if s == a {
			return true
		}
	}
	return false
}

// CleanupDue reports whether Cleanup(ttl) at nowMillis removes t (L-CLEAN-1): its status
// is terminal (a task without status is working) and now − created_at > ttl. A task
// without an integer created_at has no age and is kept.
func (t Task) CleanupDue(nowMillis int64, ttl time.Duration) bool {
	if !t.Status().Terminal() {
		return false
	}
	created, ok := t.CreatedAt()
	if !ok {
		return false
	}
	// Compare in whole milliseconds without overflow: age > ttl ⇔ age > ⌊ttl⌋ms, since
	// the age is an integer number of milliseconds.
	floor := int64(ttl / time.Millisecond)
	if ttl%time.Millisecond < 0 {
		floor--
	}
	age := nowMillis - created
	if (nowMillis < 0) != (created < 0) && (age < 0) != (nowMillis < 0) {
		// The subtraction overflowed (an Update wrote an absurd created_at): the true
		// age is beyond any ttl, positive when now is.
		return nowMillis >= 0
	}
	return age > floor
}
