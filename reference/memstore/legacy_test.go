package memstore

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
)

var epoch = time.UnixMilli(1_764_400_000_000)

func newLegacy(t *testing.T, opts ...Option) (*Legacy, *reference.ManualClock) {
	t.Helper()
	clock := reference.NewManualClock(epoch)
	return New(append([]Option{WithClock(clock)}, opts...)...).Legacy(), clock
}

func mustCreate(t *testing.T, l *Legacy, id string, meta legacy.Task) legacy.Task {
	t.Helper()
	got, err := l.Create(context.Background(), id, meta)
	if err != nil {
		t.Fatalf("Create(%q, %s): %v", id, jsonvalue.Describe(meta), err)
	}
	return got
}

func wantTask(t *testing.T, rule, call string, got, want legacy.Task) {
	t.Helper()
	if !legacy.Equal(got, want) {
		t.Errorf("%s: %s = %s, want %s", rule, call, jsonvalue.Describe(got), jsonvalue.Describe(want))
	}
}

func wantErr(t *testing.T, rule, call string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: %s error = %v, want %v", rule, call, err, want)
	}
}

func TestLegacyCreateStampsAndRefusesExisting(t *testing.T) {
	ctx := context.Background()
	l, _ := newLegacy(t)
	meta := legacy.Task{"task_id": "other", "status": "completed", "created_at": 1, "n": 9223372036854775807, "x": map[string]any{"y": []any{1.5, nil, "s"}}}
	got := mustCreate(t, l, "t1", meta)
	want := legacy.Task{"task_id": "t1", "status": "working", "created_at": epoch.UnixMilli(), "n": 9223372036854775807, "x": map[string]any{"y": []any{1.5, nil, "s"}}}
	wantTask(t, "L-CREATE-1", `Create("t1")`, got, want)

	_, err := l.Create(ctx, "t1", legacy.Task{"other": true})
	wantErr(t, "L-CREATE-2", `Create("t1") again`, err, reference.ErrExists)
	after, err := l.Get(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	wantTask(t, "L-CREATE-2", `Get("t1") after refused Create`, after, want)
}

func TestLegacyIDs(t *testing.T) {
	ctx := context.Background()
	l, _ := newLegacy(t)
	for _, id := range []string{"", strings.Repeat("a", 513), "a\x00b", "\xff"} {
		_, err := l.Create(ctx, id, nil)
		wantErr(t, "S-ID-2", fmt.Sprintf("Create(%q)", id), err, reference.ErrInvalid)
		_, err = l.Get(ctx, id)
		wantErr(t, "S-ID-2", fmt.Sprintf("Get(%q)", id), err, reference.ErrNotFound)
		_, err = l.Update(ctx, id, legacy.Task{"a": 1})
		wantErr(t, "S-ID-2", fmt.Sprintf("Update(%q)", id), err, reference.ErrNotFound)
		if err := l.Delete(ctx, id); err != nil {
			t.Errorf("S-ID-2/L-DELETE-1: Delete(%q) = %v, want nil", id, err)
		}
	}
	for _, id := range []string{"a:b", "{a}", "a%", "a_", "a*", strings.Repeat("é", 256), "A"} {
		mustCreate(t, l, id, legacy.Task{"id": id})
		got, err := l.Get(ctx, id)
		if err != nil || got.ID() != id {
			t.Errorf("S-ID-2: Get(%q) = %v, %v; want the task", id, got, err)
		}
	}
	if _, err := l.Get(ctx, "a"); !errors.Is(err, reference.ErrNotFound) {
		t.Errorf("S-ID-2: ids are case-sensitive: Get(%q) error = %v, want ErrNotFound", "a", err)
	}
}

func TestLegacyCopies(t *testing.T) {
	ctx := context.Background()
	l, _ := newLegacy(t)
	nested := map[string]any{"k": "v"}
	meta := legacy.Task{"nested": nested}
	got := mustCreate(t, l, "t", meta)
	nested["k"] = "changed-input"
	got["nested"].(map[string]any)["k"] = "changed-output"
	changes := legacy.Task{"list": []any{"a"}}
	upd, err := l.Update(ctx, "t", changes)
	if err != nil {
		t.Fatal(err)
	}
	changes["list"].([]any)[0] = "changed-input"
	upd["list"].([]any)[0] = "changed-output"
	list, _ := l.List(ctx, legacy.ListOptions{})
	list[0]["nested"].(map[string]any)["k"] = "changed-list"
	final, _ := l.Get(ctx, "t")
	final2, _ := l.Get(ctx, "t")
	want := legacy.Task{"task_id": "t", "status": "working", "created_at": epoch.UnixMilli(), "nested": map[string]any{"k": "v"}, "list": []any{"a"}}
	wantTask(t, "S-VAL-4", `Get("t") after mutating inputs and outputs`, final, want)
	final["nested"].(map[string]any)["k"] = "changed-get"
	wantTask(t, "S-VAL-4", `Get("t") after mutating a Get result`, final2, want)
}

func TestLegacyUpdateDeleteCancel(t *testing.T) {
	ctx := context.Background()
	l, _ := newLegacy(t)
	mustCreate(t, l, "t", legacy.Task{"a": map[string]any{"x": 1, "y": 2}, "b": 1})
	got, err := l.Update(ctx, "t", legacy.Task{"a": map[string]any{"z": 3}, "b": nil, "c": "new"})
	if err != nil {
		t.Fatal(err)
	}
	want := legacy.Task{"task_id": "t", "status": "working", "created_at": epoch.UnixMilli(), "a": map[string]any{"z": 3}, "b": nil, "c": "new"}
	wantTask(t, "L-UPDATE-1", `Update("t")`, got, want)

	_, err = l.Update(ctx, "missing", legacy.Task{"a": 1})
	wantErr(t, "L-UPDATE-2", `Update("missing")`, err, reference.ErrNotFound)
	if _, err := l.Get(ctx, "missing"); !errors.Is(err, reference.ErrNotFound) {
		t.Errorf("L-UPDATE-2: Update of a missing id created it: Get error = %v", err)
	}

	c, err := l.Cancel(ctx, "t")
	if err != nil || c.Status() != reference.StatusCancelled {
		t.Errorf("L-CANCEL-1: Cancel(\"t\") = %v, %v; want status cancelled", c, err)
	}
	_, err = l.Cancel(ctx, "missing")
	wantErr(t, "L-CANCEL-1", `Cancel("missing")`, err, reference.ErrNotFound)

	for range 2 {
		if err := l.Delete(ctx, "t"); err != nil {
			t.Errorf("L-DELETE-1: Delete(\"t\") = %v, want nil", err)
		}
	}
	_, err = l.Get(ctx, "t")
	wantErr(t, "L-DELETE-1", `Get("t") after Delete`, err, reference.ErrNotFound)
}

func TestLegacyUpdateIf(t *testing.T) {
	ctx := context.Background()
	l, _ := newLegacy(t)
	open := []reference.Status{reference.StatusWorking, reference.StatusInputRequired}
	mustCreate(t, l, "t", legacy.Task{})
	if _, err := l.UpdateIf(ctx, "t", open, legacy.Task{"status": "completed", "r": 1}); err != nil {
		t.Fatalf("L-F-FIN-2: UpdateIf(working→completed) = %v", err)
	}
	_, err := l.UpdateIf(ctx, "t", open, legacy.Task{"status": "cancelled"})
	wantErr(t, "L-F-FIN-2", `UpdateIf(completed→cancelled)`, err, reference.ErrConflict)
	got, _ := l.Get(ctx, "t")
	if got.Status() != reference.StatusCompleted {
		t.Errorf("L-F-FIN-2: a refused UpdateIf wrote: status = %s, want completed", got.Status())
	}
	_, err = l.UpdateIf(ctx, "missing", open, legacy.Task{"a": 1})
	wantErr(t, "L-F-FIN-2", `UpdateIf("missing")`, err, reference.ErrNotFound)
}

func TestLegacyList(t *testing.T) {
	ctx := context.Background()
	l, _ := newLegacy(t, WithShards(4))
	rows := map[string]legacy.Task{
		"free":  {},
		"alice": {"owner": "alice"},
		"bob":   {"owner": "bob"},
		"null":  {"owner": nil},
		"done":  {"owner": "alice"},
	}
	for id, meta := range rows {
		mustCreate(t, l, id, meta)
	}
	if _, err := l.Update(ctx, "done", legacy.Task{"status": "completed"}); err != nil {
		t.Fatal(err)
	}
	str := func(s string) *string { return &s }
	cases := []struct {
		name string
		opts legacy.ListOptions
		want string
	}{
		{"all", legacy.ListOptions{}, "alice bob done free null"},
		{"status", legacy.ListOptions{Status: str("completed")}, "done"},
		{"unknown status", legacy.ListOptions{Status: str("done")}, ""},
		{"anonymous", legacy.ListOptions{Owner: legacy.AnonymousOwner()}, "free null"},
		{"principal", legacy.ListOptions{Owner: legacy.PrincipalOwner("alice")}, "alice done free null"},
		{"principal case", legacy.ListOptions{Owner: legacy.PrincipalOwner("Alice")}, "free null"},
		{"require owner", legacy.ListOptions{Owner: legacy.PrincipalOwner("alice"), RequireOwner: true}, "alice done"},
		{"require owner anonymous", legacy.ListOptions{Owner: legacy.AnonymousOwner(), RequireOwner: true}, ""},
		{"limit 0", legacy.ListOptions{Limit: new(0)}, ""},
		{"limit -1", legacy.ListOptions{Limit: new(-1)}, ""},
	}
	for _, c := range cases {
		got, err := l.List(ctx, c.opts)
		if err != nil {
			t.Errorf("L-LIST: List(%s): %v", c.name, err)
			continue
		}
		if ids := idSet(got); ids != c.want {
			t.Errorf("L-LIST: List(%s) = [%s], want [%s]", c.name, ids, c.want)
		}
	}
	for n := 1; n <= 6; n++ {
		got, err := l.List(ctx, legacy.ListOptions{Limit: new(n), Owner: legacy.PrincipalOwner("alice")})
		if err != nil {
			t.Fatal(err)
		}
		if want := min(n, 4); len(got) != want || len(strings.Fields(idSet(got))) != want {
			t.Errorf("L-LIST-2: List(limit %d, principal alice) = [%s], want %d distinct rows", n, idSet(got), want)
		}
	}
}

// idSet renders the sorted task ids of rows, duplicates kept so they show.
func idSet(rows []legacy.Task) string {
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID()
	}
	slices.Sort(ids)
	return strings.Join(ids, " ")
}

func TestLegacyCleanup(t *testing.T) {
	ctx := context.Background()
	l, clock := newLegacy(t)
	const ttl = 10 * time.Second
	mustCreate(t, l, "old-done", legacy.Task{})
	mustCreate(t, l, "old-failed", legacy.Task{})
	mustCreate(t, l, "old-working", legacy.Task{})
	mustCreate(t, l, "old-input", legacy.Task{})
	mustCreate(t, l, "old-nostatus", legacy.Task{})
	clock.Advance(time.Millisecond)
	mustCreate(t, l, "edge-done", legacy.Task{})
	for id, st := range map[string]any{"old-done": "completed", "old-failed": "failed", "old-input": "input_required", "old-nostatus": nil, "edge-done": "cancelled"} {
		if _, err := l.Update(ctx, id, legacy.Task{"status": st}); err != nil {
			t.Fatal(err)
		}
	}
	// now - created_at: old-* 10 001 ms, edge-done exactly 10 000 ms (not removed).
	clock.Advance(ttl)
	n, err := l.Cleanup(ctx, ttl)
	if err != nil {
		t.Fatal(err)
	}
	rest, _ := l.List(ctx, legacy.ListOptions{})
	if n != 2 || idSet(rest) != "edge-done old-input old-nostatus old-working" {
		t.Errorf("L-CLEAN-1: Cleanup(%v) = %d leaving [%s], want 2 leaving [edge-done old-input old-nostatus old-working]", ttl, n, idSet(rest))
	}
	clock.Advance(time.Millisecond)
	if n, _ := l.Cleanup(ctx, ttl); n != 1 {
		t.Errorf("L-CLEAN-1: Cleanup(%v) one ms later = %d, want 1 (edge-done)", ttl, n)
	}
}

func TestLegacyContext(t *testing.T) {
	l, _ := newLegacy(t)
	mustCreate(t, l, "t", legacy.Task{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := map[string]func() error{
		"Create":   func() error { _, err := l.Create(ctx, "u", nil); return err },
		"Get":      func() error { _, err := l.Get(ctx, "t"); return err },
		"Update":   func() error { _, err := l.Update(ctx, "t", legacy.Task{"a": 1}); return err },
		"UpdateIf": func() error { _, err := l.UpdateIf(ctx, "t", nil, legacy.Task{"a": 1}); return err },
		"Cancel":   func() error { _, err := l.Cancel(ctx, "t"); return err },
		"Delete":   func() error { return l.Delete(ctx, "t") },
		"List":     func() error { _, err := l.List(ctx, legacy.ListOptions{}); return err },
		"Cleanup":  func() error { _, err := l.Cleanup(ctx, 0); return err },
	}
	for name, call := range calls {
		wantErr(t, "S-CTX-1", name+" with a cancelled context", call(), context.Canceled)
	}
	got, err := l.Get(context.Background(), "t")
	wantTask(t, "S-CTX-1", `Get("t") after cancelled calls`, got, legacy.Task{"task_id": "t", "status": "working", "created_at": epoch.UnixMilli()})
	if err != nil {
		t.Error(err)
	}
}

func TestLegacyConcurrentDisjointUpdates(t *testing.T) {
	ctx := context.Background()
	l, _ := newLegacy(t)
	mustCreate(t, l, "t", legacy.Task{})
	const writers, rounds = 8, 50
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for r := range rounds {
				if _, err := l.Update(ctx, "t", legacy.Task{fmt.Sprintf("k%d-%d", w, r): r}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	got, _ := l.Get(ctx, "t")
	if len(got) != 3+writers*rounds {
		t.Errorf("L-CONC-1: after %d concurrent disjoint Updates the task has %d keys, want %d", writers*rounds, len(got), 3+writers*rounds)
	}
}

func TestLegacyConcurrentUpdateDelete(t *testing.T) {
	ctx := context.Background()
	l, _ := newLegacy(t)
	for i := range 200 {
		id := fmt.Sprint("t", i)
		mustCreate(t, l, id, legacy.Task{})
		var wg sync.WaitGroup
		wg.Go(func() { _, _ = l.Update(ctx, id, legacy.Task{"a": 1}) })
		wg.Go(func() { _ = l.Delete(ctx, id) })
		wg.Wait()
		if _, err := l.Get(ctx, id); !errors.Is(err, reference.ErrNotFound) {
			t.Fatalf("L-CONC-1: Update racing Delete resurrected %s: Get error = %v", id, err)
		}
	}
}

// List while tasks are written returns each task at most once, and every task that
// exists throughout the List exactly once (L-LIST-1).
func TestLegacyListDuringWrites(t *testing.T) {
	ctx := context.Background()
	l, _ := newLegacy(t, WithShards(8))
	const stable = 300
	for i := range stable {
		mustCreate(t, l, fmt.Sprint("s", i), legacy.Task{})
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			id := fmt.Sprint("churn", i%50)
			_, _ = l.Create(ctx, id, nil)
			_, _ = l.Update(ctx, fmt.Sprint("s", i%stable), legacy.Task{"i": i})
			_ = l.Delete(ctx, id)
		}
	})
	for range 50 {
		rows, err := l.List(ctx, legacy.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]int{}
		for _, r := range rows {
			seen[r.ID()]++
		}
		for id, n := range seen {
			if n != 1 {
				t.Fatalf("L-LIST-1: List during writes returned %s %d times", id, n)
			}
		}
		for i := range stable {
			if seen[fmt.Sprint("s", i)] != 1 {
				t.Fatalf("L-LIST-1: List during writes missed s%d, which existed throughout", i)
			}
		}
	}
	close(stop)
	wg.Wait()
}

// TestLegacyListAfter holds ListAfter to L-LIST-5 against List: for every scope, status,
// limit and a position at, just before and just after each row, the page is List's rows
// after the position in (created_at, task_id) order, cut at the limit, each a copy.
func TestLegacyListAfter(t *testing.T) {
	ctx := context.Background()
	l, clock := newLegacy(t)
	owners := []any{"alice", "bob", nil, 7}
	for i := range 40 {
		if i%3 == 0 {
			clock.Advance(time.Millisecond)
		}
		id := fmt.Sprintf("t%02d", (i*17)%40)
		mustCreate(t, l, id, legacy.Task{legacy.KeyOwner: owners[i%len(owners)]})
		if i%4 == 1 {
			if _, err := l.Update(ctx, id, legacy.Task{legacy.KeyStatus: "completed"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	all, err := l.List(ctx, legacy.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	positions := []*legacy.Position{nil}
	for _, r := range all {
		p := legacy.PositionOf(r)
		positions = append(positions, &p, &legacy.Position{CreatedAt: p.CreatedAt}, &legacy.Position{CreatedAt: p.CreatedAt, ID: p.ID + "\x00"})
	}
	scopes := []legacy.OwnerScope{legacy.AnyOwner(), legacy.AnonymousOwner(), legacy.PrincipalOwner("alice")}
	for _, scope := range scopes {
		for _, req := range []bool{false, true} {
			for _, status := range []*string{nil, new("completed")} {
				for _, limit := range []*int{nil, new(1), new(5), new(0)} {
					opts := legacy.ListOptions{Owner: scope, RequireOwner: req, Status: status, Limit: limit}
					whole := opts
					whole.Limit = nil
					rows, err := l.List(ctx, whole)
					if err != nil {
						t.Fatal(err)
					}
					for _, after := range positions {
						got, err := l.ListAfter(ctx, opts, after)
						if err != nil {
							t.Fatal(err)
						}
						if want := pageIDs(legacy.Page(rows, opts, after)); !slices.Equal(pageIDs(got), want) {
							t.Fatalf("L-LIST-5: ListAfter(%s, require %v, status %v, limit %v, after %+v) = %q, want %q",
								scope, req, status != nil, limit, after, pageIDs(got), want)
						}
					}
				}
			}
		}
	}
	page, _ := l.ListAfter(ctx, legacy.ListOptions{Limit: new(1)}, nil)
	page[0]["mutated"] = true
	if stored, _ := l.Get(ctx, page[0].ID()); stored["mutated"] != nil {
		t.Errorf("S-VAL-4: a key set on ListAfter's row reached the store")
	}
}

func pageIDs(rows []legacy.Task) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.ID()
	}
	return out
}
