// Package storeerr turns what a backend answered into a store's error, the same way in
// every database adapter (postgres, redis, river): the store's sentinels pass through, a
// finished context stays findable with errors.Is (S-CTX-1), and anything else is
// reference.ErrInternal, with the backend's own error in the message.
package storeerr

import (
	"context"
	"errors"
	"fmt"

	"github.com/storecheck/storecheck/reference"
)

// sentinels are the errors a store method returns as they are.
var sentinels = []error{
	reference.ErrNotFound, reference.ErrExists, reference.ErrConflict, reference.ErrInvalid,
	reference.ErrTooLarge,
}

// Known is the store's error for err met during op when err is a sentinel or the
// context's (in err, or ctx has ended), prefixed by backend; nil when it is neither.
func Known(ctx context.Context, backend, op string, err error) error {
	if IsSentinel(err) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: %s: %w", backend, op, err)
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%s: %s: %w (%v)", backend, op, ctxErr, err)
	}
	return nil
}

// Wrap is Known's error, or else err as reference.ErrInternal.
func Wrap(ctx context.Context, backend, op string, err error) error {
	if known := Known(ctx, backend, op, err); known != nil {
		return known
	}
	return fmt.Errorf("%s: %s: %w: %v", backend, op, reference.ErrInternal, err)
}

// IsSentinel reports whether err is one of the store's sentinel errors, which a store
// method returns as they are.
func IsSentinel(err error) bool {
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}
