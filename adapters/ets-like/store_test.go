package etslike

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonvalue"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

var epoch = time.UnixMilli(1_764_400_000_000)

func newStore(opts ...Option) (*Store, *reference.ManualClock) {
	clock := reference.NewManualClock(epoch)
	return New(append([]Option{WithClock(clock)}, opts...)...), clock
}

func ids(rows []legacy.Task) string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.ID()
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

// snapshot renders every row of both keyspaces, to show that a refused call changed nothing.
func snapshot(t *testing.T, s *Store) string {
	t.Helper()
	ctx := context.Background()
	rows, err := s.Legacy().List(ctx, legacy.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(rows, func(a, b legacy.Task) int { return strings.Compare(a.ID(), b.ID()) })
	s.mu.RLock()
	defer s.mu.RUnlock()
	var mods []string
	for id, m := range s.modernRows {
		mods = append(mods, id+"="+jsonvalue.Describe(m))
	}
	slices.Sort(mods)
	return jsonvalue.Describe(rows) + " | " + strings.Join(mods, ",")
}

// TestRowCap is the row cap EtsStore enforces: a Create at the cap fails with ErrLimitReached and changes
// nothing; every row counts (terminal and expired ones, both eras); a delete frees a slot.
func TestRowCap(t *testing.T) {
	ctx := context.Background()
	const maxRows = 4
	s, clock := newStore(WithMaxRows(maxRows))
	l, m := s.Legacy(), s.Modern()
	for i := range 2 {
		if _, err := l.Create(ctx, fmt.Sprint("l", i), legacy.Task{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.Update(ctx, "l0", legacy.Task{"status": "completed"}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Create(ctx, modern.Task{TaskID: "m0", CreatedAt: epoch.UnixMilli(), TTL: new(int64(10))}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Create(ctx, modern.Task{TaskID: "m1"}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second) // m0 is now expired, but unswept: it still holds its slot
	if n := s.Len(); n != maxRows {
		t.Fatalf("Len() = %d, want %d", n, maxRows)
	}
	before := snapshot(t, s)

	_, err := l.Create(ctx, "over", legacy.Task{"x": 1})
	if !errors.Is(err, reference.ErrLimitReached) {
		t.Errorf("row cap: legacy Create at the cap (%d rows) error = %v, want ErrLimitReached", maxRows, err)
	}
	_, err = m.Create(ctx, modern.Task{TaskID: "over"})
	if !errors.Is(err, reference.ErrLimitReached) {
		t.Errorf("row cap: modern Create at the cap (%d rows) error = %v, want ErrLimitReached", maxRows, err)
	}
	_, err = l.Create(ctx, "l1", legacy.Task{})
	if !errors.Is(err, reference.ErrExists) {
		t.Errorf("L-CREATE-2: Create of an existing id at the cap error = %v, want ErrExists", err)
	}
	if after := snapshot(t, s); after != before {
		t.Errorf("row cap: refused Creates changed the table:\nbefore %s\nafter  %s", before, after)
	}

	// Each way of removing a row frees exactly its slot.
	frees := []struct {
		name string
		free func() error
	}{
		{"legacy Delete", func() error { return l.Delete(ctx, "l1") }},
		{"legacy Cleanup", func() error { _, err := l.Cleanup(ctx, 0); return err }},
		{"modern Sweep", func() error { _, err := m.Sweep(ctx); return err }},
		{"modern Delete", func() error { return m.Delete(ctx, "m1") }},
	}
	for i, f := range frees {
		if err := f.free(); err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		id := fmt.Sprint("new", i)
		if _, err := l.Create(ctx, id, legacy.Task{}); err != nil {
			t.Errorf("row cap: Create after %s freed a slot error = %v, want nil", f.name, err)
		}
		if _, err := l.Create(ctx, id+"-again", legacy.Task{}); !errors.Is(err, reference.ErrLimitReached) {
			t.Errorf("row cap: %s freed more than one slot: second Create error = %v, want ErrLimitReached", f.name, err)
		}
	}
}

func TestRowCapConcurrent(t *testing.T) {
	ctx := context.Background()
	const maxRows = 50
	s, _ := newStore(WithMaxRows(maxRows))
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		created int
	)
	for w := range 8 {
		wg.Go(func() {
			for i := range 20 {
				_, err := s.Legacy().Create(ctx, fmt.Sprint(w, "-", i), nil)
				if err == nil {
					mu.Lock()
					created++
					mu.Unlock()
				} else if !errors.Is(err, reference.ErrLimitReached) {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if created != maxRows || s.Len() != maxRows {
		t.Errorf("row cap: 160 concurrent Creates under a cap of %d created %d (Len %d), want exactly %d", maxRows, created, s.Len(), maxRows)
	}
}

func TestDefaultsAndBadOptions(t *testing.T) {
	if got := New().MaxRows(); got != DefaultMaxRows || DefaultMaxRows != 10_000 {
		t.Errorf("New().MaxRows() = %d, want 10000", got)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "WithMaxRows(0)") {
			t.Errorf("WithMaxRows(0) panic = %v, want a message naming the bad option", r)
		}
	}()
	WithMaxRows(0)
}

// TestCompileAgreesWithMatches checks the compiled list predicate against the contract's
// own ListOptions.Matches over every combination of filters and row shapes.
func TestCompileAgreesWithMatches(t *testing.T) {
	rows := []legacy.Task{
		{}, {"status": "working"}, {"status": "completed"}, {"status": "bogus"}, {"status": 3},
		{"owner": "alice"}, {"owner": "bob", "status": "failed"}, {"owner": nil}, {"owner": 1},
		{"owner": "", "status": "input_required"}, {"owner": "Alice"},
	}
	statuses := []*string{nil, new("working"), new("completed"), new("failed"), new("bogus"), new("")}
	scopes := []legacy.OwnerScope{legacy.AnyOwner(), legacy.AnonymousOwner(), legacy.PrincipalOwner("alice"), legacy.PrincipalOwner("bob")}
	for _, st := range statuses {
		for _, sc := range scopes {
			for _, req := range []bool{false, true} {
				opts := legacy.ListOptions{Status: st, Owner: sc, RequireOwner: req}
				match := compile(opts)
				for _, r := range rows {
					got := match != nil && match(r)
					if want := opts.Matches(r); got != want {
						t.Errorf("L-LIST-1/3: compiled predicate (status %v, scope %s, require_owner %v) on %s = %v, want %v",
							jsonvalue.Describe(st), sc, req, jsonvalue.Describe(r), got, want)
					}
				}
			}
		}
	}
}

func TestListLimitAndOnePass(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore()
	l := s.Legacy()
	for i := range 20 {
		meta := legacy.Task{}
		if i%2 == 0 {
			meta["owner"] = "alice"
		}
		if _, err := l.Create(ctx, fmt.Sprint("t", i), meta); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		limit *int
		scope legacy.OwnerScope
		want  int
	}{
		{nil, legacy.AnyOwner(), 20},
		{new(0), legacy.AnyOwner(), 0},
		{new(-3), legacy.AnyOwner(), 0},
		{new(5), legacy.AnyOwner(), 5},
		{new(15), legacy.AnonymousOwner(), 10},
		{new(25), legacy.PrincipalOwner("alice"), 20},
		{nil, legacy.PrincipalOwner("bob"), 10},
	} {
		got, err := l.List(ctx, legacy.ListOptions{Limit: c.limit, Owner: c.scope})
		if err != nil {
			t.Fatal(err)
		}
		distinct := len(slices.Compact(strings.Fields(ids(got))))
		if len(got) != c.want || distinct != c.want {
			t.Errorf("L-LIST-2: List(limit %s, %s) = %d rows (%d distinct), want %d", jsonvalue.Describe(c.limit), c.scope, len(got), distinct, c.want)
		}
	}
}

func TestCopiesAndContext(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore()
	l := s.Legacy()
	in := legacy.Task{"n": map[string]any{"k": "v"}}
	out, err := l.Create(ctx, "t", in)
	if err != nil {
		t.Fatal(err)
	}
	in["n"].(map[string]any)["k"] = "in"
	out["n"].(map[string]any)["k"] = "out"
	got, _ := l.Get(ctx, "t")
	if !jsonvalue.Equal(got["n"], map[string]any{"k": "v"}) {
		t.Errorf("S-VAL-4: stored value changed through Create's input or output: %s", jsonvalue.Describe(got))
	}
	dead, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := l.Update(dead, "t", legacy.Task{"a": 1}); !errors.Is(err, context.Canceled) {
		t.Errorf("S-CTX-1: Update with a cancelled context error = %v, want context.Canceled", err)
	}
	if _, err := s.Modern().Sweep(dead); !errors.Is(err, context.Canceled) {
		t.Errorf("S-CTX-1: Sweep with a cancelled context error = %v, want context.Canceled", err)
	}
	if got, _ := l.Get(ctx, "t"); len(got) != 4 {
		t.Errorf("S-CTX-1: refused Update wrote: %s", jsonvalue.Describe(got))
	}
}

func TestCleanupAndCASOnTheTable(t *testing.T) {
	ctx := context.Background()
	s, clock := newStore()
	l, m := s.Legacy(), s.Modern()
	for _, id := range []string{"done", "work"} {
		if _, err := l.Create(ctx, id, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.Update(ctx, "done", legacy.Task{"status": "failed"}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	if n, _ := l.Cleanup(ctx, time.Second); n != 0 {
		t.Errorf("L-CLEAN-1: Cleanup(1s) at age exactly 1s removed %d, want 0", n)
	}
	clock.Advance(time.Millisecond)
	if n, _ := l.Cleanup(ctx, time.Second); n != 1 {
		t.Errorf("L-CLEAN-1: Cleanup(1s) at age 1.001s removed %d, want 1", n)
	}
	if _, err := m.Create(ctx, modern.Task{TaskID: "c", Owner: "alice"}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	alice := reference.Principal("alice")
	for range 8 {
		wg.Go(func() {
			for range 50 {
				for {
					cur, err := m.Get(ctx, "c", alice)
					if err != nil {
						t.Error(err)
						return
					}
					cur.StatusMessage += "x"
					if _, err = m.Swap(ctx, alice, cur.Version, cur); err == nil {
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
	got, _ := m.Get(ctx, "c", alice)
	if len(got.StatusMessage) != 400 || got.Version != 401 {
		t.Errorf("M-SWAP-4: 8×50 CAS appends ended at %d chars, version %d; want 400, 401", len(got.StatusMessage), got.Version)
	}
	if _, err := m.Swap(ctx, reference.Principal("bob"), got.Version, got); err == nil || err.Error() != reference.NotFound("c").Error() {
		t.Errorf("M-SWAP-2: foreign Swap error = %v, want %v", err, reference.NotFound("c"))
	}
}
