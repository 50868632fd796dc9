package servermutants

import (
	"context"

	"github.com/storecheck/storecheck/mcp/server"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// Keys of the server's own in a 2025-11-25 task's metadata that a defect of its stores
// reads or writes.
const (
	keyResult  = "result"
	keyMessage = "status_message"
)

// legacyWrites is a legacy store whose writes pass through write, which gets the write
// as asked (conditional for UpdateIf) to do or not.
type legacyWrites struct {
	legacy.Store
	write func(ctx context.Context, inner legacy.Store, id string, changes legacy.Task, asked func(legacy.Task) (legacy.Task, error)) (legacy.Task, error)
}

func (s legacyWrites) Update(ctx context.Context, id string, changes legacy.Task) (legacy.Task, error) {
	return s.write(ctx, s.Store, id, changes, func(c legacy.Task) (legacy.Task, error) { return s.Store.Update(ctx, id, c) })
}

// UpdateIf keeps the inner store's atomic check; over a store without one it is Update.
func (s legacyWrites) UpdateIf(ctx context.Context, id string, allowed []reference.Status, changes legacy.Task) (legacy.Task, error) {
	return s.write(ctx, s.Store, id, changes, func(c legacy.Task) (legacy.Task, error) {
		if cu, ok := s.Store.(legacy.ConditionalUpdater); ok {
			return cu.UpdateIf(ctx, id, allowed, c)
		}
		return s.Store.Update(ctx, id, c)
	})
}

// Cancel is the inner store's, or a write of the cancelled status.
func (s legacyWrites) Cancel(ctx context.Context, id string) (legacy.Task, error) {
	if c, ok := s.Store.(legacy.Canceler); ok {
		return c.Cancel(ctx, id)
	}
	return s.Store.Update(ctx, id, legacy.Task{legacy.KeyStatus: string(reference.StatusCancelled)})
}

// ending reports whether changes end a task's run: they set completed or failed.
func ending(changes legacy.Task) bool {
	s, _ := changes[legacy.KeyStatus].(string)
	return s == string(reference.StatusCompleted) || s == string(reference.StatusFailed)
}

// modernSwaps is a modern store whose swaps pass through swap, which gets the swap as
// asked to do or not.
type modernSwaps struct {
	modern.Store
	swap func(ctx context.Context, inner modern.Store, caller reference.Caller, version int64, next modern.Task) (modern.Task, error)
}

func (s modernSwaps) Swap(ctx context.Context, caller reference.Caller, version int64, next modern.Task) (modern.Task, error) {
	return s.swap(ctx, s.Store, caller, version, next)
}

// wrapStores puts l around cfg's legacy store and m around its modern one (nil: none).
func wrapStores(cfg *server.Config, l func(legacy.Store) legacy.Store, m func(modern.Store) modern.Store) {
	if cfg.Legacy != nil && l != nil {
		cfg.Legacy = l(cfg.Legacy)
	}
	if cfg.Modern != nil && m != nil {
		cfg.Modern = m(cfg.Modern)
	}
}
