package probe_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
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
		r := runConfig(t, probe.Config{URL: url, Strict: strict, Rules: []string{"V-INPUT-1"}}, 0)
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

// TestInputForeignAnswerInResult: a server that refuses another principal's tasks/update
// but keeps its answers and hands them to the task once the owner answers (a proxy here,
// before the honest reference server) fails V-INPUT-3 on the result, with an input tool
// whose result echoes its answers (multi_input, mapped by name); the honest server
// passes with the same mapping.
func TestInputForeignAnswerInResult(t *testing.T) {
	var (
		mu    sync.Mutex
		kept  any
		swaps int
	)
	keeping := wrapReferenceWith(t, `"method":"tasks/update"`, func(srv http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var msg map[string]any
			if err := json.NewDecoder(r.Body).Decode(&msg); err != nil {
				t.Errorf("tasks/update body: %v", err)
				return
			}
			params, _ := msg["params"].(map[string]any)
			mu.Lock()
			defer mu.Unlock()
			if r.Header.Get("Authorization") == "Bearer token-b" {
				kept = params["inputResponses"]
				w.Header().Set("Content-Type", "application/json")
				_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": msg["id"],
					"error": map[string]any{"code": -32602, "message": "Failed to retrieve task: Task not found"}})
				return
			}
			if kept != nil {
				params["inputResponses"], kept = kept, nil
				swaps++
			}
			body, _ := json.Marshal(msg)
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
			srv.ServeHTTP(w, r)
		})
	})
	for _, tc := range []struct {
		name, url string
		want      conformance.Outcome
	}{{"honest", serve(t, ""), conformance.Passed}, {"keeping the other's answer", keeping, conformance.Failed}} {
		r := runConfig(t, probe.Config{URL: tc.url, Strict: true, Rules: []string{"V-INPUT-3"}, Eras: []conformance.Era{conformance.EraModern},
			Tools: probe.Tools{Input: "multi_input"}}, 1)
		why := strings.Join(r.Rules[0].Reasons, "\n")
		if r.Rules[0].Outcome != tc.want || tc.want == conformance.Failed && !strings.Contains(why, "nothing of the other principal's answer") {
			t.Errorf("%s: V-INPUT-3 modern %s %q; want %s (on the result)", tc.name, r.Rules[0].Outcome, why, tc.want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if swaps != 1 {
		t.Errorf("the proxy handed the other's answer to the task %d times, want 1", swaps)
	}
}

// TestInputForeignKeptIsKilled: a server that refuses (2026-07-28) or ignores
// (2025-11-25) another principal's input answer but keeps it, and hands it to the task
// in place of the owner's once the owner answers (input-foreign-kept), leaves the task
// input_required while watched and its result without any text of the other's answer
// (confirm_delete's says only "Deleted" or "Kept"): V-INPUT-3 fails it in both eras on
// the result, against a task of the same tool its owner answered alone.
func TestInputForeignKeptIsKilled(t *testing.T) {
	r := runConfig(t, probe.Config{URL: serve(t, "input-foreign-kept"), Strict: true, Rules: []string{"V-INPUT-3"}}, 2)
	for _, rr := range r.Rules {
		why := strings.Join(rr.Reasons, "\n")
		if rr.Outcome != conformance.Failed || !strings.Contains(why, "the result the other principal's answer gives") || !strings.Contains(why, `Kept`) {
			t.Errorf("V-INPUT-3 %s: %s %q; want failed on the result (Kept, where its owner's answer gives Deleted)", rr.Era, rr.Outcome, why)
		}
	}
}

// TestInputAskedWhileWorking: a server that sends a task's input request, with its
// related-task _meta, on the session's GET stream while tasks/get shows the task working
// (elicit-working) breaks a SHOULD ("the receiver SHOULD move the task to the
// input_required status") inside V-INPUT-2: warned, failed under strict, and never "not
// exercised". Without the _meta (elicit-unrelated-standalone) it breaks the MUST: failed.
func TestInputAskedWhileWorking(t *testing.T) {
	for _, tc := range []struct {
		mutant string
		strict bool
		want   conformance.Outcome
		why    string
	}{
		{"elicit-working", false, conformance.Warned, "status input_required"},
		{"elicit-working", true, conformance.Failed, "status input_required"},
		{"elicit-unrelated-standalone", false, conformance.Failed, "on the get stream while the task was working"},
	} {
		r := runConfig(t, probe.Config{URL: serve(t, tc.mutant), Strict: tc.strict, Rules: []string{"V-INPUT-2"}}, 1)
		why := strings.Join(r.Rules[0].Reasons, "\n")
		if r.Rules[0].Outcome != tc.want || !strings.Contains(why, tc.why) {
			t.Errorf("%s, strict %v: V-INPUT-2 %s %q; want %s on %q", tc.mutant, tc.strict, r.Rules[0].Outcome, why, tc.want, tc.why)
		}
	}
}

// TestInputStrangerSentNothing: a server that serves tasks/result of an input_required
// task to any caller (input-any-session) sends the owner's request to another principal,
// which cannot see the task: V-INPUT-3 fails on it, in 2025-11-25.
func TestInputStrangerSentNothing(t *testing.T) {
	r := runConfig(t, probe.Config{URL: serve(t, "input-any-session"), Strict: true, Rules: []string{"V-INPUT-3"},
		Eras: []conformance.Era{conformance.EraLegacy}}, 1)
	why := strings.Join(r.Rules[0].Reasons, "\n")
	if r.Rules[0].Outcome != conformance.Failed || !strings.Contains(why, "principal bob's tasks/result") || !strings.Contains(why, "elicitation/create") {
		t.Errorf("V-INPUT-3 legacy %s %q; want failed on bob's tasks/result, sent the elicitation", r.Rules[0].Outcome, why)
	}
}
