package taskrow

import (
	"context"
	"errors"
	"fmt"

	"github.com/storecheck/storecheck/adapters/internal/storeerr"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/modern"
)

// NewModernRow is task as a SQL store writes it at version: its id checked, the task
// normalized (a private copy, which the store may return), and laid out as a row.
func NewModernRow(task modern.Task, version int64) (modern.Task, Modern, error) {
	if err := reference.ValidateID(task.TaskID); err != nil {
		return modern.Task{}, Modern{}, err
	}
	row, err := task.Normalize()
	if err != nil {
		return modern.Task{}, Modern{}, err
	}
	row.Version = version
	r, err := NewModern(row)
	if err != nil {
		return modern.Task{}, Modern{}, err
	}
	return row, r, nil
}

// MaxSwapRetries bounds a Swap's retries after a read found nothing wrong with the row.
const MaxSwapRetries = 16

// Swap is a modern Swap of a SQL store that writes with one conditional UPDATE and, when
// it matches no row, reads the row to say why.
type Swap struct {
	Caller   reference.Caller
	Expected int64
	Next     modern.Task // normalized, at version Expected + 1
	Row      Modern
}

// NewSwap prepares caller's Swap of next at expectedVersion.
func NewSwap(caller reference.Caller, expectedVersion int64, next modern.Task) (Swap, error) {
	row, r, err := NewModernRow(next, expectedVersion+1)
	if err != nil {
		return Swap{}, err
	}
	return Swap{Caller: caller, Expected: expectedVersion, Next: row, Row: r}, nil
}

// Missed is what the Swap returns when its UPDATE of attempt matched no row and cur
// (found: it exists) is the row as read after it at now: modern.CheckSwap's refusal; the
// end of ctx, as backend's error (storeerr); or nil to try again, when the read finds
// nothing wrong (the row changed in between), until attempt MaxSwapRetries.
func (s Swap) Missed(ctx context.Context, backend string, attempt int, cur modern.Task, found bool, now int64) error {
	if err := modern.CheckSwap(cur, found, s.Caller, s.Expected, s.Next, now); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return storeerr.Wrap(ctx, backend, "swap", err)
	}
	if attempt == MaxSwapRetries {
		// Only a ttl so large or so negative that created_at + ttl leaves the int64
		// range gets here (the UPDATE saturates, modern.Task.Expired wraps).
		return fmt.Errorf("%w: swap of task %s: row keeps changing or its expiry is out of range", reference.ErrConflict, s.Next.TaskID)
	}
	return nil
}

// ScanModern reads the modern task id from a row of columns owner, created_at, ttl,
// version and body, through scan (a driver row's Scan); found is false when scan says
// noRows.
func ScanModern(id string, scan func(dest ...any) error, noRows error) (t modern.Task, found bool, err error) {
	var (
		owner []byte
		body  string
	)
	t.TaskID = id
	err = scan(&owner, &t.CreatedAt, &t.TTL, &t.Version, &body)
	if errors.Is(err, noRows) {
		return modern.Task{}, false, nil
	}
	if err != nil {
		return modern.Task{}, false, err
	}
	t.Owner = string(owner)
	if err := FillModern(&t, body); err != nil {
		return modern.Task{}, false, err
	}
	return t, true, nil
}
