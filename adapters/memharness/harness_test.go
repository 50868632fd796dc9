package memharness

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/storecheck/storecheck/reference"
)

var epoch = time.UnixMilli(1_700_000_000_000)

func TestHarness(t *testing.T) {
	ctx := context.Background()
	h := Harness()
	if c := h.Capabilities(); h.Name() != "memstore" || !c.Legacy || !c.Modern || !c.Clock || c.Shared {
		t.Fatalf("Harness = %s %+v, want memstore with Legacy, Modern, Clock, not Shared", h.Name(), c)
	}
	clock := reference.NewManualClock(epoch)
	ns, err := h.Open(ctx, clock)
	if err != nil {
		t.Fatal(err)
	}
	l1, _ := ns.Legacy(ctx)
	l2, _ := ns.Legacy(ctx)
	got, err := l1.Create(ctx, "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	if ms, _ := got.CreatedAt(); ms != epoch.UnixMilli() {
		t.Errorf("harness store ignores the clock: created_at = %d, want %d", ms, epoch.UnixMilli())
	}
	if _, err := l2.Get(ctx, "t"); err != nil {
		t.Errorf("two Legacy() views of one namespace must share data: %v", err)
	}
	other, _ := h.Open(ctx, clock)
	ol, _ := other.Legacy(ctx)
	if _, err := ol.Get(ctx, "t"); !errors.Is(err, reference.ErrNotFound) {
		t.Errorf("B-ISO-1: a fresh namespace sees another's task: %v", err)
	}
	if err := ns.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := ns.Modern(ctx); err == nil {
		t.Errorf("Modern() after Close = nil error, want an error")
	}
}
