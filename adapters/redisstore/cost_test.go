package redisstore_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/storecheck/storecheck/adapters/redisstore"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// roundTrips counts what a client sends: one per command, one per pipeline.
type roundTrips struct{ n atomic.Int64 }

func (r *roundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }
func (r *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { r.n.Add(1); return next(ctx, cmd) }
}
func (r *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error { r.n.Add(1); return next(ctx, cmds) }
}

// serverCommands is the number of commands the server has run (INFO commandstats),
// commands run by scripts included.
func serverCommands(t *testing.T, c redis.UniversalClient) int64 {
	t.Helper()
	info, err := c.Info(context.Background(), "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, line := range strings.Split(info, "\n") {
		_, rest, ok := strings.Cut(line, "calls=")
		if !ok {
			continue
		}
		n, _ := strconv.ParseInt(rest[:strings.IndexByte(rest, ',')], 10, 64)
		total += n
	}
	return total
}

// TestCostDoesNotGrowWithTasks measures each call's round trips and server commands
// (the numbers of doc.go) with 10 and with 1000 other tasks in the prefix: they must be
// the same, since no call scans the keyspace or an index it does not need.
func TestCostDoesNotGrowWithTasks(t *testing.T) {
	f := newFixture(t) // 4 buckets
	ctx := t.Context()
	rt := &roundTrips{}
	opts := *srv.Get(t)
	c := redis.NewClient(&opts)
	defer c.Close()
	c.AddHook(rt)
	s, err := redisstore.New(c, redisstore.WithPrefix(f.prefix), redisstore.WithBuckets(4), redisstore.WithClock(f.clock))
	if err != nil {
		t.Fatal(err)
	}
	l, m := s.Legacy(), s.Modern()
	if _, err := l.Get(ctx, "warm-up"); err == nil { // the instance's first call checks the bucket count
		t.Fatal("warm-up task exists")
	}
	ttl := int64(60_000)
	fill := func(from, to int) {
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				for i := from + g; i < to; i += 8 {
					id := fmt.Sprint("bulk-", i)
					_, _ = f.legacy.Create(ctx, id, legacy.Task{"owner": "bulk"})
					_, _ = f.legacy.Update(ctx, id, legacy.Task{"status": "completed"})
					_, _ = f.modern.Create(ctx, modern.Task{TaskID: id, CreatedAt: reference.NowMillis(f.clock), TTL: &ttl})
				}
			})
		}
		wg.Wait()
	}
	type cost struct{ rt, cmds int64 }
	measure := func(round int) map[string]cost {
		out := map[string]cost{}
		one := func(name string, call func() error) {
			before, rt0 := serverCommands(t, c), rt.n.Load()
			if err := call(); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			// Take away the INFO that read "before" (the server counts it in the
			// next INFO) and the round trip of the INFO below.
			after := serverCommands(t, c)
			out[name] = cost{rt: rt.n.Load() - rt0 - 1, cmds: after - before - 1}
		}
		id := fmt.Sprint("probe-", round)
		one("legacy Create", func() error { _, err := l.Create(ctx, id, legacy.Task{"owner": "me"}); return err })
		one("legacy Get", func() error { _, err := l.Get(ctx, id); return err })
		one("legacy Update (data key)", func() error { _, err := l.Update(ctx, id, legacy.Task{"x": 1}); return err })
		one("legacy Update (status)", func() error { _, err := l.Update(ctx, id, legacy.Task{"status": "input_required"}); return err })
		one("legacy UpdateIf", func() error {
			_, err := l.UpdateIf(ctx, id, []reference.Status{"input_required"}, legacy.Task{"status": "working"})
			return err
		})
		one("legacy Cancel", func() error { _, err := l.Cancel(ctx, id); return err })
		one("legacy List (status cancelled, principal me)", func() error {
			rows, err := l.List(ctx, legacy.ListOptions{Status: new("cancelled"), Owner: legacy.PrincipalOwner("me"), RequireOwner: true})
			if err == nil && len(rows) != 1 {
				err = fmt.Errorf("%d rows, want 1", len(rows))
			}
			return err
		})
		one("legacy Cleanup (nothing due)", func() error { _, err := l.Cleanup(ctx, time.Hour); return err })
		one("legacy Delete", func() error { return l.Delete(ctx, id) })
		task := modern.Task{TaskID: id, Status: reference.StatusWorking, CreatedAt: reference.NowMillis(f.clock), TTL: &ttl}
		one("modern Create", func() error { _, err := m.Create(ctx, task); return err })
		one("modern Get", func() error { _, err := m.Get(ctx, id, reference.System()); return err })
		one("modern Swap", func() error { _, err := m.Swap(ctx, reference.System(), 1, task); return err })
		one("modern Sweep (nothing due)", func() error { _, err := m.Sweep(ctx); return err })
		one("modern Delete", func() error { return m.Delete(ctx, id) })
		return out
	}
	fill(0, 10)
	measure(0) // loads every script on the server: a first EVALSHA costs an EVAL more
	small := measure(1)
	fill(10, 1000)
	large := measure(2)
	var table strings.Builder
	for _, name := range []string{"legacy Create", "legacy Get", "legacy Update (data key)", "legacy Update (status)",
		"legacy UpdateIf", "legacy Cancel", "legacy List (status cancelled, principal me)", "legacy Cleanup (nothing due)",
		"legacy Delete", "modern Create", "modern Get", "modern Swap", "modern Sweep (nothing due)", "modern Delete"} {
		fmt.Fprintf(&table, "  %-46s round trips %d, server commands %d\n", name, small[name].rt, small[name].cmds)
		if small[name] != large[name] {
			t.Errorf("%s: %d round trips and %d server commands with 10 tasks, %d and %d with 1000: the cost grows with the tasks",
				name, small[name].rt, small[name].cmds, large[name].rt, large[name].cmds)
		}
	}
	t.Logf("cost per call, 4 buckets, one node, 10 and 1000 tasks alike:\n%s", table.String())
}
