// Package faults takes a store's backend away while clients write, and checks what the
// store promised: every call during the outage ends with an error by its deadline
// (F-OUTAGE-1), the same clients serve again afterwards (F-RECOVER-1), every
// acknowledged write survives (F-DURABLE-1), no failed write shows in part or late
// (F-ATOMIC-1), and a store that may lose writes on a crash declares it (F-DECLARE-1). It runs against a harness that implements harness.FaultInjector (the
// postgres and redis adapters on containers storecheck started); the rules are in
// docs/spec.md section 5.
package faults

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference"
)

// Faults a run can inject.
const (
	Pause    = "pause"    // docker pause, held for Config.Outage, unpause
	Kill     = "kill"     // SIGKILL, down for Config.Outage, start again
	Failover = "failover" // SIGKILL of one primary of a replicated backend, a replica promoted
)

// ErrNoFaults is returned for a harness that cannot inject faults.
var ErrNoFaults = errors.New("faults: the harness cannot inject faults (it implements no harness.FaultInjector: a backend storecheck did not start is not ours to kill)")

// Config shapes a fault run; zero fields take the defaults.
type Config struct {
	// Faults to inject, in order: default pause, kill, then failover when the harness
	// offers it (harness.Failover).
	Faults []string
	// Workers per era writing concurrently (default 2).
	Workers int
	// CallTimeout is every call's context deadline (default 1s); Grace is how late
	// past it a call may return before it counts as hung (default 3s: on a loaded
	// machine a Redis client's Get during a pause was measured returning 2.8s late).
	CallTimeout, Grace time.Duration
	// Before is how long clients write before the fault (default 1s), Outage how long
	// the backend stays paused or killed (default 6s: a client that ignores its
	// deadline returns 5s late, well past the grace), After how long they write once
	// the store serves again (default 4s: long enough for a write retried behind the
	// caller's back after recovery to show before the final read).
	Before, Outage, After time.Duration
	// RecoveryTimeout bounds the wait for the store to serve again (default 60s: a Postgres that was paused faces every connection its clients opened and gave up on meanwhile, and took up to 27 s to serve again on a loaded machine).
	RecoveryTimeout time.Duration
	// MinAcked is how many calls must have succeeded before the fault (default 50),
	// waited for up to MinAckedWait after Before (default 20s).
	MinAcked     int
	MinAckedWait time.Duration
	// Log, when set, receives a line per step (fault injected, backend back).
	Log func(format string, args ...any)
}

func (c Config) withDefaults(h harness.Harness) Config {
	if len(c.Faults) == 0 {
		c.Faults = []string{Pause, Kill}
		if _, ok := h.(harness.Failover); ok {
			c.Faults = append(c.Faults, Failover)
		}
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	if c.Workers == 0 {
		c.Workers = 2
	}
	def(&c.CallTimeout, time.Second)
	def(&c.Grace, 3*time.Second)
	def(&c.Before, time.Second)
	def(&c.Outage, 6*time.Second)
	def(&c.After, 4*time.Second)
	def(&c.RecoveryTimeout, time.Minute)
	def(&c.MinAckedWait, 20*time.Second)
	if c.MinAcked == 0 {
		c.MinAcked = 50
	}
	if c.Log == nil {
		c.Log = func(string, ...any) {}
	}
	return c
}

// Check runs the fault checks from a Go test and fails t on a broken fault rule; the
// report is logged.
//
//	func TestFaults(t *testing.T) { faults.Check(t, myFaultHarness, faults.Config{}) }
func Check(t *testing.T, h harness.Harness, cfg Config) *Report {
	t.Helper()
	if cfg.Log == nil {
		cfg.Log = t.Logf
	}
	r, err := Run(context.Background(), h, cfg)
	if err != nil {
		t.Fatalf("faults: %v", err)
	}
	var b strings.Builder
	_ = r.Summary(&b)
	t.Log("\n" + b.String())
	r.announce()
	for _, f := range r.Faults {
		for _, v := range f.Rules {
			if v.Outcome == Failed {
				t.Errorf("%s broken by the %s fault: %v", v.ID, f.Fault, v.Reasons)
			}
		}
	}
	return r
}

// EnvSummary names a file that Check appends its report's Lines to. go test shows
// nothing of a passing package's output when it tests a list of packages (t.Log, fmt
// alike), so `make test` sets it and prints the file at the end: the losses measured
// are in CI's log whether the run passed or not.
const EnvSummary = "STORECHECK_FAULTS_SUMMARY"

// announce prints the report's Lines on stdout (shown by go test in a package's
// directory and with -v) and appends them to $STORECHECK_FAULTS_SUMMARY when set.
func (r *Report) announce() {
	lines := strings.Join(r.Lines(), "\n") + "\n"
	fmt.Print(lines)
	if p := os.Getenv(EnvSummary); p != "" {
		f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			fmt.Fprintf(os.Stderr, "faults: %s: %v\n", EnvSummary, err)
			return
		}
		defer f.Close()
		_, _ = f.WriteString(lines)
	}
}

// Run injects each fault of cfg in turn, each on a fresh namespace, while clients
// write, and returns the report. An error means the run itself could not be made (no
// fault injector, a namespace that cannot be opened, a fault that cannot be injected).
func Run(ctx context.Context, h harness.Harness, cfg Config) (*Report, error) {
	inj, ok := h.(harness.FaultInjector)
	if !ok {
		return nil, ErrNoFaults
	}
	cfg = cfg.withDefaults(h)
	r := &Report{Store: h.Name(), Durability: inj.Durability(), Started: time.Now()}
	for _, f := range cfg.Faults {
		res, err := runFault(ctx, h, inj, f, cfg)
		if err != nil {
			return nil, fmt.Errorf("faults: %s: %w", f, err)
		}
		r.Faults = append(r.Faults, res)
	}
	r.Duration = time.Since(r.Started)
	return r, nil
}

func runFault(ctx context.Context, h harness.Harness, inj harness.FaultInjector, fault string, cfg Config) (FaultResult, error) {
	res := FaultResult{Fault: fault, Recovery: map[string]time.Duration{}}
	var failover harness.Failover
	switch fault {
	case Pause, Kill:
	case Failover:
		fo, ok := h.(harness.Failover)
		if !ok {
			return res, fmt.Errorf("the harness has no replicas to fail over to (harness.Failover)")
		}
		failover = fo
	default:
		return res, fmt.Errorf("unknown fault %q (want %s, %s or %s)", fault, Pause, Kill, Failover)
	}
	ns, err := h.Open(ctx, reference.SystemClock{})
	if err != nil {
		return res, err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		_ = ns.Close(cctx)
	}()
	targets, err := openTargets(ctx, h, ns)
	if err != nil {
		return res, err
	}
	c := &calls{messages: map[string]int{}, firstOK: map[string]time.Time{}}
	stop := make(chan struct{})
	var workers []*worker
	done := make([]chan struct{}, 0)
	for _, t := range targets {
		for i := range cfg.Workers {
			w := &worker{t: t, name: fmt.Sprintf("%s-w%d", t.era(), i), calls: c,
				timeout: cfg.CallTimeout, grace: cfg.Grace, pause: 2 * time.Millisecond}
			d := make(chan struct{})
			workers, done = append(workers, w), append(done, d)
			go func() {
				defer close(d)
				w.run(ctx, stop)
			}()
		}
	}
	began := time.Now()
	time.Sleep(cfg.Before)
	// A loaded machine may have acknowledged next to nothing yet: the fault waits for
	// some acknowledged writes to check (up to MinAckedWait more).
	for deadline := time.Now().Add(cfg.MinAckedWait); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		c.mu.Lock()
		n := c.acked
		c.mu.Unlock()
		if n >= cfg.MinAcked {
			break
		}
	}

	// The fault. The outage window is from the injection's return to the start of
	// the backend's return: a call entirely inside it met a backend that could not
	// store anything.
	res.InFlight = int(c.inFlight.Load())
	res.InjectedAfter = time.Since(began)
	faultAt := time.Now()
	cfg.Log("faults: %s: injecting %s", h.Name(), fault)
	var injErr error
	var downFrom, downTo time.Time
	// bringDown takes the backend down, keeps it down for the outage and brings it back.
	bringDown := func(down, up func(context.Context) error) {
		if injErr = down(ctx); injErr == nil {
			downFrom = c.markDown()
			time.Sleep(cfg.Outage)
			downTo = c.markUp()
			injErr = up(context.WithoutCancel(ctx))
		}
	}
	switch fault {
	case Pause:
		bringDown(inj.Pause, inj.Unpause)
	case Kill:
		bringDown(inj.Kill, inj.Restart)
	case Failover:
		res.Node, injErr = failover.KillPrimary(ctx)
	}
	backAt := time.Now()
	res.Outage = backAt.Sub(faultAt)
	// After a kill nothing sent before the restart began can still take effect (see
	// judge). The stamp is taken before the restart, not after it returns: a read may
	// succeed on the new server before its readiness wait is over.
	var restart time.Time
	if fault == Kill {
		restart = downTo
	}
	c.mu.Lock()
	c.backAt = backAt
	c.mu.Unlock()
	cfg.Log("faults: %s: backend back after %s (err %v)", h.Name(), res.Outage.Round(time.Millisecond), injErr)

	// Recovery: wait for a success of every era's clients, then write a little more.
	deadline := time.Now().Add(cfg.RecoveryTimeout)
	for injErr == nil && time.Now().Before(deadline) {
		c.mu.Lock()
		n := len(c.firstOK)
		c.mu.Unlock()
		if n == len(targets) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(cfg.After)
	close(stop)
	// A worker stuck in a call past every deadline is abandoned (and reported).
	stuck := 0
	wait := time.After(2*(cfg.CallTimeout+cfg.Grace) + 5*time.Second)
	finished := make([]bool, len(workers))
	for i, d := range done {
		select {
		case <-d:
			finished[i] = true
		case <-wait:
			// Drain the rest without waiting.
			select {
			case <-d:
				finished[i] = true
			default:
				stuck++
			}
		}
	}
	if failover != nil {
		// The killed node rejoins as a replica, so that the next run has one again.
		defer func() {
			if err := failover.RestoreKilled(context.WithoutCancel(ctx)); err != nil {
				cfg.Log("faults: %s: restoring the killed node: %v", h.Name(), err)
			}
		}()
	}
	if injErr != nil {
		return res, fmt.Errorf("injecting the fault: %w", injErr)
	}

	// Verdicts on every task, read through fresh clients (what the backend keeps, not
	// what a client remembers).
	fresh, err := openTargets(ctx, h, ns)
	if err != nil {
		return res, fmt.Errorf("opening fresh clients after the fault: %w", err)
	}
	byEra := map[string]target{}
	for _, t := range fresh {
		byEra[t.era()] = t
	}
	var lost, torn []string
	erroredWrites := 0
	var hists []*history
	for i, w := range workers {
		if finished[i] {
			hists = append(hists, w.histories...)
		}
	}
	finals, err := readAll(ctx, byEra, hists, cfg)
	if err != nil {
		return res, err
	}
	for i, hist := range hists {
		if len(hist.ops) == 0 {
			continue
		}
		res.Tasks++
		if !hist.ops[len(hist.ops)-1].acked {
			erroredWrites++
		}
		v := judge(hist, finals[i], restart)
		res.AckedChecked += v.checked
		res.AckedLost += v.lost
		if v.lost > 0 {
			res.TasksLost++
			lost = append(lost, v.detail)
		}
		if v.torn || v.zombie {
			torn = append(torn, v.detail)
		}
	}

	c.mu.Lock()
	res.Calls, res.Acked, res.Errors = c.total, c.acked, c.errors
	res.ErrorKinds = errorKinds(c.messages)
	for _, t := range targets {
		if ok := c.firstOK[t.era()]; !ok.IsZero() {
			res.Recovery[t.era()] = ok.Sub(backAt)
		} else {
			res.Recovery[t.era()] = -1
		}
	}
	// Lateness is judged for calls that met the outage or the return from it: a call
	// slowed down by a loaded machine long before the fault says nothing about outages.
	var late []string
	for _, l := range c.late {
		if l.end.After(faultAt) && l.start.Before(backAt.Add(5*time.Second)) {
			res.MaxLate = max(res.MaxLate, l.over)
			if l.over > cfg.Grace {
				late = append(late, l.msg)
			}
		}
	}
	panics := append([]string(nil), c.panics...)
	c.mu.Unlock()
	sort.Strings(lost)
	sort.Strings(torn)

	// F-OUTAGE-1: errors by the deadline, no panic, and no success while the backend
	// could store nothing (a whole-backend outage only: during a failover the other
	// primaries serve).
	outage := RuleVerdict{ID: RuleOutage, Outcome: Passed}
	var reasons []string
	reasons = append(reasons, late...)
	reasons = append(reasons, panics...)
	if stuck > 0 {
		reasons = append(reasons, fmt.Sprintf("%d worker(s) still inside a call %s after the run ended: a call that never returns", stuck, 2*(cfg.CallTimeout+cfg.Grace)+5*time.Second))
	}
	if !downFrom.IsZero() {
		c.mu.Lock()
		n := 0
		for _, s := range c.successes {
			if s.start.After(downFrom) && s.end.Before(downTo) {
				if n < 5 {
					reasons = append(reasons, fmt.Sprintf("%s succeeded at %s into a %s while the backend could store nothing",
						s.what, s.end.Sub(faultAt).Round(time.Millisecond), fault))
				}
				n++
			}
		}
		c.mu.Unlock()
		if n > 5 {
			reasons = append(reasons, fmt.Sprintf("… %d calls in all succeeded during the outage", n))
		}
	}
	if len(reasons) > 0 {
		outage.Outcome, outage.Reasons = Failed, reasons
	} else if res.Errors == 0 {
		outage.Outcome, outage.Reasons = NotExercised, []string{"no call failed: no call met the outage"}
	}

	recov := RuleVerdict{ID: RuleRecover, Outcome: Passed}
	for _, t := range targets {
		if res.Recovery[t.era()] < 0 {
			recov.Outcome = Failed
			recov.Reasons = append(recov.Reasons, fmt.Sprintf("the %s clients opened before the fault did not succeed once within %s of the backend's return", t.era(), cfg.RecoveryTimeout))
		}
	}

	durable := RuleVerdict{ID: RuleDurable, Outcome: Passed}
	declared := fault == Kill && inj.Durability().MayLoseOnCrash || fault == Failover && inj.Durability().MayLoseOnFailover
	switch {
	case res.AckedChecked == 0:
		durable.Outcome, durable.Reasons = NotExercised, []string{"no write was acknowledged"}
	case res.AckedLost > 0 && declared:
		durable.Outcome = Declared
		durable.Reasons = append([]string{fmt.Sprintf("%d of %d acknowledged writes lost; acknowledged writes may be lost on crash: declared (%s)",
			res.AckedLost, res.AckedChecked, inj.Durability().Setting)}, lost...)
	case res.AckedLost > 0:
		durable.Outcome = Failed
		durable.Reasons = append([]string{fmt.Sprintf("%d of %d acknowledged writes lost", res.AckedLost, res.AckedChecked)}, lost...)
	}

	atomic := RuleVerdict{ID: RuleAtomic, Outcome: Passed}
	switch {
	case len(torn) > 0:
		atomic.Outcome, atomic.Reasons = Failed, torn
	case erroredWrites == 0:
		atomic.Outcome, atomic.Reasons = NotExercised, []string{"no write failed"}
	}
	res.Rules = []RuleVerdict{outage, recov, durable, atomic, judgeDeclare(fault, inj.Durability(), durable)}
	return res, nil
}

// judgeDeclare is F-DECLARE-1 in one fault (docs/spec.md 5.2): the rule judges the
// declaration, not the losses. It fails when the harness declares no durability (no
// setting the report could name); it passes after a kill or failover when the report
// names the declaration, and every loss under a lossy declaration is reported as
// declared (F-DURABLE-1 "declared", never "passed"). Losses under a durable
// declaration fail F-DURABLE-1 alone: one defect, one rule. A pause is not a crash: no
// declaration applies to it, so the rule is not exercised there.
func judgeDeclare(fault string, d harness.Durability, durable RuleVerdict) RuleVerdict {
	v := RuleVerdict{ID: RuleDeclare, Outcome: Passed}
	if strings.TrimSpace(d.Setting) == "" {
		v.Outcome, v.Reasons = Failed, []string{"the harness declares no durability setting (harness.Durability.Setting is empty): the report cannot say what a crash may lose"}
		return v
	}
	mayLose, what := d.MayLoseOnCrash, "crash"
	switch fault {
	case Pause:
		v.Outcome, v.Reasons = NotExercised, []string{"a pause is not a crash: no durability declaration applies (losses after a pause fail F-DURABLE-1)"}
		return v
	case Failover:
		mayLose, what = d.MayLoseOnFailover, "failover"
	}
	if mayLose {
		v.Reasons = []string{fmt.Sprintf("declared: acknowledged writes may be lost on %s (%s)", what, d.Setting)}
	} else {
		v.Reasons = []string{fmt.Sprintf("declared durable on %s: no acknowledged write may be lost (%s)", what, d.Setting)}
	}
	switch durable.Outcome {
	case Declared:
		v.Reasons = append(v.Reasons, "losses reported as declared: "+durable.Reasons[0])
	case Failed:
		v.Reasons = append(v.Reasons, "losses under a durable declaration fail F-DURABLE-1")
	}
	return v
}

// openTargets opens one store instance per era the harness declares.
func openTargets(ctx context.Context, h harness.Harness, ns harness.Namespace) ([]target, error) {
	var ts []target
	caps := h.Capabilities()
	if caps.Legacy {
		s, err := ns.Legacy(ctx)
		if err != nil {
			return nil, err
		}
		ts = append(ts, legacyTarget{s: s})
	}
	if caps.Modern {
		s, err := ns.Modern(ctx)
		if err != nil {
			return nil, err
		}
		ts = append(ts, modernTarget{s: s, clock: reference.SystemClock{}})
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("harness %s declares no era", h.Name())
	}
	return ts, nil
}

// readAll reads back every history's task, eight at a time.
func readAll(ctx context.Context, byEra map[string]target, hists []*history, cfg Config) ([]observed, error) {
	finals := make([]observed, len(hists))
	errs := make([]error, len(hists))
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i, h := range hists {
		if len(h.ops) == 0 {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			finals[i], errs[i] = readBack(ctx, byEra[h.era], h.id, cfg)
			if errs[i] != nil {
				errs[i] = fmt.Errorf("reading back %s %s: %w", h.era, h.id, errs[i])
			}
		}()
	}
	wg.Wait()
	return finals, errors.Join(errs...)
}

// readBack reads a task once the store serves again, retrying for a while: the check
// is of what the backend kept, not of a read that met a slow start.
func readBack(ctx context.Context, t target, id string, cfg Config) (observed, error) {
	var last error
	for range 20 {
		cctx, cancel := context.WithTimeout(ctx, 2*cfg.CallTimeout)
		o, err := t.read(cctx, id)
		cancel()
		if err == nil {
			return o, nil
		}
		last = err
		time.Sleep(100 * time.Millisecond)
	}
	return observed{}, last
}
