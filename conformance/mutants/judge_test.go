package mutants_test

import (
	"slices"
	"testing"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/conformance/mutants"
)

// TestJudge: only an assertion failure of a spec labelled with a declared rule, before
// the first aborted spec, kills; crashes, other rules and anything after an abort do not.
func TestJudge(t *testing.T) {
	m, ok := mutants.Lookup("status-prefix") // breaks L-LIST-1
	if !ok {
		t.Fatal("mutant status-prefix is gone from the catalogue")
	}
	spec := func(rule string, o conformance.Outcome, state, cause string) conformance.SpecResult {
		return conformance.SpecResult{Name: "[" + rule + "] spec", RuleID: rule, Outcome: o, State: state, Cause: cause}
	}
	for _, tc := range []struct {
		name   string
		specs  []conformance.SpecResult
		killed bool
		abort  string
		failed []string
	}{
		{"assertion failure of the declared rule", []conformance.SpecResult{
			spec("L-GET-1", conformance.Passed, "passed", ""),
			spec("L-LIST-1", conformance.Failed, "failed", ""),
		}, true, "", []string{"L-LIST-1"}},
		{"another rule only", []conformance.SpecResult{
			spec("L-GET-1", conformance.Failed, "failed", ""),
		}, false, "", []string{"L-GET-1"}},
		{"a panic or a timeout of the declared rule", []conformance.SpecResult{
			spec("L-LIST-1", conformance.Failed, "panicked", ""),
			spec("L-LIST-1", conformance.Failed, "timedout", ""),
		}, false, "", nil},
		{"declared rule fails after an abort", []conformance.SpecResult{
			spec("L-GET-1", conformance.Aborted, "failed", "store process exited"),
			spec("L-LIST-1", conformance.Failed, "failed", ""),
		}, false, "store process exited", nil},
		{"declared rule aborted", []conformance.SpecResult{
			spec("L-LIST-1", conformance.Aborted, "skipped", "store process exited"),
		}, false, "store process exited", nil},
		{"killed before the abort", []conformance.SpecResult{
			spec("L-LIST-1", conformance.Failed, "failed", ""),
			spec("L-LIST-2", conformance.Aborted, "skipped", "store process exited"),
		}, true, "store process exited", []string{"L-LIST-1"}},
	} {
		v := mutants.Judge(m, &conformance.Report{Specs: tc.specs})
		if v.Killed != tc.killed || v.Aborted != tc.abort || !slices.Equal(v.FailedRules, tc.failed) {
			t.Errorf("%s: killed %v, aborted %q, failed %v; want %v, %q, %v", tc.name, v.Killed, v.Aborted, v.FailedRules, tc.killed, tc.abort, tc.failed)
		}
		if tc.killed && !slices.Equal(v.KillingRules, []string{"L-LIST-1"}) {
			t.Errorf("%s: killing rules %v, want [L-LIST-1]", tc.name, v.KillingRules)
		}
	}
}
