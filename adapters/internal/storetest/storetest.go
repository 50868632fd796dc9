// Package storetest holds checks that every server-backed adapter runs in its own unit
// tests, beside the battery: things about how a store talks to its server that the
// battery cannot see from outside.
package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/storecheck/storecheck/conformance/faults"
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

// SwapErrors checks how a refused Swap is explained (M-SWAP-2, M-SWAP-3), that it wrote
// nothing, and that a valid Swap then lands. The store must start on an empty namespace.
func SwapErrors(t *testing.T, ctx context.Context, m modern.Store) {
	t.Helper()
	base := modern.Task{TaskID: "s", Owner: "alice", Status: reference.StatusWorking, CreatedAt: 10}
	if _, err := m.Create(ctx, base); err != nil {
		t.Fatal(err)
	}
	next := base
	next.StatusMessage = "step"
	cases := []struct {
		name    string
		caller  reference.Caller
		version int64
		mutate  func(*modern.Task)
		want    error
	}{
		{"stale version", reference.System(), 7, nil, reference.ErrConflict},
		{"max version", reference.System(), 1<<63 - 1, nil, reference.ErrConflict},
		{"foreign caller", reference.Principal("bob"), 1, nil, reference.ErrNotFound},
		{"anonymous caller", reference.Anonymous(), 1, nil, reference.ErrNotFound},
		{"foreign caller, stale version", reference.Principal("bob"), 7, nil, reference.ErrNotFound},
		{"owner change", reference.System(), 1, func(t *modern.Task) { t.Owner = "bob" }, reference.ErrInvalid},
		{"owner removed", reference.System(), 1, func(t *modern.Task) { t.Owner = "" }, reference.ErrInvalid},
		{"created_at change", reference.Principal("alice"), 1, func(t *modern.Task) { t.CreatedAt++ }, reference.ErrInvalid},
		{"missing", reference.System(), 1, func(t *modern.Task) { t.TaskID = "nope" }, reference.ErrNotFound},
	}
	for _, c := range cases {
		n := next
		if c.mutate != nil {
			c.mutate(&n)
		}
		if _, err := m.Swap(ctx, c.caller, c.version, n); !errors.Is(err, c.want) {
			t.Errorf("%s: Swap(%s, %d): want %v, got %v", c.name, c.caller, c.version, c.want, err)
		}
	}
	stored, err := m.Get(ctx, "s", reference.System())
	if err != nil || stored.Version != 1 || stored.StatusMessage != "" {
		t.Errorf("refused Swaps wrote something: %+v, %v", stored, err)
	}
	got, err := m.Swap(ctx, reference.Principal("alice"), 1, next)
	if err != nil || got.Version != 2 {
		t.Fatalf("valid Swap: version %d, %v", got.Version, err)
	}
	stored, err = m.Get(ctx, "s", reference.System())
	if err != nil || !modern.Equal(stored, got) {
		t.Errorf("after Swap Get = %+v, %v; want %+v", stored, err, got)
	}
}

// InvalidUTF8Refused checks that a task holding invalid UTF-8 is refused with ErrInvalid
// in both eras, not stored with its bytes replaced. The stores must start on an empty
// namespace.
func InvalidUTF8Refused(t *testing.T, ctx context.Context, l legacy.Store, m modern.Store) {
	t.Helper()
	if _, err := l.Create(ctx, "bad", legacy.Task{"v": "a\xffb"}); !errors.Is(err, reference.ErrInvalid) {
		t.Fatalf("Create with invalid UTF-8: want ErrInvalid, got %v", err)
	}
	if _, err := l.Get(ctx, "bad"); !errors.Is(err, reference.ErrNotFound) {
		t.Errorf("a refused Create stored something: Get = %v", err)
	}
	if _, err := m.Create(ctx, modern.Task{TaskID: "bad", StatusMessage: "\xff"}); !errors.Is(err, reference.ErrInvalid) {
		t.Errorf("modern Create with invalid UTF-8: want ErrInvalid, got %v", err)
	}
}

// CancelledCreateReturnsPromptly checks that a Create under an already cancelled context
// returns context.Canceled at once and stores nothing. The store must start on an empty
// namespace.
func CancelledCreateReturnsPromptly(t *testing.T, ctx context.Context, l legacy.Store) {
	t.Helper()
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	start := time.Now()
	_, err := l.Create(cctx, "c", legacy.Task{})
	if !errors.Is(err, context.Canceled) || time.Since(start) > time.Second {
		t.Errorf("Create with a cancelled context: %v after %s; want context.Canceled within 1s", err, time.Since(start))
	}
	if _, err := l.Get(ctx, "c"); !errors.Is(err, reference.ErrNotFound) {
		t.Errorf("a cancelled Create stored the task: Get = %v", err)
	}
}

// NothingLost checks a fault run against a durable backend: every fault lost none of
// some acknowledged writes, and every rule passed (the declaration rule is not exercised
// by a pause, which is not a crash).
func NothingLost(t *testing.T, r *faults.Report) {
	t.Helper()
	for _, f := range r.Faults {
		if f.AckedLost != 0 || f.AckedChecked == 0 {
			t.Errorf("%s: %d of %d acknowledged writes lost, want 0 of some", f.Fault, f.AckedLost, f.AckedChecked)
		}
		for _, v := range f.Rules {
			want := faults.Passed
			if v.ID == faults.RuleDeclare && f.Fault == faults.Pause {
				want = faults.NotExercised // a pause is not a crash
			}
			if v.Outcome != want {
				t.Errorf("%s: %s %s, want %s: %v", f.Fault, v.ID, v.Outcome, want, v.Reasons)
			}
		}
	}
}
