package cli

import (
	"strings"
	"testing"
)

func TestEtsLikeAdapter(t *testing.T) {
	code, out, errOut := cliProcess(t, "run", "--adapter", "ets-like", "--era", "legacy", "--rules", "L-GET-1,L-LIST-2")
	if code != exitOK || !strings.Contains(out, "storecheck: ets-like") {
		t.Errorf("run --adapter ets-like: exit %d, want 0 and the store named\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	code, _, errOut = cliRun(t, "run", "--adapter", "ets-like", "--ets-max-rows", "0")
	if code != exitUsage || !strings.Contains(errOut, "--ets-max-rows must be at least 1") {
		t.Errorf("run --adapter ets-like --ets-max-rows 0: exit %d, stderr %q; want 2 naming the flag", code, errOut)
	}
}
