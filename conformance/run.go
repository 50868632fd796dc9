package conformance

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"

	"github.com/storecheck/storecheck/conformance/harness"
)

// RunLegacy runs the legacy-era battery against h from a Go test:
//
//	func TestLegacy(t *testing.T) { conformance.RunLegacy(t, myHarness) }
func RunLegacy(t *testing.T, h harness.Harness, opts ...Options) {
	runEras(t, h, []Era{EraLegacy}, opts)
}

// RunModern runs the modern-era battery against h from a Go test.
func RunModern(t *testing.T, h harness.Harness, opts ...Options) {
	runEras(t, h, []Era{EraModern}, opts)
}

// Run runs the battery of every era h declares.
func Run(t *testing.T, h harness.Harness, opts ...Options) {
	var eras []Era
	caps := h.Capabilities()
	if caps.Legacy {
		eras = append(eras, EraLegacy)
	}
	if caps.Modern {
		eras = append(eras, EraModern)
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
func runEras(t *testing.T, h harness.Harness, eras []Era, opts []Options) {
	t.Helper()
	if ranInProcess {
		reexec(t)
		return
	}
	ranInProcess = true
	gomega.RegisterFailHandler(ginkgo.Fail)
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.Seed == 0 {
		o.Seed = seedOrEnv() // $STORECHECK_SEED, else new; picked here so that the summary can print it (B-REPRO-1)
	}
	captured := captureReport()
	for _, era := range eras {
		describe(h, era, []Options{o})
	}
	suiteConfig, reporterConfig := ginkgo.GinkgoConfiguration()
	var names []string
	for _, e := range eras {
		names = append(names, string(e))
	}
	started := time.Now()
	if !ginkgo.RunSpecs(t, "storecheck battery: "+h.Name()+" ("+strings.Join(names, ", ")+")", suiteConfig, reporterConfig) {
		logSummary(t, Report{Store: h.Name(), Eras: eras, Seed: o.Seed, Strict: o.Strict, Started: started, Duration: time.Since(started)},
			*captured, suiteConfig.LabelFilter, suiteConfig.FocusStrings)
	}
}

// logSummary logs the per-rule table of a failed run, which Ginkgo's own output (one
// block per spec) does not give.
func logSummary(t *testing.T, meta Report, tr types.Report, filter string, focus []string) {
	t.Helper()
	sel, err := newSelection(meta.Eras, filter, focus)
	if err != nil {
		return // Ginkgo has already refused the filter
	}
	var b strings.Builder
	if err := buildReport(meta, tr, sel).Summary(&b); err == nil {
		t.Log("storecheck summary:\n" + b.String())
	}
}

func reexec(t *testing.T) {
	t.Helper()
	if os.Getenv(reexecEnv) != "" {
		t.Fatalf("storecheck: more than one conformance Run call in test %s; use conformance.Run for several eras", t.Name())
	}
	args := []string{"-test.run=^" + regexp.QuoteMeta(t.Name()) + "$"}
	for _, a := range os.Args[1:] {
		if strings.HasPrefix(a, "-test.v") || strings.HasPrefix(a, "-ginkgo.") || strings.HasPrefix(a, "-test.timeout") {
			args = append(args, a)
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
