package conformance

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/formatter"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"
	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/conformance/ginkgoreport"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/conformance/report"
	"github.com/storecheck/storecheck/conformance/rules"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/sdk"
)

// ExecConfig says what Execute runs. The zero value runs every era the harness
// declares, every rule, with default Options.
type ExecConfig struct {
	// Eras to run; nil runs every era the harness declares. Asking for an era the
	// harness does not declare is an error.
	Eras []Era
	// Options tune the specs (Strict, Seed, Budget, SpecTimeout). Seed 0 picks one,
	// which the Report carries.
	Options battery.Options
	// Rules selects rules by ID. LabelFilter selects by a Ginkgo label expression over
	// the labels every spec carries: its rule ID, "must" or "should", "legacy" or
	// "modern", and "area:NAME" (e.g. "S-OWN-1 || area:list"). With both, a spec must
	// match both. Neither selects every rule.
	Rules       []string
	LabelFilter string
	// FocusStrings, when set, run only the specs whose text matches one of these
	// regular expressions.
	FocusStrings []string
	// Progress, when set, is called after each spec that ran, in the order they ran.
	Progress func(SpecEvent)
	// Timeout bounds the whole run; 0 means one hour. Each spec is bounded by
	// Options.SpecTimeout.
	Timeout time.Duration
	// Context bounds the bring-up check made before the run; nil means
	// context.Background(). (The signature of Execute predates it; the specs themselves
	// are bounded by the timeouts above and stopped by SIGINT.)
	Context context.Context
}

// SpecEvent reports one spec that has just finished.
type SpecEvent struct {
	Era     Era
	Area    string
	RuleID  string
	Name    string
	Outcome report.Outcome
	Message string
}

var (
	// ErrAlreadyRan is returned by a second Execute (or an Execute after Run*) in one
	// process: Ginkgo runs specs once per process.
	ErrAlreadyRan = errors.New("conformance: the battery already ran in this process (Ginkgo runs specs once per process; start a new process)")
	// ErrBringUp wraps a harness that failed to open a namespace or a store before the
	// run started.
	ErrBringUp = errors.New("bring-up failed")
	// ErrSelection wraps a bad selection: an unknown era, rule ID, label expression or
	// focus expression.
	ErrSelection = errors.New("bad selection")
)

// Execute runs the battery against h in this process and returns its report, for
// programs (the storecheck CLI) rather than `go test`: it runs Ginkgo with a testing
// stand-in and its own configuration, silences Ginkgo's console output, and reports
// progress through cfg.Progress.
//
// Ginkgo can run specs only once per process, so Execute can be called once per
// process, and not in a process that also calls Run, RunLegacy or RunModern; a second
// call returns ErrAlreadyRan.
//
// An error means the run could not start (a bad selection, ErrBringUp); a run whose
// rules fail is not an error: see Report.OK.
func Execute(h harness.Harness, cfg ExecConfig) (*report.Report, error) {
	if h == nil {
		return nil, errors.New("conformance: Execute: nil harness")
	}
	eras, err := selectEras(h, cfg.Eras)
	if err != nil {
		return nil, err
	}
	filter, err := ruleFilter(append(slices.Clip(cfg.Rules), cfg.Options.Rules...), cfg.LabelFilter, eras)
	if err != nil {
		return nil, err
	}
	sel, err := ginkgoreport.NewSelection(eras, filter, cfg.FocusStrings)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSelection, err)
	}
	if ranInProcess {
		return nil, ErrAlreadyRan
	}
	opts := cfg.Options
	if opts.Seed == 0 {
		opts.Seed = battery.NewSeed()
	}
	ctx := cfg.Context
	if ctx == nil {
		ctx = context.Background()
	}
	if err := bringUp(ctx, h, eras); err != nil {
		return nil, err
	}
	ranInProcess = true
	defer battery.StartArtifacts(opts.Artifacts)()

	gomega.RegisterFailHandler(ginkgo.Fail)
	captured := captureReport()
	describeBattery(h, eras, opts, sel, cfg.Progress)
	suiteConfig, reporterConfig := ginkgoConfig(filter, cfg.FocusStrings, opts.Seed, cfg.Timeout)

	// Ginkgo's default reporter writes to formatter.ColorableStdOut, read when RunSpecs
	// starts; the caller gets the Report instead.
	stdout := formatter.ColorableStdOut
	formatter.ColorableStdOut = io.Discard
	defer func() { formatter.ColorableStdOut = stdout }()

	var names []string
	for _, e := range eras {
		names = append(names, string(e))
	}
	started := time.Now()
	ginkgo.RunSpecs(&standInT{}, "storecheck battery: "+h.Name()+" ("+strings.Join(names, ", ")+")", suiteConfig, reporterConfig)
	meta := report.Report{Store: h.Name(), Eras: eras, Seed: opts.Seed, Strict: opts.Strict, Focus: cfg.FocusStrings,
		Started: started, Duration: time.Since(started)}
	if captured.SuiteDescription == "" {
		return nil, errors.New("conformance: Ginkgo ran no ReportAfterSuite: no report")
	}
	report := ginkgoreport.BuildReport(meta, *captured, sel)
	// Options.JSON and JUnit are honoured here too, so that Options mean one thing.
	for _, out := range []struct {
		path  string
		write func(io.Writer) error
	}{{opts.JSON, report.JSON}, {opts.JUnit, report.JUnit}} {
		if out.path != "" {
			if err := writeReportFile(out.path, out.write); err != nil {
				return report, err
			}
		}
	}
	return report, nil
}

// describeBattery registers the battery of each era under one Describe, and, given
// progress, a report of each spec the selection ran as it ends.
func describeBattery(h harness.Harness, eras []Era, opts battery.Options, sel ginkgoreport.Selection, progress func(SpecEvent)) {
	ginkgo.Describe("storecheck", func() {
		if progress != nil {
			ginkgo.ReportAfterEach(func(sr ginkgo.SpecReport) {
				if !sel.Ran(sr) {
					return
				}
				s := ginkgoreport.SpecResult(sr)
				progress(SpecEvent{Era: s.Era, Area: s.Area, RuleID: s.RuleID, Name: s.Name, Outcome: s.Outcome, Message: s.Message})
			})
		}
		for _, era := range eras {
			describe(h, era, []battery.Options{opts})
		}
	})
}

// ginkgoConfig is the suite's configuration: the label filter and focus that select the
// specs, the seed, and the run's time limit (none when timeout is 0); the reporter
// writes without colour.
func ginkgoConfig(filter string, focus []string, seed int64, timeout time.Duration) (types.SuiteConfig, types.ReporterConfig) {
	suiteConfig := types.NewDefaultSuiteConfig()
	suiteConfig.LabelFilter = filter
	suiteConfig.FocusStrings = focus
	suiteConfig.RandomSeed = seed
	if timeout > 0 {
		suiteConfig.Timeout = timeout
	}
	reporterConfig := types.NewDefaultReporterConfig()
	reporterConfig.NoColor = true
	return suiteConfig, reporterConfig
}

// standInT is the testing.T stand-in RunSpecs needs; the Report says what failed.
type standInT struct{ failed bool }

func (t *standInT) Fail() { t.failed = true }

// captureReport registers a ReportAfterSuite that copies Ginkgo's report of the run.
func captureReport() *types.Report {
	var r types.Report
	ginkgo.ReportAfterSuite("storecheck report", func(report ginkgo.Report) { r = report })
	return &r
}

// allEras are the contracts a store may declare, in the order runs take them.
var allEras = []Era{EraLegacy, EraModern, EraSDK}

func selectEras(h harness.Harness, asked []Era) ([]Era, error) {
	caps := h.Capabilities()
	declared := map[Era]bool{EraLegacy: caps.Legacy, EraModern: caps.Modern, EraSDK: caps.SDK}
	if len(asked) == 0 {
		var eras []Era
		for _, e := range allEras {
			if declared[e] {
				eras = append(eras, e)
			}
		}
		if len(eras) == 0 {
			return nil, fmt.Errorf("%w: harness %s declares no era", ErrSelection, h.Name())
		}
		return eras, nil
	}
	var eras []Era
	for _, e := range allEras { // legacy first, whatever the order asked
		for _, a := range asked {
			if a == e && !slices.Contains(eras, e) {
				eras = append(eras, e)
			}
		}
	}
	for _, a := range asked {
		if !slices.Contains(allEras, a) {
			return nil, fmt.Errorf("%w: unknown era %q (want %q, %q or %q)", ErrSelection, a, EraLegacy, EraModern, EraSDK)
		}
		if !declared[a] {
			return nil, fmt.Errorf("%w: store %s does not implement the %s era", ErrSelection, h.Name(), a)
		}
	}
	return eras, nil
}

// ruleFilter turns a rule-ID selection and a label expression into one Ginkgo label
// filter, refusing IDs that are unknown or have no specs in the eras run.
func ruleFilter(ids []string, label string, eras []Era) (string, error) {
	var terms []string
	for _, id := range ids {
		id = strings.TrimSpace(id)
		if id == "" {
			continue
		}
		rule, ok := rules.ByID(id)
		if !ok {
			return "", fmt.Errorf("%w: unknown rule %q (storecheck list prints the rules)", ErrSelection, id)
		}
		applies := false
		for _, e := range eras {
			applies = applies || rules.AppliesTo(rule, e)
		}
		if !applies {
			if rule.Part == rules.PartBattery {
				return "", fmt.Errorf("%w: %s is a check of the battery on itself (go test ./conformance/...), not a rule a store is run against", ErrSelection, id)
			}
			return "", fmt.Errorf("%w: rule %s belongs to the %s era, which this run does not include", ErrSelection, id, rule.Part)
		}
		terms = append(terms, id)
	}
	var parts []string
	if len(terms) > 0 {
		parts = append(parts, "("+strings.Join(terms, " || ")+")")
	}
	if strings.TrimSpace(label) != "" {
		// Checked alone first, so that an error quotes what the user wrote.
		if _, err := types.ParseLabelFilter(label); err != nil {
			return "", fmt.Errorf("%w: label filter %q: %s", ErrSelection, label, ginkgoreport.Plain(err.Error()))
		}
		parts = append(parts, "("+label+")")
	}
	return strings.Join(parts, " && "), nil
}

// bringUp opens a namespace and each era's store once before the run, so that a
// harness that cannot start is one clear error rather than every spec failing.
func bringUp(ctx context.Context, h harness.Harness, eras []Era) (err error) {
	var clock reference.Clock = reference.SystemClock{}
	if h.Capabilities().Clock {
		clock = reference.NewManualClock(battery.Epoch)
	}
	ns, err := h.Open(ctx, clock)
	if err != nil {
		return fmt.Errorf("%w: %s: open a namespace: %w", ErrBringUp, h.Name(), err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if cerr := ns.Close(cctx); cerr != nil && err == nil {
			err = fmt.Errorf("%w: %s: close a namespace: %w", ErrBringUp, h.Name(), cerr)
		}
	}()
	for _, era := range eras {
		switch era {
		case EraLegacy:
			_, err = ns.Legacy(ctx)
		case EraModern:
			_, err = ns.Modern(ctx)
		case EraSDK:
			var st sdk.Store
			if st, err = harness.OpenSDK(ctx, ns); err == nil {
				err = st.Policy().Validate()
			}
		}
		if err != nil {
			return fmt.Errorf("%w: %s: open the %s store: %w", ErrBringUp, h.Name(), era, err)
		}
	}
	return nil
}
