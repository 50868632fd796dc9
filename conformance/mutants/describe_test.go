package mutants_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/conformance/mutants"
)

// describeCaseEnv picks the Describe* call a child of TestDescribeReadsOptionsLikeRun
// registers at init, as a store author's Ginkgo suite would (nothing otherwise).
const describeCaseEnv = "STORECHECK_DESCRIBE_CASE"

var _ = describeCase(os.Getenv(describeCaseEnv))

func describeCase(name string) bool {
	harnessOf := func(n string) harness.Harness {
		m, ok := mutants.Lookup(n)
		if !ok {
			panic("mutant " + n + " is gone from the catalogue")
		}
		return mutants.Harness(m)
	}
	switch name {
	case "":
		return false
	case "two-options":
		return conformance.DescribeLegacy(harnessOf("status-prefix"), conformance.Options{}, conformance.Options{Strict: true})
	case "status-prefix": // breaks L-LIST-1 only
		return conformance.DescribeLegacy(harnessOf("status-prefix"))
	case "create-merges": // breaks L-CREATE-2, a SHOULD rule
		return conformance.DescribeLegacy(harnessOf("create-merges"))
	case "cas-ignores-version": // fails M-SWAP-4's linearizability check, which writes history.html
		return conformance.DescribeModern(harnessOf("cas-ignores-version"), conformance.Options{Seed: 7919})
	}
	panic("unknown " + describeCaseEnv + " " + name)
}

// TestDescribeChild is the Ginkgo suite of a child of TestDescribeReadsOptionsLikeRun.
func TestDescribeChild(t *testing.T) {
	if os.Getenv(describeCaseEnv) == "" {
		t.Skip("a child of TestDescribeReadsOptionsLikeRun")
	}
	gomega.RegisterFailHandler(ginkgo.Fail)
	ginkgo.RunSpecs(t, "a store author's Ginkgo suite")
}

// TestDescribeReadsOptionsLikeRun: DescribeLegacy/DescribeModern refuse more than one
// Options, honour -storecheck.rules and STORECHECK_RULES (only those specs run) and
// -storecheck.strict (a SHOULD fault fails), and
// leave no temporary artifacts behind when a linearizability check fails.
func TestDescribeReadsOptionsLikeRun(t *testing.T) {
	if os.Getenv(describeCaseEnv) != "" {
		t.Skip("in the child")
	}
	tmp := t.TempDir()
	child := func(name string, env []string, args ...string) (string, error) {
		cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestDescribeChild$", "-test.v", "-ginkgo.v", "-ginkgo.no-color"}, args...)...)
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "STORECHECK_") && !strings.HasPrefix(kv, "TMPDIR=") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env, describeCaseEnv+"="+name, "TMPDIR="+tmp)
		cmd.Env = append(cmd.Env, env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := child("two-options", nil); err == nil || !strings.Contains(out, "at most one Options, got 2") {
		t.Errorf("DescribeLegacy with two Options: err %v, want a failure saying at most one Options:\n%s", err, out)
	}
	if out, err := child("status-prefix", []string{"STORECHECK_RULES=L-GET-1,L-LIST-1"}); err == nil || !strings.Contains(out, "[L-LIST-1]") {
		t.Fatalf("DescribeLegacy of a store breaking L-LIST-1 should fail it: err %v\n%s", err, out)
	}
	for _, c := range []struct {
		how  string
		env  []string
		args []string
	}{
		{"STORECHECK_RULES", []string{"STORECHECK_RULES=L-GET-1"}, nil},
		{"-storecheck.rules", nil, []string{"-storecheck.rules", "L-GET-1"}},
	} {
		out, err := child("status-prefix", c.env, c.args...)
		if err != nil || !strings.Contains(out, "[L-GET-1]") || strings.Contains(out, "[L-LIST-1]") {
			t.Errorf("DescribeLegacy with %s L-GET-1: err %v, want only L-GET-1's specs, passing:\n%s", c.how, err, out)
		}
	}
	if out, err := child("create-merges", []string{"STORECHECK_RULES=L-CREATE-2"}); err != nil {
		t.Errorf("DescribeLegacy of a store breaking the SHOULD rule L-CREATE-2, not strict: err %v, want a warning only:\n%s", err, out)
	}
	if out, err := child("create-merges", []string{"STORECHECK_RULES=L-CREATE-2"}, "-storecheck.strict"); err == nil || !strings.Contains(out, "L-CREATE-2") {
		t.Errorf("DescribeLegacy of a store breaking the SHOULD rule L-CREATE-2 with -storecheck.strict: err %v, want L-CREATE-2 failed:\n%s", err, out)
	}
	out, err := child("cas-ignores-version", []string{"STORECHECK_RULES=M-SWAP-4"})
	if err == nil || !strings.Contains(out, "history.html") {
		t.Fatalf("DescribeModern of a store whose Swap ignores versions should fail M-SWAP-4 naming history.html: err %v\n%s", err, out)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("a failing Describe run left %d entries in the temporary directory, e.g. %s", len(left), left[0].Name())
	}
}
