package mutants_test

import (
	"strings"
	"testing"
)

// TestOwnerFaultsUnderTheirRule: a store or facade that lets a caller through against
// the truth table, and answers every denial it does make exactly as a missing task,
// breaks S-OWN-1 and not S-OWN-2. S-OWN-2's spec, which walks the table to compare each
// denial with a missing id, files what it found of S-OWN-1 under S-OWN-1 and passes.
func TestOwnerFaultsUnderTheirRule(t *testing.T) {
	bin := buildCLI(t)
	for _, tc := range []struct{ mutant, era string }{
		{"anonymous-fails-open", "modern"},      // the modern store lets the anonymous caller read and write owned tasks
		{"facade-owner-empty-denied", "legacy"}, // the facade turns away callers the table admits to an unowned task
	} {
		got, out, _ := outcomes(t, bin, "--adapter", "mutant:"+tc.mutant, "--era", tc.era, "--rules", "S-OWN-2", "--strict", "--seed", "7")
		if g := got["S-OWN-2 "+tc.era]; g != "passed" {
			t.Errorf("%s: S-OWN-2 %s is %q, want passed (its faults are S-OWN-1's)\n%s", tc.mutant, tc.era, g, out)
		}
		if g := got["S-OWN-1 "+tc.era]; g != "FAILED" || !strings.Contains(out, "found by a spec of S-OWN-2") {
			t.Errorf("%s: S-OWN-1 %s is %q, want FAILED with the faults S-OWN-2's spec found\n%s", tc.mutant, tc.era, g, out)
		}
	}
}
