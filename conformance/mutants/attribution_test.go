package mutants_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/storecheck/storecheck/conformance/mutants"
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

// TestSetupValueRefusedIsNotAFailure: a store that refuses a ttl past 32 bits
// (sdk-refuses-huge-ttl) fails P-CREATE-1, which judges that value; the specs of
// P-CLEAN-1 and P-TTL-2 that need such a task for their setup read setup refused, naming
// the refusal and P-CREATE-1, never failed.
func TestSetupValueRefusedIsNotAFailure(t *testing.T) {
	bin := buildCLI(t)
	_, out, code := outcomes(t, bin, "--adapter", "mutant:sdk-refuses-huge-ttl", "--era", "sdk", "--rules", "P-CREATE-1,P-CLEAN-1,P-TTL-2", "--seed", "7")
	// outcomes reads eras legacy and modern only: read the sdk rows here.
	rows := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) >= 5 && f[3] == "sdk" {
			rows[f[0]] = f[4]
		}
	}
	if rows["P-CREATE-1"] != "FAILED" {
		t.Errorf("P-CREATE-1 is %q, want FAILED\n%s", rows["P-CREATE-1"], out)
	}
	for _, rule := range []string{"P-CLEAN-1", "P-TTL-2"} {
		if rows[rule] != "setup" { // "setup refused" is two words
			t.Errorf("%s is %q, want setup refused\n%s", rule, rows[rule], out)
		}
	}
	if !strings.Contains(out, "a value P-CREATE-1 judges") || code != 1 {
		t.Errorf("exit %d, want 1 and a cause naming P-CREATE-1\n%s", code, out)
	}
}

// TestWrappedMutantsFailExactlyTheirRules runs the battery (--strict) in process against
// each wrapped store mutant (wrapped.go) and delete-keeps-owner, in its era: each fails
// exactly the rules it declares, no other.
func TestWrappedMutantsFailExactlyTheirRules(t *testing.T) {
	if testing.Short() {
		t.Skip("runs an era of the battery once per mutant; skipped with -short")
	}
	bin := buildCLI(t)
	dir := t.TempDir()
	for _, name := range []string{"owner-index-survives-delete", "cleanup-ages-digit-strings", "sdk-refuses-huge-ttl", "sdk-cursor-date-internal", "delete-keeps-owner"} {
		m, ok := mutants.Lookup(name)
		if !ok {
			t.Fatalf("%s is not in the catalogue", name)
		}
		r, err := runReport(bin, filepath.Join(dir, name+".json"), "--adapter", "mutant:"+name, "--era", string(m.Build.Eras[0]), "--strict", "--seed", "7")
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if failed, want := failedIDs(r.rules), sortedBreaks(m); !slices.Equal(failed, want) {
			t.Errorf("%s (%s): failed %v, want exactly %v\n%s", name, m.Defect, failed, want, lastLinesOf(r.out, 30))
		}
	}
}

// TestEndlessListingNamesItsCause: a store that lists every session's tasks to every
// caller (sdk-sessions-ignored) fails P-LIST-1 with a listing that runs past the pages
// its session's tasks need; the fault says that other sessions' tasks fill the pages,
// not only that the listing never ends.
func TestEndlessListingNamesItsCause(t *testing.T) {
	bin := buildCLI(t)
	path := filepath.Join(t.TempDir(), "report.json")
	if _, err := runReport(bin, path, "--adapter", "mutant:sdk-sessions-ignored", "--era", "sdk", "--rules", "P-LIST-1", "--seed", "7"); err != nil {
		t.Fatal(err)
	}
	r := readReport(t, path)
	endless := 0
	for _, s := range r.Specs {
		if !strings.Contains(s.Message, "still a nextCursor") {
			continue
		}
		endless++
		if !strings.Contains(s.Message, "other sessions' tasks fill the pages") {
			t.Errorf("%s: the endless listing does not name its cause:\n%s", s.Name, s.Message)
		}
	}
	if endless == 0 {
		t.Errorf("no spec of P-LIST-1 met an endless listing: %+v", r.Specs)
	}
}
