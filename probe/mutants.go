package probe

import (
	"fmt"
	"slices"
	"strings"

	"github.com/storecheck/storecheck/conformance"
)

// Killed judges a report of a server with one deliberate defect that breaks rules (a
// server mutant's Breaks, mutant.Mutant): it is killed when each of those rules failed
// in some era and every other rule passed or was not exercised (a mutant that fails a
// rule it does not declare is a check that bites the wrong thing). A defect that kills
// the server fails the rule whose check it died during; every later row is aborted
// pointing at that row, and such a row counts as killed only when it points at a rule
// the defect declares. why says what fell short.
func Killed(r *conformance.Report, rules []string) (killed bool, why string) {
	var missed, others []string
	for _, rule := range rules {
		if !slices.ContainsFunc(r.Rules, func(rr conformance.RuleResult) bool {
			return rr.ID == rule && rr.Outcome == conformance.Failed
		}) {
			missed = append(missed, rule)
		}
	}
	for _, rr := range r.Rules {
		if rule, ok := DeathOf(rr); ok && slices.Contains(rules, rule) {
			continue
		}
		if !slices.Contains(rules, rr.ID) && rr.Outcome != conformance.Passed && rr.Outcome != conformance.NotExercised {
			others = append(others, fmt.Sprintf("%s %s %s", rr.ID, rr.Era, rr.Outcome))
		}
	}
	switch {
	case len(missed) > 0:
		why = "survived " + strings.Join(missed, ", ")
	case len(others) > 0:
		why = "also: " + strings.Join(others, ", ")
	}
	return why == "", why
}
