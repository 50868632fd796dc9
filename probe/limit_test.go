package probe_test

import (
	"strings"
	"testing"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/mcp/server"
	"github.com/storecheck/storecheck/probe"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/memstore"
)

// TestLimitCheck: V-LIMIT-1 passes a server whose limit is per principal, fails one
// whose limit counts every principal's tasks (naming the other principal's refused
// call), and reads not exercised, naming the bound, on a server with no limit within it.
func TestLimitCheck(t *testing.T) {
	for _, tc := range []struct {
		name, mutant string
		limit        int
		want         conformance.Outcome
		reason       string
	}{
		{"per principal", "", 3, conformance.Passed, ""},
		{"shared", "limit-shared", 3, conformance.Failed, "bob's tools/call long_job as a task, while alice has 3 tasks"},
		{"none", "", -1, conformance.NotExercised, "no limit met in 5 tasks of long_job"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := memstore.New(memstore.WithClock(reference.SystemClock{}))
			url := serveConfig(t, server.Config{Legacy: st.Legacy(), Modern: st.Modern(), Mutant: tc.mutant, MaxTasksPerPrincipal: tc.limit})
			r, err := probe.Run(t.Context(), probe.Config{URL: url, Strict: true, Rules: []string{"V-LIMIT-1"}, LimitTasks: 5,
				Principals: []probe.Principal{{Name: "alice", Token: "token-a"}, {Name: "bob", Token: "token-b"}}})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Rules) != 2 {
				t.Fatalf("%d rows; want V-LIMIT-1 in both eras", len(r.Rules))
			}
			for _, rr := range r.Rules {
				if rr.Outcome != tc.want || !strings.Contains(strings.Join(rr.Reasons, "\n"), tc.reason) {
					t.Errorf("V-LIMIT-1 %s: %s %q; want %s naming %q", rr.Era, rr.Outcome, rr.Reasons, tc.want, tc.reason)
				}
			}
		})
	}
}
