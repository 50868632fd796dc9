package benchmarks

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// Result is one benchmark: a case in a mode against one subject of a target.
type Result struct {
	Target  string
	Op      string
	Mode    Mode
	Subject string // "store" or "baseline"
	What    string // what the subject is: "memstore", "mutex+map", ...
	N       int
	NsPerOp float64
	// BytesPerOp and AllocsPerOp are the heap allocated per op (in this process: a
	// server's own allocations are not seen).
	BytesPerOp, AllocsPerOp int64
	// Failed holds the benchmark's failure, when it failed.
	Failed string
}

// OpsPerSec is 1e9 / NsPerOp (0 when nothing was measured).
func (r Result) OpsPerSec() float64 {
	if r.NsPerOp <= 0 {
		return 0
	}
	return 1e9 / r.NsPerOp
}

// Name is the benchmark's name as `go test -bench` prints it, without the -GOMAXPROCS
// suffix: BenchmarkMemstore/op=legacy-get/mode=serial/subject=store. The key=value parts
// let benchstat pivot on them (benchstat -col /subject).
func (r Result) Name() string {
	return fmt.Sprintf("%s/op=%s/mode=%s/subject=%s", FuncName(r.Target), r.Op, r.Mode, r.Subject)
}

// FuncName is the Go benchmark function of a target: BenchmarkEtsLike for ets-like.
func FuncName(target string) string {
	var b strings.Builder
	b.WriteString("Benchmark")
	for part := range strings.FieldsFuncSeq(target, func(r rune) bool { return r == '-' || r == '_' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// Options configure Run.
type Options struct {
	Env Env
	// Benchtime is each benchmark's -benchtime ("500ms", "200x"); empty is 1s.
	Benchtime string
	// CleanupBenchtime is the cleanup case's: every op reloads 5 000 tasks untimed, so
	// a duration would spend most of the run loading. Empty is "5x".
	CleanupBenchtime string
	// Count is how many times each benchmark runs (store and baseline alternating
	// round by round, so that a burst of load hits both); the table shows the median.
	// 0 is 1.
	Count int
	// Ops keeps only these cases (by Op); empty keeps all.
	Ops []string
	// Progress, when set, gets a line per finished benchmark.
	Progress io.Writer
}

// Run benchmarks every case of target against its store and its baseline, the two
// subjects alternating case by case so that both see the same machine. A target whose
// backend cannot be brought up returns an error wrapping ErrUnavailable.
func Run(ctx context.Context, target Target, opts Options) ([]Result, error) {
	for _, op := range opts.Ops {
		if !slices.ContainsFunc(Cases(), func(c Case) bool { return c.Op == op }) {
			return nil, fmt.Errorf("unknown op %q (ops: %s)", op, strings.Join(opNames(), ", "))
		}
	}
	restore, err := setBenchtime(opts.Benchtime)
	if err != nil {
		return nil, err
	}
	defer restore()
	be, err := target.Start(ctx, opts.Env)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", target.Name, err)
	}
	defer func() {
		if be.Stop != nil {
			stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
			defer cancel()
			_ = be.Stop(stopCtx)
		}
	}()
	var out []Result
	for _, c := range Cases() {
		if len(opts.Ops) > 0 && !slices.Contains(opts.Ops, c.Op) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return out, err
		}
		rs, err := runCase(ctx, target.Name, be, c, opts)
		out = append(out, rs...)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

func opNames() []string {
	var names []string
	for _, c := range Cases() {
		names = append(names, c.Op)
	}
	return names
}

func runCase(ctx context.Context, target string, be *Backend, c Case, opts Options) ([]Result, error) {
	subjects := []Subject{be.Store, be.Baseline}
	fixtures := make([]*fixture, len(subjects))
	for i, s := range subjects {
		fixtures[i] = newFixture(s, c)
	}
	defer func() {
		for _, f := range fixtures {
			closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
			_ = f.close(closeCtx)
			cancel()
		}
	}()
	if c.Op == "legacy-cleanup" {
		bt := opts.CleanupBenchtime
		if bt == "" {
			bt = "5x"
		}
		restore, err := setBenchtime(bt)
		if err != nil {
			return nil, err
		}
		defer restore()
	}
	var out []Result
	for _, mode := range c.Modes {
		for round := range max(opts.Count, 1) {
			// Alternate who goes first, so that neither side always runs on the
			// heels of the other's garbage.
			order := []int{0, 1}
			if round%2 == 1 {
				order = []int{1, 0}
			}
			for _, i := range order {
				f := fixtures[i]
				// Setup outside testing.Benchmark, so that its failure is reported as is.
				if err := f.ensure(ctx); err != nil {
					return out, err
				}
				r := Result{Target: target, Op: c.Op, Mode: mode, Subject: subjects[i].Label, What: subjects[i].What}
				res, failure := benchmark(f, mode)
				if failure != "" {
					r.Failed = failure
				} else {
					r.N, r.NsPerOp = res.N, float64(res.T.Nanoseconds())/float64(max(res.N, 1))
					r.BytesPerOp, r.AllocsPerOp = res.AllocedBytesPerOp(), res.AllocsPerOp()
				}
				out = append(out, r)
				if opts.Progress != nil {
					if r.Failed != "" {
						fmt.Fprintf(opts.Progress, "%s  FAILED: %s\n", r.Name(), r.Failed)
					} else {
						fmt.Fprintf(opts.Progress, "%-70s %10d %14.0f ns/op\n", r.Name(), r.N, r.NsPerOp)
					}
				}
				if r.Failed != "" {
					return out, fmt.Errorf("%s: %s", r.Name(), r.Failed)
				}
			}
		}
	}
	return out, nil
}

// benchmark runs f's case in mode under testing.Benchmark and returns its failure, if
// any: testing reports a failed benchmark as a zero result and drops its log, so the
// case bodies record their first failure in the fixture's data.
func benchmark(f *fixture, mode Mode) (testing.BenchmarkResult, string) {
	res := testing.Benchmark(f.bench(mode))
	failure := f.data.takeFailure()
	if failure == "" && res.N == 0 {
		failure = "benchmark failed or was skipped without a message"
	}
	return res, failure
}

// setBenchtime sets testing's -test.benchtime for testing.Benchmark and returns a
// function that puts the old value back.
func setBenchtime(v string) (restore func(), err error) {
	if v == "" {
		return func() {}, nil
	}
	testing.Init()
	fl := flag.Lookup("test.benchtime")
	if fl == nil {
		return nil, errors.New("benchmarks: testing has no test.benchtime flag")
	}
	old := fl.Value.String()
	if err := fl.Value.Set(v); err != nil {
		return nil, fmt.Errorf("benchtime %q: %w", v, err)
	}
	return func() { _ = fl.Value.Set(old) }, nil
}

// Procs is the GOMAXPROCS the benchmarks run with (the -N suffix of their names).
func Procs() int { return runtime.GOMAXPROCS(0) }
