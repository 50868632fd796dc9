package legacy_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/memstore"
)

// BenchmarkListPage is the reference server's tasks/list under load: a page of 11 (a page
// of 10 and one to tell whether more follow) of one principal's tasks, from the middle of
// its listing, among 8 000 tasks of four principals and anonymous callers, a millisecond
// apart in fives. "pager" pages through the store's ListAfter, "whole-list" through List
// and a sort (a store without legacy.Pager).
func BenchmarkListPage(b *testing.B) {
	ctx := context.Background()
	clock := reference.NewManualClock(epoch)
	mem := memstore.New(memstore.WithClock(clock)).Legacy()
	seed := legacy.New(mem)
	owners := []string{"alice", "bob", "carol", "dave", ""}
	for i := range 8000 {
		if i%5 == 0 {
			clock.Advance(time.Millisecond)
		}
		if _, err := seed.Create(ctx, fmt.Sprintf("task-%05d", i), legacy.Task{"tool": "slow", "args": map[string]any{"n": i}}, owners[i%len(owners)]); err != nil {
			b.Fatal(err)
		}
	}
	mid := legacy.Position{CreatedAt: epoch.UnixMilli() + 800, ID: ""}
	for _, shape := range []struct {
		name string
		st   legacy.Store
	}{{"pager", mem}, {"whole-list", plain{mem}}} {
		b.Run(shape.name, func(b *testing.B) {
			tasks := legacy.New(shape.st)
			b.ReportAllocs()
			for b.Loop() {
				page, err := tasks.ListAfter(ctx, legacy.ListOptions{Limit: new(11)}, &mid, reference.Principal("alice"))
				if err != nil || len(page) != 11 {
					b.Fatalf("ListAfter(limit 11) as alice: %d rows, %v", len(page), err)
				}
			}
		})
	}
}
