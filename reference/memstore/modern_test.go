package memstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonvalue"
	"github.com/storecheck/storecheck/reference/modern"
)

func newModern(t *testing.T) (*Modern, *reference.ManualClock) {
	t.Helper()
	clock := reference.NewManualClock(epoch)
	return New(WithClock(clock)).Modern(), clock
}

func task(id, owner string, ttl *int64) modern.Task {
	return modern.Task{
		TaskID: id, Owner: owner, Status: reference.StatusWorking, CreatedAt: epoch.UnixMilli(),
		LastUpdatedAt: epoch.UnixMilli(), TTL: ttl, Version: 7,
		InputRequests: map[string]any{"k": map[string]any{"q": []any{1, "x"}}},
	}
}

func mustCreateModern(t *testing.T, m *Modern, tk modern.Task) modern.Task {
	t.Helper()
	got, err := m.Create(context.Background(), tk)
	if err != nil {
		t.Fatalf("Create(%s): %v", jsonvalue.Describe(tk), err)
	}
	return got
}

func TestModernCreateGet(t *testing.T) {
	ctx := context.Background()
	m, _ := newModern(t)
	in := task("t", "alice", nil)
	got := mustCreateModern(t, m, in)
	want := in
	want.Version = 1
	if !modern.Equal(got, want) {
		t.Errorf("M-CREATE-1: Create = %s, want %s", jsonvalue.Describe(got), jsonvalue.Describe(want))
	}
	_, err := m.Create(ctx, task("t", "", nil))
	if !errors.Is(err, reference.ErrExists) {
		t.Errorf("M-CREATE-1: Create of an existing id error = %v, want ErrExists", err)
	}
	for _, c := range []struct {
		caller reference.Caller
		found  bool
	}{
		{reference.System(), true},
		{reference.Principal("alice"), true},
		{reference.Principal("Alice"), false},
		{reference.Principal("bob"), false},
		{reference.Anonymous(), false},
	} {
		got, err := m.Get(ctx, "t", c.caller)
		switch {
		case c.found && (err != nil || !modern.Equal(got, want)):
			t.Errorf("M-GET-1: Get(t, %s) = %s, %v; want %s", c.caller, jsonvalue.Describe(got), err, jsonvalue.Describe(want))
		case !c.found && (!errors.Is(err, reference.ErrNotFound) || err.Error() != reference.NotFound("t").Error()):
			t.Errorf("M-GET-1/S-OWN-2: Get(t, %s) error = %v, want %v", c.caller, err, reference.NotFound("t"))
		}
	}
	_, err = m.Get(ctx, "missing", reference.System())
	if err == nil || err.Error() != reference.NotFound("missing").Error() {
		t.Errorf("M-GET-1: Get(missing) error = %v, want %v", err, reference.NotFound("missing"))
	}
	// Unowned: every caller sees it.
	mustCreateModern(t, m, task("free", "", nil))
	if _, err := m.Get(ctx, "free", reference.Anonymous()); err != nil {
		t.Errorf("M-GET-1: Get(free, anonymous) error = %v, want the task", err)
	}
}

func TestModernCopies(t *testing.T) {
	ctx := context.Background()
	m, _ := newModern(t)
	in := task("t", "", new(int64(5000)))
	got := mustCreateModern(t, m, in)
	in.InputRequests["k"].(map[string]any)["q"].([]any)[0] = "changed"
	*in.TTL = 1
	got.InputRequests["k"] = "changed"
	*got.TTL = 2
	again, err := m.Get(ctx, "t", reference.System())
	want := task("t", "", new(int64(5000)))
	want.Version = 1
	if err != nil || !modern.Equal(again, want) {
		t.Errorf("S-VAL-4: Get after mutating Create's input and output = %s, %v; want %s", jsonvalue.Describe(again), err, jsonvalue.Describe(want))
	}
}

func TestModernExpiryAndSweep(t *testing.T) {
	ctx := context.Background()
	m, clock := newModern(t)
	mustCreateModern(t, m, task("short", "", new(int64(1000))))
	mustCreateModern(t, m, task("long", "", new(int64(2000))))
	mustCreateModern(t, m, task("forever", "", nil))
	clock.Advance(999 * time.Millisecond)
	if _, err := m.Get(ctx, "short", reference.System()); err != nil {
		t.Errorf("M-GET-1: Get(short) 1 ms before expiry error = %v", err)
	}
	clock.Advance(time.Millisecond)
	if _, err := m.Get(ctx, "short", reference.System()); !errors.Is(err, reference.ErrNotFound) {
		t.Errorf("M-GET-1: Get(short) at created_at+ttl error = %v, want ErrNotFound", err)
	}
	if _, err := m.Swap(ctx, reference.System(), 1, task("short", "", new(int64(1000)))); !errors.Is(err, reference.ErrNotFound) {
		t.Errorf("M-SWAP-2: Swap of an expired task error = %v, want ErrNotFound", err)
	}
	if _, err := m.Create(ctx, task("short", "", nil)); !errors.Is(err, reference.ErrExists) {
		t.Errorf("M-CREATE-1: Create over an expired, unswept task error = %v, want ErrExists", err)
	}
	n, err := m.Sweep(ctx)
	if err != nil || n != 1 {
		t.Errorf("M-SWEEP-1: Sweep = %d, %v; want 1", n, err)
	}
	if _, err := m.Get(ctx, "long", reference.System()); err != nil {
		t.Errorf("M-SWEEP-1: Sweep removed an unexpired task: %v", err)
	}
	mustCreateModern(t, m, task("short", "", nil)) // the id is free again
	clock.Advance(24 * time.Hour)
	if n, _ := m.Sweep(ctx); n != 1 {
		t.Errorf("M-SWEEP-1: second Sweep = %d, want 1 (long; forever and the new short have no ttl)", n)
	}
}

func TestModernSwap(t *testing.T) {
	ctx := context.Background()
	m, _ := newModern(t)
	mustCreateModern(t, m, task("t", "alice", nil))
	alice := reference.Principal("alice")
	next := task("t", "alice", nil)
	next.Status = reference.StatusCompleted
	next.Result = map[string]any{"content": []any{}}
	got, err := m.Swap(ctx, alice, 1, next)
	if err != nil || got.Version != 2 || got.Status != reference.StatusCompleted {
		t.Fatalf("M-SWAP-1: Swap(alice, 1) = %s, %v; want version 2, completed", jsonvalue.Describe(got), err)
	}
	refused := []struct {
		rule   string
		caller reference.Caller
		ver    int64
		edit   func(*modern.Task)
		want   error
	}{
		{"M-SWAP-2 stale", alice, 1, func(*modern.Task) {}, reference.ErrConflict},
		{"M-SWAP-2 foreign", reference.Principal("bob"), 2, func(*modern.Task) {}, reference.ErrNotFound},
		{"M-SWAP-2 foreign stale", reference.Anonymous(), 1, func(*modern.Task) {}, reference.ErrNotFound},
		{"M-SWAP-2 missing", alice, 2, func(n *modern.Task) { n.TaskID = "nope" }, reference.ErrNotFound},
		{"M-SWAP-3 owner", alice, 2, func(n *modern.Task) { n.Owner = "bob" }, reference.ErrInvalid},
		{"M-SWAP-3 owner none", alice, 2, func(n *modern.Task) { n.Owner = "" }, reference.ErrInvalid},
		{"M-SWAP-3 created_at", alice, 2, func(n *modern.Task) { n.CreatedAt++ }, reference.ErrInvalid},
		{"S-ID-2", alice, 2, func(n *modern.Task) { n.TaskID = "" }, reference.ErrNotFound},
	}
	for _, r := range refused {
		n := task("t", "alice", nil)
		n.StatusMessage = "must not be written"
		r.edit(&n)
		_, err := m.Swap(ctx, r.caller, r.ver, n)
		if !errors.Is(err, r.want) {
			t.Errorf("%s: Swap(%s, %d) error = %v, want %v", r.rule, r.caller, r.ver, err, r.want)
		}
		if errors.Is(err, reference.ErrNotFound) && err.Error() != reference.NotFound(n.TaskID).Error() {
			t.Errorf("S-OWN-2: Swap(%s) message %q differs from a missing task's", r.caller, err)
		}
	}
	after, _ := m.Get(ctx, "t", reference.System())
	if !modern.Equal(after, got) {
		t.Errorf("M-SWAP-2/3: refused Swaps wrote: Get = %s, want %s", jsonvalue.Describe(after), jsonvalue.Describe(got))
	}
}

func TestModernCASIncrements(t *testing.T) {
	ctx := context.Background()
	m, _ := newModern(t)
	mustCreateModern(t, m, modern.Task{TaskID: "c", Result: map[string]any{"n": 0}})
	const workers, incs = 8, 50
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range incs {
				for {
					cur, err := m.Get(ctx, "c", reference.System())
					if err != nil {
						t.Error(err)
						return
					}
					n, _ := cur.Result["n"].(interface{ Int64() (int64, error) }).Int64()
					cur.Result = map[string]any{"n": n + 1}
					if _, err := m.Swap(ctx, reference.System(), cur.Version, cur); err == nil {
						break
					} else if !errors.Is(err, reference.ErrConflict) {
						t.Error(err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	got, _ := m.Get(ctx, "c", reference.System())
	if !jsonvalue.Equal(got.Result["n"], workers*incs) || got.Version != 1+workers*incs {
		t.Errorf("M-SWAP-4: %d×%d CAS increments ended at n=%v version %d, want %d and %d", workers, incs, got.Result["n"], got.Version, workers*incs, 1+workers*incs)
	}
}

func TestModernContextAndDelete(t *testing.T) {
	m, _ := newModern(t)
	mustCreateModern(t, m, task("t", "", nil))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := map[string]func() error{
		"Create": func() error { _, err := m.Create(ctx, task("u", "", nil)); return err },
		"Get":    func() error { _, err := m.Get(ctx, "t", reference.System()); return err },
		"Swap":   func() error { _, err := m.Swap(ctx, reference.System(), 1, task("t", "", nil)); return err },
		"Delete": func() error { return m.Delete(ctx, "t") },
		"Sweep":  func() error { _, err := m.Sweep(ctx); return err },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, context.Canceled) {
			t.Errorf("S-CTX-1: %s with a cancelled context error = %v, want context.Canceled", name, err)
		}
	}
	bg := context.Background()
	if got, err := m.Get(bg, "t", reference.System()); err != nil || got.Version != 1 {
		t.Errorf("S-CTX-1: calls with a cancelled context wrote: Get = %v, %v", got, err)
	}
	for range 2 {
		if err := m.Delete(bg, "t"); err != nil {
			t.Errorf("M-DELETE-1: Delete = %v, want nil", err)
		}
	}
	if _, err := m.Get(bg, "t", reference.System()); !errors.Is(err, reference.ErrNotFound) {
		t.Errorf("M-DELETE-1: Get after Delete error = %v, want ErrNotFound", err)
	}
}

func TestErasAreSeparate(t *testing.T) {
	ctx := context.Background()
	s := New()
	if _, err := s.Legacy().Create(ctx, "same", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Modern().Create(ctx, modern.Task{TaskID: "same"}); err != nil {
		t.Errorf("legacy and modern keyspaces must be separate: modern Create(same) = %v", err)
	}
	if err := s.Modern().Delete(ctx, "same"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Legacy().Get(ctx, "same"); err != nil {
		t.Errorf("modern Delete removed the legacy task: %v", err)
	}
}

// A ttl so large that created_at + ttl overflows int64 never expires.
func TestModernHugeTTL(t *testing.T) {
	ctx := context.Background()
	m, _ := newModern(t)
	for _, ttl := range []int64{1<<63 - 1, 1 << 62} {
		id := fmt.Sprint("huge-", ttl)
		mustCreateModern(t, m, task(id, "", new(ttl)))
		if _, err := m.Get(ctx, id, reference.System()); err != nil {
			t.Errorf("M-GET-1/M-FIELDS-1: Get of a task with ttl %d error = %v, want the task", ttl, err)
		}
	}
	if n, _ := m.Sweep(ctx); n != 0 {
		t.Errorf("M-SWEEP-1: Sweep removed %d tasks with huge ttls, want 0", n)
	}
}
