package probe_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/probe"
)

// crossRules are the rules of a deployment of several instances.
var crossRules = []string{"V-XREAD-1", "V-XCANCEL-1", "V-XINPUT-1", "V-XNOTIFY-1", "V-XKILL-1"}

// memstoreCopies is the command line of a copy of `storecheck serve --mcp` over memstore
// (the test binary acting as storecheck), with alice's and bob's tokens: each copy keeps
// its tasks in its own memory.
func memstoreCopies(t *testing.T) []string {
	t.Helper()
	t.Setenv(asCLI, "1")
	return []string{os.Args[0], "serve", "--mcp", "127.0.0.1:{port}", "--adapter", "memstore",
		"--principal", "token-a=alice", "--principal", "token-b=bob"}
}

// rows are the report's rows of rules, by "ID era".
func rows(r *conformance.Report, rules []string) map[string]conformance.RuleResult {
	out := map[string]conformance.RuleResult{}
	for _, rr := range r.Rules {
		for _, id := range rules {
			if rr.ID == id {
				out[rr.ID+" "+string(rr.Era)] = rr
			}
		}
	}
	return out
}

// wantRow: the row is there with outcome want, its reasons saying says.
func wantRow(t *testing.T, got map[string]conformance.RuleResult, row string, want conformance.Outcome, says string) {
	t.Helper()
	rr, ok := got[row]
	why := strings.Join(append(rr.Reasons, rr.Notes...), "\n")
	if !ok || rr.Outcome != want || !strings.Contains(why, says) {
		t.Errorf("%s: %s %q; want %s saying %q", row, rr.Outcome, why, want, says)
	}
}

// TestDeploymentInProcessMemory: two instances that each keep tasks in their own memory,
// probed as one deployment where any instance serves any request, fail every
// cross-instance rule with the cause named; probed through the probe's router they pass
// what routing makes true (a listener names no task to route by: not exercised); one
// endpoint leaves the rules not exercised, saying so.
func TestDeploymentInProcessMemory(t *testing.T) {
	cmd := memstoreCopies(t)
	cases := []struct {
		name string
		cfg  probe.Config
		want map[string]conformance.Outcome
		says map[string]string
	}{
		{"any", probe.Config{Deployment: probe.Deployment{Command: cmd, Copies: 2, Shape: probe.ShapeAny, Lease: time.Second}},
			map[string]conformance.Outcome{"V-XREAD-1": conformance.Failed, "V-XCANCEL-1": conformance.Failed, "V-XINPUT-1": conformance.Failed, "V-XNOTIFY-1": conformance.Failed, "V-XKILL-1": conformance.NotExercised},
			map[string]string{"V-XREAD-1": "created on instance 1, instance 2 answered: error -32602", "V-XCANCEL-1": "created on instance 2, instance 1 answered: error -32602",
				"V-XINPUT-1": "created on instance 1, instance 2 answered: error -32602", "V-XNOTIFY-1": "instance 1 answered: error -32602",
				"V-XKILL-1": "V-XREAD-1 judges that"}},
		{"routed", probe.Config{Deployment: probe.Deployment{Command: cmd, Copies: 2, Shape: probe.ShapeRouted, Lease: time.Second}},
			map[string]conformance.Outcome{"V-XREAD-1": conformance.Passed, "V-XCANCEL-1": conformance.Passed, "V-XINPUT-1": conformance.Passed, "V-XNOTIFY-1": conformance.NotExercised, "V-XKILL-1": conformance.Passed},
			map[string]string{"V-XNOTIFY-1": "names no task to route by", "V-XKILL-1": "went with instance"}},
		{"one endpoint", probe.Config{URL: serve(t, "")},
			map[string]conformance.Outcome{"V-XREAD-1": conformance.NotExercised, "V-XCANCEL-1": conformance.NotExercised, "V-XINPUT-1": conformance.NotExercised, "V-XNOTIFY-1": conformance.NotExercised, "V-XKILL-1": conformance.NotExercised},
			map[string]string{"V-XREAD-1": "one endpoint", "V-XKILL-1": "one endpoint"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Strict, tc.cfg.Rules = true, crossRules
			got := rows(runConfig(t, tc.cfg, 9), crossRules)
			for row, rr := range got {
				id, _, _ := strings.Cut(row, " ")
				wantRow(t, got, row, tc.want[id], tc.says[id])
				if testing.Verbose() {
					t.Logf("%s %s: %q %q", row, rr.Outcome, rr.Reasons, rr.Notes)
				}
			}
		})
	}
}
