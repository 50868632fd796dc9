package report

import (
	"slices"
	"testing"

	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/conformance/rules"
)

// TestMergeOrdersErasAndCountsAgain: the parts of a run checked in several processes
// merge into the report one process would have written: rules and specs in era order
// whatever order the parts come in, suite failures kept, totals counted again.
func TestMergeOrdersErasAndCountsAgain(t *testing.T) {
	part := func(era harness.Era, outcomes ...Outcome) *Report {
		r := &Report{Eras: []harness.Era{era}}
		for i, o := range outcomes {
			id := string(era) + "-" + string(rune('a'+i))
			r.Rules = append(r.Rules, RuleResult{ID: id, Era: era, Outcome: o, Subject: rules.SubjectStore, Specs: []string{id}})
			r.Specs = append(r.Specs, SpecResult{Name: id, RuleID: id, Era: era, Outcome: o})
		}
		return r
	}
	modern := part(harness.EraModern, Passed, Failed)
	legacySDK := part(harness.EraLegacy, Passed)
	sdk := part(harness.EraSDK, Inconclusive)
	legacySDK.Rules = append(legacySDK.Rules, sdk.Rules...)
	legacySDK.Specs = append(legacySDK.Specs, sdk.Specs...)
	legacySDK.SuiteFailures = []string{"from a part"}
	meta := Report{Store: "s", Eras: []harness.Era{harness.EraLegacy, harness.EraModern, harness.EraSDK}, SuiteFailures: []string{"a part wrote no report"}}

	got := Merge(meta, modern, legacySDK)

	var ids, specs []string
	for _, r := range got.Rules {
		ids = append(ids, r.ID)
	}
	for _, s := range got.Specs {
		specs = append(specs, s.Name)
	}
	want := []string{"legacy-a", "modern-a", "modern-b", "sdk-a"}
	if !slices.Equal(ids, want) || !slices.Equal(specs, want) {
		t.Errorf("Merge: rules %v, specs %v; want both %v (era order)", ids, specs, want)
	}
	if !slices.Equal(got.SuiteFailures, []string{"from a part", "a part wrote no report"}) {
		t.Errorf("Merge: suite failures %q; want the part's, then meta's", got.SuiteFailures)
	}
	if got.Totals.Passed != 2 || got.Totals.Failed != 1 || got.Totals.Inconclusive != 1 || got.Totals.Specs != 4 || got.Totals.BySubject[rules.SubjectStore][Passed] != 2 {
		t.Errorf("Merge: totals %+v; want 2 passed, 1 failed, 1 inconclusive, 4 specs", got.Totals)
	}
	if got.OK() || got.Store != "s" || len(got.Eras) != 3 {
		t.Errorf("Merge: OK %v, store %q, eras %v; want not OK (a failed rule, suite failures), s, three eras", got.OK(), got.Store, got.Eras)
	}
}
