package reference

// Status is a task status (docs/spec.md section 0).
type Status string

const (
	StatusWorking       Status = "working"
	StatusInputRequired Status = "input_required"
	StatusCompleted     Status = "completed"
	StatusFailed        Status = "failed"
	StatusCancelled     Status = "cancelled"
)

// Statuses lists every status, non-terminal first.
func Statuses() []Status {
	return []Status{StatusWorking, StatusInputRequired, StatusCompleted, StatusFailed, StatusCancelled}
}

// Known reports whether s is one of the five statuses.
func (s Status) Known() bool {
	switch s {
	case StatusWorking, StatusInputRequired, StatusCompleted, StatusFailed, StatusCancelled:
		return true
	}
	return false
}

// Terminal reports whether s is completed, failed or cancelled.
func (s Status) Terminal() bool {
	return s == StatusCompleted || s == StatusFailed || s == StatusCancelled
}

// ValidTransition answers the transition table of docs/spec.md section 0 (S-TRANS-1): from a
// non-terminal status every status is reachable, the same one included (a retried job
// re-marks its task working); from a terminal status nothing is; unknown statuses on
// either side answer false.
func ValidTransition(from, to Status) bool {
	if !from.Known() || !to.Known() {
		return false
	}
	return !from.Terminal()
}
