package probe_test

import (
	"testing"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/probe"
)

// TestKilled: a server mutant is killed when each rule it declares failed in some era
// and no other rule read worse than not exercised.
func TestKilled(t *testing.T) {
	row := func(id string, era conformance.Era, o conformance.Outcome) conformance.RuleResult {
		return conformance.RuleResult{ID: id, Era: era, Outcome: o}
	}
	// died is a row aborted because the server died during the check named by during.
	died := func(id string, era conformance.Era, during string) conformance.RuleResult {
		return conformance.RuleResult{ID: id, Era: era, Outcome: conformance.Aborted, Reasons: []string{"the server died during " + during + ": see that row"}}
	}
	for _, c := range []struct {
		name   string
		rows   []conformance.RuleResult
		rules  []string
		killed bool
	}{
		{"declared rule failed in one era", []conformance.RuleResult{row("V-A", conformance.EraLegacy, conformance.Passed), row("V-A", conformance.EraModern, conformance.Failed), row("V-B", conformance.EraLegacy, conformance.NotExercised)}, []string{"V-A"}, true},
		{"declared rule passed", []conformance.RuleResult{row("V-A", conformance.EraLegacy, conformance.Passed)}, []string{"V-A"}, false},
		{"declared rule only inconclusive", []conformance.RuleResult{row("V-A", conformance.EraLegacy, conformance.Inconclusive)}, []string{"V-A"}, false},
		{"one of two declared rules failed", []conformance.RuleResult{row("V-A", conformance.EraLegacy, conformance.Failed), row("V-B", conformance.EraLegacy, conformance.Passed)}, []string{"V-A", "V-B"}, false},
		{"another rule failed too", []conformance.RuleResult{row("V-A", conformance.EraLegacy, conformance.Failed), row("V-B", conformance.EraModern, conformance.Failed)}, []string{"V-A"}, false},
		{"another rule aborted", []conformance.RuleResult{row("V-A", conformance.EraLegacy, conformance.Failed), row("V-B", conformance.EraModern, conformance.Aborted)}, []string{"V-A"}, false},
		{"died during a declared rule, the rest aborted pointing at it", []conformance.RuleResult{row("V-A", conformance.EraLegacy, conformance.Failed),
			died("V-B", conformance.EraLegacy, "V-A legacy"), died("V-A", conformance.EraModern, "V-A legacy")}, []string{"V-A"}, true},
		{"died during another rule", []conformance.RuleResult{row("V-A", conformance.EraLegacy, conformance.Failed), row("V-C", conformance.EraLegacy, conformance.Failed),
			died("V-B", conformance.EraLegacy, "V-C legacy")}, []string{"V-A"}, false},
		{"aborted for another cause", []conformance.RuleResult{row("V-A", conformance.EraLegacy, conformance.Failed),
			{ID: "V-B", Era: conformance.EraLegacy, Outcome: conformance.Aborted, Reasons: []string{"no usable answer from the server: timeout: tasks/get"}}}, []string{"V-A"}, false},
	} {
		killed, why := probe.Killed(&conformance.Report{Rules: c.rows}, c.rules)
		if killed != c.killed || killed == (why != "") {
			t.Errorf("%s: killed %v (%q), want %v", c.name, killed, why, c.killed)
		}
	}
}
