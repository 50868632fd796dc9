package harness_test

import (
	"context"
	"errors"
	"testing"

	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/memstore"
	"github.com/storecheck/storecheck/reference/modern"
)

func TestInProcessNamespaces(t *testing.T) {
	ctx := context.Background()
	h := harness.InProcess("legacy-only", harness.Capabilities{Legacy: true},
		func(clock reference.Clock) (legacy.Store, modern.Store) {
			return memstore.New(memstore.WithClock(clock)).Legacy(), nil
		})
	a, err := h.Open(ctx, reference.SystemClock{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := h.Open(ctx, reference.SystemClock{})
	sa, _ := a.Legacy(ctx)
	sb, _ := b.Legacy(ctx)
	if _, err := sa.Create(ctx, "t1", legacy.Task{}); err != nil {
		t.Fatal(err)
	}
	if _, err := sb.Get(ctx, "t1"); !errors.Is(err, reference.ErrNotFound) {
		t.Errorf("a task of one namespace is visible in another: Get = %v, want ErrNotFound", err)
	}
	if _, err := a.Modern(ctx); !errors.Is(err, reference.ErrUnsupported) {
		t.Errorf("Modern() of a legacy-only store = %v, want ErrUnsupported", err)
	}
	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Legacy(ctx); !errors.Is(err, harness.ErrClosed) {
		t.Errorf("Legacy() after Close = %v, want ErrClosed", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := h.Open(cancelled, reference.SystemClock{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Open with a cancelled context = %v, want context.Canceled", err)
	}
}
