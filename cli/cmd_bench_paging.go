package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/storecheck/storecheck/adapters/wire"
	"github.com/storecheck/storecheck/benchmarks"
	"github.com/storecheck/storecheck/reference/memstore"
	"github.com/storecheck/storecheck/reference/sdk"
)

// benchPaging is `storecheck bench --paging`: the SDK profile's paging benchmark
// (benchmarks.Paging) over memstore's SDK store in process, the same store served by
// this binary over the wire, and the --exec store process when one is given (the
// TypeScript SDK's store: --exec "node examples/typescript-sdk/shim.mjs").
func (c *app) benchPaging(fs *flag.FlagSet, count, maxN int, budget time.Duration, out, svg string, maxRSS int64) int {
	fail := func(err error) int {
		fmt.Fprintf(c.stderr, "storecheck bench --paging: %v\n", err)
		return exitFailed
	}
	var sizes []int
	for _, n := range benchmarks.PagingSizes {
		if n <= maxN {
			sizes = append(sizes, n)
		}
	}
	if len(sizes) == 0 {
		code, _ := c.usageError(fs, fmt.Sprintf("--paging-max %d is below the smallest size, %d", maxN, benchmarks.PagingSizes[0]))
		return code
	}
	subjects := []benchmarks.PagingSubject{{
		Name: "memstore (in process)",
		Open: func(context.Context) (sdk.Store, func(context.Context) error, error) {
			return memstore.NewSDK(), func(context.Context) error { return nil }, nil
		},
	}}
	var children []*childSubject
	if exe, err := os.Executable(); err == nil {
		children = append(children, &childSubject{argv: []string{exe, "serve", "--adapter", "memstore"}})
	}
	if execCommand != "" {
		argv, err := execArgv()
		if err != nil {
			code, _ := c.usageError(fs, err.Error())
			return code
		}
		children = append(children, &childSubject{argv: argv})
	}
	for _, ch := range children {
		defer ch.Stop()
		if err := ch.Start(c.ctx); err != nil {
			return fail(err)
		}
		for _, o := range subjects {
			if o.Name == ch.Name {
				ch.Name += " --exec"
			}
		}
		subjects = append(subjects, ch.PagingSubject)
	}
	loadAtStart := loadAverage()
	res, runErr := benchmarks.Paging(c.ctx, subjects, benchmarks.PagingOptions{Sizes: sizes, Budget: budget, Count: count, Progress: c.stderr})
	fmt.Fprintf(c.stdout, "storecheck bench --paging, %s, GOMAXPROCS %d, median of %d; load average at start %s, at end %s\n\n",
		cpuOrUnknown(), benchmarks.Procs(), max(count, 1), loadAtStart, loadAverage())
	fmt.Fprintf(c.stdout, "time to list N tasks of one session through the SDK profile's cursor (P-LIST-3); ×N/2 = time ÷ time at N/2: 2× linear, 4× quadratic\n")
	if err := benchmarks.WritePagingTable(c.stdout, res); err != nil {
		return fail(err)
	}
	if err := c.peakRSS(maxRSS); err != nil && runErr == nil {
		runErr = err
	}
	if out != "" {
		var b bytes.Buffer
		for _, p := range res.Points {
			fmt.Fprintf(&b, "BenchmarkPaging/store=%s/N=%d 1 %d ns/op\n", benchName(p.Subject), p.N, p.Listing.Nanoseconds())
		}
		if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
			return fail(err)
		}
	}
	if svg != "" && len(res.Points) > 0 {
		var b bytes.Buffer
		if err := benchmarks.WritePagingSVG(&b, "storecheck bench --paging: "+strings.Join(res.Subjects, " vs "), res); err != nil {
			return fail(err)
		}
		if err := os.WriteFile(svg, b.Bytes(), 0o644); err != nil {
			return fail(err)
		}
	}
	if runErr != nil {
		return fail(runErr)
	}
	return exitOK
}

// childSubject is a store process listed by the paging benchmark: started before the
// run (its name is the one it declares), its store used once.
type childSubject struct {
	benchmarks.PagingSubject
	argv []string
	wc   *wire.Client
}

func (s *childSubject) Start(ctx context.Context) error {
	wc, err := wire.Start(ctx, s.argv, wire.Options{Timeout: execTimeout})
	if err != nil {
		return err
	}
	st, err := wc.SDK()
	if err != nil {
		_ = wc.Close()
		return err
	}
	s.wc, s.Name = wc, wc.Hello().Name+" (wire)"
	s.Open = func(context.Context) (sdk.Store, func(context.Context) error, error) {
		return st, func(context.Context) error { return nil }, nil
	}
	return nil
}

func (s *childSubject) Stop() {
	if s.wc != nil {
		_ = s.wc.Close()
	}
}
