package cli

import (
	"regexp"
	"strings"
	"testing"
)

// ruleLine finds a rule's row in a run summary and returns its outcome column text.
func ruleLine(out, id string) string {
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(id) + `\s.*$`).FindString(out)
	return m
}

// TestExecFacadeLayer: a child serving a facade (protocol 2) has the facade rules run
// against it, as the store's own code; a strict version 1 child still passes, with the
// facade rules not exercised.
func TestExecFacadeLayer(t *testing.T) {
	rules := "L-F-SCOPE-1,L-F-FIN-1,M-F-FIN-1,M-F-INPUT-2,L-CREATE-1"
	code, out, errOut := cliProcess(t, "run", "--exec", strings.Replace(selfServe("memstore"), " serve ", " serve --facade ", 1), "--rules", rules)
	if code != exitOK {
		t.Fatalf("run --exec serve --facade memstore: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, id := range []string{"L-F-SCOPE-1", "L-F-FIN-1", "M-F-FIN-1", "M-F-INPUT-2"} {
		if line := ruleLine(out, id); !strings.Contains(line, "passed") || !strings.Contains(line, "store") {
			t.Errorf("%s against the served facade: %q, want passed as the store's rule\n%s", id, line, out)
		}
	}

	code, out, errOut = cliProcess(t, "run", "--exec", strings.Replace(selfServe("memstore"), " serve ", " serve --protocol 1 ", 1), "--rules", rules)
	if code != exitOK {
		t.Fatalf("run --exec of a version 1 child: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if line := ruleLine(out, "L-CREATE-1"); !strings.Contains(line, "passed") {
		t.Errorf("version 1 child: L-CREATE-1 %q, want passed", line)
	}
	for _, id := range []string{"L-F-SCOPE-1", "L-F-FIN-1", "M-F-FIN-1", "M-F-INPUT-2"} {
		if line := ruleLine(out, id); !strings.Contains(line, "not exercised") {
			t.Errorf("version 1 child: %s %q, want not exercised\n%s", id, line, out)
		}
	}
}

// TestExecFacadeMutantsKilled: each facade mutant, served as the facade layer over the
// wire, fails the facade rule it breaks.
func TestExecFacadeMutantsKilled(t *testing.T) {
	for _, tc := range []struct{ mutant, era, rule string }{
		{"facade-cancel-overwrites-finished", "legacy", "L-F-FIN-1"},
		{"facade-cancel-overwrites-finished", "modern", "M-F-FIN-1"},
		{"facade-list-skips-recheck", "legacy", "L-F-LIST-1"},
		{"facade-update-accepts-unissued", "modern", "M-F-INPUT-2"},
	} {
		code, out, errOut := cliProcess(t, "run", "--exec", selfServe("mutant:"+tc.mutant), "--era", tc.era, "--rules", tc.rule)
		if line := ruleLine(out, tc.rule); code != exitFailed || !strings.Contains(line, "FAILED") {
			t.Errorf("run --exec of %s: exit %d, %s %q; want 1 with the rule FAILED\nstdout:\n%s\nstderr:\n%s", tc.mutant, code, tc.rule, line, out, errOut)
		}
	}
}
