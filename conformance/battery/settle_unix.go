//go:build linux

package battery

import (
	"time"

	"golang.org/x/sys/unix"
)

// settle sleeps d with the thread itself (nanosleep) rather than the runtime's timers,
// which round a sleep under a millisecond up to about one: at one settle per round,
// that millisecond was most of an in-process battery's wall time. The process still
// sleeps, which is what the barrier's settle is for (see YieldFor).
func settle(d time.Duration) {
	ts := unix.NsecToTimespec(d.Nanoseconds())
	for unix.Nanosleep(&ts, &ts) == unix.EINTR {
	}
}
