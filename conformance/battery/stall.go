package battery

import (
	"sync/atomic"
	"time"
)

// StallWatch measures the checking process's own stalls: how much later than asked a
// sleeper wakes, summed. On a starved machine (a loaded CI runner, the race detector)
// the process can stop for hundreds of milliseconds; a promptness check whose answer came
// late while storecheck itself could not run has learnt nothing of the store.
type StallWatch struct {
	stalled atomic.Int64 // nanoseconds of lateness since the last Stalled
	stop    chan struct{}
	done    chan struct{}
}

// stallTick is the watch's sleep: short enough to see a stall as it happens, long
// enough to cost nothing beside a check.
const stallTick = 5 * time.Millisecond

// WatchStalls starts a watch; Stop ends it.
func WatchStalls() *StallWatch {
	w := &StallWatch{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		tick := time.NewTimer(stallTick)
		defer tick.Stop()
		for at := time.Now(); ; at = time.Now() {
			tick.Reset(stallTick)
			select {
			case <-w.stop:
				return
			case <-tick.C:
			}
			if late := time.Since(at) - stallTick; late > 0 {
				w.stalled.Add(int64(late))
			}
		}
	}()
	return w
}

// Stalled is how long the process stalled since the last call (or the start), and
// starts counting afresh.
func (w *StallWatch) Stalled() time.Duration { return time.Duration(w.stalled.Swap(0)) }

// Stop ends the watch.
func (w *StallWatch) Stop() {
	close(w.stop)
	<-w.done
}

// LateOnItsOwn reports whether an answer late by late after its context's end, while
// the process stalled for stalled, is late beyond allowed even with the stall taken off:
// only then is the lateness the store's.
func LateOnItsOwn(late, stalled, allowed time.Duration) bool { return late-stalled > allowed }
