package mutants_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/conformance/mutants"
)

// TestHonestStore: the store every mutant is a variant of passes the battery, SHOULD
// rules included (B-POWER-1: every honest store passes).
func TestHonestStore(t *testing.T) {
	conformance.Run(t, mutants.Honest(), conformance.Options{Strict: true})
}

// TestCatalogueCoversEveryStoreRule: every MUST rule of the store contracts is broken by
// at least one mutant, and every declared rule exists. S-TRANS-1 and S-ID-1 are
// properties of the reference library (ValidTransition, GenerateID), not of a store, and
// the facade rules (L-F-*, M-F-*) of the reference facades; a store cannot break those
// except through the store rules below them.
func TestCatalogueCoversEveryStoreRule(t *testing.T) {
	broken := map[string]bool{}
	names := map[string]bool{}
	for _, m := range mutants.Catalogue() {
		if names[m.Name] {
			t.Errorf("mutant %s listed twice", m.Name)
		}
		names[m.Name] = true
		if len(m.Breaks) == 0 || m.Defect == "" || len(m.Eras) == 0 {
			t.Errorf("mutant %s: declares no rule, defect or era", m.Name)
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
	for _, r := range conformance.Rules() {
		// Fault rules (F-*) need a backend to take away: their mutants are in
		// conformance/faults, killed there.
		storeRule := r.Level == conformance.Must && r.Era != "battery" && r.Era != "faults" &&
			!strings.HasPrefix(r.ID, "L-F-") && !strings.HasPrefix(r.ID, "M-F-") &&
			r.ID != "S-TRANS-1" && r.ID != "S-ID-1"
		if storeRule && !broken[r.ID] {
			t.Errorf("no mutant breaks %s (%s)", r.ID, r.Text)
		}
	}
}

// TestCatalogueIsKilled runs `storecheck mutants`: every mutant must be killed by a spec
// of a rule it declares, and the honest store must pass (B-POWER-1). Each mutant runs in
// its own storecheck process (Ginkgo runs once per process).
func TestCatalogueIsKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the battery once per mutant; skipped with -short")
	}
	judgeCatalogue(t, len(mutants.Catalogue()))
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
		if m.InProcessOnly() == "" {
			n++
		}
	}
	judgeCatalogue(t, n, "--wire")
}

func judgeCatalogue(t *testing.T, want int, flags ...string) {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "storecheck")
	build := exec.Command("go", "build", "-o", bin, "github.com/storecheck/storecheck/cmd/storecheck")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	verdicts := filepath.Join(dir, "verdicts.json")
	cmd := exec.Command(bin, append([]string{"mutants", "--json", verdicts}, flags...)...)
	out, err := cmd.CombinedOutput()
	t.Logf("storecheck mutants:\n%s", out)
	data, rerr := os.ReadFile(verdicts)
	if rerr != nil {
		t.Fatalf("no verdicts (%v): %v", err, rerr)
	}
	var got struct {
		Killed, Total int
		Verdicts      []struct {
			Mutant      string
			Breaks      []string
			Killed      bool
			FailedRules []string `json:"failed_rules"`
			Error       string
		}
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("verdicts: %v", err)
	}
	if got.Total != want {
		t.Errorf("judged %d mutants, want %d", got.Total, want)
	}
	for _, v := range got.Verdicts {
		switch {
		case v.Error != "":
			t.Errorf("%s: the run failed: %s", v.Mutant, v.Error)
		case v.Mutant == mutants.HonestName:
		case !v.Killed:
			t.Errorf("mutant %s survived: it breaks %v, the battery failed only %v", v.Mutant, v.Breaks, v.FailedRules)
		}
	}
	if err != nil {
		t.Errorf("storecheck mutants exited with %v (want 0: every mutant killed, the honest store passing)", err)
	}
}

// buildCLI builds the storecheck command into a temporary directory.
func buildCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "storecheck")
	build := exec.Command("go", "build", "-o", bin, "github.com/storecheck/storecheck/cmd/storecheck")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

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
		if len(v.Eras) == 1 {
			args = append(args, "--era", string(v.Eras[0]))
		}
		got, out, code := outcomes(t, bin, args...)
		if code != 0 {
			t.Errorf("variant %s (%s): exit %d, want 0\n%s", v.Name, v.Defect, code, out)
		}
		if len(got) == 0 {
			t.Errorf("variant %s: no rule outcomes in the output\n%s", v.Name, out)
		}
	}
}

// TestEmptyIDIsS_ID_2: a store that accepts Create("") fails S-ID-2, and neither
// B-REPRO-1 nor S-CONC-1 (the state machine that trips over the empty id files it under
// S-ID-2 and runs again without invalid ids). The acceptance runs seeds 1..20; the test
// runs three of them.
func TestEmptyIDIsS_ID_2(t *testing.T) {
	bin := buildCLI(t)
	for _, seed := range []string{"2", "7", "13"} {
		got, out, _ := outcomes(t, bin, "--adapter", "mutant:accepts-empty-id", "--seed", seed, "--rules", "S-ID-2,B-REPRO-1,S-CONC-1")
		for _, era := range []string{"legacy", "modern"} {
			for rule, want := range map[string]string{"S-ID-2": "FAILED", "B-REPRO-1": "passed", "S-CONC-1": "passed"} {
				if got[rule+" "+era] != want {
					t.Errorf("seed %s: %s %s is %q, want %q\n%s", seed, rule, era, got[rule+" "+era], want, out)
				}
			}
		}
	}
}

// TestRerunHintIsAccepted: the command a randomised failure prints to replay it is one
// the CLI accepts, and it reproduces the failure.
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
	got, again, code := outcomes(t, bin, args...)
	if code != 1 || got["S-CONC-1 legacy"] != "FAILED" {
		t.Fatalf("the hint `storecheck run %s` (with --adapter): exit %d, S-CONC-1 legacy %q; want exit 1 and FAILED\n%s", hint, code, got["S-CONC-1 legacy"], again)
	}
}
