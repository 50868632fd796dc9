package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadCeiling: storecheck load --ceiling runs a bounded load against its stub and
// writes the table, the JSON report and the SVG plot.
func TestLoadCeiling(t *testing.T) {
	dir := t.TempDir()
	js, svg := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.svg")
	code, out, errOut := cliRun(t, "load", "--ceiling", "--clients", "4", "--tasks", "200", "--duration", "0",
		"--json", js, "--svg", svg)
	if code != exitOK || !strings.Contains(out, "tasks/s") || !strings.Contains(out, "tools/call") {
		t.Fatalf("storecheck load --ceiling: exit %d, stdout:\n%s\nstderr %q; want exit 0 and the table", code, out, errOut)
	}
	var r struct {
		Tasks int64 `json:"tasks"`
	}
	if b, err := os.ReadFile(js); err != nil || json.Unmarshal(b, &r) != nil || r.Tasks != 200 {
		t.Errorf("--json %s: %d tasks (%v); want the 200 tasks made", js, r.Tasks, err)
	}
	if b, err := os.ReadFile(svg); err != nil || !strings.HasPrefix(string(b), "<svg") || !strings.Contains(string(b), "<polyline") {
		t.Errorf("--svg %s: %v, %.80q; want an SVG plot with the p99 line", svg, err, b)
	}
}

// TestLoadUsageErrors: a load without a server, a bound or callers is a usage error.
func TestLoadUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"load"}, "give the server's URL"},
		{[]string{"load", "--duration", "0", "http://127.0.0.1:1/mcp"}, "bound the run"},
		{[]string{"load", "--no-anonymous", "http://127.0.0.1:1/mcp"}, "give principals"},
		{[]string{"load", "--era", "future", "http://127.0.0.1:1/mcp"}, `--era "future"`},
	} {
		code, _, errOut := cliRun(t, c.args...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("storecheck %q: exit %d, stderr %q; want exit 2 and a message containing %q", c.args, code, errOut, c.want)
		}
	}
}
