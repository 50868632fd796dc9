package probe_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
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
			url := serveConfig(t, server.Config{Legacy: st.Legacy(), Modern: st.Modern(), MaxTasksPerPrincipal: tc.limit}, tc.mutant)
			r := runConfig(t, probe.Config{URL: url, Strict: true, Rules: []string{"V-LIMIT-1"}, LimitTasks: 5}, 2)
			for _, rr := range r.Rules {
				if rr.Outcome != tc.want || !strings.Contains(strings.Join(rr.Reasons, "\n"), tc.reason) {
					t.Errorf("V-LIMIT-1 %s: %s %q; want %s naming %q", rr.Era, rr.Outcome, rr.Reasons, tc.want, tc.reason)
				}
			}
		})
	}
}

// TestLimitSilentRefusal: a server whose limit answers a task it does not make (a
// CreateTaskResult naming a task that is not there), or answers the call without a task
// and without an error, fails V-LIMIT-1, naming what came back (a proxy before the
// reference server, from alice's fourth task of long_job on).
func TestLimitSilentRefusal(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func(n int) map[string]any
		reason string
	}{
		{"a task that is not there", func(n int) map[string]any {
			return map[string]any{"task": map[string]any{"taskId": fmt.Sprintf("storecheck-test-dropped-%d", n), "status": "working",
				"createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttl": nil}}
		}, "the task still there"},
		{"no task and no error", func(int) map[string]any {
			return map[string]any{"content": []any{map[string]any{"type": "text", "text": "busy"}}}
		}, "a task, or a JSON-RPC error refusing it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			calls := 0
			url := wrapReferenceWith(t, `"name":"long_job"`, func(srv http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					mu.Lock()
					calls++
					n := calls
					mu.Unlock()
					if n <= 3 || r.Header.Get("Authorization") != "Bearer token-a" {
						srv.ServeHTTP(w, r)
						return
					}
					var msg struct {
						ID json.RawMessage `json:"id"`
					}
					_ = json.NewDecoder(r.Body).Decode(&msg)
					w.Header().Set("Content-Type", "application/json")
					_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": tc.answer(n)})
				})
			})
			r := runConfig(t, probe.Config{URL: url, Strict: true, Rules: []string{"V-LIMIT-1"}, LimitTasks: 5,
				Eras: []conformance.Era{conformance.EraLegacy}}, 1)
			why := strings.Join(r.Rules[0].Reasons, "\n")
			if r.Rules[0].Outcome != conformance.Failed || !strings.Contains(why, tc.reason) {
				t.Errorf("V-LIMIT-1 legacy: %s %q; want failed naming %q", r.Rules[0].Outcome, why, tc.reason)
			}
		})
	}
}
