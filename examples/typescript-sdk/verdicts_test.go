package typescriptsdk

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/storecheck/storecheck/internal/clibuild"
	"github.com/storecheck/storecheck/schema/schematest"
)

// verdictsVersion is the SDK version the verdicts below were observed on.
const verdictsVersion = "1.32.2"

// A pinned verdict: the outcome of one rule under --strict, and for a failure a piece of
// its report that names the finding (so that a rule failing for another reason is a
// change too).
type verdict struct {
	outcome string
	finding string
}

// pinnedVerdicts is the profile's report on the TypeScript SDK's InMemoryTaskStore
// (verdictsVersion) under `storecheck run --era sdk --strict`, every P-* rule. The
// docs/sdk.md's table says the same: change both together.
var pinnedVerdicts = map[string]verdict{
	"P-ID-1": {outcome: "passed"},
	"P-ID-2": {outcome: "passed"},
	// A negative ttl is kept and reported as is; a ttl of 2^31 ms removes the task at
	// once (Node's setTimeout runs a delay past 2^31-1 ms after 1 ms).
	"P-CREATE-1": {"failed", "ttl -1): ttl"},
	"P-SESS-1":   {outcome: "passed"},
	"P-SESS-2":   {outcome: "passed"}, // it declares unrestricted, and is
	// A caller with no session sees and writes every session's task (the declared
	// policy: a SHOULD, failed under --strict, warned without).
	"P-SESS-3": {"failed", `sessionless "unrestricted"`},
	// Unknown statuses are stored.
	"P-STATUS-1": {"failed", `"status":"bogus"`},
	"P-FIN-1":    {outcome: "passed"},
	"P-FIN-2":    {outcome: "passed"},
	// storeTaskResult takes any status (here working) at run time.
	"P-RESULT-1": {"failed", `"working", result)`},
	"P-RESULT-2": {outcome: "passed"},
	// createTask (and getTaskResult) hand out the stored objects themselves.
	"P-RESULT-3": {"failed", "after the caller mutated the task CreateTask returned"},
	// Completed through updateTaskStatus: no result, and getTaskResult never has one.
	"P-RESULT-4": {"failed", "has no result stored"},
	"P-LIST-1":   {outcome: "passed"},
	// A cursor whose task expired between pages makes listTasks throw.
	"P-LIST-2": {"failed", "Invalid cursor"},
	// O(tasks) per page: quadratic listing.
	"P-LIST-3": {"failed", "1000 vs 32000 tasks"},
	// The ttl deletes tasks that are still working.
	"P-TTL-1": {"failed", "the ttl removed a task still at work"},
	// The ttl timer restarts at completion: kept past createdAt + ttl.
	"P-TTL-2": {"failed", "after its retention ended"},
	// ttl 0 is reported, and the task never expires.
	"P-TTL-3": {"failed", "after it reported ttl 0 and then completed"},
	"P-TTL-4": {outcome: "passed"}, // the shim declares creation (docs/sdk.md)
	// The store has no delete, cleanup or wait-for-update.
	"P-DELETE-1": {outcome: "skipped"},
	"P-CLEAN-1":  {outcome: "skipped"},
	"P-WAIT-1":   {outcome: "skipped"},
}

type reportRule struct {
	ID      string   `json:"id"`
	Outcome string   `json:"outcome"`
	Reasons []string `json:"reasons"`
	Notes   []string `json:"notes"`
}

// TestPinnedVerdicts runs the SDK profile (--era sdk --strict) against the store through
// shim.mjs, with a storecheck binary built without -race (P-LIST-3 times pages and skips
// itself under -race), and compares every P-* rule's outcome with its pinned verdict. A
// rule that reads inconclusive (a race with too little overlap, a timing a busy machine
// spoiled) is run again, alone, up to twice; any other difference fails the test.
func TestPinnedVerdicts(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the SDK profile against the TypeScript store (about a minute); skipped with -short")
	}
	if v := pinnedVersion(t); v != verdictsVersion {
		t.Fatalf("package.json pins SDK %s; the verdicts are pinned for %s: run the profile on %s, update pinnedVerdicts and docs/sdk.md's compatibility table", v, verdictsVersion, v)
	}
	needStore(t)
	bin := buildCLI(t)
	got := runProfile(t, bin, "")
	for attempt := 2; attempt <= 3; attempt++ {
		var again []string
		for id, r := range got {
			if r.Outcome == "inconclusive" && pinnedVerdicts[id].outcome != "inconclusive" {
				again = append(again, id)
			}
		}
		if len(again) == 0 {
			break
		}
		sort.Strings(again)
		t.Logf("attempt %d: %v inconclusive, run again alone", attempt, again)
		for id, r := range runProfile(t, bin, strings.Join(again, ",")) {
			if slices.Contains(again, id) {
				got[id] = r
			}
		}
	}
	var ids []string
	for id := range pinnedVerdicts {
		ids = append(ids, id)
	}
	for id := range got {
		if _, ok := pinnedVerdicts[id]; !ok {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		pin, pinned := pinnedVerdicts[id]
		r, ran := got[id]
		switch {
		case !pinned:
			t.Errorf("%s: got %s, but it has no pinned verdict (a new rule: pin it, and add it to docs/sdk.md's table)", id, r.Outcome)
		case !ran:
			t.Errorf("%s: pinned %s, got no outcome (the report does not have the rule)", id, pin.outcome)
		case r.Outcome != pin.outcome:
			t.Errorf("%s: pinned %s, got %s\n%s", id, pin.outcome, r.Outcome, firstOf(r.Reasons))
		case pin.finding != "" && !slices.ContainsFunc(r.Reasons, func(s string) bool { return strings.Contains(s, pin.finding) }):
			t.Errorf("%s: pinned %s for the finding %q, got %s for another reason:\n%s", id, pin.outcome, pin.finding, r.Outcome, firstOf(r.Reasons))
		}
		for _, n := range r.Notes {
			if strings.HasPrefix(n, "note: ") {
				t.Logf("%s %s: %s", id, r.Outcome, n)
			}
		}
	}
}

// runProfile runs the profile (the rules given, or all) from the repository's root and
// returns each rule of the JSON report.
func runProfile(t *testing.T, bin, rules string) map[string]reportRule {
	t.Helper()
	report := filepath.Join(t.TempDir(), "sdk.json")
	args := []string{"run", "--era", "sdk", "--strict", "--exec", "node examples/typescript-sdk/shim.mjs", "--json", report}
	if rules != "" {
		args = append(args, "--rules", rules)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.CombinedOutput()
	// Exit 1: rules failed, as pinned. Anything else (2: the store could not be brought
	// up) is no report to compare.
	var ee *exec.ExitError
	if err != nil && (!errors.As(err, &ee) || ee.ExitCode() != 1) {
		t.Fatalf("storecheck %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("no JSON report (%v):\n%s", err, out)
	}
	schematest.Check(t, data)
	var r struct {
		Rules []reportRule `json:"rules"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("%s: %v", report, err)
	}
	got := map[string]reportRule{}
	for _, rule := range r.Rules {
		if strings.HasPrefix(rule.ID, "P-") {
			got[rule.ID] = rule
		}
	}
	if len(got) == 0 {
		t.Fatalf("the report has no P-* rule:\n%s", out)
	}
	return got
}

// buildCLI builds storecheck without -race, whatever this test was built with: the
// profile's P-LIST-3 times pages and skips itself in a -race binary.
func buildCLI(t *testing.T) string { return clibuild.Storecheck(t) }

func firstOf(s []string) string {
	if len(s) == 0 {
		return "(no reason reported)"
	}
	return s[0]
}
