package wire_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

// TestDelayHoldsTheNextCall: a Go child obeys the delay op (S-CTX-1 on held calls): the
// next store call sleeps first, a caller whose context is cancelled meanwhile gets the
// context's error at once, and the child applies the call whole once it wakes; the next
// call sees it and the session stays healthy.
func TestDelayHoldsTheNextCall(t *testing.T) {
	c := startServed(t, "store")
	if !c.Hello().Delay {
		t.Fatal("the Go child did not declare delay in hello")
	}
	ctx := context.Background()
	st := c.Legacy()
	if _, err := st.Create(ctx, "t1", legacy.Task{"a": "b"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Delay(ctx, 600*time.Millisecond); err != nil {
		t.Fatalf("Delay: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := st.Update(cctx, "t1", legacy.Task{"a": "changed"})
	took := time.Since(start)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Update held by the child, context cancelled after 50ms = %v, want context.Canceled", err)
	}
	if took > 400*time.Millisecond {
		t.Errorf("Update held by the child returned %v after its start, want soon after the cancel at 50ms", took)
	}
	got, err := st.Get(ctx, "t1")
	if err != nil || got["a"] != "changed" {
		t.Errorf("Get after the held Update = %v, %v; want the Update applied whole once the child woke", got, err)
	}
	if time.Since(start) < 600*time.Millisecond {
		t.Errorf("the Get after the held Update was answered %v after it, before the held call's answer", time.Since(start))
	}
	if err := c.Err(); err != nil {
		t.Errorf("the late answer ended the session: %v", err)
	}
	// Only the next call is held.
	start = time.Now()
	if _, err := st.Get(ctx, "t1"); err != nil || time.Since(start) > 300*time.Millisecond {
		t.Errorf("a later Get = %v after %v, want an answer without delay", err, time.Since(start))
	}
	if err := c.Delay(ctx, 20*time.Second); !errors.Is(err, reference.ErrInvalid) {
		t.Errorf("Delay(20s) = %v, want ErrInvalid (at most 10 s)", err)
	}
}
