package cli

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storecheck/storecheck/schema/schematest"
)

var updateReportGolden = flag.Bool("update-report", false, "rewrite testdata/report/*.md and *.txt from storecheck report's output")

// TestReportGolden: storecheck report renders each report of testdata/report (a failed
// run, a failed probe with a setup refused, a run that exercised nothing) as its golden
// Markdown and plain text say; the reports themselves conform to their schema.
func TestReportGolden(t *testing.T) {
	inputs, _ := filepath.Glob(filepath.Join("testdata", "report", "*.json"))
	if len(inputs) == 0 {
		t.Fatal("no report in testdata/report")
	}
	for _, in := range inputs {
		schematest.CheckFile(t, in)
		for _, form := range []struct {
			ext  string
			args []string
		}{{".md", []string{"report", in, "--markdown"}}, {".txt", []string{"report", in}}} {
			code, out, errOut := cliRun(t, form.args...)
			if code != exitOK {
				t.Errorf("storecheck %s: exit %d, want 0; stderr %q", strings.Join(form.args, " "), code, errOut)
				continue
			}
			golden := strings.TrimSuffix(in, ".json") + form.ext
			if *updateReportGolden {
				if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./cli -run TestReportGolden -update-report writes it)", err)
			}
			if out != string(want) {
				t.Errorf("storecheck %s differs from %s (-update-report rewrites it after a change meant):\ngot:\n%s\nwant:\n%s",
					strings.Join(form.args, " "), golden, out, want)
			}
		}
	}
}

// TestReportMarkdownPutsFailuresFirst: in the Markdown of a failed run the failed rule,
// with its input, expectation and what came back, comes before the table of the rest.
func TestReportMarkdownPutsFailuresFirst(t *testing.T) {
	_, out, _ := cliRun(t, "report", "--markdown", filepath.Join("testdata", "report", "run-failed.json"))
	failed := strings.Index(out, "#### L-LIST-1 · MUST · legacy era · FAILED")
	table := strings.Index(out, "| L-GET-1 | store | MUST | legacy | passed |")
	for _, want := range []string{"## storecheck FAIL: mutant status-prefix", "| Verdict | **FAIL** · store rules 2 passed, 1 failed |",
		"| Seed | 5 ", "v0.9.0 0123456789ab modified", "input:    List(", "expected: ", "got:      "} {
		if !strings.Contains(out, want) {
			t.Errorf("storecheck report --markdown of a failed run lacks %q:\n%s", want, out)
		}
	}
	if failed < 0 || table < 0 || failed > table {
		t.Errorf("storecheck report --markdown: the failed rule at %d, the passed one's row at %d; want the failure first:\n%s", failed, table, out)
	}
}

// TestReportBadInput: what is not a report storecheck reads is exit 2 with the reason on
// stderr: a missing file, not JSON, JSON that is not an object, no schema, an unknown
// schema version, a report of another kind; so are no file and two files.
func TestReportBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{filepath.Join(dir, "missing.json")}, "no such file"},
		{[]string{write("text.json", "PASS: store rules 3 passed")}, "not a storecheck JSON report: not JSON"},
		{[]string{write("array.json", "[1, 2]")}, "not a storecheck JSON report: JSON, but not an object"},
		{[]string{write("old.json", `{"store": "memstore", "rules": []}`)}, "it names no schema"},
		{[]string{write("v2.json", `{"schema": "https://storecheck.dev/schema/report/v2.json"}`)}, `schema "https://storecheck.dev/schema/report/v2.json"`},
		{[]string{write("faults.json", `{"schema": "https://storecheck.dev/schema/faults/v1.json"}`)}, "the schema of another kind of report"},
		{nil, "want one report file, got 0"},
		{[]string{"a.json", "b.json", "--markdown"}, "want one report file, got 2"},
	} {
		code, out, errOut := cliRun(t, append([]string{"report"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) || out != "" {
			t.Errorf("storecheck report %q: exit %d, stderr %q, stdout %q; want exit 2, nothing on stdout and stderr saying %q", tc.args, code, errOut, out, tc.want)
		}
	}
}
