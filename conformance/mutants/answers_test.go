package mutants_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/storecheck/storecheck/conformance/mutants"
)

// pythonFacadeMutants are the facade mutants that also exist as variants of the Python
// example's facade (adapters/wire/selftest/python/testdata/variants.py, same names).
var pythonFacadeMutants = []string{"facade-owner-empty-denied", "facade-owner-empty-as-principal",
	"facade-cancel-terminal-first", "facade-update-terminal-first"}

// TestPythonFacadeMutants runs the rules these facade mutants break (--strict) over the
// wire against the Python example with the same defect in its facade (facade.py, a
// foreign facade: the verdicts are about its code), and against the honest example:
// each variant fails exactly the rules its Go twin declares, the honest example none.
// For the owner-"" variants, owner "" must reach the child as "".
func TestPythonFacadeMutants(t *testing.T) {
	if testing.Short() {
		t.Skip("builds storecheck and runs part of the battery over the wire; skipped with -short")
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not on PATH: the Python example cannot run here")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	variants := filepath.Join(root, "adapters", "wire", "selftest", "python", "testdata", "variants.py")
	example := filepath.Join(root, "examples", "python-store", "store.py")
	bin := buildCLI(t)
	dir := t.TempDir()
	breaks := map[string][]string{}
	for _, m := range mutants.Catalogue() {
		if slices.Contains(pythonFacadeMutants, m.Name) {
			breaks[m.Name] = m.Breaks
		}
	}
	var rules []string
	for _, name := range pythonFacadeMutants {
		if breaks[name] == nil {
			t.Fatalf("%s is not in the catalogue", name)
		}
		for _, id := range breaks[name] {
			if !slices.Contains(rules, id) {
				rules = append(rules, id)
			}
		}
	}
	run := func(name string, argv ...string) []string {
		t.Helper()
		return failedRules(t, bin, filepath.Join(dir, name+".json"), "--exec", strings.Join(argv, " "), "--strict", "--rules", strings.Join(rules, ","))
	}
	if failed := run("honest", py, example); len(failed) > 0 {
		t.Errorf("the honest Python example failed %v of %v", failed, rules)
	}
	for _, name := range pythonFacadeMutants {
		want := slices.Clone(breaks[name])
		sort.Strings(want)
		if got := run(name, py, variants, name); !slices.Equal(got, want) {
			t.Errorf("the Python example with %s failed %v, want exactly %v", name, got, want)
		}
	}
}

// ruleOutcome is one rule of the JSON report of storecheck run.
type ruleOutcome struct{ ID, Outcome string }

// readRules reads the rules of the JSON report at path: readErr when there is none to
// read, decodeErr when it is not a report.
func readRules(path string) (rules []ruleOutcome, readErr, decodeErr error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err, nil
	}
	var r struct{ Rules []ruleOutcome }
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, nil, err
	}
	return r.Rules, nil, nil
}

// failedRules runs `storecheck run` with args and a JSON report at report, and returns
// the rules that failed, sorted.
func failedRules(t *testing.T, bin, report string, args ...string) []string {
	t.Helper()
	out, err := runCLI(bin, append([]string{"run", "--json", report}, args...)...)
	rules, rerr, derr := readRules(report)
	if rerr != nil {
		t.Fatalf("storecheck run %v: no report (%v): %s", args, err, lastLinesOf(out, 30))
	}
	if derr != nil {
		t.Fatalf("storecheck run %v: %v", args, derr)
	}
	var failed []string
	for _, rule := range rules {
		if rule.Outcome == "failed" && !slices.Contains(failed, rule.ID) {
			failed = append(failed, rule.ID)
		}
	}
	sort.Strings(failed)
	return failed
}

// TestSDKDeclarationsOverTheWire pins docs/wire.md's answers on what an SDK-profile
// child declares, over the wire (storecheck serve): a store that restarts its ttl at
// completion and declares completion fails only the SHOULD P-TTL-4 (declared creation,
// sdk-ttl-restarts-at-completion, it fails P-TTL-2); a store that ignores sessions for
// everyone and declares unrestricted fails P-SESS-1 whatever it declares.
func TestSDKDeclarationsOverTheWire(t *testing.T) {
	if testing.Short() {
		t.Skip("builds storecheck and runs the SDK battery over the wire; skipped with -short")
	}
	bin := buildCLI(t)
	dir := t.TempDir()
	for _, m := range mutants.Catalogue() {
		if !slices.Contains([]string{"sdk-ttl-restarts-declared", "sdk-sessions-ignored", "sdk-ttl-restarts-at-completion"}, m.Name) {
			continue
		}
		want := slices.Clone(m.Breaks)
		sort.Strings(want)
		got := failedRules(t, bin, filepath.Join(dir, m.Name+".json"), "--exec", strconv.Quote(bin)+" serve --adapter mutant:"+m.Name, "--era", "sdk", "--strict")
		if !slices.Equal(got, want) {
			t.Errorf("%s over the wire (%s): failed %v, want exactly %v", m.Name, m.Defect, got, want)
		}
	}
}
