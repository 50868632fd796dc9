package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/storecheck/storecheck/reference"
)

// Option configures a store.
type Option func(*config)

type config struct {
	clock reference.Clock
}

// WithClock makes the store read time from c (created_at, cleanup, expiry, sweep); the
// default is the real clock. The database's own clock is never read.
func WithClock(c reference.Clock) Option { return func(cfg *config) { cfg.clock = c } }

func newConfig(opts []Option) config {
	cfg := config{clock: reference.SystemClock{}}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.clock == nil {
		cfg.clock = reference.SystemClock{}
	}
	return cfg
}

func (c config) now() int64 { return reference.NowMillis(c.clock) }

// storeSentinels are the errors a store method returns as they are; every other error
// from the database is internal (or the context's).
var storeSentinels = []error{
	reference.ErrNotFound, reference.ErrExists, reference.ErrConflict, reference.ErrInvalid,
	reference.ErrTooLarge,
}

// dbError turns an error met during op into the store's error: sentinels pass through, a
// finished context is wrapped so errors.Is finds it (S-CTX-1), anything else wraps
// reference.ErrInternal.
func dbError(ctx context.Context, op string, err error) error {
	for _, s := range storeSentinels {
		if errors.Is(err, s) {
			return err
		}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("postgres: %s: %w", op, err)
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("postgres: %s: %w (%v)", op, ctxErr, err)
	}
	return fmt.Errorf("postgres: %s: %w: %v", op, reference.ErrInternal, err)
}
