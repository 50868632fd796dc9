package wire

import (
	"context"
	"encoding/json"
	"time"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

// legacyBase is the child's legacy store; clock, when set, is forwarded before each
// call whenever it has moved.
type legacyBase struct {
	c     *Client
	clock *reference.ManualClock
}

// The optional operations live in their own small types, combined below, because the
// battery finds them by interface assertion: a value must have Cancel exactly when the
// child declared it.
type (
	cancelOp    struct{ b *legacyBase }
	cleanupOp   struct{ b *legacyBase }
	updateIfOp  struct{ b *legacyBase }
	legacyPlain struct{ *legacyBase }
	legacyC     struct {
		*legacyBase
		cancelOp
	}
	legacyL struct {
		*legacyBase
		cleanupOp
	}
	legacyU struct {
		*legacyBase
		updateIfOp
	}
	legacyCL struct {
		*legacyBase
		cancelOp
		cleanupOp
	}
	legacyCU struct {
		*legacyBase
		cancelOp
		updateIfOp
	}
	legacyLU struct {
		*legacyBase
		cleanupOp
		updateIfOp
	}
	legacyCLU struct {
		*legacyBase
		cancelOp
		cleanupOp
		updateIfOp
	}
)

func (c *Client) legacyStore(clock *reference.ManualClock) legacy.Store {
	b := &legacyBase{c: c, clock: clock}
	h := c.hello
	switch {
	case h.Cancel && h.Cleanup && h.ConditionalUpdate:
		return legacyCLU{b, cancelOp{b}, cleanupOp{b}, updateIfOp{b}}
	case h.Cancel && h.Cleanup:
		return legacyCL{b, cancelOp{b}, cleanupOp{b}}
	case h.Cancel && h.ConditionalUpdate:
		return legacyCU{b, cancelOp{b}, updateIfOp{b}}
	case h.Cleanup && h.ConditionalUpdate:
		return legacyLU{b, cleanupOp{b}, updateIfOp{b}}
	case h.Cancel:
		return legacyC{b, cancelOp{b}}
	case h.Cleanup:
		return legacyL{b, cleanupOp{b}}
	case h.ConditionalUpdate:
		return legacyU{b, updateIfOp{b}}
	}
	return legacyPlain{b}
}

// taskCall is a call whose ok value is one legacy task.
func (b *legacyBase) taskCall(ctx context.Context, op string, args any) (legacy.Task, error) {
	return doAnswer(ctx, b.c, b.clock, op, args, decodeLegacyTask)
}

func (b *legacyBase) Create(ctx context.Context, id string, meta legacy.Task) (legacy.Task, error) {
	m, err := encodeForID(id, meta)
	if err != nil {
		return nil, err
	}
	return b.taskCall(ctx, opLegacyCreate, map[string]any{"task_id": id, "metadata": m})
}

func (b *legacyBase) Get(ctx context.Context, id string) (legacy.Task, error) {
	if err := checkUTF8(id); err != nil {
		return nil, err
	}
	return b.taskCall(ctx, opLegacyGet, map[string]any{"task_id": id})
}

func (b *legacyBase) Update(ctx context.Context, id string, changes legacy.Task) (legacy.Task, error) {
	ch, err := encodeForID(id, changes)
	if err != nil {
		return nil, err
	}
	return b.taskCall(ctx, opLegacyUpdate, map[string]any{"task_id": id, "changes": ch})
}

func (b *legacyBase) Delete(ctx context.Context, id string) error {
	if err := checkUTF8(id); err != nil {
		return err
	}
	// docs/wire.md answers null; the value is not used, so it is not judged.
	return b.c.do(ctx, b.clock, opLegacyDelete, map[string]any{"task_id": id}, nil)
}

func (b *legacyBase) List(ctx context.Context, opts legacy.ListOptions) ([]legacy.Task, error) {
	args, err := listArgs(opts)
	if err != nil {
		return nil, err
	}
	args["require_owner"] = opts.RequireOwner
	return doAnswer(ctx, b.c, b.clock, opLegacyList, args, decodeLegacyList)
}

func (x cancelOp) Cancel(ctx context.Context, id string) (legacy.Task, error) {
	if err := checkUTF8(id); err != nil {
		return nil, err
	}
	return x.b.taskCall(ctx, opLegacyCancel, map[string]any{"task_id": id})
}

func (x cleanupOp) Cleanup(ctx context.Context, ttl time.Duration) (int, error) {
	return doAnswer(ctx, x.b.c, x.b.clock, opLegacyCleanup, map[string]any{"ttl_ms": ttlMillis(ttl)}, decodeCount)
}

func (x updateIfOp) UpdateIf(ctx context.Context, id string, allowed []reference.Status, changes legacy.Task) (legacy.Task, error) {
	ch, err := encodeForID(id, changes)
	if err != nil {
		return nil, err
	}
	statuses := make([]string, len(allowed))
	for i, s := range allowed {
		if err := checkUTF8(string(s)); err != nil {
			return nil, err
		}
		statuses[i] = string(s)
	}
	return x.b.taskCall(ctx, opLegacyUpdateIf, map[string]any{"task_id": id, "allowed_statuses": statuses, "changes": ch})
}

// listArgs are the args of a legacy list op that opts gives, store or facade: status and
// limit (null when unset) and the owner scope; a string of opts that is not UTF-8 is
// refused before anything is sent.
func listArgs(opts legacy.ListOptions) (map[string]any, error) {
	args := map[string]any{"status": nil, "limit": nil, "owner": scopeArg(opts.Owner)}
	if opts.Status != nil {
		if err := checkUTF8(*opts.Status); err != nil {
			return nil, err
		}
		args["status"] = *opts.Status
	}
	if opts.Limit != nil {
		args["limit"] = *opts.Limit
	}
	if id, ok := opts.Owner.Principal(); ok {
		if err := checkUTF8(id); err != nil {
			return nil, err
		}
	}
	return args, nil
}

// encodeForID checks the id of the task a call is about and encodes the task it sends.
func encodeForID(id string, t legacy.Task) (json.RawMessage, error) {
	if err := checkUTF8(id); err != nil {
		return nil, err
	}
	return encodeLegacyTask(t)
}
