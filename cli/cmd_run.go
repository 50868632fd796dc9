package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/conformance/harness"
)

func init() {
	addCommand(&command{
		name:    "run",
		summary: "run the conformance battery against a store (the default command)",
		run:     runBattery,
	})
}

type runFlags struct {
	adapter, era, rules, label, focus string
	strict, times                     bool
	junit, json, artifacts            string
	seed                              int64
	checks, goroutines, ops, hists    int
	procs                             int
	eraPart                           string
	timeout, runTimeout               time.Duration
	faults                            bool
	faultList, faultMutant            string
	verdictFlags
}

func (c *app) runFlagSet(f *runFlags) *flag.FlagSet {
	fs := newFlagSet("run", "storecheck run [flags]", func(w io.Writer) {
		fmt.Fprint(w, `Runs the conformance battery against a store and prints a per-rule summary on
stdout (progress per area on stderr when it is a terminal, or with -v).

Examples:
  storecheck run                                   the default store, every era
  storecheck run --era legacy --rules L-LIST-2,L-LIST-4
  storecheck run --label 'S-OWN-1 || area:list' --strict --junit report.xml

Exit status: 0 no rule failed; 1 a rule failed (a SHOULD rule only under --strict),
was aborted (the transport or a namespace's bring-up failed) or had a setup call
refused, or, under --strict, was only partly verified or inconclusive, or no rule
was exercised at all (--allow-empty accepts that); 2 usage error or the store could
not be brought up before the run. Not exercised and skipped rules do not fail a run
beside a rule exercised; none of these count as passed.

`)
	})
	fs.StringVar(&f.adapter, "adapter", c.defaultAdapter, "the store to check: NAME or NAME:ARG (storecheck help lists them)")
	fs.StringVar(&f.era, "era", "all", "eras to run, comma-separated: legacy, modern, sdk (the SDK task-store profile), or all (every era the store implements)")
	fs.StringVar(&f.rules, "rules", "", "run only these rules: comma-separated IDs (storecheck list prints them)")
	fs.StringVar(&f.label, "label", "", "run only specs matching this Ginkgo label expression over the labels\nRULE-ID, must|should, legacy|modern, area:NAME, e.g. 'S-OWN-1 || area:list'")
	fs.StringVar(&f.focus, "focus", "", "run only specs whose text matches this regular expression")
	fs.BoolVar(&f.strict, "strict", false, "SHOULD faults, partly verified and inconclusive rules fail the run")
	fs.StringVar(&f.junit, "junit", "", "also write a JUnit XML report to `FILE`")
	fs.BoolVar(&f.times, "times", false, "print the battery's own time per area on stderr (always when stderr is a terminal)")
	fs.StringVar(&f.json, "json", "", "also write a JSON report to `FILE`")
	fs.StringVar(&f.artifacts, "artifacts", os.Getenv("STORECHECK_ARTIFACTS"), "keep the evidence of failing checks (porcupine's history.html) under `DIR`, newest 20\n(default $STORECHECK_ARTIFACTS; empty: a temporary directory removed when the run ends)")
	fs.Int64Var(&f.seed, "seed", 0, "seed of every randomised check (0 picks one; the summary prints it)")
	fs.IntVar(&f.checks, "checks", 0, "rapid checks per state machine (0 = 100)")
	fs.IntVar(&f.goroutines, "goroutines", 0, "concurrent clients per race round and history (0 = 8, or GOMAXPROCS+2 when more)")
	fs.IntVar(&f.ops, "ops", 0, "operations per race history (0 = 200)")
	fs.IntVar(&f.hists, "histories", 0, "concurrent histories per linearizability check (0 = 8)")
	fs.IntVar(&f.procs, "procs", 0, "processes checking the eras at once, each a group of eras: 0 = for the whole battery, one per\nprocessor for memstore, ets-like, postgres and redis on its own container, else one; 1 = this\nprocess only")
	fs.StringVar(&f.eraPart, "era-part", "", "check only the Ith of N groups of the eras selected, `I/N` (how --procs splits a run;\nthe groups are about equal in cost, the same in every process)")
	fs.DurationVar(&f.timeout, "timeout", 0, "bound on one spec; a store call that hangs fails its spec (0 = 30s, 5m for --exec)")
	fs.DurationVar(&f.runTimeout, "run-timeout", 0, "bound on the whole run (0 = 1h)")
	fs.BoolVar(&f.faults, "faults", false, "run the fault checks (F-* rules) instead of the battery: pause, kill and restart the\nbackend while clients write (postgres, redis, redis-cluster on containers it starts)")
	fs.StringVar(&f.faultList, "fault", "", "with --faults: the faults to inject, comma-separated: pause, kill, failover\n(default pause,kill, and failover for redis-cluster)")
	fs.StringVar(&f.faultMutant, "fault-mutant", "", "with --faults: put this fault mutant's defect around the store (async-write,\nretry-after-error, hang-on-pause, no-reconnect)")
	f.verdictFlags.add(fs)
	c.addAdapterFlags(fs)
	return fs
}

// resolveRun is the configuration of run's flags and the adapter they name.
func (c *app) resolveRun(fs *flag.FlagSet, f runFlags) (cfg conformance.ExecConfig, spec string, a adapter, arg string, err error) {
	if cfg, err = f.execConfig(); err != nil {
		return cfg, "", a, "", err
	}
	if spec, err = impliedAdapter(fs, f.adapter); err != nil {
		return cfg, "", a, "", err
	}
	a, arg, err = c.lookupAdapter(spec)
	return cfg, spec, a, arg, err
}

// checkBeforeBringUp checks what can be checked without the store, before it is
// brought up (a typo must not cost a child process or a container), and returns the
// number of processes and the era part of this one.
func checkBeforeBringUp(f runFlags, a adapter, cfg conformance.ExecConfig) (procs int, part eraPart, err error) {
	if err := conformance.CheckSelection(cfg.Rules, cfg.LabelFilter, cfg.FocusStrings); err != nil {
		return 0, part, err
	}
	if a.validate != nil {
		if err := a.validate(); err != nil {
			return 0, part, err
		}
	}
	if procs, err = procsFor(f, a, cfg); err != nil {
		return 0, part, err
	}
	part = eraPart{0, 1}
	if f.eraPart != "" {
		if part, err = parseEraPart(f.eraPart); err == nil && procs > 1 {
			err = fmt.Errorf("--era-part %s checks one group in this process: not with --procs %d", f.eraPart, procs)
		}
	}
	return procs, part, err
}

func runBattery(c *app, args []string) int {
	var f runFlags
	fs := c.runFlagSet(&f)
	if code, ok := c.parse(fs, args); !ok {
		return code
	}
	if f.verbose {
		defer showSideLog(c.stderr)()
	}
	cfg, spec, a, arg, err := c.resolveRun(fs, f)
	if err != nil {
		code, _ := c.usageError(fs, err.Error())
		return code
	}
	if f.faults {
		return c.runFaults(fs, f, a, arg, spec)
	}
	if f.faultList != "" || f.faultMutant != "" {
		code, _ := c.usageError(fs, "--fault and --fault-mutant need --faults")
		return code
	}
	if f.timeout == 0 && a.specTimeout != 0 {
		cfg.Options.SpecTimeout = a.specTimeout
	}
	procs, part, err := checkBeforeBringUp(f, a, cfg)
	if err != nil {
		code, _ := c.usageError(fs, err.Error())
		return code
	}
	// Reports are opened first: a path that cannot be written should not cost a run.
	outputs, err := openOutputs(f.json, f.junit)
	if err != nil {
		fmt.Fprintf(c.stderr, "storecheck run: %v\n", err)
		return exitUsage
	}
	// After outputs.write (which reports the close) a no-op; on the early returns it
	// releases the files.
	defer func() { _ = outputs.close() }()

	var others *otherEras // nil-safe: stop does nothing without other processes
	fail := func(err error) int {
		if err != nil {
			fmt.Fprintf(c.stderr, "storecheck run: %v\n", err)
		}
		others.stop()
		outputs.discard()
		return exitUsage
	}
	if others, err = c.startOtherEras(args, &cfg, procs); err != nil {
		return fail(err)
	}
	h, cleanup, ok := c.bringUp("storecheck run", spec, a.open, arg)
	if !ok {
		return fail(nil)
	}
	defer cleanup()
	cfg.Context = c.ctx
	detected, err := conformance.Detect(c.ctx, h)
	if err != nil {
		return fail(err)
	}
	started := time.Now()
	if err := others.narrow(c, h, &cfg); err != nil {
		return fail(err)
	}
	if part.n > 1 {
		ok, err := part.narrow(h, &cfg)
		if err != nil {
			return fail(err)
		}
		if !ok { // fewer groups than parts: an empty report, merged as nothing
			empty := &conformance.Report{Store: detected.Store, Seed: cfg.Options.Seed, Strict: cfg.Options.Strict, Started: started}
			if err := outputs.write(empty); err != nil {
				fmt.Fprintf(c.stderr, "storecheck run: %v\n", err)
				return exitUsage
			}
			return exitOK
		}
	}
	return c.executeBattery(f, h, cfg, others, outputs, detected, started)
}

// executeBattery runs the battery of cfg on h, merges the reports of the other eras'
// processes and reports the whole on stdout and in the report files.
func (c *app) executeBattery(f runFlags, h harness.Harness, cfg conformance.ExecConfig, others *otherEras,
	outputs *outputs, detected conformance.Detected, started time.Time) int {
	var prog *progress
	if f.progress(c) {
		prog = &progress{w: c.stderr, started: started}
		cfg.Progress = prog.spec
	}
	report, err := conformance.Execute(h, cfg)
	prog.done()
	if err != nil {
		others.stop()
	} else if others != nil {
		report = others.merge(report, started)
	}
	if err == nil {
		f.judge(report)
	}
	runFailed = err != nil || !report.OK()
	if err != nil {
		fmt.Fprintf(c.stderr, "storecheck run: %v\n", err)
		if errors.Is(err, conformance.ErrSelection) {
			fmt.Fprintf(c.stderr, "Run 'storecheck run --help' for usage.\n")
		}
		outputs.discard()
		return exitUsage
	}
	fmt.Fprintln(c.stdout, detected)
	if f.json != "" {
		report.DetailsPath = f.json
	}
	if err := report.Summary(c.stdout); err != nil {
		fmt.Fprintf(c.stderr, "storecheck run: writing the summary: %v\n", err)
	}
	// The battery's own cost, on stderr so that the summary stays as it was: a slow
	// area shows here before it shows in CI's budget. Only on a terminal, as progress,
	// or when asked (--times): stderr off a terminal carries errors only (the JSON
	// report has the times).
	if f.progress(c) || f.times {
		_ = report.WriteAreaTimes(c.stderr)
	}
	if err := outputs.write(report); err != nil {
		fmt.Fprintf(c.stderr, "storecheck run: %v\n", err)
		return exitUsage
	}
	return f.verdict(c, "run", report)
}

// runFailed is set when the battery's run failed (or could not run), before the
// adapter's cleanup runs: the exec adapter shows the store's stderr only then, where it
// may explain the failure.
var runFailed bool

// execConfig maps the flags onto the battery's configuration.
func (f runFlags) execConfig() (conformance.ExecConfig, error) {
	cfg := conformance.ExecConfig{
		LabelFilter: strings.TrimSpace(f.label),
		Timeout:     f.runTimeout,
		Options: conformance.Options{
			Strict:      f.strict,
			Seed:        f.seed,
			Artifacts:   f.artifacts,
			SpecTimeout: f.timeout,
			Budget: conformance.Budget{
				Checks: f.checks, Goroutines: f.goroutines, Ops: f.ops, Histories: f.hists,
			},
		},
	}
	if era := strings.TrimSpace(f.era); era != "all" && era != "" {
		for _, e := range strings.Split(era, ",") {
			switch e = strings.TrimSpace(e); e {
			case string(conformance.EraLegacy), string(conformance.EraModern), string(conformance.EraSDK):
				cfg.Eras = append(cfg.Eras, conformance.Era(e))
			default:
				return cfg, fmt.Errorf("--era %q: want legacy, modern, sdk (comma-separated) or all", f.era)
			}
		}
	}
	for _, id := range strings.Split(f.rules, ",") {
		if id = strings.TrimSpace(id); id != "" {
			cfg.Rules = append(cfg.Rules, id)
		}
	}
	if f.focus != "" {
		cfg.FocusStrings = []string{f.focus}
	}
	for name, v := range map[string]int{"checks": f.checks, "goroutines": f.goroutines, "ops": f.ops, "histories": f.hists} {
		if v < 0 {
			return cfg, fmt.Errorf("--%s %d: must be positive (0 for the default)", name, v)
		}
	}
	if f.timeout < 0 || f.runTimeout < 0 {
		return cfg, errors.New("--timeout and --run-timeout must be positive (0 for the default)")
	}
	return cfg, nil
}

// outputs are the report files asked for.
type outputs struct{ json, junit *os.File }

func openOutputs(jsonPath, junitPath string) (*outputs, error) {
	o := &outputs{}
	for _, f := range []struct {
		path string
		dst  **os.File
	}{{jsonPath, &o.json}, {junitPath, &o.junit}} {
		if f.path == "" {
			continue
		}
		file, err := os.Create(f.path)
		if err != nil {
			o.discard()
			return nil, fmt.Errorf("cannot write the report: %w", err)
		}
		*f.dst = file
	}
	return o, nil
}

func (o *outputs) write(r *conformance.Report) error {
	if o.json != nil {
		if err := r.JSON(o.json); err != nil {
			return fmt.Errorf("writing %s: %w", o.json.Name(), err)
		}
	}
	if o.junit != nil {
		if err := r.JUnit(o.junit); err != nil {
			return fmt.Errorf("writing %s: %w", o.junit.Name(), err)
		}
	}
	return o.close()
}

func (o *outputs) close() error {
	var errs []error
	for _, f := range []**os.File{&o.json, &o.junit} {
		if *f != nil {
			errs = append(errs, (*f).Close())
			*f = nil
		}
	}
	return errors.Join(errs...)
}

// discard closes and removes the report files of a run that did not happen.
func (o *outputs) discard() {
	for _, f := range []*os.File{o.json, o.junit} {
		if f != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}
	o.json, o.junit = nil, nil
}

// progress draws one line per era and area as specs finish, ended by the area's time and
// the time since the run started (as the probe's line per check):
// "legacy/list  ....F..  1.2s (at 4.1s)".
type progress struct {
	w         io.Writer
	key       string
	started   time.Time        // when the run started
	lineStart time.Time        // when the line's area started
	now       func() time.Time // nil: time.Now
}

func (p *progress) spec(ev conformance.SpecEvent) {
	key := string(ev.Era) + "/" + ev.Area
	if key != p.key {
		p.endLine()
		fmt.Fprintf(p.w, "%-22s ", key)
		p.key = key
	}
	fmt.Fprint(p.w, mark[ev.Outcome])
}

// endLine ends the area's line with its times.
func (p *progress) endLine() {
	if p.key == "" {
		return
	}
	now := time.Now
	if p.now != nil {
		now = p.now
	}
	t := now()
	if p.lineStart.IsZero() {
		p.lineStart = p.started
	}
	fmt.Fprintf(p.w, "  %s (at %s)\n", t.Sub(p.lineStart).Round(time.Millisecond), t.Sub(p.started).Round(100*time.Millisecond))
	p.lineStart = t
}

var mark = map[conformance.Outcome]string{
	conformance.Passed: ".", conformance.Failed: "F", conformance.Warned: "W", conformance.Skipped: "S",
	conformance.Aborted: "A", conformance.SetupRefused: "R", conformance.PartlyVerified: "p",
	conformance.Inconclusive: "?", conformance.NotExercised: "n",
}

func (p *progress) done() {
	if p != nil && p.key != "" {
		p.endLine()
		fmt.Fprint(p.w, "\n")
		p.key = ""
	}
}
