package mutants

import (
	"sort"

	"github.com/storecheck/storecheck/conformance"
)

// Verdict is what the battery did to one mutant.
type Verdict struct {
	Mutant Mutant
	// Killed is true when at least one spec labelled with a rule the mutant breaks
	// failed on an assertion. A mutant caught only by a crash, a timeout or a rule it
	// does not declare counts as not killed (B-POWER-1).
	Killed bool
	// KilledBy names the specs that killed it.
	KilledBy []string
	// FailedRules lists every rule that failed, declared or not.
	FailedRules []string
	// Crashes lists specs that panicked or timed out (they never count as kills).
	Crashes []string
}

// Judge reads a battery report of a run against m.
func Judge(m Mutant, r *conformance.Report) Verdict {
	v := Verdict{Mutant: m}
	declared := map[string]bool{}
	for _, id := range m.Breaks {
		declared[id] = true
	}
	failed := map[string]bool{}
	for _, s := range r.Specs {
		switch s.State {
		case "failed":
			failed[s.RuleID] = true
			if declared[s.RuleID] {
				v.Killed = true
				v.KilledBy = append(v.KilledBy, s.Name)
			}
		case "panicked", "timedout", "interrupted", "aborted":
			v.Crashes = append(v.Crashes, s.Name)
		}
	}
	for id := range failed {
		v.FailedRules = append(v.FailedRules, id)
	}
	sort.Strings(v.FailedRules)
	return v
}
