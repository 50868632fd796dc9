package mutants_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/conformance/mutants"
)

// TestRunLogsSummaryOnFailure runs RunLegacy against a store breaking L-LIST-1 in a
// child process (RunSpecs runs once per process) and looks for the per-rule summary
// in the test log.
func TestRunLogsSummaryOnFailure(t *testing.T) {
	const child = "STORECHECK_REPORT_TEST_CHILD"
	if os.Getenv(child) == "1" {
		m, ok := mutants.Lookup("status-prefix")
		if !ok {
			t.Fatal("mutant status-prefix is gone from the catalogue")
		}
		conformance.RunLegacy(t, m.Harness())
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRunLogsSummaryOnFailure$", "-test.v", "-ginkgo.label-filter=L-LIST-1 || L-GET-1")
	cmd.Env = append(os.Environ(), child+"=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("RunLegacy against a store breaking L-LIST-1 passed:\n%s", out)
	}
	for _, want := range []string{"storecheck summary:", "L-LIST-1", "FAILED", "L-GET-1", "passed", "seed "} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the failing run's log lacks %q:\n%s", want, out)
		}
	}
}
