package builtin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storecheck/storecheck/schema/schematest"
)

// TestFaultFlagsOnADatabaseAdapter: on an adapter that can take faults, a fault it does
// not know and a battery-only flag are usage errors. The cases of adapters that cannot
// take faults, and of fault flags without --faults, are cli's
// TestFaultsNeedAFaultableAdapter.
func TestFaultFlagsOnADatabaseAdapter(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--faults", "--adapter", "postgres", "--fault", "reboot"}, `--fault "reboot"`},
		{[]string{"run", "--faults", "--adapter", "postgres", "--junit", "x.xml"}, "--junit is for the battery"},
	} {
		code, _, stderr := cliRun(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("storecheck %s: exit %d, stderr %q; want exit %d and %q", strings.Join(tc.args, " "), code, stderr, 2, tc.want)
		}
	}
}

// TestFaultMutantThroughTheCLI: `storecheck run --faults --fault-mutant async-write` on a
// Redis container of its own exits 1, naming the rule the mutant breaks (F-DURABLE-1)
// as FAILED in the summary, and only the rules it breaks. One kill, about 20-40 s.
func TestFaultMutantThroughTheCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("takes a Redis container away for seconds; skipped with -short")
	}
	jsonPath := filepath.Join(t.TempDir(), "faults.json")
	code, stdout, stderr := cliRun(t, "run", "--adapter", "redis", "--faults", "--fault", "kill", "--fault-mutant", "async-write", "--json", jsonPath)
	if code == 2 && strings.Contains(stderr, "bring-up of adapter") && os.Getenv("CI") != "true" {
		t.Skipf("redis (faults): the backend cannot be brought up here: %s", stderr)
	}
	if code != 1 {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, 1, stdout, stderr)
	}
	failed := map[string]bool{}
	for _, line := range strings.Split(stdout, "\n") {
		if f := strings.Fields(line); len(f) == 2 && strings.HasPrefix(f[0], "F-") && f[1] == "FAILED" {
			failed[f[0]] = true
		}
	}
	if !failed["F-DURABLE-1"] {
		t.Errorf("F-DURABLE-1 not FAILED in the summary:\n%s", stdout)
	}
	for rule := range failed {
		if rule != "F-DURABLE-1" && rule != "F-OUTAGE-1" { // async-write's acknowledgements while the backend is dead break F-OUTAGE-1 too
			t.Errorf("%s FAILED, a rule async-write does not break:\n%s", rule, stdout)
		}
	}
	if !strings.Contains(stdout, "mutant:async-write") {
		t.Errorf("the summary does not name the mutant:\n%s", stdout)
	}
	schematest.CheckFile(t, jsonPath)
}
