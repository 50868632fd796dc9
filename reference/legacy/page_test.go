package legacy_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

// pagerLeaky is a Pager that ignores every option: it answers the whole store, newest
// first, whatever the scope, position and limit.
type pagerLeaky struct{ *leaky }

func (p pagerLeaky) ListAfter(ctx context.Context, _ legacy.ListOptions, _ *legacy.Position) ([]legacy.Task, error) {
	return p.List(ctx, legacy.ListOptions{})
}

// pagerCounting is a Pager that counts its calls, so that a test can tell the facade
// asked for a page rather than the whole List.
type pagerCounting struct {
	legacy.Store
	legacy.Pager
	pages *int
}

func (p pagerCounting) ListAfter(ctx context.Context, opts legacy.ListOptions, after *legacy.Position) ([]legacy.Task, error) {
	*p.pages++
	return p.Pager.ListAfter(ctx, opts, after)
}

// TestListAfterPages pages through a caller's tasks with ListAfter over a store with a
// Pager, one without (the facade sorts List) and a Pager that ignores its options (the
// facade's re-check): each must give the caller's visible tasks matching the status
// exactly once, in (created_at, task_id) order, whatever the page size. Tasks share
// creation times, so the id decides within a millisecond.
func TestListAfterPages(t *testing.T) {
	ctx := context.Background()
	for _, shape := range []string{"pager", "no-pager", "pager-ignores-options"} {
		t.Run(shape, func(t *testing.T) {
			mem, clock := newMem(t)
			pages := 0
			var st legacy.Store
			switch shape {
			case "pager":
				st = pagerCounting{mem, mem, &pages}
			case "no-pager":
				st = plain{mem}
			default:
				st = pagerLeaky{&leaky{Store: mem}}
			}
			seed := legacy.New(mem)
			owners := []string{"alice", "bob", ""}
			var want, wantWorking []string // alice's visible ids in order
			for i := range 30 {
				if i%4 == 0 {
					clock.Advance(time.Millisecond)
				}
				// Ids out of creation order, so that order by id alone is wrong.
				id := fmt.Sprintf("t%02d", (i*7)%30)
				owner := owners[i%3]
				if _, err := seed.Create(ctx, id, legacy.Task{}, owner); err != nil {
					t.Fatal(err)
				}
				if owner == "bob" {
					continue
				}
				want = append(want, id)
				if i%5 != 0 {
					wantWorking = append(wantWorking, id)
				} else if _, err := mem.Update(ctx, id, legacy.Task{legacy.KeyStatus: "completed"}); err != nil {
					t.Fatal(err)
				}
			}
			want = byPosition(t, mem, want)
			wantWorking = byPosition(t, mem, wantWorking)
			tasks := legacy.New(st)
			alice := reference.Principal("alice")
			for _, limit := range []int{1, 3, 7, 100} {
				for _, status := range []*string{nil, new("working")} {
					w := want
					if status != nil {
						w = wantWorking
					}
					var got []string
					var after *legacy.Position
					for range len(w) + 2 {
						page, err := tasks.ListAfter(ctx, legacy.ListOptions{Status: status, Limit: new(limit)}, after, alice)
						if err != nil {
							t.Fatal(err)
						}
						if len(page) > limit {
							t.Fatalf("ListAfter(limit %d) as alice: %d rows", limit, len(page))
						}
						if len(page) == 0 {
							break
						}
						got = append(got, ids(page)...)
						last := legacy.PositionOf(page[len(page)-1])
						after = &last
					}
					if !slices.Equal(got, w) {
						t.Errorf("ListAfter pages of %d (status %v) as alice: want %q, got %q", limit, optStrs(status), w, got)
					}
				}
			}
			if shape == "pager" && pages == 0 {
				t.Errorf("the facade never asked the store's Pager for a page")
			}
			if none, err := tasks.ListAfter(ctx, legacy.ListOptions{Limit: new(0)}, nil, alice); err != nil || len(none) != 0 || none == nil {
				t.Errorf("ListAfter(limit 0): want an empty page, got %q, %v", ids(none), err)
			}
		})
	}
}

// byPosition sorts ids by the stored tasks' positions, as the test's oracle.
func byPosition(t *testing.T, st legacy.Store, ids []string) []string {
	t.Helper()
	pos := map[string]legacy.Position{}
	for _, id := range ids {
		task, err := st.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		pos[id] = legacy.PositionOf(task)
	}
	out := slices.Clone(ids)
	slices.SortFunc(out, func(a, b string) int { return pos[a].Compare(pos[b]) })
	return out
}

// TestPositionOrder: created_at first, then the id; nil comes before everything.
func TestPositionOrder(t *testing.T) {
	a := legacy.Position{CreatedAt: 5, ID: "b"}
	for _, c := range []struct {
		p, q legacy.Position
		want int
	}{
		{a, a, 0},
		{a, legacy.Position{CreatedAt: 5, ID: "c"}, -1},
		{a, legacy.Position{CreatedAt: 5, ID: "a"}, 1},
		{a, legacy.Position{CreatedAt: 6, ID: "a"}, -1},
		{a, legacy.Position{CreatedAt: 4, ID: "z"}, 1},
	} {
		if got := c.p.Compare(c.q); got != c.want {
			t.Errorf("%+v.Compare(%+v) = %d, want %d", c.p, c.q, got, c.want)
		}
	}
	if !a.After(nil) || a.After(&a) || !a.After(&legacy.Position{CreatedAt: 5}) {
		t.Errorf("After: every position is after nil and after its own time with an empty id, none after itself")
	}
	if got := legacy.PositionOf(legacy.Task{legacy.KeyTaskID: "x"}); got != (legacy.Position{ID: "x"}) {
		t.Errorf("PositionOf a task without created_at: %+v, want created 0", got)
	}
}
