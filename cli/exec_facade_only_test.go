package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// facadeOnlyChild answers every request with a hello that declares only the facade
// layer (docs/wire.md, "Facade operations"): valid protocol that storecheck cannot
// check yet. It exits 0 when its stdin closes.
const facadeOnlyChild = `#!/bin/sh
while IFS= read -r line; do
	id=$(printf '%s\n' "$line" | sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p')
	printf '{"id":%s,"ok":{"protocol":2,"name":"facade-only","eras":["legacy","modern"],"layers":["facade"]}}\n' "$id"
done
`

// TestExecFacadeOnlyChildStopsAtBringUp: a child whose hello declares layers
// ["facade"] stops the run at bring-up with exit status 2 and "the store process
// declared no store layer", as docs/wire.md says, and passes nothing.
func TestExecFacadeOnlyChildStopsAtBringUp(t *testing.T) {
	script := filepath.Join(t.TempDir(), "facade-only.sh")
	if err := os.WriteFile(script, []byte(facadeOnlyChild), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, era := range []string{"legacy", "modern"} {
		code, out, errOut := cliRun(t, "run", "--exec", "sh "+script, "--era", era)
		if code != exitUsage {
			t.Errorf("run --exec of a facade-only child (--era %s): exit %d, want 2\nstdout:\n%s\nstderr:\n%s", era, code, out, errOut)
		}
		if !strings.Contains(errOut, "declared no store layer") {
			t.Errorf("run --exec of a facade-only child (--era %s): stderr does not say the child declared no store layer:\n%s", era, errOut)
		}
		if strings.Contains(out, "passed") || strings.Contains(out, "PASS") {
			t.Errorf("run --exec of a facade-only child (--era %s) passed something:\n%s", era, out)
		}
	}
}
