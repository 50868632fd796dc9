package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/reporters"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/schema/schematest"
)

// childEnv makes the test binary act as storecheck itself: a run executes the battery,
// which Ginkgo allows once per process, so each run test starts its own process.
const childEnv = "STORECHECK_TEST_AS_CLI"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "1":
		os.Exit(Run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	case "own-store":
		os.Exit(Run(context.Background(), os.Args[1:], os.Stdout, os.Stderr, WithHarness(ownStore())))
	}
	os.Exit(m.Run())
}

// A test-only adapter (this file is not part of the binary): a harness that cannot open,
// to see bring-up fail. A failing store is the product's own mutant:NAME adapter.
func init() {
	addAdapter(adapter{
		name:    "test-unopenable",
		summary: "test only: a harness whose Open fails",
		open: func(context.Context, string) (harness.Harness, func(), error) {
			return unopenable{}, nil, nil
		},
	})
}

type unopenable struct{}

func (unopenable) Name() string { return "unopenable" }
func (unopenable) Capabilities() harness.Capabilities {
	return harness.Capabilities{Legacy: true, Modern: true}
}
func (unopenable) Open(context.Context, reference.Clock) (harness.Namespace, error) {
	return nil, errors.New("connection refused")
}

// cliRun runs storecheck in this process; only for commands that do not run the battery.
func cliRun(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Run(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// cliProcess runs storecheck as a child process.
func cliProcess(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatalf("storecheck %q did not run: %v", args, err)
	}
	return code, out.String(), errOut.String()
}

func TestListNamesEveryRule(t *testing.T) {
	code, out, errOut := cliRun(t, "list")
	if code != exitOK {
		t.Fatalf("storecheck list: exit %d, stderr %q", code, errOut)
	}
	lines := strings.Split(out, "\n")
	for _, r := range conformance.Rules() {
		found := false
		for _, l := range lines {
			f := strings.Fields(l)
			if len(f) >= 3 && f[0] == r.ID && f[1] == strings.ToUpper(string(r.Level)) && strings.Contains(l, r.Text) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("storecheck list has no line %q with level %s and its text", r.ID, r.Level)
		}
	}
	if !strings.Contains(out, "battery self-check") {
		t.Errorf("storecheck list does not mark the B-* rules as battery self-checks:\n%s", out)
	}

	code, out, _ = cliRun(t, "list", "--json")
	var rules []conformance.Rule
	if err := json.Unmarshal([]byte(out), &rules); code != exitOK || err != nil || len(rules) != len(conformance.Rules()) {
		t.Errorf("storecheck list --json: exit %d, decode error %v, %d rules; want 0, nil, %d", code, err, len(rules), len(conformance.Rules()))
	}
	code, out, _ = cliRun(t, "list", "--era", "battery")
	if code != exitOK || !strings.Contains(out, "B-POWER-1") || strings.Contains(out, "L-LIST-2") {
		t.Errorf("storecheck list --era battery: exit %d, output:\n%s", code, out)
	}
}

func TestListRulePrintsFullText(t *testing.T) {
	code, out, errOut := cliRun(t, "list", "--rule", "L-LIST-4")
	// The rule's last sentence is in docs/spec.md only, not in the one-line summary.
	if code != exitOK || !strings.Contains(out, "L-LIST-4") || !strings.Contains(strings.Join(strings.Fields(out), " "), "starves the caller of its own rows and is a failure.") {
		t.Errorf("storecheck list --rule L-LIST-4: exit %d, stdout:\n%s\nstderr %q", code, out, errOut)
	}
	code, _, errOut = cliRun(t, "list", "--rule", "L-LIST-99")
	if code != exitUsage || !strings.Contains(errOut, "L-LIST-99") {
		t.Errorf("storecheck list --rule L-LIST-99: exit %d, stderr %q; want %d naming the ID", code, errOut, exitUsage)
	}
}

func TestUsageErrorsExit2(t *testing.T) {
	cases := []struct {
		args []string
		want string // in stderr
	}{
		{[]string{"run", "--adapter", "nope"}, `unknown adapter "nope"`},
		{[]string{"run", "--adapter", "memstore:x"}, "takes no argument"},
		{[]string{"run", "--adapter", "mutant"}, "needs an argument"},
		{[]string{"run", "--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"run", "stray"}, `unexpected argument "stray"`},
		{[]string{"run", "--era", "future"}, `--era "future"`},
		{[]string{"run", "--checks", "-1"}, "--checks -1"},
		{[]string{"run", "--rules", "X-NOPE-1"}, `unknown rule "X-NOPE-1"`},
		{[]string{"run", "--era", "legacy", "--rules", "M-GET-1"}, "modern era"},
		{[]string{"run", "--rules", "B-POWER-1"}, "battery on itself"},
		{[]string{"run", "--label", "((must"}, "label filter"},
		{[]string{"run", "--focus", "("}, "focus"},
		{[]string{"run", "--adapter", "mutant:no-such-mutant"}, "bring-up of adapter mutant:no-such-mutant failed: no mutant"},
		{[]string{"run", "--adapter", "test-unopenable"}, "connection refused"},
		{[]string{"run", "--json", filepath.Join(t.TempDir(), "missing-dir", "r.json")}, "cannot write the report"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"help", "frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"list", "--era", "future"}, `--era "future"`},
	}
	for _, c := range cases {
		code, _, errOut := cliRun(t, c.args...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("storecheck %q: exit %d, stderr %q; want exit 2 and a message containing %q", c.args, code, errOut, c.want)
		}
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}} {
		code, out, _ := cliRun(t, args...)
		if code != exitOK || !strings.Contains(out, "run ") || !strings.Contains(out, "list ") ||
			!strings.Contains(out, "memstore") || !strings.Contains(out, "Exit status") {
			t.Errorf("storecheck %q: exit %d, output lacks the commands, adapters or exit statuses:\n%s", args, code, out)
		}
	}
	for _, args := range [][]string{{"run", "--help"}, {"help", "run"}} {
		code, out, _ := cliRun(t, args...)
		for _, flag := range []string{"-adapter", "-era", "-rules", "-label", "-strict", "-junit", "-json", "-seed", "-checks", "-goroutines", "-ops", "-timeout", "Exit status"} {
			if code != exitOK || !strings.Contains(out, flag) {
				t.Errorf("storecheck %q: exit %d, output lacks %q:\n%s", args, code, flag, out)
			}
		}
	}
}

func TestRunMemstoreWritesReports(t *testing.T) {
	dir := t.TempDir()
	jsonPath, junitPath := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.xml")
	code, out, errOut := cliProcess(t, "run", "--era", "legacy", "--rules", "L-LIST-2", "--seed", "42", "--json", jsonPath, "--junit", junitPath)
	if code != exitOK {
		t.Fatalf("storecheck run against memstore: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "L-LIST-2") || !strings.Contains(out, "PASS") || !strings.Contains(out, "seed 42") {
		t.Errorf("summary lacks L-LIST-2, PASS or the seed:\n%s", out)
	}
	if errOut != "" {
		t.Errorf("stderr is not a terminal, yet storecheck wrote to it: %q", errOut)
	}

	schematest.CheckFile(t, jsonPath)
	report, err := readReport(jsonPath)
	if err != nil {
		t.Fatalf("JSON report: %v", err)
	}
	rr, ok := report.Rule("L-LIST-2", conformance.EraLegacy)
	if !ok || rr.Outcome != conformance.Passed || len(rr.Specs) == 0 || report.Seed != 42 || report.Store != "memstore" {
		t.Errorf("JSON report: L-LIST-2 = %+v (found %v), seed %d, store %q; want passed with specs, 42, memstore", rr, ok, report.Seed, report.Store)
	}
	if len(report.Rules) != 1 {
		t.Errorf("JSON report has %d rule results, want only L-LIST-2: %+v", len(report.Rules), report.Rules)
	}

	data, err := os.ReadFile(junitPath)
	if err != nil {
		t.Fatal(err)
	}
	var suites reporters.JUnitTestSuites
	if err := xml.Unmarshal(data, &suites); err != nil {
		t.Fatalf("JUnit report is not valid XML: %v\n%s", err, data)
	}
	if len(suites.TestSuites) != 1 || suites.Tests == 0 || suites.Failures != 0 {
		t.Fatalf("JUnit report: %d testsuites, %d tests, %d failures; want 1, >0, 0\n%s", len(suites.TestSuites), suites.Tests, suites.Failures, data)
	}
	for _, tc := range suites.TestSuites[0].TestCases {
		if !strings.Contains(tc.Name, "[L-LIST-2]") {
			t.Errorf("JUnit testcase %q is not an L-LIST-2 spec", tc.Name)
		}
	}
}

func TestRunFailingStoreExits1(t *testing.T) {
	// status-prefix matches the List status filter by prefix: it breaks L-LIST-1.
	code, out, errOut := cliProcess(t, "--adapter", "mutant:status-prefix", "--era", "legacy", "--rules", "L-LIST-1,L-GET-1")
	if code != exitFailed {
		t.Fatalf("storecheck run against a store breaking L-LIST-1: exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{"L-LIST-1", "FAILED", "Failures (1 specs):", "L-GET-1", "passed", "FAIL: store rules 1 passed, 1 failed", "Every message in full"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}

func TestProgress(t *testing.T) {
	var b bytes.Buffer
	start := time.Unix(1000, 0)
	clock := start
	p := &progress{w: &b, started: start, now: func() time.Time { return clock }}
	for _, ev := range []conformance.SpecEvent{
		{Era: conformance.EraLegacy, Area: "list", Outcome: conformance.Passed},
		{Era: conformance.EraLegacy, Area: "list", Outcome: conformance.Failed},
		{Era: conformance.EraLegacy, Area: "list", Outcome: conformance.Skipped},
		{Era: conformance.EraModern, Area: "swap", Outcome: conformance.Warned},
	} {
		clock = clock.Add(1500 * time.Millisecond)
		p.spec(ev)
	}
	clock = clock.Add(time.Second)
	p.done()
	// Each area's line ends with its own time and the time since the start: legacy/list
	// ran until the first modern spec, 6 s in.
	want := "legacy/list            .FS  6s (at 6s)\nmodern/swap            W  1s (at 7s)\n\n"
	if b.String() != want {
		t.Errorf("progress drew %q, want %q", b.String(), want)
	}
}

func TestListRulePrintsWhereItsSpecsLive(t *testing.T) {
	code, out, errOut := cliRun(t, "list", "--rule", "L-LIST-1")
	if code != exitOK || !strings.Contains(out, "conformance/legacyspecs/") || !strings.Contains(out, "[legacy era]") {
		t.Errorf("storecheck list --rule L-LIST-1: exit %d, stdout:\n%s\nstderr %q; want its spec sites", code, out, errOut)
	}
	code, out, _ = cliRun(t, "list", "--rule", "F-OUTAGE-1")
	if code != exitOK || !strings.Contains(out, "conformance/faults") {
		t.Errorf("storecheck list --rule F-OUTAGE-1: stdout:\n%s\nwant it to say conformance/faults checks it", out)
	}
}
