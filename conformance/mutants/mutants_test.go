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
