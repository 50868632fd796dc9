package postgres

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonvalue"
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

// encodeJSON renders a canonical value as JSON text. It refuses (ErrInvalid) strings that
// are not valid UTF-8, which encoding/json would otherwise alter silently.
func encodeJSON(v any) (string, error) {
	if err := checkUTF8(v, "$"); err != nil {
		return "", err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // readable in psql; '<' and '&' need no escaping in a column
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("%w: %v", reference.ErrInvalid, err)
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte{'\n'})), nil
}

// decodeJSON reads JSON text written by encodeJSON into dst, keeping numbers exact.
func decodeJSON(text string, dst any) error {
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		return fmt.Errorf("%w: stored JSON unreadable: %v", reference.ErrInternal, err)
	}
	return nil
}

// checkUTF8 refuses a value JSON text cannot carry exactly (jsonvalue.CheckUTF8).
func checkUTF8(v any, path string) error {
	if err := jsonvalue.CheckUTF8(v); err != nil {
		return fmt.Errorf("%w: %s: %v", reference.ErrInvalid, path, err)
	}
	return nil
}

// ownerBytes is an owner column value: NULL (nil) for no owner, else the owner's bytes.
func ownerBytes(owner string) []byte {
	if owner == "" {
		return nil
	}
	return []byte(owner)
}

// addSat is a + b saturated at the int64 range: an expiry past the range never comes,
// one before it has always passed.
func addSat(a, b int64) int64 {
	s := a + b
	switch {
	case b > 0 && s < a:
		return math.MaxInt64
	case b < 0 && s > a:
		return math.MinInt64
	}
	return s
}
