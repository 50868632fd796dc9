package cli

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storecheck/storecheck/load"
	"github.com/storecheck/storecheck/schema/schematest"
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
	schematest.CheckFile(t, js)
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

// TestLoadCompareUsageErrors: subjects named wrongly are usage errors (exit 2) with a
// message that says what is wrong.
func TestLoadCompareUsageErrors(t *testing.T) {
	dir := t.TempDir()
	file := func(body string) string {
		p := filepath.Join(dir, fmt.Sprintf("s%d.json", len(body)))
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	u := `"urls": ["http://127.0.0.1:1/mcp"]`
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--compare", file(`[{"name": "a", ` + u + `, "port": 1}, {"name": "b", ` + u + `}]`)}, `unknown field "port"`},
		{[]string{"--compare", file(`[{"name": "", ` + u + `}, {"name": "b", ` + u + `}]`)}, "a subject without a name"},
		{[]string{"--compare", file(`[{"name": "a", ` + u + `}, {"name": "a", ` + u + ` }]`)}, `subject "a" is named twice`},
		{[]string{"--compare", file(`[{"name": "a", ` + u + `, "exec": "s {port}"}, {"name": "b", ` + u + `}]`)}, "both URLs and a command"},
		{[]string{"--compare", filepath.Join(dir, "none.json")}, "--compare: open"},
		{[]string{"--subject", "a=http://127.0.0.1:1/mcp", "--subject", "a=http://127.0.0.1:2/mcp"}, `subject "a" is named twice`},
		{[]string{"--subject", "=http://127.0.0.1:1/mcp"}, "a subject without a name"},
		{[]string{"--subject", "a=http://127.0.0.1:1/mcp"}, "a comparison needs two or more"},
		{[]string{"--subject", "a=http://127.0.0.1:1/mcp", "--subject", "b=http://127.0.0.1:2/mcp", "http://127.0.0.1:3/mcp"}, "give no URL"},
		{[]string{"--subject", "a=http://127.0.0.1:1/mcp", "--compare", file(`[]`)}, "give one"},
		{[]string{"--subject", "a=http://127.0.0.1:1/mcp", "--vs", "http://127.0.0.1:2/mcp", "http://127.0.0.1:3/mcp"}, "--vs compares"},
		{[]string{"--ceiling", "--vs", "http://127.0.0.1:2/mcp"}, "--ceiling loads the stub alone"},
	} {
		code, out, errOut := cliRun(t, append([]string{"load"}, c.args...)...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("storecheck load %q: exit %d, stderr %q, stdout %.200q; want exit 2 and a message containing %q", c.args, code, errOut, out, c.want)
		}
	}
}

// TestLoadCompare: --subject runs the same load against each subject in turn and
// prints one table with a column each; a subject nobody listens on is named
// unreachable and fails the run while the others still run; --json has every subject's
// result and --svg plots them together.
func TestLoadCompare(t *testing.T) {
	one, two := httptest.NewServer(load.Stub()), httptest.NewServer(load.Stub())
	defer one.Close()
	defer two.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := "http://" + ln.Addr().String() + "/mcp"
	ln.Close()
	dir := t.TempDir()
	js, svg := filepath.Join(dir, "c.json"), filepath.Join(dir, "c.svg")
	// quick rounds only: the stub isolates nobody, and the reaches would be violations.
	code, out, errOut := cliRun(t, "load", "--clients", "4", "--tasks", "60", "--duration", "0", "--mix", "quick=1",
		"--principal", "alice=ta", "--principal", "bob=tb", "--subject", "one="+one.URL+"/mcp", "--subject", "gone="+gone,
		"--subject", "two="+two.URL+"/mcp", "--json", js, "--svg", svg)
	for _, want := range []string{"figure     one", "gone", "two", "unreachable", "(N×) is how far one is ahead", "tools/call p50 ms"} {
		if !strings.Contains(out, want) {
			t.Errorf("storecheck load --subject one --subject gone --subject two: stdout lacks %q:\n%s", want, out)
		}
	}
	if code != exitFailed {
		t.Errorf("storecheck load with an unreachable subject: exit %d (stderr %q); want 1", code, errOut)
	}
	var c struct {
		Subjects []struct {
			Name    string `json:"name"`
			Verdict string `json:"verdict"`
			Result  *struct {
				Tasks int64 `json:"tasks"`
			} `json:"result"`
		} `json:"subjects"`
	}
	if b, err := os.ReadFile(js); err != nil || json.Unmarshal(b, &c) != nil || len(c.Subjects) != 3 ||
		c.Subjects[0].Result == nil || c.Subjects[0].Result.Tasks != 60 || c.Subjects[1].Verdict != "unreachable" || c.Subjects[2].Verdict != "passed" {
		t.Errorf("--json %s: %+v (%v); want the three subjects, one and two passed with 60 tasks each, gone unreachable", js, c, err)
	}
	schematest.CheckFile(t, js)
	if b, err := os.ReadFile(svg); err != nil || strings.Count(string(b), "<polyline") != 2 || !strings.Contains(string(b), "gone: unreachable") {
		t.Errorf("--svg %s: %v, %.200q; want a line for each subject run and gone named unreachable", svg, err, b)
	}
}
