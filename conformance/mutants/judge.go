package mutants

import (
	"sort"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/internal/mutant"
)

// Verdict is what the battery did to one mutant.
type Verdict struct {
	Mutant mutant.Mutant[Build]
	// Killed is true when at least one spec labelled with a rule the mutant breaks
	// failed on an assertion before the first aborted spec. A mutant caught only by a
	// crash, a timeout, a rule it does not declare, or after the transport failed
	// counts as not killed (B-POWER-1).
	Killed bool
	// KilledBy names the specs that killed it.
	KilledBy []string
	// KillingRules are the declared rules of those specs, sorted.
	KillingRules []string
	// FailedRules lists every rule that failed on an assertion, declared or not.
	FailedRules []string
	// Crashes lists specs that panicked or timed out (they never count as kills).
	Crashes []string
	// Aborted is the cause of the first aborted spec (bring-up or the transport
	// failed), empty when none was; nothing after it is judged.
	Aborted string
	// AbortedSpecs counts the aborted specs.
	AbortedSpecs int
}

// Judge reads a battery report of a run against m. Specs are read in the order they
// ran: once one is aborted (the child died, hung or broke the protocol), no later
// failure can be the mutant's doing, so none counts.
func Judge(m mutant.Mutant[Build], r *conformance.Report) Verdict {
	v := Verdict{Mutant: m}
	declared := map[string]bool{}
	for _, id := range m.Breaks {
		declared[id] = true
	}
	failed := map[string]bool{}
	killing := map[string]bool{}
	for _, s := range r.Specs {
		if s.Outcome == conformance.Aborted {
			if v.Aborted == "" {
				v.Aborted = s.Cause
			}
			v.AbortedSpecs++
			continue
		}
		switch {
		case v.Aborted != "":
			// After the transport failed: not judged.
		case s.Outcome == conformance.Failed && s.State == "failed":
			failed[s.RuleID] = true
			if declared[s.RuleID] {
				v.Killed = true
				v.KilledBy = append(v.KilledBy, s.Name)
				killing[s.RuleID] = true
			}
		case s.Outcome == conformance.Failed:
			v.Crashes = append(v.Crashes, s.Name)
		}
	}
	v.FailedRules = sortedKeys(failed)
	v.KillingRules = sortedKeys(killing)
	return v
}

func sortedKeys(m map[string]bool) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
