package property

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/storecheck/storecheck/conformance/battery"
	"pgregory.net/rapid"
)

// specEnv is an Env whose spec has timeout total and ends after left.
func specEnv(total, left time.Duration) *battery.Env {
	return &battery.Env{Ctx: context.Background(), Opts: battery.Options{SpecTimeout: total, Budget: battery.Budget{MachineTime: time.Hour}}, Deadline: time.Now().Add(left)}
}

// TestRapidStopsWhenTheSpecTimeIsShort: a machine run under a spec whose time grows
// short stops starting cases and is judged on the ones that ran (not failed by rapid's
// count of skipped cases); without a spec it runs every case.
func TestRapidStopsWhenTheSpecTimeIsShort(t *testing.T) {
	const checks = 200
	// Short after about 100 ms: a quarter of 4 s is left at 1.1 s - 100 ms.
	e := specEnv(4*time.Second, time.Second+100*time.Millisecond)
	cases := 0
	r := runRapid("stop-test", 1, checks, e, func(t *rapid.T) {
		cases++
		rapid.IntRange(0, 9).Draw(t, "n")
		time.Sleep(10 * time.Millisecond)
	})
	if r.Failed || !r.Stopped || r.Ran == 0 || r.Ran >= checks || r.Ran != cases {
		t.Fatalf("a run whose spec time grew short after about 100 ms of 10 ms cases: want not failed, stopped, 0 < ran (= %d cases run) < %d; got failed %v (%q), stopped %v, ran %d",
			cases, checks, r.Failed, r.Message, r.Stopped, r.Ran)
	}
	cases = 0
	r = runRapid("stop-test", 1, 20, nil, func(t *rapid.T) { cases++ })
	if r.Failed || r.Stopped || r.Ran != 20 || cases != 20 {
		t.Fatalf("a run without a spec: want all 20 cases run, not stopped; got failed %v, stopped %v, ran %d, cases %d", r.Failed, r.Stopped, r.Ran, cases)
	}
}

// TestRapidFailureSurvivesAShortSpecTime: a case that failed before the spec's time grew
// short is still reported, its shrinking replays run rather than skipped.
func TestRapidFailureSurvivesAShortSpecTime(t *testing.T) {
	// Short after 10 ms; the first case fails at 20 ms, and its shrinking follows.
	e := specEnv(4*time.Second, time.Second+10*time.Millisecond)
	r := runRapid("fail-test", 1, 100, e, func(t *rapid.T) {
		n := rapid.IntRange(0, 1000).Draw(t, "n")
		time.Sleep(20 * time.Millisecond)
		if n >= 0 {
			t.Fatalf("broken at %d", n)
		}
	})
	if !r.Failed || !strings.Contains(r.Message, "broken at 0") || strings.Contains(r.Message, rapidTooFew) {
		t.Fatalf("a failing case under a spec time that grew short: want failed with its message shrunk to n = 0 (\"broken at 0\"), not rapid's count of skipped cases; got failed %v, message %q", r.Failed, r.Message)
	}
}

// TestRapidStopsOnItsTimeBudget: past Budget.MachineTime a machine stops once a quarter
// of its cases have run, not before.
func TestRapidStopsOnItsTimeBudget(t *testing.T) {
	for _, tc := range []struct {
		name     string
		budget   time.Duration
		min, max int
	}{
		{"budget out at once: a quarter runs", time.Nanosecond, 10, 10},
		{"budget out after about 100 ms of 5 ms cases", 100 * time.Millisecond, 15, 39},
		{"budget never out", time.Hour, 40, 40},
	} {
		e := specEnv(time.Hour, time.Hour)
		e.Opts.Budget.MachineTime = tc.budget
		r := runRapid("budget-test", 1, 40, e, func(t *rapid.T) { time.Sleep(5 * time.Millisecond) })
		if r.Failed || r.Ran < tc.min || r.Ran > tc.max || r.Stopped != (tc.max < 40) {
			t.Errorf("%s: want %d to %d of 40 cases run, stopped %v; got failed %v (%q), ran %d, stopped %v",
				tc.name, tc.min, tc.max, tc.max < 40, r.Failed, r.Message, r.Ran, r.Stopped)
		}
	}
}
