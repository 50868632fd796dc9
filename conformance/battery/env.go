package battery

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega/types"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/conformance/report"
	"github.com/storecheck/storecheck/conformance/rules"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonvalue"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
	"github.com/storecheck/storecheck/reference/sdk"
)

// Epoch is where the battery's clock starts in every spec that controls time: a fixed,
// recent instant, so that created_at values are realistic and reproducible.
var Epoch = time.UnixMilli(1_764_400_000_000)

// Env is what one spec works with: the store under test on a fresh namespace, the
// battery's clock, and the fault recorder. Spec bodies receive it from suite.It.
type Env struct {
	// Ctx is the spec's context: it ends at the spec timeout.
	Ctx  context.Context
	Rule rules.Rule
	Caps harness.Capabilities
	era  harness.Era
	Opts Options

	Harness   harness.Harness
	Namespace harness.Namespace
	Manual    *reference.ManualClock // nil without clock control

	mu     sync.Mutex
	faults []fault
	of     string // the rule faults are recorded under now (Env.Of); "" is the spec's own
	legacy legacy.Store
	modern modern.Store
	sdk    sdk.Store
	seq    atomic.Int64
	Tag    string
	// extending is set while a race check runs rounds past its base (OverlapMeter.Rounds).
	extending atomic.Bool

	InSpec bool // report entries go to Ginkgo (false when a test drives the Env by hand)
	// Deadline is when the spec times out (zero outside a spec): concurrent checks stop
	// starting rounds before it, so that what they ran is judged rather than cut off.
	Deadline            time.Time
	InconclusiveReasons []string
	Overlaps            []report.OverlapStats
}

// TimeShort reports whether less than a quarter of the spec's time is left: a check
// that runs rounds or cases stops starting new ones then, so that what it ran is judged
// instead of the spec timing out mid-call and reading FAILED for a store that broke
// nothing (a slow backend on a loaded machine).
func (e *Env) TimeShort() bool {
	return !e.Deadline.IsZero() && time.Until(e.Deadline) < e.Opts.SpecTimeout/4
}

// ErrFatal stops a spec body after a fault it cannot go on from.
var ErrFatal = errors.New("conformance: fatal fault")

// errRoundsEnded stops a race check's extra rounds when the store refuses a setup call
// at its own declared limit (ErrLimitReached): a store with a row cap is honest to stop
// taking tasks, so the rounds that ran are judged (inconclusive when too few overlapped)
// rather than the cap read as a fault of the rule.
var errRoundsEnded = errors.New("conformance: race rounds ended at the store's limit")

// stopped reports whether a recovered panic value is one of the battery's own stops,
// ErrFatal or errRoundsEnded, rather than a panic of the store or of a spec.
func stopped(r any) bool {
	err, ok := r.(error)
	return ok && (errors.Is(err, ErrFatal) || errors.Is(err, errRoundsEnded))
}

// Clock is the clock the store reads. Without clock control it is the real clock.
func (e *Env) Clock() reference.Clock {
	if e.Manual == nil {
		return reference.SystemClock{}
	}
	return e.Manual
}

// HasClock reports whether the store obeys the battery's clock.
func (e *Env) HasClock() bool { return e.Manual != nil }

// Age lets time pass for a spec that needs a task to grow old: under clock control the
// battery's clock moves on by d, else the spec sleeps for wait of real time.
func (e *Env) Age(d, wait time.Duration) {
	if e.HasClock() {
		e.ManualClock().Advance(d)
	} else {
		time.Sleep(wait)
	}
}

// ManualClock returns the battery's clock, and skips the spec with the reason
// "no clock control" when the store does not obey it (docs/wire.md: such specs are never
// reported as passed; their rule reads "partly verified").
func (e *Env) ManualClock() *reference.ManualClock {
	if e.Manual == nil {
		e.SkipNoClock(fmt.Sprintf("spec %q, which sets the store's clock to an exact millisecond, skipped", ginkgo.CurrentSpecReport().LeafNodeText))
	}
	return e.Manual
}

// NowMillis is the store's current time in milliseconds.
func (e *Env) NowMillis() int64 { return reference.NowMillis(e.Clock()) }

// Legacy returns the spec's legacy store (the same instance on every call).
func (e *Env) Legacy() legacy.Store {
	return opened(e, &e.legacy, "legacy store", e.Namespace.Legacy)
}

// Modern returns the spec's modern store (the same instance on every call).
func (e *Env) Modern() modern.Store {
	return opened(e, &e.modern, "modern store", e.Namespace.Modern)
}

// SDK returns the spec's SDK-profile store (the same instance on every call).
func (e *Env) SDK() sdk.Store {
	return opened(e, &e.sdk, "SDK-profile store", func(ctx context.Context) (sdk.Store, error) { return harness.OpenSDK(ctx, e.Namespace) })
}

// opened returns *st, opening it first when it is not yet: the spec's one instance of
// an era's store.
func opened[S comparable](e *Env, st *S, what string, open func(context.Context) (S, error)) S {
	e.mu.Lock()
	defer e.mu.Unlock()
	var none S
	if *st == none {
		s, err := open(e.Ctx)
		e.BringUp(what, err)
		*st = s
	}
	return *st
}

// OtherLegacy opens another instance on the same namespace (S-SHARE-1). It skips when
// the harness does not declare shared instances.
func (e *Env) OtherLegacy() legacy.Store {
	return other(e, "second legacy instance", e.Namespace.Legacy)
}

// OtherModern is OtherLegacy for the modern era.
func (e *Env) OtherModern() modern.Store {
	return other(e, "second modern instance", e.Namespace.Modern)
}

func other[S any](e *Env, what string, open func(context.Context) (S, error)) S {
	if !e.Caps.Shared {
		e.Skip("not applicable: the store has a single instance per namespace")
	}
	st, err := open(e.Ctx)
	e.BringUp(what, err)
	return st
}

// BringUp aborts the spec when the harness could not give it a store: that is the
// harness's or the transport's failure, not the rule's.
func (e *Env) BringUp(what string, err error) {
	if err != nil {
		abort(fmt.Sprintf("bring-up of the %s failed: %v", what, err), e.Harness)
	}
}

// ID returns an id unique to this spec and run, with an optional readable prefix. Specs
// never assume an empty backend, so they only ever look at ids they made (B-ISO-1).
func (e *Env) ID(prefix string) string {
	return fmt.Sprintf("%s%s-%d", prefix, e.Tag, e.seq.Add(1))
}

// Check records a fault when ok is false and lets the spec go on, so that one spec
// reports every fault it finds at once (like fstest.TestFS). input is the call that was
// made; want and got are what was expected and what came back.
func (e *Env) Check(ok bool, input string, want, got any) bool {
	if !ok {
		e.fault(input, want, got)
	}
	return ok
}

// Require is Check that stops the spec when the fault leaves nothing to check further.
func (e *Env) Require(ok bool, input string, want, got any) {
	if !e.Check(ok, input, want, got) {
		panic(ErrFatal)
	}
}

// Expect checks actual with a Gomega matcher and records the matcher's own message.
func (e *Env) Expect(actual any, m types.GomegaMatcher, input string) bool {
	ok, err := m.Match(actual)
	switch {
	case err != nil:
		e.fault(input, "a value the matcher understands", err.Error())
		return false
	case !ok:
		e.faultMsg(input, m.FailureMessage(actual))
		return false
	}
	return true
}

// CheckErr checks that err wraps want (nil for success).
//
// A setup call (input starting with "setup") that the store refuses with
// ErrUnsupported stops the spec as "setup refused" rather than failing the rule.
func (e *Env) CheckErr(err, want error, input string) bool {
	if want == nil && refusedSetup(err, input) {
		e.setupRefused(input, err)
	}
	if want == nil && e.extending.Load() && limitedSetup(err, input) {
		e.Inconclusive(fmt.Sprintf("the rounds past the check's base ended when the store refused %s at its limit (%s)", setupOp(input), DescribeErr(err)))
		panic(errRoundsEnded)
	}
	if want == nil {
		return e.Check(err == nil, input, "success", DescribeErr(err))
	}
	return e.Check(errors.Is(err, want), input, "an error wrapping "+DescribeErr(want), DescribeErr(err))
}

// RequireErr is CheckErr that stops the spec on a fault.
func (e *Env) RequireErr(err, want error, input string) {
	if !e.CheckErr(err, want, input) {
		panic(ErrFatal)
	}
}

// Fatalf records a fault described freely and stops the spec.
func (e *Env) Fatalf(format string, args ...any) {
	e.faultMsg("", fmt.Sprintf(format, args...))
	panic(ErrFatal)
}

// Errorf records a fault described freely and lets the spec go on.
func (e *Env) Errorf(format string, args ...any) { e.faultMsg("", fmt.Sprintf(format, args...)) }

func (e *Env) fault(input string, want, got any) {
	e.faultMsg(input, fmt.Sprintf("expected: %s\n  got:      %s", Show(want), Show(got)))
}

func (e *Env) faultMsg(input, msg string) {
	var b strings.Builder
	if input != "" {
		fmt.Fprintf(&b, "  input:    %s\n", input)
	}
	fmt.Fprintf(&b, "  %s", strings.TrimSpace(msg))
	e.mu.Lock()
	e.faults = append(e.faults, fault{rule: e.of, msg: b.String()})
	e.mu.Unlock()
}

// fault is one recorded fault and the rule it is a fault of ("" for the spec's own).
type fault struct{ rule, msg string }

// Faults returns the faults recorded so far, of every rule.
func (e *Env) Faults() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]string, len(e.faults))
	for i, f := range e.faults {
		out[i] = f.msg
	}
	return out
}

// OwnFaults returns the faults recorded so far of the spec's own rule: those that fail
// it (Env.Of files the others under theirs).
func (e *Env) OwnFaults() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, f := range e.faults {
		if e.own(f.rule) {
			out = append(out, f.msg)
		}
	}
	return out
}

func (e *Env) own(rule string) bool { return rule == "" || rule == e.Rule.ID }

// Of runs f with every fault it records filed under rule: a walk whose checks belong to
// several rules (the truth table's S-OWN-1 rows inside S-OWN-2's walk, which compares
// each denial with a missing id) tags each check with the rule that asks for it, so that
// a spec fails only on faults of the rule it is labelled with. The others fail their own
// rule in the report (Env.FaultOf), whether or not that rule's specs reproduce them.
//
// rule "" is the spec's own, so that a helper shared by several rules' specs can tag a
// check only where it is another rule's.
func (e *Env) Of(rule string, f func()) {
	if _, ok := rules.ByID(rule); !ok && rule != "" {
		panic("conformance: faults filed under unknown rule " + rule)
	}
	e.mu.Lock()
	prev := e.of
	e.of = rule
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		e.of = prev
		e.mu.Unlock()
	}()
	f()
}

// fileOthers files the faults recorded of rules other than the spec's own under those
// rules, one entry per rule, and notes on the spec that it did.
func (e *Env) fileOthers() {
	e.mu.Lock()
	byRule := map[string][]string{}
	var order []string
	for _, f := range e.faults {
		if e.own(f.rule) {
			continue
		}
		if byRule[f.rule] == nil {
			order = append(order, f.rule)
		}
		byRule[f.rule] = append(byRule[f.rule], f.msg)
	}
	e.mu.Unlock()
	for _, rule := range order {
		e.FaultOf(rule, strings.Join(byRule[rule], "\n---\n"))
		e.Note("%d fault(s) of %s found by this spec are reported under %s, not %s", len(byRule[rule]), rule, rule, e.Rule.ID)
	}
}

func Show(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case error:
		return DescribeErr(x)
	case legacy.Task:
		return jsonvalue.Describe(map[string]any(x))
	case modern.Task:
		return jsonvalue.Describe(x)
	case fmt.Stringer:
		return x.String()
	}
	return jsonvalue.Describe(v)
}

func DescribeErr(err error) string {
	if err == nil {
		return "no error"
	}
	for _, s := range []error{reference.ErrNotFound, reference.ErrExists, reference.ErrConflict,
		reference.ErrInvalid, reference.ErrTooLarge, reference.ErrTerminal,
		reference.ErrInvalidTransition, reference.ErrKeyReused, reference.ErrLimitReached,
		reference.ErrUnsupported, reference.ErrNoResult, context.Canceled, context.DeadlineExceeded} {
		if errors.Is(err, s) {
			if err == s {
				return fmt.Sprintf("%q", err.Error())
			}
			return fmt.Sprintf("%q (wraps %q)", err.Error(), s.Error())
		}
	}
	return fmt.Sprintf("%q (wraps no sentinel)", err.Error())
}

// Literal renders a value as a failure's input line writes it: a string quoted
// (Literal("t1") is "t1" with its quotes), anything else its JSON (Show).
func Literal(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return Show(v)
}
