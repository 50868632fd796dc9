package conformance

import (
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// Seeds (B-REPRO-1). Every randomised check derives its own stream from the run's seed
// and its own name, so a failure reproduces with the run's seed alone and adding a check
// never shifts another's operations.

// seedEnv lets `go test` runs pick the seed without code (Options.Seed wins).
const seedEnv = "STORECHECK_SEED"

var processSeed = sync.OnceValue(seedOrEnv)

// seedOrEnv is the seed of a run that was given none: $STORECHECK_SEED, else a new one.
func seedOrEnv() int64 {
	if v, err := strconv.ParseInt(os.Getenv(seedEnv), 10, 64); err == nil && v != 0 {
		return v
	}
	return newSeed()
}

// runSeed is the seed of the run: Options.Seed, else $STORECHECK_SEED, else one picked
// once per process.
func (e *Env) runSeed() int64 {
	if e.Opts.Seed != 0 {
		return e.Opts.Seed
	}
	return processSeed()
}

// subSeed derives a check's seed from the run's.
func subSeed(seed int64, name string) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%s", seed, name)
	if v := h.Sum64(); v != 0 {
		return v
	}
	return 1
}

// rerun tells how to replay a randomised check.
func (e *Env) rerun() string {
	s := e.runSeed()
	return fmt.Sprintf("seed %d: rerun with `storecheck run --seed %d --rules %s [--adapter ...]`, or %s=%d go test ..., or conformance.Options{Seed: %d} (budget: %d checks, %d goroutines, %d ops, %d histories)",
		s, s, e.Rule.ID, seedEnv, s, s, e.Opts.Budget.Checks, e.Opts.Budget.Goroutines, e.Opts.Budget.Ops, e.Opts.Budget.Histories)
}

// rapid reads its settings from process-wide flags; this lock keeps two machines from
// running with each other's seed.
var rapidMu sync.Mutex

// rapidRun is the outcome of one rapid.Check.
type rapidRun struct {
	Failed  bool
	Message string   // rapid's failure, cut before its own rerun hint (ours is better)
	Steps   []string // the minimal failing sequence, as the machine logged it
}

// rapidShrinkTime bounds the minimisation of a failing sequence.
var rapidShrinkTime = 10 * time.Second

// runRapid runs prop for checks cases from seed, with rapid's usual shrinking, outside
// a *testing.T: rapid.Check takes any rapid.TB, and its seed and number of checks are
// its -rapid.seed and -rapid.checks flags, set here for the duration of the run.
func runRapid(name string, seed uint64, checks int, prop func(*rapid.T)) rapidRun {
	rapidMu.Lock()
	defer rapidMu.Unlock()
	ensureTestingFlags()
	restore := setFlags(map[string]string{
		"rapid.seed":       strconv.FormatUint(seed, 10),
		"rapid.checks":     strconv.Itoa(checks),
		"rapid.steps":      "50",
		"rapid.nofailfile": "true",
		"rapid.failfile":   "",
		"rapid.shrinktime": rapidShrinkTime.String(),
		"rapid.v":          "false",
		"rapid.log":        "false",
		"rapid.debug":      "false",
	})
	defer restore()
	tb := &rapidTB{name: name}
	rapid.Check(tb, prop)
	return tb.result()
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

func (t *rapidTB) result() rapidRun {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := rapidRun{Failed: t.failed}
	var msgs []string
	for _, e := range t.errs {
		if i := strings.Index(e, "\nTo reproduce"); i >= 0 {
			e = e[:i]
		}
		if i := strings.Index(e, "\nTo try to reproduce"); i >= 0 {
			e = e[:i]
		}
		msgs = append(msgs, strings.TrimSpace(e))
	}
	r.Message = strings.Join(msgs, "\n")
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

// reportRapid turns a failed machine run into one fault that names the rule, the
// minimal sequence and the seed.
func (e *Env) reportRapid(what string, r rapidRun) {
	if !r.Failed {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s diverged from the sequential model.\n  %s\n", what, strings.ReplaceAll(r.Message, "\n", "\n  "))
	if len(r.Steps) > 0 {
		fmt.Fprintf(&b, "  minimal failing sequence (%d steps):\n", len(r.Steps))
		for _, s := range r.Steps {
			fmt.Fprintf(&b, "    %s\n", s)
		}
	}
	fmt.Fprintf(&b, "  %s", e.rerun())
	e.Errorf("%s", b.String())
}
