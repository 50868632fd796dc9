package wire_test

import (
	"context"
	"errors"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/storecheck/storecheck/adapters/wire"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeEnv); mode != "" {
		fakeChild(mode)
		os.Exit(0)
	}
	if mode := os.Getenv(facadeServeEnv); mode != "" {
		serveChild(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// start runs this test binary as a fake child in mode.
func start(t *testing.T, mode string, opts wire.Options) (*wire.Client, error) {
	t.Helper()
	opts.Env = append(os.Environ(), fakeEnv+"="+mode)
	if opts.Timeout == 0 {
		opts.Timeout = 5 * time.Second
	}
	if opts.CloseGrace == 0 {
		opts.CloseGrace = 5 * time.Second // a -race child sleeps 1 s at exit
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := wire.Start(ctx, []string{os.Args[0]}, opts)
	if err == nil {
		t.Cleanup(func() { _ = c.Close() })
	}
	return c, err
}

func mustStart(t *testing.T, mode string, opts wire.Options) *wire.Client {
	t.Helper()
	c, err := start(t, mode, opts)
	if err != nil {
		t.Fatalf("Start(%s): %v", mode, err)
	}
	return c
}

// within fails the test when f takes longer than d: nothing may hang.
func within(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not return within %s", what, d)
	}
}

func wantErr(t *testing.T, err error, sentinel error, fragments ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want one wrapping %v mentioning %q", sentinel, fragments)
	}
	if sentinel != nil && !errors.Is(err, sentinel) {
		t.Errorf("error %q does not wrap %v", err, sentinel)
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error %q does not mention %q", err, f)
		}
	}
	for _, s := range []error{reference.ErrNotFound, reference.ErrInvalid, reference.ErrExists, reference.ErrConflict} {
		if s != sentinel && errors.Is(err, s) {
			t.Errorf("protocol error %q wraps the store sentinel %v: a broken child could pass a check", err, s)
		}
	}
}

func TestHandshakeAndOptionalInterfaces(t *testing.T) {
	c := mustStart(t, "honest", wire.Options{})
	h := c.Hello()
	if h.Name != "fake" || !h.Legacy || !h.Modern || !h.Cancel || h.Cleanup || h.ConditionalUpdate || !h.Clock {
		t.Fatalf("Hello() = %+v", h)
	}
	st := c.Legacy()
	if _, ok := st.(legacy.Canceler); !ok {
		t.Error("child declared cancel, but the store is not a legacy.Canceler")
	}
	if _, ok := st.(legacy.Cleaner); ok {
		t.Error("child did not declare cleanup, but the store is a legacy.Cleaner")
	}
	if _, ok := st.(legacy.ConditionalUpdater); ok {
		t.Error("child did not declare conditional_update, but the store is a legacy.ConditionalUpdater")
	}
	got, err := st.Get(context.Background(), "t1")
	if err != nil || got.ID() != "t1" {
		t.Fatalf("Get(t1) = %v, %v", got, err)
	}

	c2 := mustStart(t, "legacy-only", wire.Options{})
	st2 := c2.Legacy()
	_, canCancel := st2.(legacy.Canceler)
	_, canClean := st2.(legacy.Cleaner)
	_, canIf := st2.(legacy.ConditionalUpdater)
	if canCancel || !canClean || !canIf || c2.Hello().Modern || c2.Hello().Clock {
		t.Errorf("legacy-only child: cancel %v cleanup %v update_if %v hello %+v", canCancel, canClean, canIf, c2.Hello())
	}
	if err := c2.SetClock(context.Background(), nil); !errors.Is(err, reference.ErrUnsupported) {
		t.Errorf("SetClock on a child without clock control = %v, want ErrUnsupported", err)
	}
}

func TestHandshakeFailures(t *testing.T) {
	for _, tc := range []struct {
		mode  string
		frags []string
	}{
		{"protocol4", []string{"hello", "speaks protocol 4"}},
		{"v2-layers-bad", []string{"hello", `unknown layer "cache"`}},
		{"noeras", []string{"hello", "no era"}},
		{"hello-garbage", []string{"not a JSON object", `"hello there"`}},
		{"die", []string{"hello"}}, // dies only later: handshake succeeds, see below
	} {
		if tc.mode == "die" {
			continue
		}
		t.Run(tc.mode, func(t *testing.T) {
			var err error
			within(t, 8*time.Second, "Start", func() { _, err = start(t, tc.mode, wire.Options{}) })
			wantErr(t, err, wire.ErrProtocol, tc.frags...)
		})
	}
	t.Run("not-a-program", func(t *testing.T) {
		_, err := wire.Start(context.Background(), []string{"/nonexistent/store"}, wire.Options{})
		if err == nil || !strings.Contains(err.Error(), "/nonexistent/store") {
			t.Errorf("Start of a missing program = %v, want an error naming it", err)
		}
	})
}

// TestViolations: each fatal violation fails the call that met it, naming its op and
// quoting the line, and every later call fails fast with the same cause.
func TestViolations(t *testing.T) {
	for _, tc := range []struct {
		mode     string
		sentinel error
		frags    []string
	}{
		{"malformed", wire.ErrProtocol, []string{"legacy.get", "not a JSON object", `"{\"id\":`}},
		{"unknown-id", wire.ErrProtocol, []string{"legacy.get", "unknown request id", `\"ok\"`}},
		{"both", wire.ErrProtocol, []string{"legacy.get", "both ok and error"}},
		{"neither", wire.ErrProtocol, []string{"legacy.get", "neither ok nor error"}},
		{"die", wire.ErrChildExited, []string{"legacy.get", "exit status 3", "the store fell over", "fake log line 299"}},
		{"hang", wire.ErrTimeout, []string{"legacy.get", "within 300ms", "nothing else from the store process for as long"}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			// A dying child is told apart from a hung one by its exit, which a loaded
			// machine may deliver later than 300 ms: only the hang case needs the short bound.
			timeout := 300 * time.Millisecond
			if tc.mode == "die" {
				timeout = 4 * time.Second
			}
			c := mustStart(t, tc.mode, wire.Options{Timeout: timeout})
			var err error
			within(t, 5*time.Second, "Get", func() { _, err = c.Legacy().Get(context.Background(), "t1") })
			wantErr(t, err, tc.sentinel, tc.frags...)
			if tc.mode == "die" && strings.Contains(err.Error(), "fake log line 99\n") {
				t.Errorf("the error shows more than the last 200 stderr lines: %q", err)
			}
			within(t, 2*time.Second, "a later call", func() { err = c.Modern().Delete(context.Background(), "t2") })
			wantErr(t, err, tc.sentinel, "modern.delete")
			if c.Err() == nil {
				t.Error("Err() is nil after a fatal violation")
			}
			within(t, 5*time.Second, "Close", func() { err = c.Close() })
			if err != nil {
				t.Errorf("Close after a fatal violation reported it again: %v", err)
			}
		})
	}
}

// TestBusyIsNotHung: a request held past the request timeout by a child that keeps
// answering the others is slow, not hung: it gets its answer, and the session goes on.
// The timeout judges silence.
func TestBusyIsNotHung(t *testing.T) {
	const timeout = 300 * time.Millisecond
	c := mustStart(t, "holds-one", wire.Options{Timeout: timeout})
	ctx := context.Background()
	held := make(chan error, 1)
	go func() {
		_, err := c.Legacy().Get(ctx, "held")
		held <- err
	}()
	var err error
	within(t, 5*time.Second, "the held Get", func() {
		for {
			select {
			case err = <-held:
				return
			case <-time.After(timeout / 6):
			}
			if _, err := c.Legacy().Get(ctx, "other"); err != nil {
				t.Errorf("a Get beside the held one = %v", err)
			}
		}
	})
	if err != nil {
		t.Fatalf("Get of a request the child held %d ms under a %v timeout while it answered others = %v, want its answer", holdMillis, timeout, err)
	}
	if err := c.Err(); err != nil {
		t.Errorf("the session ended: %v", err)
	}
}

// TestTimeoutSaysWhetherTheChildRead: a timeout's message tells a child that stopped
// reading its stdin from one that read the request and never answered (Linux, where the
// pipe says how much it holds).
func TestTimeoutSaysWhetherTheChildRead(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the pipe's unread bytes are read on Linux only")
	}
	for mode, want := range map[string]string{"deaf": "bytes of requests were still unread in its stdin", "hang": "it had read every request sent to it"} {
		c := mustStart(t, mode, wire.Options{Timeout: 300 * time.Millisecond})
		var err error
		within(t, 5*time.Second, "Get", func() { _, err = c.Legacy().Get(context.Background(), "t1") })
		wantErr(t, err, wire.ErrTimeout, want)
	}
}

// TestBadAnswers: an answer of the wrong shape or with an unknown code fails its own
// call, naming the op, and the session goes on.
func TestBadAnswers(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		mode  string
		call  func(c *wire.Client) error
		frags []string
	}{
		{"unknown-code", func(c *wire.Client) error { _, err := c.Legacy().Get(ctx, "t1"); return err }, []string{"legacy.get", `"gone_fishing"`, "not_found, exists"}},
		{"bad-task", func(c *wire.Client) error { _, err := c.Legacy().Get(ctx, "t1"); return err }, []string{"legacy.get", "must be a JSON object", "an array"}},
		{"bad-list", func(c *wire.Client) error { _, err := c.Legacy().List(ctx, legacy.ListOptions{}); return err }, []string{"legacy.list", "element 1", "the number 7"}},
		{"bad-task", func(c *wire.Client) error { _, err := c.Legacy().List(ctx, legacy.ListOptions{}); return err }, []string{"legacy.list", "element 0", "the number 1"}},
		{"bad-modern", func(c *wire.Client) error { _, err := c.Modern().Get(ctx, "x", reference.System()); return err }, []string{"modern.get", "is missing"}},
		{"bad-task", func(c *wire.Client) error { _, err := c.Modern().Sweep(ctx); return err }, []string{"modern.sweep", "integer count"}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			c := mustStart(t, tc.mode, wire.Options{})
			wantErr(t, tc.call(c), wire.ErrProtocol, tc.frags...)
			if err := c.Err(); err != nil {
				t.Errorf("a bad answer ended the session: %v", err)
			}
		})
	}
}

func TestStoreErrorsKeepTheirMessage(t *testing.T) {
	c := mustStart(t, "not-found", wire.Options{})
	_, err := c.Legacy().Get(context.Background(), "t9")
	if !errors.Is(err, reference.ErrNotFound) || err.Error() != "task not found: t9" {
		t.Errorf("Get = %q, want the child's own message wrapping ErrNotFound", err)
	}
}

// TestPipelined: requests are in flight together and answers come back in any order.
func TestPipelined(t *testing.T) {
	c := mustStart(t, "reverse", wire.Options{Timeout: 3 * time.Second})
	var wg sync.WaitGroup
	got := make([]string, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			task, err := c.Legacy().Get(context.Background(), "x")
			got[i], errs[i] = task.ID(), err
		}()
	}
	within(t, 5*time.Second, "two pipelined calls", wg.Wait)
	if errs[0] != nil || errs[1] != nil || got[0] == got[1] {
		t.Fatalf("pipelined answers: %q, errors %v", got, errs)
	}
}

// TestContext: a call whose context ends returns at once with the context's error; its
// late answer is dropped, not taken for a violation; the next call waits for it.
func TestContext(t *testing.T) {
	c := mustStart(t, "slow", wire.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Legacy().Get(ctx, "t1"); !errors.Is(err, context.Canceled) {
		t.Errorf("Get with a cancelled context = %v, want context.Canceled", err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	var err error
	start := time.Now()
	within(t, time.Second, "Get with a 50ms deadline", func() { _, err = c.Legacy().Get(ctx, "t1") })
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "legacy.get") {
		t.Errorf("Get with a 50ms deadline = %v, want DeadlineExceeded naming the op", err)
	}
	if d := time.Since(start); d > 250*time.Millisecond {
		t.Errorf("Get with a 50ms deadline took %s", d)
	}
	task, err := c.Legacy().Get(context.Background(), "t2")
	if err != nil || task.ID() != "t2" {
		t.Fatalf("the call after an abandoned one = %v, %v", task, err)
	}
	if err := c.Err(); err != nil {
		t.Errorf("a late answer ended the session: %v", err)
	}
}

func TestClose(t *testing.T) {
	c := mustStart(t, "honest", wire.Options{})
	if err := c.Close(); err != nil {
		t.Errorf("Close of an honest child = %v", err)
	}
	if _, err := c.Legacy().Get(context.Background(), "t1"); !errors.Is(err, wire.ErrClosed) {
		t.Errorf("Get after Close = %v, want ErrClosed", err)
	}
	c = mustStart(t, "exit-on-close", wire.Options{})
	wantErr(t, c.Close(), nil, "exit status 4", "exiting 4 on purpose")
	c = mustStart(t, "linger", wire.Options{CloseGrace: 200 * time.Millisecond})
	var err error
	within(t, 5*time.Second, "Close of a child that ignores EOF", func() { err = c.Close() })
	wantErr(t, err, nil, "did not exit", "killed")
}

func TestOutgoingValues(t *testing.T) {
	c := mustStart(t, "honest", wire.Options{})
	ctx := context.Background()
	if _, err := c.Legacy().Get(ctx, "bad\xff"); !errors.Is(err, reference.ErrInvalid) {
		t.Errorf("Get of an id that is not UTF-8 = %v, want ErrInvalid (JSON cannot carry it)", err)
	}
	if _, err := c.Legacy().Create(ctx, "t1", legacy.Task{"f": func() {}}); !errors.Is(err, reference.ErrInvalid) {
		t.Errorf("Create with a value that has no JSON form = %v, want ErrInvalid", err)
	}
	if err := c.Err(); err != nil {
		t.Errorf("refused values ended the session: %v", err)
	}
}

// TestMigrationAtHello pins docs/wire.md's answer to where a child migrates its schema:
// before it answers hello, which is bounded by the start timeout (the child's start-up),
// not in reset, which is bounded by the request timeout and sent before every spec.
func TestMigrationAtHello(t *testing.T) {
	opts := wire.Options{Timeout: 200 * time.Millisecond, StartTimeout: 10 * time.Second}
	c, err := start(t, "migrate-at-hello", opts)
	if err != nil {
		t.Fatalf("a child migrating for %d ms before hello, start timeout 10s: %v", migrateMillis, err)
	}
	if err := c.Reset(context.Background()); err != nil {
		t.Errorf("reset after the migration: %v", err)
	}
	c, err = start(t, "migrate-at-reset", opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Reset(context.Background()); !errors.Is(err, wire.ErrTimeout) {
		t.Errorf("a reset that migrates for %d ms under a 200ms request timeout = %v, want ErrTimeout", migrateMillis, err)
	}
}
