package cli

import (
	"strings"
	"testing"
)

// TestFaultsNeedAFaultableAdapter: --faults refuses a store whose backend storecheck
// cannot take away, and the fault flags without --faults, as usage errors. The database
// adapters' cases are in cli/builtin.
func TestFaultsNeedAFaultableAdapter(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--faults"}, "cannot take faults"},
		{[]string{"run", "--faults", "--adapter", "mutant:honest"}, "cannot take faults"},
		{[]string{"run", "--fault", "kill"}, "need --faults"},
		{[]string{"run", "--fault-mutant", "async-write"}, "need --faults"},
	} {
		code, _, stderr := cliRun(t, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("storecheck %s: exit %d, stderr %q; want exit %d and %q", strings.Join(tc.args, " "), code, stderr, exitUsage, tc.want)
		}
	}
}
