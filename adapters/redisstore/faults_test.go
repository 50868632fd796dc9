package redisstore_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/storecheck/storecheck/adapters/internal/containers"
	"github.com/storecheck/storecheck/adapters/internal/storetest"
	"github.com/storecheck/storecheck/adapters/redisstore"
	"github.com/storecheck/storecheck/adapters/redisstore/rediscontainer"
	"github.com/storecheck/storecheck/conformance/faults"
	"github.com/storecheck/storecheck/conformance/harness"
)

// faultHarness starts a Redis container of its own with persistence p.
func faultHarness(t *testing.T, p rediscontainer.Persistence) *redisstore.FaultHarness {
	t.Helper()
	srv, err := rediscontainer.StartFaultable(t.Context(), p)
	if err != nil {
		containers.SkipOrFail(t, "redis (faults)", err)
		return nil
	}
	containers.StopAtCleanup(t, srv.Stop)
	h := redisstore.NewHarness("redis ("+string(p)+")", redisstore.Clients(srv.Options), 4)
	t.Cleanup(h.Close)
	return redisstore.NewFaultHarness(h, srv.Faults, harness.Durability{
		MayLoseOnCrash: p.LosesOnCrash(), Setting: p.Setting(),
	})
}

// TestFaultsAOFAlways: with appendfsync always, Redis survives pause, kill and restart
// with every acknowledged write.
func TestFaultsAOFAlways(t *testing.T) {
	if testing.Short() {
		t.Skip("takes the backend away for seconds; skipped with -short")
	}
	h := faultHarness(t, rediscontainer.AOFAlways)
	storetest.NothingLost(t, faults.Check(t, h, faults.Config{}))
}

// TestFaultsDefaultPersistence measures what a user of a default Redis gets: no AOF,
// RDB snapshots at the soonest after 60 s with 10 000 changes, so a SIGKILL after a few
// seconds of writes loses every one of them (which also proves the kill kills: a
// graceful stop would save a snapshot). The losses are reported as declared with their
// number, never as passed, and printed for CI's log (faults.EnvSummary).
func TestFaultsDefaultPersistence(t *testing.T) {
	if testing.Short() {
		t.Skip("takes the backend away for seconds; skipped with -short")
	}
	h := faultHarness(t, rediscontainer.Default)
	r := faults.Check(t, h, faults.Config{Faults: []string{faults.Kill}})
	f := r.Faults[0]
	fmt.Printf("redis default persistence: %d acknowledged writes lost of %d on kill\n", f.AckedLost, f.AckedChecked)
	if f.AckedChecked == 0 || f.AckedLost == 0 {
		t.Fatalf("%d of %d acknowledged writes lost: want some of some (no AOF, no snapshot within seconds: a SIGKILL must lose what was written)", f.AckedLost, f.AckedChecked)
	}
	if v := f.Verdict(faults.RuleDurable); v.Outcome != faults.Declared {
		t.Errorf("%d writes lost under declared lossy durability: %s %s, want declared", f.AckedLost, v.ID, v.Outcome)
	}
	if v := f.Verdict(faults.RuleDeclare); v.Outcome != faults.Passed {
		t.Errorf("%s %s, want passed: %v", v.ID, v.Outcome, v.Reasons)
	}
	for _, id := range []string{faults.RuleOutage, faults.RuleRecover, faults.RuleAtomic} {
		if v := f.Verdict(id); v.Outcome == faults.Failed {
			t.Errorf("%s FAILED: %v", id, v.Reasons)
		}
	}
}

// TestFaultMutantsAreKilled runs every fault mutant (a defect wrapped around the real
// Redis store) through the fault that reveals it: the rule it breaks must fail.
func TestFaultMutantsAreKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("takes the backend away for seconds; skipped with -short")
	}
	h := faultHarness(t, rediscontainer.AOFAlways)
	for _, m := range faults.Mutants() {
		t.Run(m.Name, func(t *testing.T) {
			// A defect that shows only when one of the store's writes fails at the
			// right moment of the outage (retry-after-error) may hide in one run: each
			// mutant gets up to three runs, and must be killed in one of them.
			const runs = 3
			var last faults.RuleVerdict
			for run := 1; run <= runs; run++ {
				mh, err := faults.Mutate(h, m.Name)
				if err != nil {
					t.Fatal(err)
				}
				r, err := faults.Run(t.Context(), mh, faults.Config{Faults: []string{m.Build.Fault}, RecoveryTimeout: 10 * time.Second, Log: t.Logf})
				if err != nil {
					t.Fatal(err)
				}
				var b strings.Builder
				_ = r.Summary(&b)
				t.Logf("run %d of at most %d:\n%s", run, runs, b.String())
				// Honest attribution where it does not hang on the machine's timing:
				// the rules judged on the data (durability, atomicity, the declaration)
				// fail only if the mutant breaks them. F-OUTAGE-1 and F-RECOVER-1 are
				// checked exactly on the in-process gate (TestMutantsKilledOnGate).
				for _, id := range []string{faults.RuleDurable, faults.RuleAtomic, faults.RuleDeclare} {
					if v := r.Faults[0].Verdict(id); v.Outcome == faults.Failed && !slices.Contains(m.Breaks, id) {
						t.Errorf("mutant %s failed %s, a rule it does not break: %v", m.Name, id, v.Reasons)
					}
				}
				if last = r.Faults[0].Verdict(m.Breaks[0]); last.Outcome == faults.Failed {
					return
				}
			}
			t.Errorf("mutant %s (%s) survived %d runs: %s %s after a %s, want FAILED", m.Name, m.Defect, runs, m.Breaks[0], last.Outcome, m.Build.Fault)
		})
	}
}
