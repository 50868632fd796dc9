package property

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/conformance/model"
	"github.com/storecheck/storecheck/reference"
	"pgregory.net/rapid"
)

// Seeds (B-REPRO-1). Every randomised check derives its own stream from the run's seed
// and its own name, so a failure reproduces with the run's seed alone and adding a check
// never shifts another's operations.

// subSeed derives a check's seed from the run's.
func subSeed(seed int64, name string) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%s", seed, name)
	if v := h.Sum64(); v != 0 {
		return v
	}
	return 1
}

// rapid reads its settings from process-wide flags; this lock keeps two machines from
// running with each other's seed.
var rapidMu sync.Mutex

// RapidRun is the outcome of one rapid.Check.
type RapidRun struct {
	Failed  bool
	Message string   // rapid's failure, cut before its own rerun hint (ours is better)
	Steps   []string // the minimal failing sequence, as the machine logged it
	// Flaky: the minimal sequence did not fail when replayed; Message is the original
	// failure.
	Flaky bool
	// Ran is how many cases ran to their end; Stopped, that the run stopped before its
	// planned cases because the spec's time was short (see runRapid).
	Ran     int
	Stopped bool
}

// RapidShrinkTime bounds the minimisation of a failing sequence.
var RapidShrinkTime = 10 * time.Second

// runRapid runs prop for checks cases from seed, with rapid's usual shrinking, outside
// a *testing.T: rapid.Check takes any rapid.TB, and its seed and number of checks are
// its -rapid.seed and -rapid.checks flags, set here for the duration of the run.
//
// With timed (a spec's Env), the run keeps inside its time budget and the spec's time:
// until a case has failed, once minMachineCases have run past Budget.MachineTime, or
// once timed.TimeShort, the remaining cases are skipped (rapid counts them invalid, at
// no cost) and the run is judged on the cases that ran; the shrinking of a failure
// stops before the spec's deadline, so that its replays never meet a context the
// spec's timeout ended. rapid takes a time limit only from a *testing.T's deadline,
// which the battery's specs do not run under.
func runRapid(name string, seed uint64, checks int, timed *battery.Env, prop func(*rapid.T)) RapidRun {
	rapidMu.Lock()
	defer rapidMu.Unlock()
	ensureTestingFlags()
	shrink := RapidShrinkTime
	if timed != nil && !timed.Deadline.IsZero() {
		shrink = max(min(shrink, time.Until(timed.Deadline)-timed.Opts.SpecTimeout/8), time.Millisecond)
	}
	restore := setFlags(map[string]string{
		"rapid.seed":       strconv.FormatUint(seed, 10),
		"rapid.checks":     strconv.Itoa(checks),
		"rapid.steps":      "50",
		"rapid.nofailfile": "true",
		"rapid.failfile":   "",
		"rapid.shrinktime": shrink.String(),
		"rapid.v":          "false",
		"rapid.log":        "false",
		"rapid.debug":      "false",
	})
	defer restore()
	tb := &rapidTB{name: name}
	ran, failedOnce, stopped := 0, false, false
	var budget time.Time
	if timed != nil {
		budget = time.Now().Add(timed.Opts.Budget.MachineTime)
	}
	rapid.Check(tb, func(t *rapid.T) {
		if timed != nil && !failedOnce && (stopped || timed.TimeShort() || ran >= minMachineCases(checks) && time.Now().After(budget)) {
			stopped = true
			t.SkipNow()
		}
		ended := false
		defer func() {
			if ended {
				ran++
			} else {
				failedOnce = true // a fault or a panic: its shrinking replays must run
			}
		}()
		prop(t)
		ended = true
	})
	r := tb.result(stopped)
	r.Ran, r.Stopped = ran, stopped
	return r
}

func setFlags(values map[string]string) (restore func()) {
	old := map[string]string{}
	for k, v := range values {
		f := flag.Lookup(k)
		if f == nil {
			continue
		}
		old[k] = f.Value.String()
		_ = flag.Set(k, v)
	}
	return func() {
		for k, v := range old {
			_ = flag.Set(k, v)
		}
	}
}

// ensureTestingFlags lets rapid call testing.Short outside `go test` (storecheck run):
// it panics unless the testing flags are registered and parsed.
func ensureTestingFlags() {
	if shortWorks() {
		return
	}
	testing.Init()
	if !flag.Parsed() {
		_ = flag.CommandLine.Parse(nil)
	}
}

func shortWorks() (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	testing.Short()
	return true
}

// rapidTB is the rapid.TB the battery hands to rapid.Check: it records instead of
// failing a Go test.
type rapidTB struct {
	name   string
	mu     sync.Mutex
	logs   []string
	errs   []string
	failed bool
}

func (t *rapidTB) Helper()      {}
func (t *rapidTB) Name() string { return t.name }
func (t *rapidTB) Logf(format string, args ...any) {
	t.mu.Lock()
	t.logs = append(t.logs, fmt.Sprintf(format, args...))
	t.mu.Unlock()
}
func (t *rapidTB) Log(args ...any)                  { t.Logf("%s", fmt.Sprint(args...)) }
func (t *rapidTB) Skipf(format string, args ...any) { t.Logf(format, args...) }
func (t *rapidTB) Skip(args ...any)                 { t.Log(args...) }
func (t *rapidTB) SkipNow()                         {}
func (t *rapidTB) Errorf(format string, args ...any) {
	t.mu.Lock()
	t.errs = append(t.errs, fmt.Sprintf(format, args...))
	t.failed = true
	t.mu.Unlock()
}
func (t *rapidTB) Error(args ...any)                 { t.Errorf("%s", fmt.Sprint(args...)) }
func (t *rapidTB) Fatalf(format string, args ...any) { t.Errorf(format, args...) }
func (t *rapidTB) Fatal(args ...any)                 { t.Error(args...) }
func (t *rapidTB) FailNow()                          { t.Fail() }
func (t *rapidTB) Fail() {
	t.mu.Lock()
	t.failed = true
	t.mu.Unlock()
}
func (t *rapidTB) Failed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.failed
}

// stepPrefix marks the lines machines log for each step, so the minimal sequence can be
// picked out of rapid's own log.
const stepPrefix = "step "

// caseLog is what a state machine's case keeps of its own steps: how many it took, the
// rule of the last (a state divergence found after it breaks that rule), and the trace
// (B-REPRO-1). scrub writes what differs between replays of the case (its id prefix,
// generated ids) the same on each, as rapid compares the messages while shrinking.
type caseLog struct {
	n     int
	last  string
	trace func(string)
	scrub func(string) string
}

// step logs a step under rule and returns its description.
func (c *caseLog) step(t *rapid.T, rule, format string, args ...any) string {
	c.n++
	c.last = rule
	desc := fmt.Sprintf(format, args...)
	t.Logf("%s%d: %s", stepPrefix, c.n, c.scrub(desc))
	if c.trace != nil {
		c.trace(c.scrub(desc))
	}
	return desc
}

// fatal stops the case with a fault naming the rule.
func (c *caseLog) fatal(t *rapid.T, rule, input string, want, got any) {
	if c.trace != nil {
		c.trace(traceFailed)
	}
	t.Fatalf("%s", c.scrub(ruleFault(rule, input, want, got)))
}

// deleted judges a store's Delete of id (named name in the step): it succeeds, or
// refuses an invalid id (S-ID-2).
func (c *caseLog) deleted(t *rapid.T, rule, name, id string, err error) {
	in := c.step(t, rule, "Delete(%s) -> %s", name, battery.Outcome(err))
	if err != nil && !refusedInvalid(id, err) {
		c.fatal(t, rule, in, "success", err)
	}
}

// refusedInvalid tells whether err is how S-ID-2 lets any call but Create refuse id:
// the id is invalid and the answer ErrNotFound or ErrInvalid.
func refusedInvalid(id string, err error) bool {
	return !model.ValidID(id) && (errors.Is(err, reference.ErrNotFound) || errors.Is(err, reference.ErrInvalid))
}

// sameNotFound checks S-OWN-2 at the facade: a denied task and a missing one give the
// same message.
func (c *caseLog) sameNotFound(t *rapid.T, in, id string, err error) {
	if model.ValidID(id) && errors.Is(err, reference.ErrNotFound) && err.Error() != reference.NotFound(id).Error() {
		c.fatal(t, "S-OWN-2", in, reference.NotFound(id), err)
	}
}

// machineSpec registers one era's S-CONC-1 state machine: newMachine(e, checks, trace,
// validOnly, timed) runs it.
func machineSpec(s *battery.Suite, era string, newMachine func(e *battery.Env, checks int, trace func(string), validOnly, timed bool) RapidRun) {
	s.It("S-CONC-1", era+" store and facade agree with the sequential model over random operation sequences (rapid state machine)", func(e *battery.Env) {
		reportMachine(e, "the "+era+" store (through its contract and the reference facade)", func(validOnly bool) RapidRun {
			return newMachine(e, e.Opts.Budget.Checks, nil, validOnly, true)
		})
	})
}

// specTime is the Env whose spec time runRapid keeps inside: e when timed, else none.
func specTime(e *battery.Env, timed bool) *battery.Env {
	if timed {
		return e
	}
	return nil
}

// rapidTooFew starts rapid's complaint that too many cases were skipped, which a run
// stopped for time (runRapid's stop) makes on purpose.
const rapidTooFew = "[rapid] only generated "

func (t *rapidTB) result(stopped bool) RapidRun {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := RapidRun{Failed: t.failed}
	var msgs []string
	for _, e := range t.errs {
		if stopped && strings.HasPrefix(e, rapidTooFew) {
			continue
		}
		if strings.HasPrefix(e, "[rapid] flaky test") {
			// The minimal case did not fail again (the store changed under it, or it
			// is racy): the failure is the original one.
			if _, orig, ok := strings.Cut(e, "\nOriginal traceback ("); ok {
				if i := strings.Index(orig, "):\n"); i >= 0 {
					orig = orig[:i]
				}
				r.Flaky = true
				e = orig
			}
		}
		if i := strings.Index(e, "\nTo reproduce"); i >= 0 {
			e = e[:i]
		}
		if i := strings.Index(e, "\nTo try to reproduce"); i >= 0 {
			e = e[:i]
		}
		msgs = append(msgs, strings.TrimSpace(e))
	}
	r.Message = strings.Join(msgs, "\n")
	if stopped && len(msgs) == 0 {
		r.Failed = false
	}
	// rapid replays the minimal case last, logging through this TB: keep that replay's
	// steps (a step numbered 1 starts a new case).
	for _, l := range t.logs {
		if !strings.HasPrefix(l, stepPrefix) {
			continue
		}
		if strings.HasPrefix(l, stepPrefix+"1:") {
			r.Steps = r.Steps[:0]
		}
		r.Steps = append(r.Steps, l)
	}
	return r
}

// traceFailed is the trace line a machine writes when a case fails: a replay is
// compared up to the first one (what follows is shrinking, bounded by time).
const traceFailed = "-- case failed"

// faultRule reads the rule a machine's fault names ("[S-ID-2 MUST] ...").
var faultRule = regexp.MustCompile(`\[([A-Z0-9-]+) (?:MUST|SHOULD)\]`)

// reportMachine runs a state machine (run) and reports what it found under the rule it
// belongs to. A divergence the machine files under S-CONC-1 fails S-CONC-1. One it
// files under another rule (the last step fails on its own: a Create("") accepted is
// S-ID-2's) fails that rule, with the minimal sequence and the seed (Env.FaultOf),
// whatever that rule's own specs found; S-CONC-1 is not failed for it. Then, for an
// S-ID-2 fault, the machine runs again without invalid ids, so that S-CONC-1 is still
// checked; for any other, S-CONC-1 is inconclusive, naming the rule that failed.
func reportMachine(e *battery.Env, what string, run func(validOnly bool) RapidRun) {
	r := run(false)
	rule := machineRule(r)
	if rule == "S-ID-2" {
		e.FaultOf(rule, rapidFault(e, what, r))
		r = run(true)
		rule = machineRule(r)
	}
	switch {
	case r.Failed && e.Ctx.Err() != nil && (strings.Contains(r.Message, context.Canceled.Error()) || strings.Contains(r.Message, context.DeadlineExceeded.Error())):
		// The spec's own context ended under a call (its time ran out): the call's
		// error is the battery's doing, not the store's.
		e.Inconclusive(fmt.Sprintf("%s: the spec's time ran out during case %d of %d, and the call it cut off failed with its context's error; %s",
			what, r.Ran+1, e.Opts.Budget.Checks, e.Rerun()))
	case !r.Failed && r.Stopped && r.Ran < minMachineCases(e.Opts.Budget.Checks):
		e.Inconclusive(fmt.Sprintf("%s: only %d of %d cases ran before the spec's time grew short (a slow store or a loaded machine); at least %d are needed to count; %s",
			what, r.Ran, e.Opts.Budget.Checks, minMachineCases(e.Opts.Budget.Checks), e.Rerun()))
	case !r.Failed && r.Stopped:
		e.Note("%s: %d of %d cases ran within the machine's time budget (%v), none diverged", what, r.Ran, e.Opts.Budget.Checks, e.Opts.Budget.MachineTime)
	case !r.Failed:
	case rule == "" || rule == e.Rule.ID:
		ReportRapid(e, what, r)
	default:
		e.FaultOf(rule, rapidFault(e, what, r))
		first, _, _ := strings.Cut(r.Message, "\n")
		e.Inconclusive(fmt.Sprintf("%s: the state machine stopped on a fault of %s, reported under %s: %s (minimal sequence: %d steps; %s)",
			what, rule, rule, first, len(r.Steps), e.Rerun()))
	}
}

// minMachineCases is how many of its planned cases a machine stopped for time must have
// run for its run to count: a quarter, and at least one.
func minMachineCases(planned int) int { return max(planned/4, 1) }

// machineRule is the rule a failed machine run's fault names, "" when it names none.
func machineRule(r RapidRun) string {
	if !r.Failed {
		return ""
	}
	m := faultRule.FindStringSubmatch(r.Message)
	if m == nil {
		return ""
	}
	return m[1]
}

// ReportRapid turns a failed machine run into one fault that names the rule, the
// minimal sequence and the seed.
func ReportRapid(e *battery.Env, what string, r RapidRun) {
	if !r.Failed {
		return
	}
	e.Errorf("%s", rapidFault(e, what, r))
}

// rapidFault describes a failed machine run: its message, the minimal sequence and the
// seed that replays it.
func rapidFault(e *battery.Env, what string, r RapidRun) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s diverged from the sequential model.\n  %s\n", what, strings.ReplaceAll(r.Message, "\n", "\n  "))
	if len(r.Steps) > 0 && r.Flaky {
		fmt.Fprintf(&b, "  the shortest sequence found did not fail again when replayed (%d steps):\n", len(r.Steps))
	} else if len(r.Steps) > 0 {
		fmt.Fprintf(&b, "  minimal failing sequence (%d steps):\n", len(r.Steps))
		for _, s := range r.Steps {
			fmt.Fprintf(&b, "    %s\n", s)
		}
	}
	fmt.Fprintf(&b, "  %s", e.Rerun())
	return b.String()
}
