package faults

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference"
)

// A fault run records first and judges after: recordFault drives the workload, the
// fault and the read-back and keeps what it saw in a record; the judges (judges.go)
// are pure functions of that record, so that each rule's verdict can be tested on
// records made by hand, without a backend.

// record is what one fault run saw: the calls made with their times and answers, the
// fault's times, every task's writes with its final state, and what the harness
// declared.
type record struct {
	fault      string
	durability harness.Durability
	eras       []string // of the clients opened before the fault, in order
	// The run's settings the judges read (Config).
	callTimeout, grace, recoveryTimeout time.Duration

	began    time.Time // the workers started
	inFlight int       // calls in flight when the fault began
	node     string    // the node killed (failover)
	// faultAt: the injection began. backAt: its undoing returned, the backend answers
	// again. downFrom to downTo: the whole backend away, from the injection's return
	// to the start of its undoing (zero for a failover: the other primaries serve).
	// restart: a kill's restart began (zero for other faults); a statement sent before
	// it cannot take effect after it, since no statement in flight survives a kill.
	faultAt, backAt, downFrom, downTo, restart time.Time

	calls []callRecord // every call of the workload, in the order they ended
	stuck int          // workers still inside a call when the run ended, abandoned
	tasks []taskRecord // every task written by a worker that finished
}

// taskRecord is one task: its writes, and its state read back through a fresh client.
type taskRecord struct {
	h     *history
	final observed
}

// abandonAfter is how long the run waits, once it stops its workers, for a worker
// still inside a call: two calls' deadlines and grace, and some.
func abandonAfter(callTimeout, grace time.Duration) time.Duration {
	return 2*(callTimeout+grace) + 5*time.Second
}

func runFault(ctx context.Context, h harness.Harness, inj harness.FaultInjector, fault string, cfg Config) (FaultResult, error) {
	rec, err := recordFault(ctx, h, inj, fault, cfg)
	if err != nil {
		return FaultResult{Fault: fault}, err
	}
	return judgeRun(rec), nil
}

// recordFault writes through clients of a fresh namespace, injects the fault once
// enough writes are acknowledged, waits for the clients to serve again, stops them and
// reads every task back through fresh clients.
func recordFault(ctx context.Context, h harness.Harness, inj harness.FaultInjector, fault string, cfg Config) (*record, error) {
	failover, err := failoverOf(h, fault)
	if err != nil {
		return nil, err
	}
	ns, err := h.Open(ctx, reference.SystemClock{})
	if err != nil {
		return nil, err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		_ = ns.Close(cctx)
	}()
	targets, err := openTargets(ctx, h, ns)
	if err != nil {
		return nil, err
	}
	rec := &record{fault: fault, durability: inj.Durability(),
		callTimeout: cfg.CallTimeout, grace: cfg.Grace, recoveryTimeout: cfg.RecoveryTimeout}
	for _, t := range targets {
		rec.eras = append(rec.eras, t.era())
	}
	c := newCalls()
	p := startWorkers(ctx, targets, c, cfg)
	rec.began = time.Now()
	time.Sleep(cfg.Before)
	waitFor(cfg.MinAckedWait, func() bool { return c.ackedCount() >= cfg.MinAcked })

	rec.inFlight = int(c.inFlight.Load())
	injErr := inject(ctx, h.Name(), inj, failover, c, rec, cfg)
	if injErr == nil {
		waitFor(cfg.RecoveryTimeout, func() bool { return c.recoveredEras() == len(targets) })
	}
	time.Sleep(cfg.After)
	hists, stuck := p.stop(abandonAfter(cfg.CallTimeout, cfg.Grace))
	rec.stuck = stuck
	if failover != nil {
		// The killed node rejoins as a replica, so that the next run has one again.
		defer func() {
			if err := failover.RestoreKilled(context.WithoutCancel(ctx)); err != nil {
				cfg.Log("faults: %s: restoring the killed node: %v", h.Name(), err)
			}
		}()
	}
	if injErr != nil {
		return nil, fmt.Errorf("injecting the fault: %w", injErr)
	}
	if rec.tasks, err = readTasks(ctx, h, ns, hists, cfg); err != nil {
		return nil, err
	}
	rec.calls = c.snapshot()
	return rec, nil
}

// failoverOf checks that fault is one the harness can inject, and returns its
// Failover for a failover.
func failoverOf(h harness.Harness, fault string) (harness.Failover, error) {
	switch fault {
	case Pause, Kill:
		return nil, nil
	case Failover:
		fo, ok := h.(harness.Failover)
		if !ok {
			return nil, fmt.Errorf("the harness has no replicas to fail over to (harness.Failover)")
		}
		return fo, nil
	}
	return nil, fmt.Errorf("unknown fault %q (want %s, %s or %s)", fault, Pause, Kill, Failover)
}

// waitFor polls done every 20ms for up to limit. A loaded machine may have acknowledged
// next to nothing when the fault is due, and a backend takes its time to serve again.
func waitFor(limit time.Duration, done func() bool) {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if done() {
			return
		}
	}
}

// inject takes the backend away and brings it back, recording the fault's times in
// rec. After a kill nothing sent before the restart began can still take effect (see
// judgeTask): rec.restart is stamped before the restart, not after it returns, since a
// read may succeed on the new server before the restart's readiness wait is over.
func inject(ctx context.Context, name string, inj harness.FaultInjector, failover harness.Failover, c *calls, rec *record, cfg Config) error {
	rec.faultAt = time.Now()
	cfg.Log("faults: %s: injecting %s", name, rec.fault)
	var err error
	// bringDown takes the backend down, keeps it down for the outage and brings it back.
	bringDown := func(down, up func(context.Context) error) {
		if err = down(ctx); err == nil {
			rec.downFrom = time.Now()
			time.Sleep(cfg.Outage)
			rec.downTo = time.Now()
			err = up(context.WithoutCancel(ctx))
		}
	}
	switch rec.fault {
	case Pause:
		bringDown(inj.Pause, inj.Unpause)
	case Kill:
		bringDown(inj.Kill, inj.Restart)
		rec.restart = rec.downTo
	case Failover:
		rec.node, err = failover.KillPrimary(ctx)
	}
	rec.backAt = time.Now()
	c.markBack(rec.backAt)
	cfg.Log("faults: %s: backend back after %s (err %v)", name, rec.backAt.Sub(rec.faultAt).Round(time.Millisecond), err)
	return err
}

// pool is the workers of a run: cfg.Workers per era, each writing its own tasks.
type pool struct {
	halt    chan struct{}
	workers []*worker
	done    []chan struct{}
}

func startWorkers(ctx context.Context, targets []target, c *calls, cfg Config) *pool {
	p := &pool{halt: make(chan struct{})}
	for _, t := range targets {
		for i := range cfg.Workers {
			w := &worker{t: t, name: fmt.Sprintf("%s-w%d", t.era(), i), calls: c,
				timeout: cfg.CallTimeout, pause: 2 * time.Millisecond}
			d := make(chan struct{})
			p.workers, p.done = append(p.workers, w), append(p.done, d)
			go func() {
				defer close(d)
				w.run(ctx, p.halt)
			}()
		}
	}
	return p
}

// stop stops the workers and returns the histories with writes of those that
// finished, and how many are still inside a call after wait: those are abandoned
// (their tasks unread: a worker may still be writing them) and reported.
func (p *pool) stop(wait time.Duration) (hists []*history, stuck int) {
	close(p.halt)
	timeout := time.After(wait)
	expired := false
	for i, d := range p.done {
		if !expired {
			select {
			case <-d:
			case <-timeout:
				expired = true
			}
		}
		if expired {
			// Past the wait: take the rest as they are.
			select {
			case <-d:
			default:
				stuck++
				continue
			}
		}
		for _, h := range p.workers[i].histories {
			if len(h.ops) > 0 {
				hists = append(hists, h)
			}
		}
	}
	return hists, stuck
}

// readTasks reads every history's task back through fresh clients (what the backend
// keeps, not what a client remembers), eight at a time.
func readTasks(ctx context.Context, h harness.Harness, ns harness.Namespace, hists []*history, cfg Config) ([]taskRecord, error) {
	fresh, err := openTargets(ctx, h, ns)
	if err != nil {
		return nil, fmt.Errorf("opening fresh clients after the fault: %w", err)
	}
	byEra := map[string]target{}
	for _, t := range fresh {
		byEra[t.era()] = t
	}
	tasks := make([]taskRecord, len(hists))
	errs := make([]error, len(hists))
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i, h := range hists {
		tasks[i].h = h
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			tasks[i].final, errs[i] = readBack(ctx, byEra[h.era], h.id, cfg)
			if errs[i] != nil {
				errs[i] = fmt.Errorf("reading back %s %s: %w", h.era, h.id, errs[i])
			}
		}()
	}
	wg.Wait()
	return tasks, errors.Join(errs...)
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
