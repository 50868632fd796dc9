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
	"strings"
	"testing"
	"time"

	"github.com/storecheck/storecheck/conformance/harness"
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
	// past it a call may return before it counts as hung (default 3s: a client that
	// honours its deadline still returns late on a loaded machine, by the time it takes
	// to be scheduled and to tear its connection down; docs/faults.md, "Timings").
	CallTimeout, Grace time.Duration
	// Before is how long clients write before the fault (default 1s), Outage how long
	// the backend stays paused or killed (default 6s: a client that ignores its
	// deadline returns 5s late, well past the grace), After how long they write once
	// the store serves again (default 4s: long enough for a write retried behind the
	// caller's back after recovery to show before the final read).
	Before, Outage, After time.Duration
	// RecoveryTimeout bounds the wait for the store to serve again (default 60s: a
	// backend that was paused faces, on its return, every connection its clients opened
	// and gave up on meanwhile, and serving them all again takes it seconds, not
	// milliseconds; docs/faults.md, "Timings").
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
