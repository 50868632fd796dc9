package probe_test

import (
	"strings"
	"testing"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/probe"
)

// TestRunCutShort: a server that cancels each task as its tools/call is answered
// (cancel-on-answer) fails V-RUN-1 in both eras, the row saying when the task ended
// against the creation's answer; the honest server passes.
func TestRunCutShort(t *testing.T) {
	for _, tc := range []struct {
		mutant string
		want   conformance.Outcome
	}{{"", conformance.Passed}, {"cancel-on-answer", conformance.Failed}} {
		r := runConfig(t, probe.Config{URL: serve(t, tc.mutant), Strict: true, Rules: []string{"V-RUN-1"}}, 2)
		for _, rr := range r.Rules {
			why := strings.Join(rr.Reasons, "\n")
			if rr.Outcome != tc.want || tc.want == conformance.Failed && !strings.Contains(why, "ms after tools/call was answered") {
				t.Errorf("%q: V-RUN-1 %s %s %q; want %s, saying when", tc.mutant, rr.Era, rr.Outcome, why, tc.want)
			}
		}
	}
}
