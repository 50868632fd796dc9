package cli

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/storecheck/storecheck/benchmarks"
	"github.com/storecheck/storecheck/conformance"
)

func init() {
	addCommand(&command{
		name:    "bench",
		summary: "benchmark a store against its backend's raw speed: table, benchstat output, SVG chart",
		run:     bench,
	})
}

// benchHelp is storecheck bench's help, after its usage line.
func benchHelp() string {
	return `Benchmarks a store, operation by operation, against its baseline measured in the
same run: memstore and ets-like against a plain mutex+map store that copies values,
postgres against the equivalent raw pgx statements, redis and redis-cluster against
the equivalent raw commands, wire (memstore served by a child over the wire protocol)
against memstore in process. Each operation runs serially and under b.RunParallel.

The table shows ns/op, ops/s and allocs/op of both, and the ratio baseline ns/op ÷
store ns/op: above 1 the store is faster than its baseline. --vs runs a second
adapter the same way and compares the two stores side by side.

Targets: ` + targetNames() + `

`
}

// benchTarget is the target named n: a store given by an option (brought up here, with
// the operations it can run and its cleanup), or one of benchmarks' own (no ops, a
// no-op cleanup). ok is false after a usage error, with the exit code.
func (c *app) benchTarget(fs *flag.FlagSet, n string) (t benchmarks.Target, ops []string, cleanup func(), code int, ok bool) {
	cleanup = func() {}
	if a, custom := c.adapters[n]; custom && a.custom {
		h, done, up := c.bringUp("storecheck bench", n, a.open, "")
		if !up {
			return t, nil, cleanup, exitUsage, false
		}
		d, err := conformance.Detect(c.ctx, h)
		if err != nil {
			done()
			fmt.Fprintf(c.stderr, "storecheck bench: %v\n", err)
			return t, nil, cleanup, exitUsage, false
		}
		hasCleanup := false
		for _, o := range d.Legacy {
			hasCleanup = hasCleanup || (o.Op == "Cleanup" && o.Offered)
		}
		return benchmarks.HarnessTarget(h), benchmarks.HarnessOps(h, hasCleanup), done, 0, true
	}
	t, err := benchmarks.Lookup(n)
	if err != nil {
		code, _ := c.usageError(fs, err.Error())
		return t, nil, cleanup, code, false
	}
	return t, nil, cleanup, 0, true
}

// writeBenchFiles writes the results in go test -bench format to out and as an SVG
// chart to svg, each when named.
func writeBenchFiles(flat []benchmarks.Result, names []string, out, svg string) error {
	if out != "" {
		var b bytes.Buffer
		_ = benchmarks.WriteBenchstat(&b, flat)
		if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	if svg != "" {
		var b bytes.Buffer
		_ = benchmarks.WriteSVG(&b, "storecheck bench: "+strings.Join(names, " vs "), flat)
		if err := os.WriteFile(svg, b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// benchFlags is storecheck bench's flags.
type benchFlags struct {
	spec, vs, benchtime, cleanupTime, ops, out, svg string
	count                                           int
	maxRSS                                          int64
	battery, paging                                 bool
	pagingMax                                       int
	pagingBudget                                    time.Duration
}

// register declares the flags on fs; adapter is --adapter's default.
func (f *benchFlags) register(fs *flag.FlagSet, adapter string) {
	fs.StringVar(&f.spec, "adapter", adapter, "the store to benchmark")
	fs.StringVar(&f.vs, "vs", "", "a second store to benchmark and compare side by side")
	fs.StringVar(&f.benchtime, "benchtime", "1s", "each benchmark's run time (or Nx for N ops), as go test -benchtime")
	fs.IntVar(&f.count, "count", 3, "run each benchmark this many times, store and baseline alternating; the table shows the median")
	fs.StringVar(&f.cleanupTime, "cleanup-benchtime", "5x", "the legacy-cleanup benchmark's (each op reloads 5 000 tasks untimed)")
	fs.StringVar(&f.ops, "ops", "", "comma-separated operations to run (default: all): "+strings.Join(opNames(), ","))
	fs.StringVar(&f.out, "o", "", "write the results in go test -bench format, for benchstat, to `FILE`")
	fs.StringVar(&f.svg, "svg", "", "write an SVG bar chart of the results to `FILE`")
	fs.BoolVar(&f.battery, "battery", false, "time the conformance battery itself against --adapter (a `storecheck run` adapter), --count times: wall time per run and per area")
	fs.Int64Var(&f.maxRSS, "max-rss-mib", 1024, "fail when the peak RSS of this process or of a child it ran exceeds this many MiB (0: no limit)")
	fs.BoolVar(&f.paging, "paging", false, "the SDK profile's paging benchmark: list N tasks (1k…64k) page by page through memstore's SDK store in\nprocess, over the wire, and the --exec store process if given; a table of times and growth, and --svg a chart")
	fs.IntVar(&f.pagingMax, "paging-max", benchmarks.PagingSizes[len(benchmarks.PagingSizes)-1], "--paging: the largest N")
	fs.DurationVar(&f.pagingBudget, "paging-budget", 60*time.Second, "--paging: a store whose listing takes longer is not listed at larger N (the cap is noted)")
}

// names is the stores to benchmark: --adapter, then --vs when given.
func (f *benchFlags) names() []string {
	if f.vs != "" {
		return []string{f.spec, f.vs}
	}
	return []string{f.spec}
}

// options is the benchmarks' options: --ops, else the operations a store given by an
// option can run (nil: all).
func (f *benchFlags) options(env benchmarks.Env, harnessOps []string, progress io.Writer) benchmarks.Options {
	opts := benchmarks.Options{
		Env:              env,
		Benchtime:        f.benchtime,
		CleanupBenchtime: f.cleanupTime,
		Count:            f.count,
		Progress:         progress,
	}
	if f.ops != "" {
		opts.Ops = strings.Split(f.ops, ",")
	} else if harnessOps != nil {
		opts.Ops = harnessOps
	}
	return opts
}

func bench(c *app, args []string) int {
	fs := newFlagSet("bench", "storecheck bench [--adapter NAME] [--vs NAME] [flags]", func(w io.Writer) {
		fmt.Fprint(w, benchHelp())
	})
	var f benchFlags
	f.register(fs, c.benchDefault())
	c.addAdapterFlags(fs) // --dsn and the other backends' flags, read back below
	if code, ok := c.parse(fs, args); !ok {
		return code
	}
	if f.battery {
		return c.benchBattery(fs, f.spec, f.count, f.out, f.maxRSS)
	}
	if f.paging {
		return c.benchPaging(fs, f.count, f.pagingMax, f.pagingBudget, f.out, f.svg, f.maxRSS)
	}
	names := f.names()
	targets, harnessOps, cleanup, code, ok := c.benchTargets(fs, names)
	defer cleanup()
	if !ok {
		return code
	}
	opts := f.options(benchEnv(fs), harnessOps, c.stderr)
	loadAtStart := loadAverage()
	var all [][]benchmarks.Result
	var runErr error
	for _, t := range targets {
		fmt.Fprintf(c.stderr, "storecheck bench: %s — %s\n", t.Name, t.Summary)
		rs, err := benchmarks.Run(c.ctx, t, opts)
		all = append(all, rs)
		if err != nil {
			runErr = err
			break
		}
	}
	return c.reportBench(&f, names, all, runErr, loadAtStart)
}

// benchTargets brings up the stores named, in order; cleanup releases those brought up
// (even when ok is false: a later one failed, with the exit code). harnessOps is the
// operations the last store given by an option can run.
func (c *app) benchTargets(fs *flag.FlagSet, names []string) (targets []benchmarks.Target, harnessOps []string, cleanup func(), code int, ok bool) {
	var cleanups []func()
	cleanup = func() {
		for _, f := range slices.Backward(cleanups) {
			f()
		}
	}
	for _, n := range names {
		t, ops, done, code, ok := c.benchTarget(fs, n)
		if !ok {
			return nil, nil, cleanup, code, false
		}
		cleanups = append(cleanups, done)
		if ops != nil {
			harnessOps = ops
		}
		targets = append(targets, t)
	}
	return targets, harnessOps, cleanup, 0, true
}

// reportBench writes the table (and the side-by-side comparison of two stores), checks
// the peak RSS and writes the files asked for; the exit code is the run's.
func (c *app) reportBench(f *benchFlags, names []string, all [][]benchmarks.Result, runErr error, loadAtStart string) int {
	var flat []benchmarks.Result
	for _, rs := range all {
		flat = append(flat, rs...)
	}
	fmt.Fprintf(c.stdout, "storecheck bench, %s, GOMAXPROCS %d, benchtime %s, median of %d; load average at start %s, at end %s\n\n", cpuOrUnknown(), benchmarks.Procs(), f.benchtime, max(f.count, 1), loadAtStart, loadAverage())
	if err := benchmarks.WriteTable(c.stdout, flat); err != nil {
		fmt.Fprintf(c.stderr, "storecheck bench: %v\n", err)
		return exitFailed
	}
	if len(all) == 2 {
		fmt.Fprintln(c.stdout)
		_ = benchmarks.WriteSideBySide(c.stdout, all[0], all[1])
	}
	if err := c.peakRSS(f.maxRSS); err != nil && runErr == nil {
		runErr = err
	}
	if err := writeBenchFiles(flat, names, f.out, f.svg); err != nil {
		fmt.Fprintf(c.stderr, "storecheck bench: %v\n", err)
		return exitFailed
	}
	switch {
	case errors.Is(runErr, benchmarks.ErrUnavailable):
		fmt.Fprintf(c.stderr, "storecheck bench: %v\n", runErr)
		return exitUsage
	case runErr != nil:
		fmt.Fprintf(c.stderr, "storecheck bench: %v\n", runErr)
		return exitFailed
	}
	return exitOK
}

// benchDefault is the store bench measures without --adapter: the binary's own store
// when an option gave one, else memstore.
func (c *app) benchDefault() string {
	if c.customDefault {
		return c.defaultAdapter
	}
	return "memstore"
}

// benchEnv is the bring-up environment: the servers named by the adapters' flags (when
// those adapters are built in), and this binary serving memstore as the wire child.
func benchEnv(fs *flag.FlagSet) benchmarks.Env {
	flagValue := func(name string) string {
		if f := fs.Lookup(name); f != nil {
			return f.Value.String()
		}
		return ""
	}
	env := benchmarks.Env{
		PostgresDSN:     flagValue("dsn"),
		RedisURL:        flagValue("redis-url"),
		RedisClusterURL: flagValue("redis-cluster-url"),
	}
	if exe, err := os.Executable(); err == nil {
		env.WireCommand = []string{exe, "serve", "--adapter", "memstore"}
	}
	return env
}

// peakRSS prints the peak RSS of this process and of its largest child, and fails when
// either exceeds limit MiB (0: no limit). Peak memory is part of a benchmark's result: a
// benchmark that keeps what it made grows without bound (it once reached 3.6 GB).
func (c *app) peakRSS(limit int64) error {
	self, children, ok := benchmarks.PeakRSS()
	if !ok {
		return nil
	}
	const mib = 1 << 20
	fmt.Fprintf(c.stdout, "\npeak RSS (getrusage maxrss): storecheck %d MiB, largest child %d MiB; load average %s\n", self/mib, children/mib, loadAverage())
	if limit > 0 && max(self, children) > limit*mib {
		fmt.Fprintf(c.stderr, "storecheck bench: peak RSS %d MiB exceeds --max-rss-mib %d\n", max(self, children)/mib, limit)
		return fmt.Errorf("peak RSS %d MiB exceeds --max-rss-mib %d", max(self, children)/mib, limit)
	}
	return nil
}

// benchBattery times the battery itself against one adapter, count runs, so that the
// battery's own speed is recorded (and regressions caught) like a store's. Ginkgo runs a
// suite once per process, so every run is a `storecheck run` child (its wall time is
// what CI pays: start-up, bring-up and the specs); its JSON report gives the time per
// area. It prints the median run's areas and writes every run as benchmark lines to
// out, for benchstat: BenchmarkBattery/adapter=NAME and …/area=AREA, one op per run.
func (c *app) benchBattery(fs *flag.FlagSet, spec string, count int, out string, maxRSS int64) int {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(c.stderr, "storecheck bench --battery: %v\n", err)
		return exitFailed
	}
	dir, err := os.MkdirTemp("", "storecheck-battery-")
	if err != nil {
		fmt.Fprintf(c.stderr, "storecheck bench --battery: %v\n", err)
		return exitFailed
	}
	defer os.RemoveAll(dir)
	// The adapter's own flags (--dsn, ...) go to every run as given.
	own := map[string]bool{"adapter": true, "vs": true, "benchtime": true, "count": true, "cleanup-benchtime": true,
		"ops": true, "o": true, "svg": true, "max-rss-mib": true, "battery": true}
	var pass []string
	fs.Visit(func(f *flag.Flag) {
		if !own[f.Name] {
			pass = append(pass, "--"+f.Name+"="+f.Value.String())
		}
	})
	loadAtStart := loadAverage()
	var reports []*conformance.Report
	var lines bytes.Buffer
	name := benchName(spec)
	for i := range max(count, 1) {
		path := filepath.Join(dir, fmt.Sprintf("run%d.json", i))
		cmd := exec.CommandContext(c.ctx, exe, append([]string{"run", "--adapter", spec, "--json", path}, pass...)...)
		cmd.Stderr = c.stderr
		start := time.Now()
		err := cmd.Run()
		wall := time.Since(start)
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit) && exit.ExitCode() == exitUsage:
			fmt.Fprintf(c.stderr, "storecheck bench --battery: %s: the battery could not run (see above)\n", spec)
			return exitUsage
		case err != nil && !(errors.As(err, &exit) && exit.ExitCode() == exitFailed):
			fmt.Fprintf(c.stderr, "storecheck bench --battery: %s: %v\n", spec, err)
			return exitFailed
		}
		r, err := readReport(path)
		if err != nil {
			fmt.Fprintf(c.stderr, "storecheck bench --battery: %s: %v\n", spec, err)
			return exitFailed
		}
		r.Duration = wall
		fmt.Fprintf(c.stderr, "battery run %d against %s: %s, %d specs, ok %v\n", i+1, spec, wall.Round(time.Millisecond), r.Totals.Specs, r.OK())
		if !r.OK() {
			// The run's own output is not shown: name what failed it, so that a timing
			// table never hides a failing run.
			fmt.Fprintf(c.stderr, "battery run %d against %s failed: %s\n", i+1, spec, strings.Join(r.Alarms(), ", "))
		}
		fmt.Fprintf(&lines, "BenchmarkBattery/adapter=%s 1 %d ns/op\n", name, wall.Nanoseconds())
		for _, t := range r.AreaTimes() {
			fmt.Fprintf(&lines, "BenchmarkBattery/adapter=%s/area=%s 1 %d ns/op\n", name, benchName(t.Area), t.Duration.Nanoseconds())
		}
		reports = append(reports, r)
	}
	slices.SortStableFunc(reports, func(x, y *conformance.Report) int { return cmp.Compare(x.Duration, y.Duration) })
	med := reports[(len(reports)-1)/2]
	fmt.Fprintf(c.stdout, "storecheck bench --battery, %s, GOMAXPROCS %d, %d runs of `storecheck run --adapter %s`; load average at start %s, at end %s\n\n",
		cpuOrUnknown(), benchmarks.Procs(), len(reports), spec, loadAtStart, loadAverage())
	fmt.Fprintf(c.stdout, "battery wall time (process start to exit): median %s, runs", med.Duration.Round(time.Millisecond))
	for _, r := range reports {
		fmt.Fprintf(c.stdout, " %s", r.Duration.Round(time.Millisecond))
	}
	fmt.Fprintf(c.stdout, "; the median run:\n")
	_ = med.WriteAreaTimes(c.stdout)
	if out != "" {
		if err := os.WriteFile(out, lines.Bytes(), 0o644); err != nil {
			fmt.Fprintf(c.stderr, "storecheck bench: %v\n", err)
			return exitFailed
		}
	}
	if err := c.peakRSS(maxRSS); err != nil {
		return exitFailed
	}
	return exitOK
}

// readReport reads the JSON report a `storecheck run --json` wrote.
func readReport(path string) (*conformance.Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r conformance.Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("reading the run's report %s: %w", path, err)
	}
	return &r, nil
}

// benchName makes s a benchmark name part: no spaces or slashes.
func benchName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '/' || r == '=' {
			return '-'
		}
		return r
	}, s)
}

// loadAverage is /proc/loadavg's three averages, or "unknown": numbers taken on a shared
// machine mean little without it.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}

func targetNames() string {
	var names []string
	for _, t := range benchmarks.Targets() {
		names = append(names, t.Name)
	}
	return strings.Join(names, ", ")
}

func opNames() []string {
	var names []string
	for _, c := range benchmarks.Cases() {
		names = append(names, c.Op)
	}
	return names
}

func cpuOrUnknown() string {
	if m := benchmarks.CPUModel(); m != "" {
		return m
	}
	return "cpu unknown"
}
