package benchmarks

import "syscall"

// PeakRSS is the peak resident set size, in bytes, of this process and of its largest
// waited-for child (getrusage maxrss; Linux reports KiB). ok is false where the system
// does not say.
func PeakRSS() (self, children int64, ok bool) {
	var s, c syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &s) != nil || syscall.Getrusage(syscall.RUSAGE_CHILDREN, &c) != nil {
		return 0, 0, false
	}
	return s.Maxrss << 10, c.Maxrss << 10, true
}
