package clustertest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
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

// lateReplies holds back, once armed, the reply to the next script a client sends (on
// whichever node's connection sends it first) until past the client's ReadTimeout: the
// server has run the script when the client gives up waiting for its answer.
type lateReplies struct {
	armed atomic.Bool
	hold  time.Duration
}

func (l *lateReplies) dialer(dial func(ctx context.Context, netw, addr string) (net.Conn, error)) func(ctx context.Context, netw, addr string) (net.Conn, error) {
	return func(ctx context.Context, netw, addr string) (net.Conn, error) {
		c, err := dial(ctx, netw, addr)
		if err != nil {
			return nil, err
		}
		return &lateConn{Conn: c, l: l}, nil
	}
}

type lateConn struct {
	net.Conn
	l    *lateReplies
	late atomic.Bool // the next read waits hold
}

func (c *lateConn) Write(p []byte) (int, error) {
	if bytes.Contains(bytes.ToLower(p), []byte("\r\neval")) && c.l.armed.CompareAndSwap(true, false) {
		c.late.Store(true)
	}
	return c.Conn.Write(p)
}

// Read waits before reading, so that the read deadline go-redis set from ReadTimeout has
// passed when it reads: the reply, already in the socket, is read as an i/o timeout.
func (c *lateConn) Read(p []byte) (int, error) {
	if c.late.CompareAndSwap(true, false) {
		time.Sleep(c.l.hold)
	}
	return c.Conn.Read(p)
}

// scriptRuns is how many EVAL and EVALSHA commands the cluster's masters have run: their
// calls less those that answered an error (NOSCRIPT: the script did not run).
func scriptRuns(t *testing.T, c *redis.ClusterClient) int64 {
	t.Helper()
	var mu sync.Mutex
	var total int64
	err := c.ForEachMaster(t.Context(), func(ctx context.Context, node *redis.Client) error {
		info, err := node.Info(ctx, "commandstats").Result()
		if err != nil {
			return err
		}
		for _, line := range strings.Split(info, "\n") {
			name, stats, ok := strings.Cut(strings.TrimSpace(line), ":")
			if !ok || name != "cmdstat_evalsha" && name != "cmdstat_eval" {
				continue
			}
			var runs int64
			for _, field := range strings.Split(stats, ",") {
				k, v, _ := strings.Cut(field, "=")
				n, err := strconv.ParseInt(v, 10, 64)
				switch {
				case k != "calls" && k != "failed_calls":
					continue
				case err != nil:
					return fmt.Errorf("%s: %q: %w", node.Options().Addr, line, err)
				case k == "calls":
					runs += n
				default:
					runs -= n
				}
			}
			mu.Lock()
			total += runs
			mu.Unlock()
		}
		return nil
	})
	if err != nil {
		t.Fatalf("INFO commandstats: %v", err)
	}
	return total
}

// TestWritesRunOnceAfterALateReply: on a cluster, go-redis resends a command whose reply
// came after ReadTimeout (once on the same node, then on others, up to MaxRedirects
// times), alone or in a pipeline. A write script that already ran would then run twice:
// a Create answers "task already exists" for the task it made, a Swap a conflict with
// the version it wrote, a Cleanup counts 0 for the tasks it removed. Every write of the
// store, both eras, must run exactly once when its reply is late, and the caller must
// get redisstore.ErrUnknownOutcome rather than the second run's answer.
func TestWritesRunOnceAfterALateReply(t *testing.T) {
	opts := cluster(t)
	ctx := t.Context()
	do := *opts
	direct := redis.NewClusterClient(&do) // counts script runs and looks at what is stored
	t.Cleanup(func() { direct.Close() })

	// A ReadTimeout long enough for every reply not held back, even on a loaded machine.
	late := &lateReplies{hold: 1200 * time.Millisecond}
	lo := *opts
	lo.Dialer = late.dialer(opts.Dialer)
	lo.ReadTimeout = 500 * time.Millisecond
	// go-redis's defaults, said out loud: its retries are what is tested.
	lo.MaxRedirects, lo.MaxRetries = 3, 3
	slow := redis.NewClusterClient(&lo)
	t.Cleanup(func() { slow.Close() })

	// The injection must make go-redis resend an ordinary script, alone and in a
	// pipeline; otherwise the checks below would pass without exercising a resend.
	for _, path := range []string{"alone", "pipelined"} {
		key := fmt.Sprintf("{late-control-%d}:%s", time.Now().UnixNano(), path)
		late.armed.Store(true)
		const incr = "return redis.call('INCR', KEYS[1])"
		if path == "alone" {
			_ = slow.Eval(ctx, incr, []string{key}).Err()
		} else {
			pipe := slow.Pipeline()
			pipe.Eval(ctx, incr, []string{key})
			_, _ = pipe.Exec(ctx)
		}
		n, err := direct.Get(ctx, key).Int()
		_ = direct.Del(ctx, key)
		if late.armed.Load() || err != nil || n < 2 {
			t.Fatalf("control (%s): an ordinary EVAL of INCR with a late reply ran %d times (%v, injection armed still: %v); want at least 2: the injected timeout no longer makes go-redis resend, so this test does not exercise a resend",
				path, n, err, late.armed.Load())
		}
	}

	prefix := fmt.Sprintf("late-%d", time.Now().UnixNano())
	t0 := int64(1_764_400_000_000)
	clock := reference.NewManualClock(time.UnixMilli(t0))
	store := func(c redis.UniversalClient) *redisstore.Store {
		s, err := redisstore.New(c, redisstore.WithPrefix(prefix), redisstore.WithBuckets(buckets), redisstore.WithClock(clock))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s, d := store(slow), store(direct)
	t.Cleanup(func() { _, _ = redisstore.DeletePrefix(context.Background(), direct, prefix) })
	l, m, dl, dm := s.Legacy(), s.Modern(), d.Legacy(), d.Modern()

	// The tasks the writes act on, and one run of every script so that every master has
	// them loaded (a NOSCRIPT reply would be the one held back, not the script's).
	ttl := int64(1000)
	newModern := func(id string) modern.Task {
		return modern.Task{TaskID: id, Status: reference.StatusWorking, CreatedAt: t0, TTL: &ttl}
	}
	for _, id := range []string{"l-update", "l-delete", "l-old"} {
		if _, err := dl.Create(ctx, id, legacy.Task{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := dl.Update(ctx, "l-old", legacy.Task{"status": "completed"}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"m-swap", "m-delete"} {
		if _, err := dm.Create(ctx, newModern(id)); err != nil {
			t.Fatal(err)
		}
	}
	if err := errors.Join(dl.Delete(ctx, "warm"), dm.Delete(ctx, "warm")); err != nil {
		t.Fatal(err)
	}
	if _, err := dm.Swap(ctx, reference.System(), 1, newModern("warm")); !errors.Is(err, reference.ErrNotFound) {
		t.Fatalf("warming Swap: %v", err)
	}
	if _, err := dl.Cleanup(ctx, 100*time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := dm.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Get(ctx, "l-update"); err != nil { // the slow store's first call checks the bucket count
		t.Fatal(err)
	}
	swapped := newModern("m-swap")
	swapped.Status = reference.StatusCompleted

	cases := []struct {
		name string
		runs int64 // scripts one call runs when nothing is sent twice
		call func() error
		// stored checks that the store holds the first run's effect.
		stored func() error
	}{
		{"legacy create", 1,
			func() error { _, err := l.Create(ctx, "l-create", legacy.Task{}); return err },
			func() error { _, err := dl.Get(ctx, "l-create"); return err }},
		{"legacy update", 1,
			func() error { _, err := l.Update(ctx, "l-update", legacy.Task{"status": "completed"}); return err },
			func() error {
				got, err := dl.Get(ctx, "l-update")
				if err == nil && got["status"] != "completed" {
					err = fmt.Errorf("status %v, want completed", got["status"])
				}
				return err
			}},
		{"legacy delete", 1,
			func() error { return l.Delete(ctx, "l-delete") },
			func() error { return gone(dl.Get(ctx, "l-delete")) }},
		{"modern create", 1,
			func() error { _, err := m.Create(ctx, newModern("m-create")); return err },
			func() error { _, err := dm.Get(ctx, "m-create", reference.System()); return err }},
		{"modern swap", 1,
			func() error { _, err := m.Swap(ctx, reference.System(), 1, swapped); return err },
			func() error {
				got, err := dm.Get(ctx, "m-swap", reference.System())
				if err == nil && (got.Version != 2 || got.Status != reference.StatusCompleted) {
					err = fmt.Errorf("version %d, status %s; want 2, completed", got.Version, got.Status)
				}
				return err
			}},
		{"modern delete", 1,
			func() error { return m.Delete(ctx, "m-delete") },
			func() error { return gone(dm.Get(ctx, "m-delete", reference.System())) }},
		// Cleanup and Sweep run one script per bucket in one pipeline per master; the
		// master whose reply is late must not run its share again.
		{"legacy cleanup", buckets,
			func() error {
				clock.SetMillis(t0 + 2*time.Hour.Milliseconds())
				_, err := l.Cleanup(ctx, time.Hour)
				return err
			},
			func() error { return gone(dl.Get(ctx, "l-old")) }},
		{"modern sweep", buckets,
			func() error { _, err := m.Sweep(ctx); return err },
			func() error {
				if n, err := dm.Sweep(ctx); err != nil || n != 0 {
					return fmt.Errorf("a second Sweep removed %d (%v); want 0: the first left expired tasks", n, err)
				}
				return nil
			}},
	}
	for _, c := range cases {
		before := scriptRuns(t, direct)
		late.armed.Store(true)
		err := c.call()
		runs := scriptRuns(t, direct) - before
		if late.armed.Swap(false) {
			t.Errorf("%s: no script reply was held back: the injection did not reach this write", c.name)
			continue
		}
		if runs != c.runs {
			t.Errorf("%s with a late reply ran %d scripts on the servers, want %d: a script was sent again after the read timeout (the call answered %v)",
				c.name, runs, c.runs, err)
		}
		if !errors.Is(err, redisstore.ErrUnknownOutcome) {
			t.Errorf("%s with a late reply answered %v; want redisstore.ErrUnknownOutcome (the reply never came, the write may have been applied)", c.name, err)
		}
		if serr := c.stored(); serr != nil {
			t.Errorf("%s with a late reply (answered %v): the store does not hold its effect: %v", c.name, err, serr)
		}
		t.Logf("%s with a late reply: %d script runs, answered %v", c.name, runs, err)
	}
}

// gone is nil when a Get answered not found.
func gone[T any](_ T, err error) error {
	if errors.Is(err, reference.ErrNotFound) {
		return nil
	}
	return fmt.Errorf("Get = %v, want not found", err)
}

// TestCleanupAfterOneMasterLostItsScripts: a master that restarted (or failed over to a
// replica) has no scripts loaded, while the others have. Cleanup's pipeline then runs on
// every master but that one, which answers NOSCRIPT; after loading the script, only that
// master's buckets may be sent again: a bucket that ran once and runs again counts 0 for
// the tasks its first run removed.
func TestCleanupAfterOneMasterLostItsScripts(t *testing.T) {
	opts := cluster(t)
	ctx := t.Context()
	o := *opts
	c := redis.NewClusterClient(&o)
	t.Cleanup(func() { c.Close() })
	prefix := fmt.Sprintf("noscript-%d", time.Now().UnixNano())
	t0 := int64(1_764_400_000_000)
	clock := reference.NewManualClock(time.UnixMilli(t0))
	s, err := redisstore.New(c, redisstore.WithPrefix(prefix), redisstore.WithBuckets(buckets), redisstore.WithClock(clock))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = redisstore.DeletePrefix(context.Background(), c, prefix) })
	l := s.Legacy()
	// 60 tasks over 12 buckets on three masters: the two masters that keep their
	// scripts hold some of them but with a chance of (1/3)^60.
	const n = 60
	for i := range n {
		id := fmt.Sprintf("task-%d", i)
		if _, err := l.Create(ctx, id, legacy.Task{}); err != nil {
			t.Fatal(err)
		}
		if _, err := l.Update(ctx, id, legacy.Task{"status": "completed"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.Cleanup(ctx, 100*time.Hour); err != nil { // loads the script everywhere
		t.Fatal(err)
	}
	// The master of bucket 0 forgets every script ("{prefix:0}" is bucket 0's hash tag).
	master, err := c.MasterForKey(ctx, "{"+prefix+":0}")
	if err != nil {
		t.Fatal(err)
	}
	if err := master.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	clock.SetMillis(t0 + 2*time.Hour.Milliseconds())
	before := scriptRuns(t, c)
	got, err := l.Cleanup(ctx, time.Hour)
	runs := scriptRuns(t, c) - before
	if err != nil || got != n {
		t.Errorf("Cleanup(1h) of %d completed tasks 2 h old, with one master's scripts flushed = %d, %v; want %d", n, got, err, n)
	}
	if runs != buckets {
		t.Errorf("that Cleanup ran %d scripts on the servers, want %d (one per bucket): buckets that had run were sent again after another master's NOSCRIPT", runs, buckets)
	}
}
