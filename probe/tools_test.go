package probe_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/probe"
)

// TestMissingToolIsNeverPassed: a rule whose tool the server does not list never
// passes, and its reason names the tool. The reference server's own tool missing (a
// server that has none such) reads not exercised; a tool mapped by name that the server
// does not list reads setup refused.
func TestMissingToolIsNeverPassed(t *testing.T) {
	hidden := []string{"failing_job", "confirm_delete"}
	url := wrapReferenceWith(t, `"method":"tools/list"`, func(srv http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, r)
			var msg map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &msg); err != nil {
				t.Errorf("tools/list answered %q (%v): this proxy reads a JSON body only", rec.Body.String(), err)
				return
			}
			res, _ := msg["result"].(map[string]any)
			tools, _ := res["tools"].([]any)
			res["tools"] = slices.DeleteFunc(tools, func(v any) bool {
				tool, _ := v.(map[string]any)
				return slices.Contains(hidden, tool["name"].(string))
			})
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.Header().Del("Content-Length")
			_ = json.NewEncoder(w).Encode(msg)
		})
	})
	for _, tc := range []struct {
		name    string
		tools   probe.Tools
		rules   []string
		outcome conformance.Outcome
		tool    string
	}{
		{"the reference's failing tool not listed", probe.Tools{}, []string{"V-ERROR-1"}, conformance.NotExercised, `"failing_job"`},
		{"the reference's input tool not listed", probe.Tools{}, []string{"V-INPUT-1", "V-INPUT-2", "V-INPUT-3"}, conformance.NotExercised, `"confirm_delete"`},
		{"a quick tool mapped that is not listed", probe.Tools{Quick: "storecheck_no_such_tool"}, []string{"V-DENY-1", "V-FIN-1", "V-BAD-1"}, conformance.SetupRefused, `"storecheck_no_such_tool"`},
		{"an erring tool mapped that is not listed", probe.Tools{Failing: "slow_compute", Erring: "storecheck_no_such_tool"}, []string{"V-ERROR-1"}, conformance.SetupRefused, `"storecheck_no_such_tool"`},
	} {
		r, err := probe.Run(t.Context(), probe.Config{URL: url, Strict: true, Rules: tc.rules, Tools: tc.tools, Principals: principals})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Rules) == 0 {
			t.Errorf("%s: no rows", tc.name)
		}
		for _, rr := range r.Rules {
			if rr.Outcome != tc.outcome || !strings.Contains(strings.Join(rr.Reasons, " "), tc.tool) {
				t.Errorf("%s: %s %s: %s %q; want %s naming %s", tc.name, rr.ID, rr.Era, rr.Outcome, rr.Reasons, tc.outcome, tc.tool)
			}
		}
	}
}
