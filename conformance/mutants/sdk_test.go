package mutants_test

import (
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/conformance/mutants"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/sdk"
)

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
	var ms []mutants.Mutant
	for _, m := range mutants.Catalogue() {
		if slices.Equal(m.Eras, []harness.Era{harness.EraSDK}) {
			ms = append(ms, m)
		}
	}
	if len(ms) < 20 {
		t.Fatalf("%d SDK-profile mutants in the catalogue, want at least 20 (one per MUST rule of the profile)", len(ms))
	}
	honest, _ := mutants.Lookup(mutants.HonestName)
	ms = append([]mutants.Mutant{honest}, ms...)
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

func checkSDKMutant(t *testing.T, bin, dir string, m mutants.Mutant, wire bool, sem chan struct{}) {
	sem <- struct{}{}
	defer func() { <-sem }()
	how := "in process"
	report := filepath.Join(dir, m.Name+".json")
	args := []string{"run", "--adapter", "mutant:" + m.Name, "--era", "sdk", "--strict", "--json", report}
	if wire {
		how = "over the wire"
		report = filepath.Join(dir, m.Name+"-wire.json")
		args = []string{"run", "--adapter", "exec", "--exec", strconv.Quote(bin) + " serve --facade --adapter mutant:" + m.Name,
			"--era", "sdk", "--strict", "--json", report}
	}
	out, err := runCLI(bin, args...)
	rules, rerr, derr := readRules(report)
	if rerr != nil {
		t.Errorf("%s %s: no report (%v): %s", m.Name, how, err, out)
		return
	}
	if derr != nil {
		t.Errorf("%s: %v", m.Name, derr)
		return
	}
	var failed []string
	for _, rule := range rules {
		if rule.Outcome == "failed" {
			failed = append(failed, rule.ID)
		}
	}
	sort.Strings(failed)
	want := slices.Clone(m.Breaks)
	sort.Strings(want)
	if !slices.Equal(failed, want) {
		t.Errorf("%s %s (%s): failed %v, want exactly %v\n%s", m.Name, how, m.Defect, failed, want, lastLinesOf(out, 30))
	}
	if m.Name == mutants.HonestName && (err != nil || len(rules) < 20) {
		t.Errorf("honest store %s: exit %v with %d rules judged, want a pass of every SDK-profile rule", how, err, len(rules))
	}
}

// TestSDKStoreOfMutant: Mutant.SDKStore (what a server of the mutants over the wire
// uses) carries the mutant's defect, and the honest one's store behaves.
func TestSDKStoreOfMutant(t *testing.T) {
	ctx := t.Context()
	m, ok := mutants.Lookup("sdk-sessionless-sees-all")
	if !ok {
		t.Fatal("no mutant sdk-sessionless-sees-all")
	}
	honest, _ := mutants.Lookup(mutants.HonestName)
	for _, c := range []struct {
		m    mutants.Mutant
		want error
	}{{honest, reference.ErrNotFound}, {m, nil}} {
		st := c.m.SDKStore(reference.SystemClock{})
		task, err := st.CreateTask(ctx, "alice", sdk.CreateParams{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = st.GetTask(ctx, sdk.NoSession, task.TaskID)
		if (c.want == nil) != (err == nil) || (c.want != nil && !strings.Contains(err.Error(), "not found")) {
			t.Errorf("%s: GetTask(no session) of alice's task: err %v, want %v", c.m.Name, err, c.want)
		}
	}
}

func runCLI(bin string, args ...string) (string, error) {
	out, err := exec.Command(bin, args...).CombinedOutput()
	return string(out), err
}

func lastLinesOf(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}
