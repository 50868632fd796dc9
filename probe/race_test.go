package probe_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/probe"
)

// TestRaceNeverMetIsInconclusive: when every tasks/cancel reaches the server only after
// the task has ended on its own (a proxy holds each for 400 ms), the cancels never meet
// the task's end: V-RACE-1 is inconclusive in both eras, not passed.
func TestRaceNeverMetIsInconclusive(t *testing.T) {
	url := wrapReferenceWith(t, `"method":"tasks/cancel"`, func(srv http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(400 * time.Millisecond)
			srv.ServeHTTP(w, r)
		})
	})
	r := runConfig(t, probe.Config{URL: url, Strict: true, Rules: []string{"V-RACE-1"}}, 0)
	if len(r.Rules) != 2 || r.OK() {
		t.Errorf("got %d rows, OK %v; want V-RACE-1 in both eras and the strict run failed", len(r.Rules), r.OK())
	}
	for _, rr := range r.Rules {
		if rr.Outcome != conformance.Inconclusive || !strings.Contains(rr.Reasons[0], "never met") {
			t.Errorf("%s %s: %s %q; want inconclusive, the race never met", rr.ID, rr.Era, rr.Outcome, rr.Reasons)
		}
	}
}
