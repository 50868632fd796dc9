package probe_test

import (
	"os"
	"strings"
	"testing"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/probe"
)

// TestStdioSilenceIsTheAnswer: over stdio a server that drops the malformed line without
// a word, yet answers the ping written after it, fails V-BAD-1 in both eras, the got line
// naming the silence and the ping's answer; one that answers the line after the ping
// (out of order, which JSON-RPC allows) passes.
func TestStdioSilenceIsTheAnswer(t *testing.T) {
	for _, tc := range []struct {
		mutant string
		want   conformance.Outcome
		says   string
	}{
		{"stdio-drops-malformed", conformance.Failed, "got:      no answer to the line that is not JSON, while the ping sent after it was answered (result {"},
		{"stdio-late-parse-error", conformance.Passed, ""},
	} {
		t.Run(tc.mutant, func(t *testing.T) {
			t.Setenv(asMutant, tc.mutant)
			r, err := probe.Run(t.Context(), probe.Config{Strict: true, Rules: []string{"V-BAD-1"}, Exec: []string{os.Args[0]}})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Rules) != 2 {
				t.Fatalf("%d rows; want V-BAD-1 in both eras", len(r.Rules))
			}
			for _, rr := range r.Rules {
				why := strings.Join(rr.Reasons, "\n")
				if rr.Outcome != tc.want || !strings.Contains(why, tc.says) {
					t.Errorf("V-BAD-1 %s: %s %q; want %s saying %q", rr.Era, rr.Outcome, why, tc.want, tc.says)
				}
			}
		})
	}
}
