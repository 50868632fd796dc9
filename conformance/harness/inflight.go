package harness

// InFlightGauge is implemented by a harness whose stores sit behind a transport (a
// pipe, a socket), which sees better than the battery how many calls reached the store
// at once. The battery's concurrent checks read it to measure their overlap; without
// it they count calls at their side of the Store interface.
type InFlightGauge interface {
	// PeakInFlight returns the most requests that were sent to the store and not yet
	// answered at one instant since the previous call, and starts counting afresh.
	PeakInFlight() int
}
