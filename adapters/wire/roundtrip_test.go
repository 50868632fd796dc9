package wire_test

import (
	"context"
	"errors"
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

// TestReaderRoleUnderCancellation: callers whose contexts end at random moments, some
// while they hold the reader role (blocked reading stdout for everyone), others while
// waiting for it or for their answer. Every call must return; every call that was not
// cancelled must get its own task; the session must stay healthy, and a serial call
// afterwards must work (the role was not lost with a cancelled holder).
func TestReaderRoleUnderCancellation(t *testing.T) {
	ctx := context.Background()
	c, err := wire.Start(ctx, []string{os.Args[0]}, wire.Options{Env: append(os.Environ(), serveEnv+"=1"), Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	m := c.Modern()
	now := time.Now().UnixMilli()
	const tasks = 8
	for i := range tasks {
		if _, err := m.Create(ctx, modern.Task{TaskID: fmt.Sprintf("role-%d", i), Status: reference.StatusWorking, CreatedAt: now, LastUpdatedAt: now}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	answered, cancelled := 0, 0
	within := time.After(60 * time.Second)
	for g := range 8 {
		wg.Go(func() {
			for i := range 300 {
				id := fmt.Sprintf("role-%d", (g+i)%tasks)
				cctx, cancel := context.WithTimeout(ctx, time.Duration((g*31+i*17)%150)*time.Microsecond)
				task, err := m.Get(cctx, id, reference.System())
				cancel()
				mu.Lock()
				switch {
				case err == nil && task.TaskID == id:
					answered++
				case err == nil:
					t.Errorf("Get(%s) answered with task %s", id, task.TaskID)
				case errors.Is(err, context.DeadlineExceeded):
					cancelled++
				default:
					t.Errorf("Get(%s) = %v, want the task or DeadlineExceeded", id, err)
				}
				mu.Unlock()
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-within:
		t.Fatal("calls with ending contexts did not all return within 60 s")
	}
	if err := c.Err(); err != nil {
		t.Fatalf("the session failed: %v", err)
	}
	if cancelled == 0 || answered == 0 {
		t.Errorf("answered %d, cancelled %d of 2400: the test wants both to happen", answered, cancelled)
	}
	for i := range tasks {
		id := fmt.Sprintf("role-%d", i)
		if task, err := m.Get(ctx, id, reference.System()); err != nil || task.TaskID != id {
			t.Fatalf("serial Get(%s) after the cancellations = %v, %v", id, task.TaskID, err)
		}
	}
	t.Logf("answered %d, cancelled %d", answered, cancelled)
}
