package harness

import "time"

// CPUGauge is implemented by a harness whose store runs in a process of its own (a
// child over the wire protocol): how much processor time that process has had. The
// battery's race checks over the wire run until the child has had a minimum of it, not
// only a minimum of wall time: on a loaded machine a second of wall time gives the
// child a fraction of the rounds, and so of the chances to meet a race's window, that
// it gives on a quiet one.
type CPUGauge interface {
	// StoreCPU returns the processor time (user and system) the store's processes have
	// used since they started; ok is false where the platform does not tell.
	StoreCPU() (cpu time.Duration, ok bool)
}
