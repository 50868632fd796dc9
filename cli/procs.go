package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/conformance/harness"
)

// A run of several eras may check them in several processes at once: Ginkgo runs one
// process's specs one after another, and most of a database's battery is spent
// waiting on round trips, so on a machine with processors to spare the eras of a
// store whose processes share nothing (adapter.parallel) run side by side, each group
// in its own `storecheck run`, and their reports are merged into the report one
// process would have written.

var errProcs = errors.New("--procs")

// procsFor is how many processes check the run: --procs when given (1: this one
// only); by default, for a run of the whole battery, as many as the adapter says pay
// (adapter.parallel), else one.
func procsFor(f runFlags, a adapter, cfg conformance.ExecConfig) (int, error) {
	whole := len(cfg.Rules) == 0 && cfg.LabelFilter == "" && len(cfg.FocusStrings) == 0
	most := 1
	if a.parallel != nil {
		most = max(a.parallel(), 1)
	}
	switch {
	case f.procs < 0:
		return 0, fmt.Errorf("%w %d: want 0 (as many as the adapter allows), 1 or more", errProcs, f.procs)
	case f.procs == 1:
		return 1, nil
	case f.procs > 1 && most < 2:
		return 0, fmt.Errorf("%w %d: adapter %s cannot be checked by several processes at once (a shared backend, or a child process that may share one)", errProcs, f.procs, a.name)
	case f.procs > 1 && !whole:
		return 0, fmt.Errorf("%w %d: several processes check the whole battery only (no --rules, --label or --focus)", errProcs, f.procs)
	case f.procs > 1:
		return f.procs, nil
	case whole:
		return most, nil
	}
	return 1, nil
}

// eraWeight is about each era's share of a battery's time, to balance the groups.
var eraWeight = map[conformance.Era]int{conformance.EraModern: 3, conformance.EraLegacy: 2, conformance.EraSDK: 1}

// eraGroups splits eras into at most n groups of about equal weight, the heaviest
// first (this process takes it: the others pay their own bring-up); each group keeps
// the eras' order.
func eraGroups(eras []conformance.Era, n int) [][]conformance.Era {
	n = max(min(n, len(eras)), 1)
	byWeight := slices.Clone(eras)
	slices.SortStableFunc(byWeight, func(a, b conformance.Era) int { return eraWeight[b] - eraWeight[a] })
	groups, weights := make([][]conformance.Era, n), make([]int, n)
	for _, e := range byWeight {
		i := slices.Index(weights, slices.Min(weights))
		groups[i] = append(groups[i], e)
		weights[i] += eraWeight[e]
	}
	for _, g := range groups {
		slices.SortFunc(g, func(a, b conformance.Era) int { return slices.Index(eras, a) - slices.Index(eras, b) })
	}
	return groups
}

// eraProcess is one group of eras checked by another storecheck process.
type eraProcess struct {
	part   eraPart
	eras   []conformance.Era // its group's eras, once this process has brought the store up
	report string
	out    bytes.Buffer // its stdout and stderr, shown when it fails
	done   chan error
}

func (p *eraProcess) name() string {
	if len(p.eras) == 0 {
		return "of group " + p.part.String()
	}
	return joinEras(p.eras)
}

func joinEras(eras []conformance.Era) string {
	var s []string
	for _, e := range eras {
		s = append(s, string(e))
	}
	return strings.Join(s, ",")
}

// eraPart is which group of eras one process of a run checks: part of n (run
// --era-part part+1/n).
type eraPart struct{ part, n int }

func (p eraPart) String() string { return fmt.Sprintf("%d/%d", p.part+1, p.n) }

func parseEraPart(s string) (eraPart, error) {
	var p eraPart
	if _, err := fmt.Sscanf(s, "%d/%d", &p.part, &p.n); err != nil || p.part < 1 || p.part > p.n || fmt.Sprintf("%d/%d", p.part, p.n) != s {
		return eraPart{}, fmt.Errorf("--era-part %q: want I/N, 1 <= I <= N (the Ith of N groups of eras)", s)
	}
	p.part--
	return p, nil
}

// groupsOf returns the eras h has among those cfg asks for, and their n groups. Every
// process of a run computes the same groups from the same store, so each learns its
// own after bringing the store up.
func groupsOf(h harness.Harness, cfg *conformance.ExecConfig, n int) (all []conformance.Era, groups [][]conformance.Era, err error) {
	all, err = conformance.Eras(h, cfg.Eras)
	if err != nil {
		return nil, nil, err
	}
	return all, eraGroups(all, n), nil
}

// narrow sets cfg's eras to the part's group. ok is false when there are fewer groups
// than the part's index: the process has nothing to check.
func (p eraPart) narrow(h harness.Harness, cfg *conformance.ExecConfig) (ok bool, err error) {
	_, groups, err := groupsOf(h, cfg, p.n)
	if err != nil || p.part >= len(groups) {
		return false, err
	}
	cfg.Eras = groups[p.part]
	return true, nil
}

// startEraProcesses starts a `storecheck run` for each group but the first, with the
// run's own arguments (args), its seed and a report file under dir.
func startEraProcesses(ctx context.Context, args []string, n int, seed int64, dir string) ([]*eraProcess, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("%w: finding this program to run the other eras: %w", errProcs, err)
	}
	var ps []*eraProcess
	for i := 1; i < n; i++ {
		p := &eraProcess{part: eraPart{i, n}, report: filepath.Join(dir, fmt.Sprintf("eras-%d.json", i)), done: make(chan error, 1)}
		// Later flags win: the run's own, then what makes this process one part of it.
		childArgs := append(append([]string{"run"}, args...),
			"--era-part", p.part.String(), "--seed", strconv.FormatInt(seed, 10), "--json", p.report, "--junit=", "--procs", "1", "--times=false", "-v=false")
		cmd := exec.CommandContext(ctx, self, childArgs...)
		cmd.Stdout, cmd.Stderr = &p.out, &p.out
		if err := cmd.Start(); err != nil {
			return ps, fmt.Errorf("%w: starting the process of group %d of eras: %w", errProcs, i+1, err)
		}
		go func() { p.done <- cmd.Wait() }()
		ps = append(ps, p)
	}
	return ps, nil
}

// collect waits for the process and reads its report; a process that wrote none is
// a failure of the run, with its output.
func (p *eraProcess) collect() (*conformance.Report, error) {
	waitErr := <-p.done
	b, err := os.ReadFile(p.report)
	if err == nil {
		var r conformance.Report
		if err = json.Unmarshal(b, &r); err == nil {
			return &r, nil
		}
	}
	return nil, fmt.Errorf("the process checking eras %s (storecheck run --era-part %s) wrote no report (%v; exit: %v); its output: %s",
		p.name(), p.part, err, waitErr, lastLines(p.out.String(), 20))
}

// otherEras are the processes checking the eras this one does not.
type otherEras struct {
	procs  []*eraProcess
	n      int               // groups of eras, this process's included
	eras   []conformance.Era // the whole run's, once narrowed
	dir    string
	cancel context.CancelFunc
}

// startOtherEras starts, when procs > 1, the processes that check all but the first
// group of eras. They start before this process brings its store up, so that no
// process waits for another's bring-up (a container's start is seconds); each learns
// its group from its own store (eraPart.narrow). With one process it returns nil.
func (c *app) startOtherEras(args []string, cfg *conformance.ExecConfig, procs int) (*otherEras, error) {
	n := procs
	if len(cfg.Eras) > 0 {
		n = min(n, len(cfg.Eras))
	}
	if n <= 1 {
		return nil, nil
	}
	if cfg.Options.Seed == 0 {
		cfg.Options.Seed = conformance.NewSeed() // one seed for every process: the summary prints it (B-REPRO-1)
	}
	dir, err := os.MkdirTemp("", "storecheck-eras-")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errProcs, err)
	}
	ctx, cancel := context.WithCancel(c.ctx)
	o := &otherEras{n: n, dir: dir, cancel: cancel}
	o.procs, err = startEraProcesses(ctx, args, n, cfg.Options.Seed, dir)
	if err != nil {
		o.stop()
		return nil, err
	}
	return o, nil
}

// narrow sets cfg to the first group of eras, which this process checks, and names
// the other processes' groups.
func (o *otherEras) narrow(c *app, h harness.Harness, cfg *conformance.ExecConfig) error {
	if o == nil {
		return nil
	}
	all, groups, err := groupsOf(h, cfg, o.n)
	if err != nil {
		return err
	}
	o.eras = all
	if len(groups) > 0 {
		cfg.Eras = groups[0]
	}
	for _, p := range o.procs {
		if p.part.part < len(groups) {
			p.eras = groups[p.part.part]
		}
	}
	if c.progress {
		var names []string
		for _, p := range o.procs {
			if len(p.eras) > 0 {
				names = append(names, p.name())
			}
		}
		fmt.Fprintf(c.stderr, "eras %s checked here, %s in %d more process(es) at once (--procs 1: all here)\n\n", joinEras(cfg.Eras), strings.Join(names, "; "), len(names))
	}
	return nil
}

// stop ends the processes (a run that could not go on) and removes their reports.
func (o *otherEras) stop() {
	if o == nil {
		return
	}
	o.cancel()
	for _, p := range o.procs {
		// Only waited for: the process was cancelled, its end is no finding. Then nil
		// goes back, for collect may still read it.
		<-p.done //nolint:errcheck // see above
		p.done <- nil
	}
	os.RemoveAll(o.dir)
}

// merge waits for the other processes and merges their reports into this one's.
func (o *otherEras) merge(own *conformance.Report, started time.Time) *conformance.Report {
	defer func() {
		o.cancel()
		os.RemoveAll(o.dir)
	}()
	parts := []*conformance.Report{own}
	meta := *own
	meta.Eras = o.eras
	for _, p := range o.procs {
		r, err := p.collect()
		if err != nil {
			meta.SuiteFailures = append(meta.SuiteFailures, err.Error())
			continue
		}
		parts = append(parts, r)
	}
	meta.Started, meta.Duration = started, time.Since(started)
	return conformance.MergeReports(meta, parts...)
}
