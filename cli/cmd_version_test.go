package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/storecheck/storecheck/conformance/rules"
	"github.com/storecheck/storecheck/version"
)

// TestVersion: storecheck version names the protocols and the rule count, and --json
// is the version block every JSON report carries.
func TestVersion(t *testing.T) {
	code, out, errOut := cliRun(t, "version")
	if code != exitOK {
		t.Fatalf("storecheck version: exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{"storecheck ", "protocol   legacy 2025-11-25", "protocol   modern 2026-07-28", "protocol   sdk 2025-11-25", "rules      "} {
		if !strings.Contains(out, want) {
			t.Errorf("storecheck version lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = cliRun(t, "version", "--json")
	var info version.Info
	if err := json.Unmarshal([]byte(out), &info); code != exitOK || err != nil {
		t.Fatalf("storecheck version --json: exit %d (%v), stderr %q:\n%s", code, err, errOut, out)
	}
	if want := version.Get(); info.Rules != want.Rules || info.Rules.Count != len(rules.All()) || len(info.Protocols) != 3 {
		t.Errorf("storecheck version --json = %s, want the rules %+v (%d) and three protocols", out, want.Rules, len(rules.All()))
	}
}
