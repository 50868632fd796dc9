package conformance

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/conformance/ginkgoreport"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/conformance/report"
)

// RunLegacy runs the legacy-era battery against h from a Go test:
//
//	func TestLegacy(t *testing.T) { conformance.RunLegacy(t, myHarness) }
func RunLegacy(t *testing.T, h harness.Harness, opts ...battery.Options) {
	t.Helper()
	runEras(t, h, []Era{EraLegacy}, opts)
}

// RunModern runs the modern-era battery against h from a Go test.
func RunModern(t *testing.T, h harness.Harness, opts ...battery.Options) {
	t.Helper()
	runEras(t, h, []Era{EraModern}, opts)
}

// RunSDK runs the SDK task-store profile's battery (docs/spec.md section 6) against h.
func RunSDK(t *testing.T, h harness.Harness, opts ...battery.Options) {
	t.Helper()
	runEras(t, h, []Era{EraSDK}, opts)
}

// Run runs the battery of every era h declares (the SDK profile included). At most one Options may be given; the
// -storecheck.* test flags and STORECHECK_* variables override its fields (gotest.go).
// The per-rule summary, headed by what was detected of the store, is logged at the
// caller's line when the run fails, and with go test -v always.
func Run(t *testing.T, h harness.Harness, opts ...battery.Options) {
	t.Helper()
	var eras []Era
	caps := h.Capabilities()
	if caps.Legacy {
		eras = append(eras, EraLegacy)
	}
	if caps.Modern {
		eras = append(eras, EraModern)
	}
	if caps.SDK {
		eras = append(eras, EraSDK)
	}
	if len(eras) == 0 {
		t.Fatalf("storecheck: harness %s declares no era", h.Name())
	}
	runEras(t, h, eras, opts)
}

// reexecEnv marks a child test process started by runEras.
const reexecEnv = "STORECHECK_CONFORMANCE_CHILD"

var ranInProcess bool

// runEras runs the battery once in this process. Ginkgo allows RunSpecs only once per
// process, so a second Run* call in the same test binary (RunLegacy in one test,
// RunModern in another) re-executes the test binary for just that test, where it is the
// first call again.
func runEras(t *testing.T, h harness.Harness, eras []Era, opts []battery.Options) {
	t.Helper()
	if ranInProcess {
		reexec(t)
		return
	}
	ranInProcess = true
	o, fromCommandLine, err := goTestOptionsFrom(opts)
	if err != nil {
		t.Fatalf("storecheck: %v", err)
	}
	// Report files named for the whole binary: one per configuration when the binary
	// runs several (subtests, re-executed Runs), rather than the last one's only.
	several := strings.Contains(t.Name(), "/") || os.Getenv(reexecEnv) != ""
	o.JSON = perTestReportPath(o.JSON, t.Name(), several && fromCommandLine["json"])
	o.JUnit = perTestReportPath(o.JUnit, t.Name(), several && fromCommandLine["junit"])
	if o.Seed == 0 {
		o.Seed = battery.SeedOrEnv() // $STORECHECK_SEED, else new; picked here so that the summary can print it (B-REPRO-1)
	}
	suiteConfig, reporterConfig := ginkgo.GinkgoConfiguration()
	filter, err := ruleFilter(o.Rules, suiteConfig.LabelFilter, eras)
	if err != nil {
		t.Fatalf("storecheck: %v", err)
	}
	sel, err := ginkgoreport.NewSelection(eras, filter, suiteConfig.FocusStrings)
	if err != nil {
		t.Fatalf("storecheck: %v: %v", ErrSelection, err)
	}
	suiteConfig.LabelFilter = filter
	// Colour codes only where they are drawn: go test's output is mostly a pipe or a file.
	reporterConfig.NoColor = reporterConfig.NoColor || !isTerminal(os.Stdout)
	detected, err := Detect(t.Context(), h)
	if err != nil {
		t.Fatalf("storecheck: %v", err)
	}
	defer battery.StartArtifacts(o.Artifacts)()

	gomega.RegisterFailHandler(ginkgo.Fail)
	captured := captureReport()
	for _, era := range eras {
		describe(h, era, []battery.Options{o})
	}
	var names []string
	for _, e := range eras {
		names = append(names, string(e))
	}
	started := time.Now()
	passed := ginkgo.RunSpecs(t, "storecheck battery: "+h.Name()+" ("+strings.Join(names, ", ")+")", suiteConfig, reporterConfig)
	meta := report.Report{Store: h.Name(), Eras: eras, Seed: o.Seed, Strict: o.Strict, Focus: suiteConfig.FocusStrings,
		Started: started, Duration: time.Since(started)}
	if captured.SuiteDescription == "" {
		t.Errorf("storecheck: Ginkgo ran no ReportAfterSuite: no report")
		return
	}
	report := ginkgoreport.BuildReport(meta, *captured, sel)
	if passed && !report.OK() {
		// Ginkgo sees aborted, setup-refused and (under Strict) partly verified specs as
		// skipped or passed; the report does not, and neither does the test.
		t.Errorf("storecheck: the run does not pass: %s", report.ClosingCounts())
		passed = false
	}
	if !passed || testing.Verbose() {
		var b strings.Builder
		if err := report.Summary(&b); err == nil {
			t.Log("storecheck summary:\n" + detected.String() + "\n" + b.String())
		}
	}
	for _, out := range []struct {
		path  string
		write func(io.Writer) error
	}{{o.JSON, report.JSON}, {o.JUnit, report.JUnit}} {
		if out.path == "" {
			continue
		}
		if err := writeReportFile(out.path, out.write); err != nil {
			t.Errorf("storecheck: %v", err)
		}
	}
}

// writeReportFile writes one report file, whole or not at all.
func writeReportFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("cannot write the report: %w", err)
	}
	if err := errors.Join(write(f), f.Close()); err != nil {
		os.Remove(path)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// isTerminal reports whether f is a terminal (a character device).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func reexec(t *testing.T) {
	t.Helper()
	if os.Getenv(reexecEnv) != "" {
		t.Fatalf("storecheck: more than one conformance Run call in test %s; use conformance.Run for several eras", t.Name())
	}
	args := []string{"-test.run=^" + regexp.QuoteMeta(t.Name()) + "$"}
	given := os.Args[1:]
	for i := 0; i < len(given); i++ {
		a := given[i]
		name := strings.TrimLeft(a, "-")
		if !strings.HasPrefix(name, "test.v") && !strings.HasPrefix(name, "ginkgo.") && !strings.HasPrefix(name, "test.timeout") && !strings.HasPrefix(name, "storecheck.") {
			continue
		}
		args = append(args, a)
		// "-flag value": the value goes too, unless the flag is a boolean.
		if f := flag.CommandLine.Lookup(name); f != nil && !strings.Contains(name, "=") && i+1 < len(given) {
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || !b.IsBoolFlag() {
				i++
				args = append(args, given[i])
			}
		}
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), reexecEnv+"=1")
	out, err := cmd.CombinedOutput()
	t.Logf("battery output (child process):\n%s", out)
	if err != nil {
		t.Fatalf("storecheck: battery failed in child process: %v", err)
	}
}
