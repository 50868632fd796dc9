// Package storebench holds the loads the in-process stores' benchmarks share, so that
// benchmarks of the same name measure the same work on every store.
package storebench

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

// LegacyTasks creates n legacy tasks of a realistic size in st and returns their ids;
// each (when not nil) is called with every task's index and id, to create more under it.
func LegacyTasks(b *testing.B, st legacy.Store, n int, each func(ctx context.Context, i int, id string)) []string {
	b.Helper()
	ctx := context.Background()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = reference.GenerateID()
		meta := legacy.Task{"tool": "search", "args": map[string]any{"q": "x", "page": i}, "progress": 0}
		if _, err := st.Create(ctx, ids[i], meta); err != nil {
			b.Fatal(err)
		}
		if each != nil {
			each(ctx, i, ids[i])
		}
	}
	return ids
}

// Parallel runs op from the goroutines of b.RunParallel over ids in turn: i is the
// goroutine's running count, id the task it picks (each goroutine starts at its own
// stride so that they do not move in step).
func Parallel(b *testing.B, ids []string, op func(ctx context.Context, id string, i uint64) error) {
	var next atomic.Uint64
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		i := next.Add(1) * 7919
		for pb.Next() {
			i++
			if err := op(ctx, ids[i%uint64(len(ids))], i); err != nil {
				b.Fatal(err)
			}
		}
	})
}
