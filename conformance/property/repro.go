package property

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/storecheck/storecheck/conformance/battery"
)

// B-REPRO-1: a randomised check run twice with one seed issues the same operations.

func LegacyReplay(s *battery.Suite) {
	s.It("B-REPRO-1", "the legacy state machine and concurrent histories replay the same operations from the same seed", func(e *battery.Env) {
		CheckReplay(e, "legacy state machine", func(trace func(string)) RapidRun { return RunLegacyMachine(e, 3, trace) })
		CheckScripts(e, "legacy per-task history", func(i int, seed uint64) History { return LegacyTaskHistory(e, i, seed) })
	})
}

func ModernReplay(s *battery.Suite) {
	s.It("B-REPRO-1", "the modern state machine and concurrent histories replay the same operations from the same seed", func(e *battery.Env) {
		CheckReplay(e, "modern state machine", func(trace func(string)) RapidRun { return RunModernMachine(e, 3, trace) })
		CheckScripts(e, "modern per-task history", func(i int, seed uint64) History { return ModernTaskHistory(e, i, seed) })
	})
}

// CheckReplay runs a machine twice and compares the operations of the two runs (their
// outcomes aside: those are the store's). A run that found a divergence stops early and
// shrinks, so then only the operations before the first failing case of either run are
// compared; the machine's own spec reports the divergence.
func CheckReplay(e *battery.Env, what string, run func(trace func(string)) RapidRun) {
	var a, b []string
	op := Operation
	if !e.HasClock() {
		// On the real clock timestamps differ from run to run; the operations do not.
		op = func(s string) string { return millis.ReplaceAllString(Operation(s), "<ms>") }
	}
	ra := run(func(s string) { a = append(a, op(s)) })
	rb := run(func(s string) { b = append(b, op(s)) })
	// A failing run shrinks for as long as its time bound lets it: the replay is
	// compared up to the end of the first failing case, which the seed alone decides.
	a, b = untilFailure(a), untilFailure(b)
	n := min(len(a), len(b))
	if !ra.Failed && !rb.Failed && len(a) != len(b) {
		e.Errorf("%s replayed with seed %d: %d operations, then %d\n  %s", what, e.RunSeed(), len(a), len(b), e.Rerun())
	}
	if n == 0 {
		e.Errorf("%s with seed %d issued no operations", what, e.RunSeed())
		return
	}
	for i := range n {
		if a[i] == traceFailed || b[i] == traceFailed {
			// A case failed in one run: what the store answered differed (state a
			// store kept from the first run, a race), which is the store's doing, not
			// the seed's; the operations before it matched.
			return
		}
		if a[i] != b[i] {
			e.Errorf("%s replayed with seed %d: operation %d differs:\n    first run:  %s\n    second run: %s\n  %s", what, e.RunSeed(), i+1, a[i], b[i], e.Rerun())
			return
		}
	}
}

// untilFailure cuts a trace after its first failing case.
func untilFailure(trace []string) []string {
	for i, s := range trace {
		if s == traceFailed {
			return trace[:i+1]
		}
	}
	return trace
}

// millis matches a timestamp in milliseconds since the epoch.
var millis = regexp.MustCompile(`\b1[0-9]{12}\b`)

// Operation is a trace line without its outcome.
func Operation(step string) string {
	if i := strings.LastIndex(step, " -> "); i >= 0 {
		return step[:i]
	}
	return step
}

// CheckScripts generates history 0 twice and compares the clients' scripts.
func CheckScripts(e *battery.Env, what string, run historyFunc) {
	seed := subSeed(e.RunSeed(), "repro/"+what)
	a, b := run(0, seed), run(0, seed)
	if len(a.scripts) == 0 {
		e.Errorf("%s: no client scripts recorded", what)
		return
	}
	if fmt.Sprint(a.scripts) != fmt.Sprint(b.scripts) {
		for c := range a.scripts {
			if c >= len(b.scripts) || a.scripts[c] != b.scripts[c] {
				e.Errorf("%s with seed %d: client %d followed a different script the second time\n  %s", what, e.RunSeed(), c, e.Rerun())
				return
			}
		}
	}
}
