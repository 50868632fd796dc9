package mutants_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/conformance/mutants"
	"github.com/storecheck/storecheck/internal/clibuild"
	"github.com/storecheck/storecheck/schema/schematest"
)

// TestHonestStore: the store every mutant is a variant of passes the battery, SHOULD
// rules included (B-POWER-1: every honest store passes).
func TestHonestStore(t *testing.T) {
	// Not Strict, which would fail a race check that could not tell on a busy machine
	// (inconclusive); a SHOULD fault must not show either: Alarms counts warned rules
	// as alarms, Strict or not.
	path := filepath.Join(t.TempDir(), "report.json")
	conformance.Run(t, mutants.Honest(), conformance.Options{JSON: path})
	r := readReport(t, path)
	if a := r.Alarms(); len(a) > 0 {
		t.Errorf("the honest store drew alarms (warnings count here): %v", a)
	}
}

// TestCatalogueDeclaresEveryStoreRule: every MUST rule of the store contracts is
// declared broken by at least one mutant, and every declared rule exists. Library rules
// (S-TRANS-1, S-ID-1, M-F-NOTIFY-1, M-F-LISTEN-1) test storecheck's own code and facade
// rules (L-F-*, M-F-*) the reference facades; a store cannot break those except through
// the store rules below them. TestCatalogueIsKilled checks the same list against the
// rules that actually killed a mutant.
func TestCatalogueDeclaresEveryStoreRule(t *testing.T) {
	broken := map[string]bool{}
	names := map[string]bool{}
	for _, m := range mutants.Catalogue() {
		if names[m.Name] {
			t.Errorf("mutant %s listed twice", m.Name)
		}
		names[m.Name] = true
		if len(m.Breaks) == 0 || m.Defect == "" || len(m.Build.Eras) == 0 {
			t.Errorf("mutant %s: declares no rule, defect or era", m.Name)
		}
		if m.Name == mutants.DiesMidRunName {
			t.Errorf("%s is listed in the catalogue: it breaks no rule and must never count as killed", m.Name)
		}
		for _, id := range m.Breaks {
			if _, ok := conformance.RuleByID(id); !ok {
				t.Errorf("mutant %s declares unknown rule %s", m.Name, id)
			}
			broken[id] = true
		}
	}
	if n := len(names); n < 30 {
		t.Errorf("catalogue has %d mutants, want at least 30", n)
	}
	for _, id := range mustStoreRules() {
		if !broken[id] {
			t.Errorf("no mutant declares it breaks %s", id)
		}
	}
}

// mustStoreRules are the MUST rules of the battery whose verdict is about the store
// itself. The fault rules (section 5) are checked by package faults against a backend it
// disturbs, not by the battery the mutants run under.
func mustStoreRules() []string {
	var ids []string
	for _, r := range conformance.Rules() {
		if r.Level == conformance.Must && r.Subject() == conformance.SubjectStore && r.Part != "faults" {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

// TestCatalogueIsKilled runs `storecheck mutants --declared`: every mutant must be killed
// by a spec of a rule it declares, and the honest store must pass the whole battery
// (B-POWER-1). Each mutant meets the specs that decide its verdict (Mutant.JudgedRules);
// `make mutants` runs the whole battery against each. Each mutant runs in
// its own storecheck process (Ginkgo runs once per process). The same run shows that
// the catalogue has power over every MUST store rule: each is the killing rule (an
// assertion failure of a spec labelled with it) of at least one mutant.
func TestCatalogueIsKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the battery once per mutant; skipped with -short")
	}
	verdicts := judgeCatalogue(t, len(mutants.Catalogue()), "--declared")
	killing := map[string]bool{}
	for _, v := range verdicts {
		for _, id := range v.KillingRules {
			killing[id] = true
		}
	}
	for _, id := range mustStoreRules() {
		if !killing[id] {
			t.Errorf("no mutant was killed by a spec of %s: the battery has no demonstrated power over it", id)
		}
	}
}

// TestCatalogueIsKilledOverTheWire serves every mutant with `storecheck serve` and checks
// it through the wire protocol (--exec): a store in another language gets the same
// battery. Mutants whose defect cannot cross a process boundary are left out.
func TestCatalogueIsKilledOverTheWire(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the battery once per mutant; skipped with -short")
	}
	n := 0
	for _, m := range mutants.Catalogue() {
		if m.Build.InProcessOnly() == "" {
			n++
		}
	}
	judgeCatalogue(t, n, "--wire", "--declared")
}

// TestDyingStoreIsAbortedNotKilled: a store process that exits in the middle of a run
// (dies-mid-run, outside the catalogue, declared to break every legacy store rule) is
// reported by `storecheck mutants --wire` as aborted, naming the op in flight, and never
// as killed; the honest store beside it still passes.
func TestDyingStoreIsAbortedNotKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds storecheck and runs part of the battery twice; skipped with -short")
	}
	bin := buildCLI(t)
	code, got, out := runMutants(t, bin, "--wire", "--only", mutants.DiesMidRunName, "--focus", `\[L-`)
	if code != 1 {
		t.Errorf("storecheck mutants exited %d, want 1 (a mutant not killed)", code)
	}
	if len(got.Verdicts) != 2 {
		t.Fatalf("%d verdicts, want the honest store and %s:\n%s", len(got.Verdicts), mutants.DiesMidRunName, out)
	}
	for _, v := range got.Verdicts {
		switch v.Mutant {
		case mutants.HonestName:
			if v.Error != "" || v.Aborted != "" {
				t.Errorf("honest store: error %q, aborted %q", v.Error, v.Aborted)
			}
		case mutants.DiesMidRunName:
			if v.Killed || len(v.KillingRules) > 0 {
				t.Errorf("%s killed by %v: a dying store process is never a kill", v.Mutant, v.KillingRules)
			}
			if !strings.Contains(v.Aborted, "store process exited") || !strings.Contains(v.Aborted, "in flight: legacy.") {
				t.Errorf("%s: aborted = %q, want the child's exit and the op in flight", v.Mutant, v.Aborted)
			}
			if v.AbortedSpecs == 0 || len(v.FailedRules) > 0 {
				t.Errorf("%s: %d specs aborted, failed rules %v; want some aborted and no rule failed", v.Mutant, v.AbortedSpecs, v.FailedRules)
			}
		}
	}
	if !strings.Contains(out, "ABORTED (not killed): store process exited") {
		t.Errorf("the table does not say aborted:\n%s", out)
	}
}

type verdict struct {
	Mutant       string
	Breaks       []string
	Killed       bool
	Kills        int
	KillingRules []string `json:"killing_rules"`
	FailedRules  []string `json:"failed_rules"`
	Aborted      string
	AbortedSpecs int `json:"aborted_specs"`
	Error        string
}

type verdicts struct {
	Killed, Total int
	Verdicts      []verdict
}

// runMutants runs `storecheck mutants` with flags and returns its exit status, its
// verdicts and its output.
func runMutants(t *testing.T, bin string, flags ...string) (int, verdicts, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "verdicts.json")
	cmd := exec.Command(bin, append([]string{"mutants", "--json", path}, flags...)...)
	out, err := cmd.CombinedOutput()
	t.Logf("storecheck mutants:\n%s", out)
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("storecheck mutants: %v", err)
	}
	data, rerr := os.ReadFile(path)
	if rerr != nil {
		t.Fatalf("no verdicts (exit %d): %v", code, rerr)
	}
	schematest.Check(t, data)
	var got verdicts
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("verdicts: %v", err)
	}
	return code, got, string(out)
}

// rejudgeRuns is how many more runs a natural race or measured mutant that survived
// gets.
const rejudgeRuns = 4

func judgeCatalogue(t *testing.T, want int, flags ...string) []verdict {
	t.Helper()
	bin := buildCLI(t)
	code, got, _ := runMutants(t, bin, flags...)
	if got.Total != want {
		t.Errorf("judged %d mutants, want %d", got.Total, want)
	}
	code = rejudgeNaturalRaces(t, bin, &got, code, flags)
	for _, v := range got.Verdicts {
		if slices.Contains(v.FailedRules, "B-REPRO-1") {
			// The replay compares operations up to the first failing case of either
			// run: a store's own state or races decide where a case fails, the seed
			// decides only the operations before it.
			t.Errorf("%s: B-REPRO-1 failed: a store bug must be reported under the rule its check names, never as B-REPRO-1 (failed rules %v)", v.Mutant, v.FailedRules)
		}
		switch {
		case v.Error != "":
			t.Errorf("%s: the run failed: %s", v.Mutant, v.Error)
		case v.Aborted != "" && v.Mutant == mutants.HonestName:
			t.Errorf("the honest store was aborted: %s", v.Aborted)
		case v.Mutant == mutants.HonestName:
		case !v.Killed:
			t.Errorf("mutant %s survived: it breaks %v, the battery failed only %v (aborted: %q)", v.Mutant, v.Breaks, v.FailedRules, v.Aborted)
		}
	}
	if code != 0 {
		t.Errorf("storecheck mutants exited %d (want 0: every mutant killed, the honest store passing)", code)
	}
	return got.Verdicts
}

// rejudgeNaturalRaces runs each natural race mutant that survived rejudgeRuns more
// times, each with its own seed: a run kills such a mutant only when its racers land in
// the defect's window, which a loaded machine makes rarer. So does a measured one
// (Mutant.Measured), whose defect shows only in a timing that load or a round trip can
// bring under its bound. A kill in any run is a true
// failure of a rule the mutant breaks, so it counts; surviving every run still fails
// the test. How often one run kills each is what `make mutants` measures (--runs 20).
func rejudgeNaturalRaces(t *testing.T, bin string, got *verdicts, code int, flags []string) int {
	t.Helper()
	survived := map[string]bool{}
	var names, breaks []string
	for _, v := range got.Verdicts {
		m, ok := mutants.Lookup(v.Mutant)
		if ok && (m.Build.NaturalRace() || m.Build.Measured()) && !v.Killed && v.Error == "" && v.Aborted == "" {
			survived[v.Mutant] = true
			names = append(names, v.Mutant)
			breaks = append(breaks, m.Breaks...)
		}
	}
	if len(names) == 0 {
		return code
	}
	// Only the specs of the rules they break: the honest store met the whole battery in
	// the first run, and a kill needs one of these.
	focus := `\[(` + strings.Join(breaks, "|") + `)\]`
	args := append(slices.Clone(flags), "--only", strings.Join(names, ","), "--runs", fmt.Sprint(rejudgeRuns), "--seed", "1000", "--focus", focus)
	_, again, _ := runMutants(t, bin, args...)
	left := 0
	for _, a := range again.Verdicts {
		if !survived[a.Mutant] {
			continue
		}
		for i, v := range got.Verdicts {
			if v.Mutant != a.Mutant {
				continue
			}
			t.Logf("mutant %s (a natural race or a measured defect) survived its first run; killed in %d of %d more", a.Mutant, a.Kills, rejudgeRuns)
			if a.Kills > 0 {
				got.Verdicts[i].Killed = true
				got.Verdicts[i].KillingRules = a.KillingRules
				got.Verdicts[i].FailedRules = a.FailedRules
			} else {
				left++
			}
		}
	}
	if left > 0 {
		return code
	}
	// The first run's exit status counted the survivors; it stands for anything else.
	for _, v := range got.Verdicts {
		if v.Error != "" || v.Aborted != "" || (v.Mutant == mutants.HonestName && len(v.FailedRules) > 0) || (v.Mutant != mutants.HonestName && !v.Killed) {
			return code
		}
	}
	return 0
}

// buildCLI builds the storecheck command into a temporary directory.
func buildCLI(t *testing.T) string { return clibuild.Storecheck(t) }

// outcomes runs `storecheck run` and returns the outcome of each rule and era ("S-ID-2
// legacy" -> "FAILED"), with the output and the exit code.
func outcomes(t *testing.T, bin string, args ...string) (map[string]string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"run"}, args...)...)
	out, err := cmd.Output()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("storecheck run %v: %v", args, err)
	}
	got := map[string]string{}
	for _, l := range strings.Split(string(out), "\n") {
		// RULE [OF] LEVEL ERA OUTCOME [NOTE]
		f := strings.Fields(l)
		for i := 1; i+2 < len(f) && i <= 2; i++ {
			if (f[i] == "MUST" || f[i] == "SHOULD") && (f[i+1] == "legacy" || f[i+1] == "modern") {
				got[f[0]+" "+f[i+1]] = f[i+2]
			}
		}
	}
	return got, string(out), code
}

// TestHonestVariantsPass: stores that take a freedom the specification gives (List
// ignoring Owner and Limit for every caller, L-LIST-4; Swap wording not-found its own
// way for missing, expired and foreign tasks alike) pass the battery, SHOULDs included.
func TestHonestVariantsPass(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the battery once per variant; skipped with -short")
	}
	bin := buildCLI(t)
	for _, v := range mutants.Variants() {
		args := []string{"--adapter", "mutant:" + v.Name, "--strict", "--seed", "7"}
		if len(v.Build.Eras) == 1 {
			args = append(args, "--era", string(v.Build.Eras[0]))
		}
		got, out, code := outcomes(t, bin, args...)
		// Exit 1 is allowed for inconclusive race checks (a busy machine), nothing else.
		for rule, o := range got {
			if o != "passed" && o != "inconclusive" && o != "skipped" && o != "not exercised" && o != "not covered" {
				t.Errorf("variant %s (%s): %s is %q\n%s", v.Name, v.Defect, rule, o, out)
			}
		}
		inconclusive := false
		for _, o := range got {
			inconclusive = inconclusive || o == "inconclusive"
		}
		if code != 0 && (code != 1 || !inconclusive) {
			t.Errorf("variant %s (%s): exit %d, want 0 (or 1 for inconclusive rules)\n%s", v.Name, v.Defect, code, out)
		}
		if len(got) == 0 {
			t.Errorf("variant %s: no rule outcomes in the output\n%s", v.Name, out)
		}
	}
}

// TestEmptyIDIsS_ID_2: a store that accepts Create("") fails S-ID-2, and neither
// B-REPRO-1 nor S-CONC-1 (the state machine that trips over the empty id files it under
// S-ID-2 and runs again without invalid ids), for seeds 1..20 (3 of them with -short),
// on a small budget.
func TestEmptyIDIsS_ID_2(t *testing.T) {
	bin := buildCLI(t)
	seeds := 20
	if testing.Short() {
		seeds = 3
	}
	for seed := 1; seed <= seeds; seed++ {
		got, out, _ := outcomes(t, bin, "--adapter", "mutant:accepts-empty-id", "--seed", strconv.Itoa(seed),
			"--rules", "S-ID-2,B-REPRO-1,S-CONC-1", "--histories", "1", "--checks", "20")
		for _, era := range []string{"legacy", "modern"} {
			for rule, want := range map[string]string{"S-ID-2": "FAILED", "B-REPRO-1": "passed", "S-CONC-1": "passed"} {
				// S-CONC-1's concurrent specs may be inconclusive on a busy machine (too
				// little overlap): what matters here is that it is not failed.
				if g := got[rule+" "+era]; g != want && (rule != "S-CONC-1" || g != "inconclusive") {
					t.Errorf("seed %d: %s %s is %q, want %q\n%s", seed, rule, era, g, want, out)
				}
			}
		}
	}
}

// TestOwnerScopeMutantsKilledByScopeRules: the two List-scope mutants are
// killed by L-LIST-3 and S-OWN-1 themselves (not only by some other declared rule), and
// the store whose Swap words not-found its own way passes M-SWAP-2 under --strict.
func TestOwnerScopeMutantsKilledByScopeRules(t *testing.T) {
	bin := buildCLI(t)
	for _, name := range []string{"owner-first-12-bytes", "principals-ignore-scope"} {
		got, out, code := outcomes(t, bin, "--adapter", "mutant:"+name, "--era", "legacy", "--rules", "L-LIST-3,S-OWN-1", "--seed", "7")
		for _, rule := range []string{"L-LIST-3", "S-OWN-1"} {
			if g := got[rule+" legacy"]; g != "FAILED" {
				t.Errorf("%s: %s is %q, want FAILED\n%s", name, rule, g, out)
			}
		}
		if code != 1 {
			t.Errorf("%s: exit %d, want 1", name, code)
		}
	}
	got, out, code := outcomes(t, bin, "--adapter", "mutant:swap-own-not-found", "--era", "modern", "--strict", "--rules", "M-SWAP-2,S-OWN-2,M-GET-1", "--seed", "7")
	for _, rule := range []string{"M-SWAP-2", "S-OWN-2", "M-GET-1"} {
		if g := got[rule+" modern"]; g != "passed" {
			t.Errorf("swap-own-not-found: %s is %q, want passed under --strict\n%s", rule, g, out)
		}
	}
	if code != 0 {
		t.Errorf("swap-own-not-found: exit %d under --strict, want 0\n%s", code, out)
	}
}

// TestRefusedUpdateIsOneCause: a store that refuses legacy Update with ErrUnsupported
// (refuses-update) makes the rules that need Update for their setup read "setup
// refused", the summary gives that one cause one line, and the run exits 1.
func TestRefusedUpdateIsOneCause(t *testing.T) {
	bin := buildCLI(t)
	got, out, code := outcomes(t, bin, "--adapter", "mutant:"+mutants.RefusesUpdateName, "--era", "legacy", "--seed", "7")
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	refused := 0
	for _, o := range got {
		if o == "setup" { // "setup refused" is two words
			refused++
		}
	}
	if refused == 0 {
		t.Errorf("no rule reads setup refused:\n%s", out)
	}
	_, causes, ok := strings.Cut(out, "\nSetup refused (")
	if !ok {
		t.Fatalf("no setup-refused section:\n%s", out)
	}
	causes, _, _ = strings.Cut(causes, "\n\n")
	var lines []string
	for _, l := range strings.Split(causes, "\n")[1:] {
		if strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "    ") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 || !strings.Contains(lines[0], "the store refused Update with ErrUnsupported") {
		t.Errorf("cause lines %q, want one: the store refused Update with ErrUnsupported\n%s", lines, out)
	}
}

// TestPanickingStoreIsReported: a store that panics inside a spec's client goroutine
// (panics-in-race: legacy Update panics when another Update is in flight) fails that
// spec with the panic, and the run still prints its summary, writes JSON and JUnit, and
// exits 1.
func TestPanickingStoreIsReported(t *testing.T) {
	bin := buildCLI(t)
	dir := t.TempDir()
	js, junit := filepath.Join(dir, "report.json"), filepath.Join(dir, "report.xml")
	got, out, code := outcomes(t, bin, "--adapter", "mutant:"+mutants.PanicsInRaceName, "--era", "legacy", "--rules", "L-CONC-1",
		"--seed", "7", "--json", js, "--junit", junit)
	if code != 1 {
		t.Errorf("exit %d, want 1\n%s", code, out)
	}
	if got["L-CONC-1 legacy"] != "FAILED" || !strings.Contains(out, "\nFAIL: store rules") {
		t.Errorf("summary: L-CONC-1 %q, want FAILED, and a closing line\n%s", got["L-CONC-1 legacy"], out)
	}
	if !strings.Contains(out, "panic: client") || !strings.Contains(out, "mutant panics-in-race: Update of") {
		t.Errorf("the summary does not quote the panic:\n%s", out)
	}
	r := readReport(t, js)
	panicked := false
	for _, s := range r.Specs {
		if s.Outcome == conformance.Failed && strings.Contains(s.Message, "panics-in-race") {
			panicked = true
		}
	}
	if !panicked {
		t.Errorf("no spec of the JSON report failed with the panic: %+v", r.Specs)
	}
	x, err := os.ReadFile(junit)
	if err != nil || !strings.Contains(string(x), "panics-in-race") || !strings.Contains(string(x), "<failure") {
		t.Errorf("JUnit report (err %v) lacks the failed spec with the panic:\n%s", err, x)
	}
}

// TestRerunHintIsAccepted: the command a randomised failure prints to replay it is one
// the CLI accepts, and it reproduces the failure. The seed fixes the operations, not how
// the goroutines interleave, so a race found once may need a few replays on a loaded
// machine: every replay must run the rule, and one of five must fail it.
func TestRerunHintIsAccepted(t *testing.T) {
	bin := buildCLI(t)
	_, out, code := outcomes(t, bin, "--adapter", "mutant:lost-update", "--seed", "3", "--rules", "S-CONC-1", "--era", "legacy")
	if code != 1 {
		t.Fatalf("lost-update: exit %d, want 1\n%s", code, out)
	}
	_, hint, ok := strings.Cut(out, "rerun with `storecheck run ")
	if !ok {
		t.Fatalf("no rerun hint in the failure:\n%s", out)
	}
	hint, _, _ = strings.Cut(hint, "`")
	args := append(strings.Fields(hint), "--adapter", "mutant:lost-update")
	var replays []string
	for range 5 {
		got, again, code := outcomes(t, bin, args...)
		switch o := got["S-CONC-1 legacy"]; {
		case code == 1 && o == "FAILED":
			return
		case code == 0 && o == "passed":
			replays = append(replays, fmt.Sprintf("exit %d, S-CONC-1 legacy %q", code, o))
		default:
			t.Fatalf("the hint `storecheck run %s` (with --adapter) was not run as a replay: exit %d, S-CONC-1 legacy %q\n%s", hint, code, o, again)
		}
	}
	t.Fatalf("the hint `storecheck run %s` (with --adapter) did not reproduce the failure in 5 replays: %v; want exit 1 and FAILED", hint, replays)
}

// TestMachineFaultFailsItsRule: a store whose Get caches misses (get-caches-misses)
// passes M-CREATE-1's own specs, and the modern state machine of S-CONC-1 stops on it
// at once. The fault the machine found must fail M-CREATE-1, with the minimal sequence
// and the seed, in every run, never leave it passed with S-CONC-1 inconclusive.
func TestMachineFaultFailsItsRule(t *testing.T) {
	if testing.Short() {
		t.Skip("runs part of the battery five times; skipped with -short")
	}
	bin := buildCLI(t)
	for seed := 1; seed <= 5; seed++ {
		args := []string{"--adapter", "mutant:get-caches-misses", "--era", "modern", "--rules", "M-CREATE-1,S-CONC-1", "--seed", fmt.Sprint(seed)}
		got, out, code := outcomes(t, bin, args...)
		if got["M-CREATE-1 modern"] != "FAILED" || code != 1 {
			t.Errorf("seed %d: M-CREATE-1 is %q (exit %d), want FAILED: the fault the state machine found is lost\n%s", seed, got["M-CREATE-1 modern"], code, out)
			continue
		}
		for _, want := range []string{"found by a spec of S-CONC-1", "minimal failing sequence", fmt.Sprintf("seed %d", seed)} {
			if !strings.Contains(out, want) {
				t.Errorf("seed %d: the report lacks %q:\n%s", seed, want, out)
			}
		}
	}
}

// TestRejudgeCountsALaterKillOfANaturalRace: a natural race mutant recorded as
// surviving is run again and counted killed once a run kills it; a survivor that is
// not a natural race is left as it was, and the exit status with it.
func TestRejudgeCountsALaterKillOfANaturalRace(t *testing.T) {
	if testing.Short() {
		t.Skip("runs part of the battery; skipped with -short")
	}
	bin := buildCLI(t)
	got := verdicts{Killed: 0, Total: 1, Verdicts: []verdict{
		{Mutant: mutants.HonestName},
		{Mutant: "check-then-act", Breaks: []string{"L-F-FIN-2"}},
	}}
	if code := rejudgeNaturalRaces(t, bin, &got, 1, []string{"--declared"}); code != 0 || !got.Verdicts[1].Killed {
		t.Errorf("check-then-act rejudged: exit %d, killed %v; want 0, true", code, got.Verdicts[1].Killed)
	}
	if !slices.Contains(got.Verdicts[1].KillingRules, "L-F-FIN-2") {
		t.Errorf("check-then-act rejudged: killing rules %v, want L-F-FIN-2 among them", got.Verdicts[1].KillingRules)
	}

	other := verdicts{Total: 1, Verdicts: []verdict{
		{Mutant: mutants.HonestName},
		{Mutant: "cleanup-ge", Breaks: []string{"L-CLEAN-1"}},
	}}
	if code := rejudgeNaturalRaces(t, bin, &other, 1, []string{"--declared"}); code != 1 || other.Verdicts[1].Killed {
		t.Errorf("cleanup-ge (not a natural race) rejudged: exit %d, killed %v; want 1, false", code, other.Verdicts[1].Killed)
	}
}

// readReport reads the JSON report at path; a report that cannot be read ends the test.
func readReport(t *testing.T, path string) conformance.Report {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	schematest.Check(t, data)
	var r conformance.Report
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return r
}
