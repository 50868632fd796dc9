package probe_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/probe"
)

// TestServerDeathIsAFinding: a server that dies on its first tasks/cancel (V-DENY-1's,
// another principal's) is told once in the findings, with the request it died after
// (and, over stdio, its exit status and the last line of its stderr); V-DENY-1 fails
// with the death, and every later row is aborted pointing at that row. Over HTTP the
// server is gone for the rest of the run; over stdio each era starts children of its
// own, which die the same way.
func TestServerDeathIsAFinding(t *testing.T) {
	const died = `the server died after tasks/cancel as principal (bob|second), during V-DENY-1 \((legacy|modern) era\): `
	for _, tc := range []struct {
		name    string
		run     func(t *testing.T) *conformance.Report
		finding string
		perEra  bool // a death in each era (stdio), or one for the run (HTTP)
	}{
		{"http", func(t *testing.T) *conformance.Report { return run(t, serve(t, "dies-on-cancel")) },
			died + `it stopped accepting connections \(.*connection refused\); every later check is aborted$`,
			false},
		{"stdio", func(t *testing.T) *conformance.Report {
			t.Setenv(asMutant, "dies-on-cancel")
			r, err := probe.Run(t.Context(), probe.Config{Strict: true, Exec: []string{os.Args[0]}})
			if err != nil {
				t.Fatal(err)
			}
			return r
		}, died + `it exited: exit status 3; the last lines of its stderr: server mutant dies-on-cancel: crashing on purpose; every later check of the era is aborted`,
			true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.run(t)
			deaths := 1
			if tc.perEra {
				deaths = len(r.Eras)
			}
			checkFindings(t, r, deaths, tc.finding)
			for _, rr := range r.Rules {
				why := strings.Join(rr.Reasons, "\n")
				switch {
				case rr.ID == "V-DENY-1" && (rr.Era == conformance.EraLegacy || tc.perEra):
					if rr.Outcome != conformance.Failed || !regexp.MustCompile(died).MatchString(why) || !strings.Contains(why, "expected: an answer, and the server still serving") {
						t.Errorf("V-DENY-1 %s: %s %q; want failed with the death", rr.Era, rr.Outcome, why)
					}
				default:
					era := conformance.EraLegacy
					if tc.perEra {
						era = rr.Era
					}
					want := "the server died during V-DENY-1 " + string(era) + ": see that row"
					if rr.Outcome != conformance.Aborted || why != want {
						t.Errorf("%s %s: %s %q; want aborted: %q", rr.ID, rr.Era, rr.Outcome, why, want)
					}
				}
			}
			if testing.Verbose() {
				t.Logf("findings: %q", r.Findings)
				t.Logf("V-DENY-1 %s: %s", r.Rules[0].Era, r.Rules[0].Reasons)
			}
			if killed, why := probe.Killed(r, []string{"V-DENY-1"}); !killed {
				t.Errorf("the mutant not judged killed: %s", why)
			}
		})
	}
}

// checkFindings: the report has n findings, each matching pattern.
func checkFindings(t *testing.T, r *conformance.Report, n int, pattern string) {
	t.Helper()
	if len(r.Findings) != n {
		t.Fatalf("findings %q; want %d", r.Findings, n)
	}
	for _, f := range r.Findings {
		if !regexp.MustCompile(pattern).MatchString(f) {
			t.Errorf("finding %q; want one matching %q", f, pattern)
		}
	}
}
