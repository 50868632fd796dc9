// Package storetest holds checks that every server-backed adapter runs in its own unit
// tests, beside the battery: things about how a store talks to its server that the
// battery cannot see from outside.
package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// LegacyCleaner is a legacy store with the optional Cleanup.
type LegacyCleaner interface {
	legacy.Store
	legacy.Cleaner
}

// ClockFollowed moves the store's clock and checks that cleanup, expiry, Swap and Sweep
// follow it, which they cannot if the server's own time (SQL now(), Redis TIME) decides.
// The stores must read clock and start on an empty namespace.
func ClockFollowed(t *testing.T, ctx context.Context, l LegacyCleaner, m modern.Store, clock *reference.ManualClock) {
	t.Helper()
	if _, err := l.Create(ctx, "old", legacy.Task{}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Update(ctx, "old", legacy.Task{"status": "completed"}); err != nil {
		t.Fatal(err)
	}
	if n, err := l.Cleanup(ctx, time.Hour); err != nil || n != 0 {
		t.Errorf("Cleanup(1h) at creation time = %d, %v; want 0", n, err)
	}
	clock.Advance(time.Hour + time.Millisecond)
	if n, err := l.Cleanup(ctx, time.Hour); err != nil || n != 1 {
		t.Errorf("Cleanup(1h) an hour and 1 ms later = %d, %v; want 1", n, err)
	}

	ttl := int64(1000)
	now := reference.NowMillis(clock)
	task := modern.Task{TaskID: "exp", CreatedAt: now, TTL: &ttl, Status: reference.StatusWorking}
	if _, err := m.Create(ctx, task); err != nil {
		t.Fatal(err)
	}
	clock.Advance(999 * time.Millisecond)
	if _, err := m.Get(ctx, "exp", reference.System()); err != nil {
		t.Errorf("Get 999 ms into a 1000 ms ttl: %v", err)
	}
	if n, err := m.Sweep(ctx); err != nil || n != 0 {
		t.Errorf("Sweep before expiry = %d, %v; want 0", n, err)
	}
	next := task
	next.StatusMessage = "m"
	if _, err := m.Swap(ctx, reference.System(), 1, next); err != nil {
		t.Errorf("Swap 999 ms into a 1000 ms ttl: %v", err)
	}
	clock.Advance(time.Millisecond)
	if _, err := m.Get(ctx, "exp", reference.System()); !errors.Is(err, reference.ErrNotFound) {
		t.Errorf("Get at created_at + ttl: want ErrNotFound, got %v", err)
	}
	if _, err := m.Swap(ctx, reference.System(), 2, next); !errors.Is(err, reference.ErrNotFound) {
		t.Errorf("Swap at created_at + ttl: want ErrNotFound, got %v", err)
	}
	if n, err := m.Sweep(ctx); err != nil || n != 1 {
		t.Errorf("Sweep at expiry = %d, %v; want 1", n, err)
	}
}
