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
// the task's end: V-RACE-1 is inconclusive, not passed.
func TestRaceNeverMetIsInconclusive(t *testing.T) {
	url := wrapReferenceWith(t, `"method":"tasks/cancel"`, func(srv http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(400 * time.Millisecond)
			srv.ServeHTTP(w, r)
		})
	})
	r, err := probe.Run(t.Context(), probe.Config{URL: url, Strict: true, Rules: []string{"V-RACE-1"},
		Principals: []probe.Principal{{Name: "alice", Token: "token-a"}, {Name: "bob", Token: "token-b"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Rules) != 1 || r.Rules[0].Outcome != conformance.Inconclusive || !strings.Contains(r.Rules[0].Reasons[0], "never met") || r.OK() {
		t.Errorf("got %+v; want V-RACE-1 inconclusive, the race never met, and the strict run failed", r.Rules)
	}
}
