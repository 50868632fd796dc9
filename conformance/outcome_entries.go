package conformance

import (
	"encoding/json"

	"github.com/onsi/ginkgo/v2"
)

// Report entries by which a spec tells the report more than pass or fail.
const (
	// entryInconclusive marks a spec that could not tell (its value is the reason).
	entryInconclusive = "storecheck.inconclusive"
	// entryOverlap carries a concurrent check's OverlapStats as JSON.
	entryOverlap = "storecheck.overlap"
)

// Inconclusive marks the spec as unable to tell whether the store keeps its rule: the
// spec ran, found no fault, but did not exercise the rule enough for "passed" to be
// true.
func (e *Env) Inconclusive(reason string) {
	e.mu.Lock()
	e.inconclusive = append(e.inconclusive, reason)
	e.mu.Unlock()
	if e.inSpec {
		ginkgo.AddReportEntry(entryInconclusive, reason)
	}
}

// Overlap attaches a concurrent check's measured overlap to the spec.
func (e *Env) Overlap(stats OverlapStats) {
	e.mu.Lock()
	e.overlaps = append(e.overlaps, stats)
	e.mu.Unlock()
	if e.inSpec {
		b, _ := json.Marshal(stats)
		ginkgo.AddReportEntry(entryOverlap, string(b))
	}
}
