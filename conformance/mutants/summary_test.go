package mutants_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/conformance/mutants"
)

const summaryChildEnv = "STORECHECK_REPORT_TEST_CHILD"

// TestSummaryChild runs RunLegacy against the store named by $STORECHECK_REPORT_TEST_CHILD
// for TestRunLogsSummary, in a child process (RunSpecs runs once per process).
func TestSummaryChild(t *testing.T) {
	name := os.Getenv(summaryChildEnv)
	if name == "" {
		t.Skip("a child of TestRunLogsSummary")
	}
	m, ok := mutants.Lookup(name)
	if !ok {
		t.Fatalf("mutant %s is gone from the catalogue", name)
	}
	conformance.RunLegacy(t, mutants.Harness(m)) // summary-caller
}

// summaryCallerLine is "summary_test.go:N", N the line of the RunLegacy call above: the
// summary is logged there, at the caller's line, not at a line of the library.
func summaryCallerLine(t *testing.T) string {
	src, err := os.ReadFile("summary_test.go")
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(src), "\n") {
		if strings.HasSuffix(l, "// summary-caller") && strings.Contains(l, "RunLegacy") {
			return fmt.Sprintf("summary_test.go:%d: storecheck summary:", i+1)
		}
	}
	t.Fatal("the RunLegacy call marked summary-caller is gone")
	return ""
}

// TestRunLogsSummary: the per-rule summary, headed by what was detected of the store, is
// logged at the caller's line on every run with -v and on a failing run without it, and
// not on a passing run without -v; go test's output (a pipe here) has no colour codes.
func TestRunLogsSummary(t *testing.T) {
	if os.Getenv(summaryChildEnv) != "" {
		t.Skip("in the child")
	}
	at := summaryCallerLine(t)
	detected := "clock control: " // a line of the capabilities header (conformance.Detect)
	for _, c := range []struct {
		name, store string
		verbose     bool
		fails       bool
		want, not   []string
	}{
		{"passing without -v", mutants.HonestName, false, false, nil, []string{"storecheck summary:", detected}},
		{"passing with -v", mutants.HonestName, true, false, []string{at, detected, "optional legacy operations", "L-GET-1", "passed", "seed "}, nil},
		{"failing without -v", "status-prefix", false, true, []string{at, detected, "L-LIST-1", "FAILED", "L-GET-1", "passed", "seed "}, nil},
		{"failing with -v", "status-prefix", true, true, []string{at, detected, "L-LIST-1", "FAILED", "L-GET-1", "passed", "seed "}, nil},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			args := []string{"-test.run=^TestSummaryChild$", "-ginkgo.label-filter=L-LIST-1 || L-GET-1"}
			if c.verbose {
				args = append(args, "-test.v")
			}
			cmd := exec.Command(os.Args[0], args...)
			cmd.Env = append(os.Environ(), summaryChildEnv+"="+c.store)
			b, err := cmd.CombinedOutput()
			out := string(b)
			if failed := err != nil; failed != c.fails {
				t.Fatalf("RunLegacy against %s: err %v, want failure %v:\n%s", c.store, err, c.fails, out)
			}
			for _, want := range c.want {
				if !strings.Contains(out, want) {
					t.Errorf("the log lacks %q:\n%s", want, out)
				}
			}
			for _, not := range c.not {
				if strings.Contains(out, not) {
					t.Errorf("the log has %q:\n%s", not, out)
				}
			}
			if strings.Contains(out, "\x1b[") {
				t.Errorf("go test's output, not a terminal, has ANSI escape codes:\n%q", out)
			}
		})
	}
}
