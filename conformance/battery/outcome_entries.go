package battery

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/onsi/ginkgo/v2"
	"github.com/storecheck/storecheck/conformance/rules"
	"github.com/storecheck/storecheck/reference"
)

// Report entries by which a spec tells the report how far it got. A spec that recorded
// a fault fails whatever else it said; otherwise the entry decides its outcome (see
// Outcome and SpecResult).
const (
	EntryInconclusive  = "storecheck.inconclusive"    // the check ran but could not tell (too little overlap, porcupine Unknown)
	EntryPartly        = "storecheck.partly-verified" // part of what the rule needs could not run (no clock control)
	EntryNotExercised  = "storecheck.not-exercised"   // storecheck's own code decided, the store never saw the check
	EntryStoreTestable = "storecheck.store-testable"  // with EntryNotExercised: the store could have been tested, the harness could not drive it
	EntrySetupRefused  = "storecheck.setup-refused"   // the store refused a call the spec needed; value: the cause
	EntryAborted       = "storecheck.aborted"         // bring-up or transport failed; value: the cause
	EntryDecidedBy     = "storecheck.decided-by"      // whose code the spec judged, when not the rule's default
	EntryFaultOf       = "storecheck.fault-of"        // a fault of another rule the spec found; value: FaultOf as JSON
)

// FaultOf is a fault a spec found of a rule other than its own.
type FaultOf struct {
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// FaultOf files a fault the spec found of another rule (a state machine of S-CONC-1
// stopping on a step that M-CREATE-1 forbids): the report fails that rule in the spec's
// era with msg, whether or not that rule's own specs reproduce it. The spec's own
// outcome is not changed by it.
func (e *Env) FaultOf(rule, msg string) {
	r, ok := rules.ByID(rule)
	if !ok {
		e.Errorf("a fault of unknown rule %s: %s", rule, msg)
		return
	}
	b, _ := json.Marshal(FaultOf{Rule: r.ID, Message: fmt.Sprintf("%s\n  store: %s (%s era)\n  found by a spec of %s:\n  %s",
		r, e.Harness.Name(), e.era, e.Rule.ID, strings.ReplaceAll(strings.TrimSpace(msg), "\n", "\n  "))})
	if e.InSpec {
		ginkgo.AddReportEntry(EntryFaultOf, string(b))
	}
}

// Inconclusive marks the spec as unable to tell: its check ran without a fault but could
// not establish the rule (too little overlap between concurrent operations, a checker
// that answered Unknown). The spec goes on; a fault recorded later still fails it. The
// rule then reads "inconclusive", never "passed".
func (e *Env) Inconclusive(reason string) {
	e.mu.Lock()
	e.InconclusiveReasons = append(e.InconclusiveReasons, reason)
	e.mu.Unlock()
	if e.InSpec { // a test may drive an Env outside Ginkgo
		ginkgo.AddReportEntry(EntryInconclusive, reason)
	}
}

// PartlyVerified marks the spec as having left out part of what its rule needs (a
// boundary it cannot reach without clock control). The spec goes on; the rule reads
// "partly verified", which --strict fails.
func (e *Env) PartlyVerified(reason string) {
	ginkgo.AddReportEntry(EntryPartly, reason)
}

// NotExercised stops the spec because storecheck's own code, not the store, would
// decide it (under --exec the wire client copies every value and refuses a call whose
// context has ended before sending it). Faults recorded before still fail the spec.
func (e *Env) NotExercised(reason string) {
	e.StopIfFaults("not exercised: " + reason)
	ginkgo.AddReportEntry(EntryNotExercised, reason)
	ginkgo.Skip("not exercised: "+reason, 1)
}

// NotReached stops the spec as not exercised because the harness could not drive the
// store there (S-CTX-1's held calls on a harness without harness.Blocker), though the
// store could have been tested on it: unlike NotExercised (storecheck's own code
// decided), it makes a MUST rule "partly verified", which --strict fails.
func (e *Env) NotReached(reason string) {
	e.StopIfFaults("not exercised: " + reason)
	ginkgo.AddReportEntry(EntryStoreTestable, reason)
	ginkgo.AddReportEntry(EntryNotExercised, reason)
	ginkgo.Skip("not exercised: "+reason, 1)
}

// Checks the wire client decides alone when the store is Remote (harness.Capabilities).
const (
	RemoteCopies   = "the store is behind the wire protocol: every value crosses it as JSON, so storecheck's client, not the store, makes the copies"
	RemoteEndedCtx = "the store is behind the wire protocol: storecheck's client answers a call whose context has already ended without sending it"
)

// NotExercisedRemote stops the spec as not exercised when the store is Remote, whose
// client decides the spec's check before the store sees anything.
func (e *Env) NotExercisedRemote(why string) {
	if e.Caps.Remote {
		e.NotExercised(why)
	}
}

// Skip skips the spec for reason, unless faults were recorded before: those are
// reported and fail the spec (a skip never hides a fault).
func (e *Env) Skip(reason string) {
	e.StopIfFaults("then skipped: " + reason)
	ginkgo.Skip(reason, 1)
}

// SkipNoClock skips a spec that needs an exact millisecond of the store's clock when
// the store does not obey the battery's clock: the rule reads "partly verified".
func (e *Env) SkipNoClock(what string) {
	e.StopIfFaults("then skipped: no clock control")
	e.PartlyVerified("no clock control: " + what)
	ginkgo.Skip("no clock control", 1)
}

// NoClockDrops marks the part of a spec left out without clock control: call it where a
// spec checks a boundary only when HasClock.
func (e *Env) NoClockDrops(what string) {
	if !e.HasClock() {
		e.PartlyVerified("no clock control: " + what + " not checked")
	}
}

// DecidedBy says whose code this spec judged when it is not its rule's default subject:
// a facade spec run against a facade the store provides itself calls
// DecidedBy(SubjectStore), and its rule then counts among the store's.
func (e *Env) DecidedBy(s rules.Subject) {
	ginkgo.AddReportEntry(EntryDecidedBy, string(s))
}

// setupRefused reports that the store refused a call the spec needed with
// ErrUnsupported and stops the spec: the rule could not be checked, which is one cause
// ("the store refused Update"), not a failure of the rule.
func (e *Env) setupRefused(input string, err error) {
	e.StopIfFaults("then the store refused a setup call: " + input)
	cause := fmt.Sprintf("the store refused %s with ErrUnsupported", setupOp(input))
	ginkgo.AddReportEntry(EntrySetupRefused, cause)
	ginkgo.Skip(fmt.Sprintf("setup refused: %s: %s", input, DescribeErr(err)), 2)
}

// SetupValueRefused stops the spec as "setup refused" because the store refused a value
// the spec needed for its setup (what: "CreateTask with a ttl of 2^31 ms") that another
// rule judges (judgedBy): the refusal is that rule's fault, found by its own specs, and
// this spec's rule was not exercised, never failed. Faults recorded before still fail
// the spec.
func (e *Env) SetupValueRefused(what, judgedBy string, err error) {
	e.StopIfFaults("then the store refused a setup value: " + what)
	cause := fmt.Sprintf("the store refused %s (%s), a value %s judges", what, DescribeErr(err), judgedBy)
	ginkgo.AddReportEntry(EntrySetupRefused, cause)
	ginkgo.Skip("setup refused: "+cause, 1)
}

// refusedSetup reports whether err is the store refusing a setup call (input starts
// with "setup") as unsupported.
func refusedSetup(err error, input string) bool {
	return err != nil && errors.Is(err, reference.ErrUnsupported) && strings.HasPrefix(input, "setup")
}

// limitedSetup reports whether err is the store refusing a setup call at its declared
// limit (ErrLimitReached).
func limitedSetup(err error, input string) bool {
	return err != nil && errors.Is(err, reference.ErrLimitReached) && strings.HasPrefix(input, "setup")
}

// setupOp names the call of a setup input: "setup: Create(...)" is "Create", "setup:
// facade Update(...)" is "facade Update".
func setupOp(input string) string {
	s := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(input, "setup"), ":"))
	if i := strings.IndexByte(s, '('); i > 0 {
		s = s[:i]
	}
	if s == "" {
		return "a setup call"
	}
	return strings.TrimSpace(s)
}

// StopIfFaults fails the spec with its recorded faults, plus a last line saying what
// came next, instead of letting a skip throw them away.
func (e *Env) StopIfFaults(next string) {
	if len(e.OwnFaults()) == 0 {
		return
	}
	e.faultMsg("", next)
	panic(ErrFatal)
}

// active is the Env of the spec running now (Ginkgo runs the specs of a process one at
// a time), for the helpers that skip without one in hand.
var active atomic.Pointer[Env]

// skipActive is Env.Skip for helpers without the spec's Env.
func skipActive(reason string) {
	if e := active.Load(); e != nil {
		e.StopIfFaults("then skipped: " + reason)
	}
	ginkgo.Skip(reason, 1)
}

// Note adds a note to the spec's rule in the report: what a check did or measured that
// its outcome does not say, such as a budget that shortened it.
func (e *Env) Note(format string, args ...any) {
	if e.InSpec {
		ginkgo.AddReportEntry("note", fmt.Sprintf(format, args...))
	}
}
