package reference

import (
	"sync"
	"testing"
	"time"
)

func TestManualClock(t *testing.T) {
	start := time.UnixMilli(1_764_400_000_000)
	c := NewManualClock(start)
	if got := NowMillis(c); got != 1_764_400_000_000 {
		t.Errorf("NowMillis: want 1764400000000, got %d", got)
	}
	if c.Generation() != 0 {
		t.Errorf("Generation of a new clock: want 0, got %d", c.Generation())
	}
	c.Advance(1500 * time.Millisecond)
	if got := NowMillis(c); got != 1_764_400_001_500 {
		t.Errorf("after Advance(1.5s): want 1764400001500, got %d", got)
	}
	c.SetMillis(42)
	if got := NowMillis(c); got != 42 {
		t.Errorf("after SetMillis(42): want 42, got %d", got)
	}
	c.Set(start.Add(-time.Hour))
	if got := c.Now(); !got.Equal(start.Add(-time.Hour)) {
		t.Errorf("Set backwards: want %v, got %v", start.Add(-time.Hour), got)
	}
	if c.Generation() != 3 {
		t.Errorf("Generation after 3 moves: want 3, got %d", c.Generation())
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				c.Advance(time.Millisecond)
				_ = c.Now()
			}
		})
	}
	wg.Wait()
	if got, want := c.Now(), start.Add(-time.Hour).Add(800*time.Millisecond); !got.Equal(want) {
		t.Errorf("after 800 concurrent Advance(1ms): want %v, got %v", want, got)
	}
}

func TestNowMillisRealClock(t *testing.T) {
	before := time.Now().UnixMilli()
	got := NowMillis(nil)
	sys := NowMillis(SystemClock{})
	after := time.Now().UnixMilli()
	if got < before || got > after || sys < before || sys > after {
		t.Errorf("NowMillis(nil)=%d, NowMillis(SystemClock{})=%d: want within [%d, %d]", got, sys, before, after)
	}
}
