package battery

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"runtime"

	"github.com/storecheck/storecheck/conformance/report"
	"github.com/storecheck/storecheck/conformance/rules"

	mrand "math/rand/v2"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference"
)

// Options tune a run of the battery. The zero value is the default run.
type Options struct {
	// Strict makes SHOULD faults fail their spec; otherwise they are warnings.
	Strict bool
	// Seed seeds every randomised check; 0 picks one per run (printed with any failure,
	// B-REPRO-1).
	Seed int64
	// Budget bounds the property and race checks.
	Budget Budget
	// SpecTimeout bounds one spec; 0 means 30 s (a store that hangs fails its spec
	// rather than the run).
	SpecTimeout time.Duration
	// Rules, when set, runs only these rule IDs (storecheck list prints them).
	Rules []string
	// JSON and JUnit, when set, are files the report is written to (JSON as
	// Report.JSON, JUnit XML as Report.JUnit).
	JSON, JUnit string
	// Artifacts is the directory failing checks keep their evidence in (porcupine's
	// history.html and history.json). Empty: a temporary directory removed when the run
	// ends, so that failing runs leave nothing behind.
	Artifacts string
}

// Budget bounds the randomised checks; zero fields take the defaults.
type Budget struct {
	Checks     int // rapid checks per state machine (default 100)
	Goroutines int // concurrent clients per history and race round (default 8, or GOMAXPROCS+2 when more)
	Ops        int // operations per history (default 200)
	Histories  int // concurrent histories per linearizability check (default 8)
	// RaceTime is how long a race check runs its rounds before it may stop early: past
	// it, a check that has run MinRaceRounds rounds in which BudgetOverlapping calls
	// overlapped stops (default 3s). One whose calls meet in MeetingShare of them stops
	// sooner, once MeetingOverlapping calls overlapped: a slow backend's rounds each
	// overlap for milliseconds; a fast store's finish their base rounds well within it.
	RaceTime time.Duration
	// WireRaceTime is how long a race check of a store over the wire protocol runs at
	// least (default 1.5s): past its planned rounds, one that has found no fault runs
	// more until then (OverlapMeter.Rounds). A slow child's planned rounds take longer
	// and it runs no more than planned.
	WireRaceTime time.Duration
	// MachineTime is how long a state machine runs its cases before it may stop early:
	// past it, a machine that has run a quarter of its Checks stops (default 4s). Its
	// cases are sequential, one round trip a step: a fast store runs every case within
	// it, a network store about a quarter to a half.
	MachineTime time.Duration
}

func (o Options) WithDefaults() Options {
	if o.SpecTimeout == 0 {
		o.SpecTimeout = 30 * time.Second
	}
	if o.Budget.Checks == 0 {
		o.Budget.Checks = 100
	}
	if o.Budget.Goroutines == 0 {
		o.Budget.Goroutines = defaultGoroutines()
	}
	if o.Budget.Ops == 0 {
		o.Budget.Ops = 200
	}
	if o.Budget.Histories == 0 {
		o.Budget.Histories = 8
	}
	if o.Budget.RaceTime == 0 {
		o.Budget.RaceTime = 3 * time.Second
	}
	if o.Budget.WireRaceTime == 0 {
		o.Budget.WireRaceTime = 1500 * time.Millisecond
	}
	if o.Budget.MachineTime == 0 {
		o.Budget.MachineTime = 4 * time.Second
	}
	return o
}

// Labels every spec carries besides its rule ID: the level, the era it runs in and the
// area of its rule.
const (
	LabelWarning = "storecheck-warning" // report entry name of a SHOULD fault
)

// Suite registers the specs of one era against one harness.
type Suite struct {
	Harness harness.Harness
	Era     harness.Era
	Opts    Options
	Caps    harness.Capabilities

	Only         map[string]bool // when set, the rule IDs whose specs are registered (Describe* with rules)
	OwnArtifacts bool            // each spec starts and removes its own artifacts (Describe*, outside Run)

	// Listing, when set, receives each spec instead of Ginkgo: nothing runs, and the
	// caller learns where every rule's specs are written (storecheck list --rule).
	Listing func(SpecSite)
}

// SpecSite is where one spec is written: its rule, era and text, and the file and line
// of its It call, relative to the module.
type SpecSite struct {
	Rule string      `json:"rule"`
	Era  harness.Era `json:"era"`
	Text string      `json:"text"`
	File string      `json:"file"`
	Line int         `json:"line"`
}

// It registers one spec for rule id. Every spec opens a fresh namespace, gets the
// battery's clock set to Epoch, and closes the namespace when it ends. Faults recorded
// on the Env fail the spec at the end with every fault listed; for a SHOULD rule they
// are a warning unless Options.Strict.
func (s *Suite) It(id, text string, body func(e *Env), decorators ...any) {
	rule, ok := rules.ByID(id)
	if !ok {
		panic("conformance: spec for unknown rule " + id)
	}
	if s.Only != nil && !s.Only[id] {
		return
	}
	if s.Listing != nil {
		_, file, line, _ := runtime.Caller(1)
		if i := strings.LastIndex(file, "conformance/"); i >= 0 {
			file = file[i:]
		}
		s.Listing(SpecSite{Rule: id, Era: s.Era, Text: text, File: file, Line: line})
		return
	}
	labels := ginkgo.Label(rules.SpecLabels(rule, s.Era)...)
	args := append([]any{labels, ginkgo.SpecTimeout(s.Opts.SpecTimeout), ginkgo.GracePeriod(2 * time.Second)}, decorators...)
	args = append(args, func(ctx ginkgo.SpecContext) { s.run(ctx, rule, body) })
	ginkgo.It(fmt.Sprintf("[%s] %s", rule.ID, text), args...)
}

func (s *Suite) run(ctx ginkgo.SpecContext, rule rules.Rule, body func(e *Env)) {
	deadline := time.Now().Add(s.Opts.SpecTimeout)
	// Once the transport has failed, nothing later is the store's answer.
	if err := transportFailure(s.Harness); err != nil {
		abort("not run: the transport failed in an earlier spec: "+err.Error(), nil)
	}
	if s.OwnArtifacts {
		ginkgo.DeferCleanup(StartArtifacts(s.Opts.Artifacts))
	}
	gateFacade(s.Caps, rule)
	var clock *reference.ManualClock
	if s.Caps.Clock {
		clock = reference.NewManualClock(Epoch)
	}
	var openClock reference.Clock = reference.SystemClock{}
	if clock != nil {
		openClock = clock
	}
	ns, err := s.Harness.Open(ctx, openClock)
	if err != nil {
		abort(fmt.Sprintf("namespace bring-up failed: %v", err), s.Harness)
	}
	ginkgo.DeferCleanup(func() {
		// Cleanup gets its own context: the spec's may have ended.
		cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := ns.Close(cctx); err != nil {
			ginkgo.AddReportEntry("cleanup error", err.Error())
		}
	})
	var tag [4]byte
	_, _ = rand.Read(tag[:])
	e := &Env{Ctx: ctx, Rule: rule, Caps: s.Caps, era: s.Era, Opts: s.Opts, Harness: s.Harness, Namespace: ns, Manual: clock, Tag: hex.EncodeToString(tag[:]), InSpec: true, Deadline: deadline}
	active.Store(e)
	defer active.Store(nil)
	// Faults of other rules are filed however the spec ends (a skip included).
	defer e.fileOthers()

	func() {
		defer func() {
			if r := recover(); r != nil {
				if stopped(r) {
					return
				}
				// A panic after the transport failed (a nil answer dereferenced, a
				// matcher's Fail) is the transport's doing: the entry makes it aborted.
				if err := transportFailure(s.Harness); err != nil {
					ginkgo.AddReportEntry(EntryAborted, abortCause(err.Error()))
				}
				panic(r)
			}
		}()
		body(e)
	}()

	faults := e.OwnFaults()
	if len(faults) == 0 {
		return
	}
	if err := transportFailure(s.Harness); err != nil {
		abort(fmt.Sprintf("the transport failed during this spec: %v\n  faults recorded (not judged: they may be the transport's):\n%s",
			err, strings.Join(faults, "\n  ---\n")), nil)
	}
	msg := fmt.Sprintf("%s\n  store: %s (%s era)\n%s", rule, s.Harness.Name(), s.Era, strings.Join(faults, "\n  ---\n"))
	if rule.Level == rules.Should && !s.Opts.Strict {
		ginkgo.AddReportEntry(LabelWarning, msg)
		return
	}
	ginkgo.Fail(msg)
}

// transportFailure is the harness's transport failure, nil when it has none or cannot
// fail on its own.
func transportFailure(h harness.Harness) error {
	if tf, ok := h.(harness.TransportFailer); ok {
		return tf.TransportFailure()
	}
	return nil
}

// abort stops the spec as aborted: bring-up or the transport failed, so the spec says
// nothing about its rule. h, when given, is asked for a transport failure that explains
// msg better (a bring-up error that is really the child's death).
func abort(msg string, h harness.Harness) {
	cause := msg
	if h != nil {
		if err := transportFailure(h); err != nil {
			cause = "the transport failed: " + err.Error()
			msg += "\n  " + cause
		}
	}
	ginkgo.AddReportEntry(EntryAborted, abortCause(cause))
	ginkgo.Skip("aborted: "+msg, 1)
}

// abortCause is the line the report groups aborted specs by: the first line of the
// cause, without the "not run" prefix of later specs.
func abortCause(msg string) string {
	msg = strings.TrimPrefix(report.FirstLine(msg), "not run: the transport failed in an earlier spec: ")
	return strings.TrimPrefix(msg, "the transport failed during this spec: ")
}

func NewSeed() int64 { return mrand.Int64N(1_000_000_000) + 1 }
