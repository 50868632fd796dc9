package mutants_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/conformance/mutants"
	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/schema/schematest"
)

// Each mutant fails exactly the rules it declares it breaks (Mutant.Breaks), no other:
// the SDK profile's in process and over the wire, the facade mutants over the wire, and
// the Python example's facade with the same defects.

// TestSDKMutantsFailExactlyTheirRules runs the SDK profile's battery (--era sdk
// --strict) against the honest store and every SDK-profile mutant in process, and the
// honest store and sdk-aliases over the wire protocol too (storecheck serve; aliasing
// through sdk.mutate): the honest store
// passes every rule, and each mutant fails exactly the rules it declares, no other
// (a rule it cannot be judged on may read inconclusive or skipped, never failed).
func TestSDKMutantsFailExactlyTheirRules(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the SDK battery once per mutant; skipped with -short")
	}
	bin := buildCLI(t)
	dir := t.TempDir()
	var ms []mutant.Mutant[mutants.Build]
	for _, m := range mutants.Catalogue() {
		if slices.Equal(m.Build.Eras, []harness.Era{harness.EraSDK}) {
			ms = append(ms, m)
		}
	}
	if len(ms) < 20 {
		t.Fatalf("%d SDK-profile mutants in the catalogue, want at least 20 (one per MUST rule of the profile)", len(ms))
	}
	honest, _ := mutants.Lookup(mutants.HonestName)
	ms = append([]mutant.Mutant[mutants.Build]{honest}, ms...)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for _, m := range ms {
		wg.Go(func() { checkSDKMutant(t, bin, dir, m, false, sem) })
		// Over the wire only where the check takes another path there (aliasing through
		// sdk.mutate) and for the honest store; TestCatalogueIsKilledOverTheWire runs
		// every mutant over the wire.
		if m.Name == mutants.HonestName || m.Name == "sdk-aliases" {
			wg.Go(func() { checkSDKMutant(t, bin, dir, m, true, sem) })
		}
	}
	wg.Wait()
}

func checkSDKMutant(t *testing.T, bin, dir string, m mutant.Mutant[mutants.Build], wire bool, sem chan struct{}) {
	sem <- struct{}{}
	defer func() { <-sem }()
	how := "in process"
	report := filepath.Join(dir, m.Name+".json")
	args := []string{"--adapter", "mutant:" + m.Name, "--era", "sdk", "--strict"}
	if wire {
		how = "over the wire"
		report = filepath.Join(dir, m.Name+"-wire.json")
		args = []string{"--adapter", "exec", "--exec", strconv.Quote(bin) + " serve --facade --adapter mutant:" + m.Name,
			"--era", "sdk", "--strict"}
	}
	r, err := runReport(bin, report, args...)
	if err != nil {
		t.Errorf("%s %s: %v", m.Name, how, err)
		return
	}
	if failed, want := failedIDs(r.rules), sortedBreaks(m); !slices.Equal(failed, want) {
		t.Errorf("%s %s (%s): failed %v, want exactly %v\n%s", m.Name, how, m.Defect, failed, want, lastLinesOf(r.out, 30))
	}
	if m.Name == mutants.HonestName && (r.err != nil || len(r.rules) < 20) {
		t.Errorf("honest store %s: exit %v with %d rules judged, want a pass of every SDK-profile rule", how, r.err, len(r.rules))
	}
}

// TestFacadeMutantsFailExactlyTheirRulesOverTheWire runs the battery (--strict) over the
// wire protocol against every facade mutant (conformance/mutants/facade.go), served with
// its broken facade as the child's facade layer (storecheck serve --facade), once per
// era it lives in: each fails exactly the rules it declares, no other (a rule it cannot
// be judged on may read inconclusive, skipped or not exercised, never failed). Compare
// TestSDKMutantsFailExactlyTheirRules.
func TestFacadeMutantsFailExactlyTheirRulesOverTheWire(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the battery once per facade mutant and era over the wire; skipped with -short")
	}
	var ms []mutant.Mutant[mutants.Build]
	for _, m := range mutants.Catalogue() {
		if strings.HasPrefix(m.Name, "facade-") {
			ms = append(ms, m)
		}
	}
	if len(ms) < 3 {
		t.Fatalf("%d facade mutants in the catalogue, want at least 3", len(ms))
	}
	bin := buildCLI(t)
	dir := t.TempDir()
	start := time.Now()
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		judged = map[string][]ruleOutcome{} // mutant → its rules in each of its eras that has a report
		sem    = make(chan struct{}, 2)
	)
	for _, m := range ms {
		for _, era := range m.Build.Eras {
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				report := filepath.Join(dir, m.Name+"-"+string(era)+".json")
				r, err := runReport(bin, report, "--adapter", "exec",
					"--exec", strconv.Quote(bin)+" serve --facade --adapter mutant:"+m.Name,
					"--era", string(era), "--strict")
				if err != nil {
					t.Errorf("%s %s over the wire: %v", m.Name, era, err)
					return
				}
				mu.Lock()
				defer mu.Unlock()
				judged[m.Name] = append(judged[m.Name], r.rules...)
			})
		}
	}
	wg.Wait()
	for _, m := range ms {
		rules, ok := judged[m.Name]
		if !ok {
			continue // reported above
		}
		if got, want := failedIDs(rules), sortedBreaks(m); !slices.Equal(got, want) {
			t.Errorf("%s over the wire (%s): failed %v, want exactly %v", m.Name, m.Defect, got, want)
		}
	}
	t.Logf("%d facade mutants over the wire in %s", len(ms), time.Since(start).Round(time.Second))
}

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
			breaks[m.Name] = sortedBreaks(m)
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
		if got, want := run(name, py, variants, name), breaks[name]; !slices.Equal(got, want) {
			t.Errorf("the Python example with %s failed %v, want exactly %v", name, got, want)
		}
	}
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
		want := sortedBreaks(m)
		got := failedRules(t, bin, filepath.Join(dir, m.Name+".json"), "--exec", strconv.Quote(bin)+" serve --adapter mutant:"+m.Name, "--era", "sdk", "--strict")
		if !slices.Equal(got, want) {
			t.Errorf("%s over the wire (%s): failed %v, want exactly %v", m.Name, m.Defect, got, want)
		}
	}
}

// ruleOutcome is one rule of the JSON report of storecheck run.
type ruleOutcome struct{ ID, Outcome string }

// cliRun is one `storecheck run` with a JSON report.
type cliRun struct {
	rules []ruleOutcome
	out   string // stdout and stderr
	err   error  // the command's own (its exit code)
}

// runReport runs `storecheck run` with args and a JSON report at report. err says why
// there is no report or it is not one; being an error rather than a t.Fatal, it can be
// reported from any goroutine.
func runReport(bin, report string, args ...string) (cliRun, error) {
	b, runErr := exec.Command(bin, append([]string{"run", "--json", report}, args...)...).CombinedOutput()
	r := cliRun{out: string(b), err: runErr}
	data, err := os.ReadFile(report)
	if err != nil {
		return r, fmt.Errorf("storecheck run %v: no report (%v): %s", args, runErr, lastLinesOf(r.out, 30))
	}
	if err := schematest.Validate(data); err != nil {
		return r, fmt.Errorf("storecheck run %v: report %s: %w", args, report, err)
	}
	var rep struct{ Rules []ruleOutcome }
	if err := json.Unmarshal(data, &rep); err != nil {
		return r, fmt.Errorf("storecheck run %v: report %s: %w", args, report, err)
	}
	r.rules = rep.Rules
	return r, nil
}

// failedIDs is the rules that failed, each once, sorted.
func failedIDs(rules []ruleOutcome) []string {
	var failed []string
	for _, rule := range rules {
		if rule.Outcome == "failed" && !slices.Contains(failed, rule.ID) {
			failed = append(failed, rule.ID)
		}
	}
	sort.Strings(failed)
	return failed
}

// failedRules runs `storecheck run` with args and a JSON report at report, and returns
// the rules that failed, sorted.
func failedRules(t *testing.T, bin, report string, args ...string) []string {
	t.Helper()
	r, err := runReport(bin, report, args...)
	if err != nil {
		t.Fatal(err)
	}
	return failedIDs(r.rules)
}

// sortedBreaks is the rules m declares it breaks, sorted, as failedIDs lists them.
func sortedBreaks(m mutant.Mutant[mutants.Build]) []string {
	want := slices.Clone(m.Breaks)
	sort.Strings(want)
	return want
}

func lastLinesOf(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}
