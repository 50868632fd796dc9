package conformance

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/storecheck/storecheck/adapters/memharness"
	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/conformance/property"
	"github.com/storecheck/storecheck/conformance/rules"
	"github.com/storecheck/storecheck/reference"
)

// These tests drive the property checks outside Ginkgo (RunSpecs runs once per process
// and conformance_test.go owns it): an Env is built by hand on a fresh namespace.

func newPropEnv(t testing.TB, h harness.Harness, rule string, opts battery.Options) *battery.Env {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	caps := h.Capabilities()
	var clock *reference.ManualClock
	var open reference.Clock = reference.SystemClock{}
	if caps.Clock {
		clock = reference.NewManualClock(battery.Epoch)
		open = clock
	}
	ns, err := h.Open(ctx, open)
	if err != nil {
		t.Fatalf("open %s: %v", h.Name(), err)
	}
	t.Cleanup(func() { _ = ns.Close(context.Background()) })
	r, ok := rules.ByID(rule)
	if !ok {
		t.Fatalf("unknown rule %s", rule)
	}
	return &battery.Env{Ctx: ctx, Rule: r, Caps: caps, Opts: opts.WithDefaults(), Harness: h, Namespace: ns, Manual: clock, Tag: fmt.Sprintf("t%d", time.Now().UnixNano()%1e6)}
}

// runProp runs a spec body and returns its faults.
func runProp(e *battery.Env, body func(*battery.Env)) (faults []string) {
	defer func() {
		if r := recover(); r != nil {
			if err, ok := r.(error); ok && errors.Is(err, battery.ErrFatal) {
				faults = e.Faults()
				return
			}
			panic(r)
		}
	}()
	body(e)
	return e.Faults()
}

func TestLegacyMachineMemstore(t *testing.T) {
	checkMachineMemstore(t, "legacy", property.RunLegacyMachine)
}

func TestModernMachineMemstore(t *testing.T) {
	checkMachineMemstore(t, "modern", property.RunModernMachine)
}

// checkMachineMemstore runs an era's state machine (RunLegacyMachine, RunModernMachine)
// on memstore and fails t with every fault it finds.
func checkMachineMemstore(t *testing.T, era string, run func(e *battery.Env, checks int, trace func(string)) property.RapidRun) {
	e := newPropEnv(t, memharness.Harness(), "S-CONC-1", battery.Options{Seed: 1})
	start := time.Now()
	faults := runProp(e, func(e *battery.Env) {
		property.ReportRapid(e, "memstore "+era, run(e, e.Opts.Budget.Checks, nil))
	})
	t.Logf("%s machine, %d checks: %v", era, e.Opts.Budget.Checks, time.Since(start))
	for _, f := range faults {
		t.Error(f)
	}
}

func TestLinearizabilityMemstore(t *testing.T) {
	t.Setenv(battery.ArtifactsEnv, t.TempDir())
	for _, c := range []struct {
		name string
		run  func(e *battery.Env)
	}{
		{"legacy-per-task", func(e *battery.Env) {
			property.CheckHistories(e, "legacy-per-task", func(i int, seed uint64) property.History { return property.LegacyTaskHistory(e, i, seed) })
		}},
		{"legacy-cross-task", func(e *battery.Env) {
			property.CheckHistories(e, "legacy-cross-task", func(i int, seed uint64) property.History { return property.LegacyCrossHistory(e, i, seed) })
		}},
		{"modern-per-task", func(e *battery.Env) {
			property.CheckHistories(e, "modern-per-task", func(i int, seed uint64) property.History { return property.ModernTaskHistory(e, i, seed) })
		}},
	} {
		start := time.Now()
		for seed := int64(1); seed <= 10; seed++ {
			e := newPropEnv(t, memharness.Harness(), "S-CONC-1", battery.Options{Seed: seed})
			for _, f := range runProp(e, c.run) {
				t.Errorf("%s: %s", c.name, f)
			}
		}
		t.Logf("%s: 10 seeds × 8 histories in %v", c.name, time.Since(start))
	}
}

func TestRacesMemstore(t *testing.T) {
	for _, c := range []struct {
		name string
		run  func(e *battery.Env)
	}{
		{"modern races", property.ModernRaces},
		{"cas increments", property.CasIncrements},
		{"legacy races", property.LegacyRaces},
	} {
		e := newPropEnv(t, memharness.Harness(), "S-CONC-1", battery.Options{Seed: 5})
		start := time.Now()
		faults := runProp(e, c.run)
		t.Logf("%s: %v", c.name, time.Since(start))
		for _, f := range faults {
			t.Errorf("%s: %s", c.name, f)
		}
	}
}

func TestReplayMemstore(t *testing.T) {
	e := newPropEnv(t, memharness.Harness(), "B-REPRO-1", battery.Options{Seed: 11})
	var a, b []string
	runProp(e, func(e *battery.Env) {
		property.RunLegacyMachine(e, 3, func(s string) { a = append(a, property.Operation(s)) })
		property.RunLegacyMachine(e, 3, func(s string) { b = append(b, property.Operation(s)) })
	})
	if len(a) < 10 || fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatalf("legacy machine did not replay: %d vs %d operations", len(a), len(b))
	}
	// A different seed must give a different sequence, or the check proves nothing.
	e2 := newPropEnv(t, memharness.Harness(), "B-REPRO-1", battery.Options{Seed: 12})
	var c []string
	runProp(e2, func(e *battery.Env) {
		property.RunLegacyMachine(e, 3, func(s string) { c = append(c, property.Operation(s)) })
	})
	if fmt.Sprint(a) == fmt.Sprint(c) {
		t.Fatal("seeds 11 and 12 gave the same operations")
	}
	for _, body := range []func(*battery.Env){
		func(e *battery.Env) {
			property.CheckReplay(e, "modern", func(trace func(string)) property.RapidRun { return property.RunModernMachine(e, 3, trace) })
		},
		func(e *battery.Env) {
			property.CheckScripts(e, "legacy per-task history", func(i int, seed uint64) property.History { return property.LegacyTaskHistory(e, i, seed) })
		},
		func(e *battery.Env) {
			property.CheckScripts(e, "modern per-task history", func(i int, seed uint64) property.History { return property.ModernTaskHistory(e, i, seed) })
		},
	} {
		if faults := runProp(newPropEnv(t, memharness.Harness(), "B-REPRO-1", battery.Options{Seed: 11}), body); len(faults) > 0 {
			t.Error(faults)
		}
	}
}

// propertyChecks are the bodies of this area's specs per era, as the battery runs them.
func propertyChecks(era Era) map[string]func(*battery.Env) {
	if era == EraLegacy {
		return map[string]func(*battery.Env){
			"S-CONC-1 machine": func(e *battery.Env) {
				property.ReportRapid(e, "legacy", property.RunLegacyMachine(e, e.Opts.Budget.Checks, nil))
			},
			"L-CONC-1 history": func(e *battery.Env) {
				property.CheckHistories(e, "legacy-per-task", func(i int, seed uint64) property.History { return property.LegacyTaskHistory(e, i, seed) })
			},
			"S-CONC-1 lists": func(e *battery.Env) {
				property.CheckHistories(e, "legacy-cross-task", func(i int, seed uint64) property.History { return property.LegacyCrossHistory(e, i, seed) })
			},
			"L-F-FIN-2 races": property.LegacyRaces,
		}
	}
	return map[string]func(*battery.Env){
		"S-CONC-1 machine": func(e *battery.Env) {
			property.ReportRapid(e, "modern", property.RunModernMachine(e, e.Opts.Budget.Checks, nil))
		},
		"M-SWAP-4 history": func(e *battery.Env) {
			property.CheckHistories(e, "modern-per-task", func(i int, seed uint64) property.History { return property.ModernTaskHistory(e, i, seed) })
		},
		"M-F-FIN-2 races":  property.ModernRaces,
		"M-SWAP-4 counter": property.CasIncrements,
	}
}

// killedBy runs every property check of era against h with seed and returns the names
// of the checks that found a fault.
func killedBy(t *testing.T, h harness.Harness, era Era, seed int64) []string {
	var by []string
	for name, body := range propertyChecks(era) {
		e := newPropEnv(t, h, "S-CONC-1", battery.Options{Seed: seed})
		if len(runProp(e, body)) > 0 {
			by = append(by, name)
		}
	}
	return by
}

func TestPropertyChecksPassMemstore(t *testing.T) {
	for _, era := range []Era{EraLegacy, EraModern} {
		start := time.Now()
		for name, body := range propertyChecks(era) {
			e := newPropEnv(t, memharness.Harness(), "S-CONC-1", battery.Options{Seed: 99})
			for _, f := range runProp(e, body) {
				t.Errorf("%s %s: %s", era, name, f)
			}
		}
		t.Logf("%s era, default budget: %v", era, time.Since(start))
	}
}

var racyEras = map[racyKind]Era{racyLostUpdate: EraLegacy, racyCheckThenAct: EraLegacy, racyCASNoCompare: EraModern}

// TestRacyStoresKilled: each racy store fails this area's checks (three seeds here;
// STORECHECK_KILLRATE=N measures the rate over N seeds and wants at least 95%).
func TestRacyStoresKilled(t *testing.T) {
	t.Setenv(battery.ArtifactsEnv, t.TempDir())
	// Only the verdict counts here, not how small the failing sequence gets.
	old := property.RapidShrinkTime
	property.RapidShrinkTime = time.Second
	defer func() { property.RapidShrinkTime = old }()
	runs := 3
	if n, err := strconv.Atoi(os.Getenv("STORECHECK_KILLRATE")); err == nil && n > 0 {
		runs = n
	}
	for kind, era := range racyEras {
		kills := 0
		hits := map[string]int{}
		for seed := int64(1); seed <= int64(runs); seed++ {
			by := killedBy(t, racyHarness{kind}, era, seed*7919)
			if len(by) > 0 {
				kills++
			}
			for _, b := range by {
				hits[b]++
			}
		}
		t.Logf("%s: killed in %d of %d runs (seeds 7919×1..%d); by check: %v", racyNames[kind], kills, runs, runs, hits)
		if kills*100 < runs*95 {
			t.Errorf("%s: killed in only %d of %d runs", racyNames[kind], kills, runs)
		}
	}
}

// TestFailureReplaysWithSeed: a failure found with a seed is found again, with the same
// minimal sequence, by a rerun with that seed (B-REPRO-1).
func TestFailureReplaysWithSeed(t *testing.T) {
	// The minimal sequence is the same only when shrinking ends by itself: rapid stops it
	// at RapidShrinkTime, which a loaded machine under -race can reach first.
	old := property.RapidShrinkTime
	property.RapidShrinkTime = 5 * time.Minute
	defer func() { property.RapidShrinkTime = old }()
	run := func() []string {
		e := newPropEnv(t, racyHarness{racyCASNoCompare}, "S-CONC-1", battery.Options{Seed: 424242})
		return runProp(e, func(e *battery.Env) {
			property.ReportRapid(e, "modern", property.RunModernMachine(e, e.Opts.Budget.Checks, nil))
		})
	}
	a, b := run(), run()
	if len(a) == 0 {
		t.Fatal("the machine did not catch a Swap that ignores versions")
	}
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatalf("a rerun with the same seed reported differently:\n%s\n---\n%s", a, b)
	}
	if !strings.Contains(a[0], "seed 424242") || !strings.Contains(a[0], "minimal failing sequence") {
		t.Fatalf("the failure must print the seed and the sequence:\n%s", a[0])
	}
	t.Logf("reported:\n%s", a[0])
}

func TestPropertyChecksPassWithoutClockControl(t *testing.T) {
	for _, era := range []Era{EraLegacy, EraModern} {
		for name, body := range propertyChecks(era) {
			for seed := int64(1); seed <= 3; seed++ {
				e := newPropEnv(t, realClockHarness{}, "S-CONC-1", battery.Options{Seed: seed})
				for _, f := range runProp(e, body) {
					t.Errorf("%s %s: %s", era, name, f)
				}
			}
		}
	}
	e := newPropEnv(t, realClockHarness{}, "B-REPRO-1", battery.Options{Seed: 3})
	for _, f := range runProp(e, func(e *battery.Env) {
		property.CheckReplay(e, "modern", func(trace func(string)) property.RapidRun { return property.RunModernMachine(e, 5, trace) })
		property.CheckReplay(e, "legacy", func(trace func(string)) property.RapidRun { return property.RunLegacyMachine(e, 5, trace) })
	}) {
		t.Error(f)
	}
}
