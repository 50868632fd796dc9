package reference

import (
	"sync"
	"time"
)

// Clock is the time source of stores and facades. Stores take one from their
// constructor so that tests (and the battery) can move time.
type Clock interface {
	Now() time.Time
}

// SystemClock reads the real time.
type SystemClock struct{}

func (SystemClock) Now() time.Time { return time.Now() }

// NowMillis is c's time in milliseconds since the Unix epoch, the unit of every
// timestamp in both eras. A nil clock reads the real time.
func NowMillis(c Clock) int64 {
	if c == nil {
		return time.Now().UnixMilli()
	}
	return c.Now().UnixMilli()
}

// CloneMillis copies an optional span in milliseconds (a task's ttl or poll interval, in
// either era), so that the copy shares nothing with p; nil stays nil.
func CloneMillis(p *int64) *int64 {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// ManualClock is a Clock that moves only when told to; it is safe for concurrent use.
// Make one with NewManualClock (the zero value reads the zero time.Time).
type ManualClock struct {
	mu  sync.Mutex
	now time.Time
	gen uint64
}

// NewManualClock returns a clock that reads t.
func NewManualClock(t time.Time) *ManualClock { return &ManualClock{now: t} }

func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock to t (backwards too).
func (c *ManualClock) Set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.gen++
	c.mu.Unlock()
}

// SetMillis moves the clock to ms milliseconds since the Unix epoch.
func (c *ManualClock) SetMillis(ms int64) { c.Set(time.UnixMilli(ms)) }

// Advance moves the clock forward by d.
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.gen++
	c.mu.Unlock()
}

// Generation counts the moves so far, so that a proxy (the wire client) can tell whether
// it must forward a new time to the store it fronts.
func (c *ManualClock) Generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}
