package probe_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/probe"
)

// TestInputShouldIsWarned: a server that refuses a tasks/update answering a key it never
// issued breaks a SHOULD ("A server SHOULD ignore any inputResponses responses mapped to
// a key that is not currently outstanding") inside the MUST rule V-INPUT-1: warned, and
// failed only under strict.
func TestInputShouldIsWarned(t *testing.T) {
	url := wrapReference(t, "storecheck-probe-never-issued", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID,
			"error": map[string]any{"code": -32602, "message": "unknown input key"}})
	}))
	for _, strict := range []bool{false, true} {
		r, err := probe.Run(t.Context(), probe.Config{URL: url, Strict: strict, Rules: []string{"V-INPUT-1"},
			Principals: []probe.Principal{{Name: "alice", Token: "token-a"}, {Name: "bob", Token: "token-b"}}})
		if err != nil {
			t.Fatal(err)
		}
		want := conformance.Warned
		if strict {
			want = conformance.Failed
		}
		if len(r.Rules) != 1 {
			t.Fatalf("strict %v: %d rows; want V-INPUT-1 modern only", strict, len(r.Rules))
		}
		if r.Rules[0].Outcome != want || !strings.Contains(strings.Join(r.Rules[0].Reasons, "\n"), "never issued") {
			t.Errorf("strict %v: %+v; want V-INPUT-1 modern %s on the key never issued", strict, r.Rules, want)
		}
	}
}
