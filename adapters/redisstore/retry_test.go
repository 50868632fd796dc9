package redisstore_test

import (
	"context"
	"errors"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/storecheck/storecheck/adapters/redisstore"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

// slowReplyProxy forwards TCP to addr; once armed, it holds the next reply chunk back by
// hold before passing it on, so that a client's read times out after the server has
// already run the command.
type slowReplyProxy struct {
	ln    net.Listener
	armed atomic.Bool
	hold  time.Duration
}

func newSlowReplyProxy(t *testing.T, addr string, hold time.Duration) *slowReplyProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &slowReplyProxy{ln: ln, hold: hold}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", addr)
			if err != nil {
				c.Close()
				continue
			}
			go func() { _, _ = io.Copy(s, c); s.Close() }()
			go func() {
				defer c.Close()
				buf := make([]byte, 64<<10)
				for {
					n, err := s.Read(buf)
					if n > 0 {
						if p.armed.CompareAndSwap(true, false) {
							time.Sleep(p.hold)
						}
						if _, werr := c.Write(buf[:n]); werr != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	return p
}

// TestScriptsRunOnceAfterAReadTimeout: a script whose reply comes after the client's
// ReadTimeout has run; go-redis would by default send it again, and the second run
// would answer for a store the first one changed (Create: "task already exists" for the
// task it made; Cleanup: 0 for the tasks it removed). The adapter's scripts are sent at
// most once: the call fails with the timeout (its outcome unknown), or succeeds, but
// never reports the second run.
func TestScriptsRunOnceAfterAReadTimeout(t *testing.T) {
	opts := srv.Get(t)
	ctx := t.Context()
	proxy := newSlowReplyProxy(t, opts.Addr, 400*time.Millisecond)
	po := *opts
	po.Addr = proxy.ln.Addr().String()
	po.ReadTimeout = 100 * time.Millisecond
	po.ContextTimeoutEnabled = false
	po.MaxRetries = 3 // go-redis's default, said out loud: the retries are what is tested
	slow := redis.NewClient(&po)
	t.Cleanup(func() { slow.Close() })

	f := newFixture(t) // the direct client, for looking at what the store holds
	clock := reference.NewManualClock(time.UnixMilli(1_764_400_000_000))
	s, err := redisstore.New(slow, redisstore.WithPrefix(f.prefix+"-slow"), redisstore.WithClock(clock), redisstore.WithBuckets(4))
	if err != nil {
		t.Fatal(err)
	}
	l := s.Legacy()
	direct, err := redisstore.New(f.client, redisstore.WithPrefix(f.prefix+"-slow"), redisstore.WithClock(clock), redisstore.WithBuckets(4))
	if err != nil {
		t.Fatal(err)
	}
	// Load the scripts first, so that the held reply is the script's, not NOSCRIPT's.
	if _, err := l.Create(ctx, "warm", legacy.Task{}); err != nil {
		t.Fatal(err)
	}

	proxy.armed.Store(true)
	_, err = l.Create(ctx, "once", legacy.Task{})
	if errors.Is(err, reference.ErrExists) {
		t.Fatalf("Create whose reply was late = %v: the script was sent again and its second run reported the first one's task", err)
	}
	if !errors.Is(err, redisstore.ErrUnknownOutcome) {
		t.Errorf("Create whose reply was late = %v; want redisstore.ErrUnknownOutcome", err)
	}
	// The command went out before its reply was held, but on a loaded machine the proxy
	// may forward it after the client gave up: its effect lands, later.
	var gerr error
	if !landed(func() bool { _, gerr = direct.Legacy().Get(ctx, "once"); return gerr == nil }) {
		t.Fatalf("the late Create (err %v) did not store its task within %v: Get = %v", err, landing, gerr)
	}
	t.Logf("Create with a late reply: %v", err)

	for _, id := range []string{"old-1", "old-2"} {
		if _, err := direct.Legacy().Create(ctx, id, legacy.Task{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{"once", "old-1", "old-2"} { // created working: finish them
		if _, err := direct.Legacy().Update(ctx, id, legacy.Task{"status": "completed"}); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(2 * time.Hour)
	proxy.armed.Store(true)
	n, err := l.Cleanup(ctx, time.Hour)
	t.Logf("Cleanup with a late reply: %d, %v", n, err)
	if err == nil && n != 3 {
		t.Errorf("Cleanup(1h) with a late reply = %d, nil; want 3 (once, old-1, old-2) or the timeout: a second run of the batch counts what the first left", n)
	}
	var rows []legacy.Task
	var lerr error
	if !landed(func() bool {
		rows, lerr = direct.Legacy().List(ctx, legacy.ListOptions{})
		return lerr == nil && len(rows) == 1 && rows[0].ID() == "warm"
	}) {
		t.Errorf("%v after the late Cleanup the store holds %v (%v); want only the working task warm", landing, rows, lerr)
	}
}

// landing bounds how long a command whose reply came late may take to show its effect.
const landing = 5 * time.Second

// landed polls done until it holds or landing has passed.
func landed(done func() bool) bool {
	for end := time.Now().Add(landing); ; time.Sleep(20 * time.Millisecond) {
		if done() {
			return true
		}
		if time.Now().After(end) {
			return false
		}
	}
}

// TestDeadlineErrorComesAfterTheContextEnds: go-redis sets the context's deadline on the
// socket, which may time out a moment before the context's own timer fires. A call cut
// off by its deadline must not return the deadline's error while its context still
// reads as alive: S-CTX-1's held-call spec took such an answer for one the hold did not
// hold back.
func TestDeadlineErrorComesAfterTheContextEnds(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	if _, err := f.legacy.Create(ctx, "held", legacy.Task{}); err != nil {
		t.Fatal(err)
	}
	if err := f.client.Do(ctx, "CLIENT", "PAUSE", 30_000, "WRITE").Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.client.Do(context.Background(), "CLIENT", "UNPAUSE").Err() })
	const tries = 100
	early := 0
	for range tries {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
		_, err := f.legacy.Update(cctx, "held", legacy.Task{"a": 1})
		alive := cctx.Err() == nil
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Update held by CLIENT PAUSE WRITE, deadline 10 ms: %v; want the deadline's error", err)
		}
		if alive {
			early++
		}
	}
	if early > 0 {
		t.Errorf("%d of %d Updates held by CLIENT PAUSE WRITE returned the deadline's error while their context still read as alive", early, tries)
	}
}
