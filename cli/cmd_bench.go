package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/storecheck/storecheck/benchmarks"
)

func init() {
	addCommand(&command{
		name:    "bench",
		summary: "benchmark a store against its backend's raw speed: table, benchstat output, SVG chart",
		run:     bench,
	})
}

func bench(c *app, args []string) int {
	fs := newFlagSet("bench", "storecheck bench [--adapter NAME] [--vs NAME] [flags]", func(w io.Writer) {
		fmt.Fprint(w, `Benchmarks a store, operation by operation, against its baseline measured in the
same run: memstore and ets-like against a plain mutex+map store that copies values,
postgres against the equivalent raw pgx statements, redis and redis-cluster against
the equivalent raw commands, wire (memstore served by a child over the wire protocol)
against memstore in process. Each operation runs serially and under b.RunParallel.

The table shows ns/op, ops/s and allocs/op of both, and the ratio baseline ns/op ÷
store ns/op: above 1 the store is faster than its baseline. --vs runs a second
adapter the same way and compares the two stores side by side.

Targets: `+targetNames()+`

`)
	})
	var (
		spec, vs, benchtime, cleanupTime, ops, out, svg string
		count                                           int
		maxRSS                                          int64
	)
	fs.StringVar(&spec, "adapter", "memstore", "the store to benchmark")
	fs.StringVar(&vs, "vs", "", "a second store to benchmark and compare side by side")
	fs.StringVar(&benchtime, "benchtime", "1s", "each benchmark's run time (or Nx for N ops), as go test -benchtime")
	fs.IntVar(&count, "count", 3, "run each benchmark this many times, store and baseline alternating; the table shows the median")
	fs.StringVar(&cleanupTime, "cleanup-benchtime", "5x", "the legacy-cleanup benchmark's (each op reloads 5 000 tasks untimed)")
	fs.StringVar(&ops, "ops", "", "comma-separated operations to run (default: all): "+strings.Join(opNames(), ","))
	fs.StringVar(&out, "o", "", "write the results in go test -bench format, for benchstat, to `FILE`")
	fs.StringVar(&svg, "svg", "", "write an SVG bar chart of the results to `FILE`")
	fs.Int64Var(&maxRSS, "max-rss-mib", 1024, "fail when the peak RSS of this process or of a child it ran exceeds this many MiB (0: no limit)")
	c.addAdapterFlags(fs) // --dsn and the other backends' flags, read back below
	if code, ok := c.parse(fs, args); !ok {
		return code
	}
	names := []string{spec}
	if vs != "" {
		names = append(names, vs)
	}
	var targets []benchmarks.Target
	for _, n := range names {
		t, err := benchmarks.Lookup(n)
		if err != nil {
			code, _ := c.usageError(fs, err.Error())
			return code
		}
		targets = append(targets, t)
	}
	opts := benchmarks.Options{
		Env:              benchEnv(fs),
		Benchtime:        benchtime,
		CleanupBenchtime: cleanupTime,
		Count:            count,
		Progress:         c.stderr,
	}
	if ops != "" {
		opts.Ops = strings.Split(ops, ",")
	}
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
	var flat []benchmarks.Result
	for _, rs := range all {
		flat = append(flat, rs...)
	}
	fmt.Fprintf(c.stdout, "storecheck bench, %s, GOMAXPROCS %d, benchtime %s, median of %d; load average at start %s, at end %s\n\n", cpuOrUnknown(), benchmarks.Procs(), benchtime, max(count, 1), loadAtStart, loadAverage())
	if err := benchmarks.WriteTable(c.stdout, flat); err != nil {
		fmt.Fprintf(c.stderr, "storecheck bench: %v\n", err)
		return exitFailed
	}
	if len(all) == 2 {
		fmt.Fprintln(c.stdout)
		_ = benchmarks.WriteSideBySide(c.stdout, all[0], all[1])
	}
	// Peak memory is part of the result: a benchmark that keeps what it made grows
	// without bound (it once reached 3.6 GB), and a child's is its own process's.
	if self, children, ok := benchmarks.PeakRSS(); ok {
		const mib = 1 << 20
		fmt.Fprintf(c.stdout, "\npeak RSS (getrusage maxrss): storecheck %d MiB, largest child %d MiB; load average %s\n", self/mib, children/mib, loadAverage())
		if maxRSS > 0 && max(self, children) > maxRSS*mib {
			fmt.Fprintf(c.stderr, "storecheck bench: peak RSS %d MiB exceeds --max-rss-mib %d\n", max(self, children)/mib, maxRSS)
			if runErr == nil {
				runErr = fmt.Errorf("peak RSS %d MiB exceeds --max-rss-mib %d", max(self, children)/mib, maxRSS)
			}
		}
	}
	if out != "" {
		var b bytes.Buffer
		_ = benchmarks.WriteBenchstat(&b, flat)
		if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
			fmt.Fprintf(c.stderr, "storecheck bench: %v\n", err)
			return exitFailed
		}
	}
	if svg != "" {
		var b bytes.Buffer
		_ = benchmarks.WriteSVG(&b, "storecheck bench: "+strings.Join(names, " vs "), flat)
		if err := os.WriteFile(svg, b.Bytes(), 0o644); err != nil {
			fmt.Fprintf(c.stderr, "storecheck bench: %v\n", err)
			return exitFailed
		}
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
