package wire_test

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/storecheck/storecheck/adapters/wire"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/modern"
)

// BenchmarkRoundTrip times modern Get over the wire: one Client and this test binary
// serving memstore as its child (the child `storecheck serve` runs). clients=1 is the
// serial round trip; clients=N has N goroutines calling through the one Client at once,
// so that up to N requests are pipelined on the child. ns/op is wall time per call over
// all clients, and ops/s its inverse: throughput scales when ops/s grows with N.
func BenchmarkRoundTrip(b *testing.B) {
	ctx := context.Background()
	c, err := wire.Start(ctx, []string{os.Args[0]}, wire.Options{Env: append(os.Environ(), serveEnv+"=1"), Timeout: time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	m := c.Modern()
	now := time.Now().UnixMilli()
	task, err := m.Create(ctx, modern.Task{TaskID: "rt-task-1", Status: reference.StatusWorking, CreatedAt: now, LastUpdatedAt: now,
		StatusMessage: "queued", TTL: new(int64(86_400_000)), PollInterval: new(int64(1000))})
	if err != nil {
		b.Fatal(err)
	}
	get := func(b *testing.B) {
		if _, err := m.Get(ctx, task.TaskID, reference.System()); err != nil {
			b.Error(err)
		}
	}
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			get(b)
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
	})
	for _, n := range []int{1, 2, 4, 8, 16} {
		b.Run(fmt.Sprintf("clients=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			var wg sync.WaitGroup
			start := time.Now()
			for i := range n {
				calls := b.N / n
				if i < b.N%n {
					calls++
				}
				wg.Go(func() {
					for range calls {
						get(b)
					}
				})
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "ops/s")
		})
	}
}
