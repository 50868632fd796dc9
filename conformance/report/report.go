package report

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/conformance/rules"
	"github.com/storecheck/storecheck/schema"
	"github.com/storecheck/storecheck/version"
)

// Outcome is how a rule (or one spec) fared in a run.
type Outcome string

const (
	Passed Outcome = "passed"
	// Failed: a spec of the rule failed, timed out or panicked, or the rule is a SHOULD
	// run under Strict that recorded a fault.
	Failed Outcome = "failed"
	// Warned: a SHOULD rule recorded a fault outside Strict.
	Warned Outcome = "warned"
	// Skipped: every spec of the rule skipped (the reasons say why).
	Skipped Outcome = "skipped"
	// NotCovered: the rule was selected but the battery has no spec for it in the era.
	NotCovered Outcome = "not covered"
	// Aborted: bring-up or the transport failed (a child that died, hung or broke the
	// protocol) before or during a spec of the rule, so the spec says nothing about the
	// rule. Every spec after a transport failure is aborted. Fails the run.
	Aborted Outcome = "aborted"
	// SetupRefused: the store refused, with ErrUnsupported, a call a spec of the rule
	// needed for its setup, so the rule could not be checked. Fails the run.
	SetupRefused Outcome = "setup refused"
	// PartlyVerified: the rule's specs that ran passed, but part of what the rule needs
	// could not run (no clock control; a MUST rule's spec the harness could not drive,
	// such as S-CTX-1's held calls on a harness without harness.Blocker). A rule all of
	// whose specs were left out that way reads partly verified too, never skipped or
	// passed. Fails the run under Strict only.
	PartlyVerified Outcome = "partly verified"
	// Inconclusive: a check ran without a fault but could not tell (too little
	// overlap between concurrent operations, a linearizability checker that answered
	// Unknown). Never counts as passed; fails the run under Strict only.
	Inconclusive Outcome = "inconclusive"
	// NotExercised: storecheck's own code decided the rule's specs before the store saw
	// anything (under --exec the wire client copies values and refuses calls whose
	// context has ended). Never fails the run, never counts as passed. A not-exercised
	// spec the store could have been tested on (SpecResult.StoreTestable) makes its MUST
	// rule partly verified instead.
	NotExercised Outcome = "not exercised"
)

// failsRun reports whether an outcome fails a run (exit status 1 of storecheck run).
func (o Outcome) failsRun(strict bool) bool {
	switch o {
	case Failed, Aborted, SetupRefused:
		return true
	case PartlyVerified, Inconclusive:
		return strict
	}
	return false
}

// outcomeOrder is the order of outcomes in totals and closing lines.
var outcomeOrder = []Outcome{Passed, Failed, Aborted, SetupRefused, Warned, PartlyVerified, Inconclusive, NotExercised, Skipped, NotCovered}

// Report is the result of one run of the battery, keyed by rule.
type Report struct {
	Store       string        `json:"store"`
	Eras        []harness.Era `json:"eras"`
	Seed        int64         `json:"seed"`
	Strict      bool          `json:"strict"`
	LabelFilter string        `json:"label_filter,omitempty"`
	Focus       []string      `json:"focus,omitempty"`
	Started     time.Time     `json:"started"`
	// Duration is the wall time of the whole run.
	Duration time.Duration `json:"duration_ns"`
	// Rules holds one result per (rule, era) selected, in era order then in the
	// order of docs/spec.md. A shared rule appears once per era it ran in.
	Rules []RuleResult `json:"rules"`
	// Specs holds every spec that was selected, in the order it ran.
	Specs []SpecResult `json:"specs"`
	// SuiteFailures are failures outside any rule's spec: a failing suite-level node,
	// a spec labelled with no known rule, an interrupted run.
	SuiteFailures []string `json:"suite_failures,omitempty"`
	Totals        Totals   `json:"totals"`
	// DetailsPath, when set, is where the full report is written; the summary points
	// to it for what it leaves out.
	DetailsPath string `json:"-"`
	// Findings are what a run found outside any one rule's row, told once: a server
	// that died, when, and how (storecheck probe).
	Findings []string `json:"findings,omitempty"`
	// AllowEmpty lets a run in which no rule was exercised pass (see NoneExercised).
	AllowEmpty bool `json:"allow_empty,omitempty"`
}

// RuleResult is one rule's outcome in one era.
type RuleResult struct {
	ID    string      `json:"id"`
	Level rules.Level `json:"level"`
	Era   harness.Era `json:"era"`
	Area  string      `json:"area"`
	Text  string      `json:"text"`
	// Subject is whose code the verdict is about: the store, storecheck's reference
	// library, or the reference facade run over the store. Only store rules count as
	// the store's passes.
	Subject rules.Subject `json:"subject"`
	Outcome Outcome       `json:"outcome"`
	// Reasons explain the outcome: failure messages, warnings, or skip reasons.
	Reasons []string `json:"reasons,omitempty"`
	// Notes are remarks that did not decide the outcome (a spec of a passing rule
	// skipped, a namespace that failed to close).
	Notes []string `json:"notes,omitempty"`
	// Specs names the rule's specs.
	Specs []string `json:"specs,omitempty"`
	// Overlap sums the measured overlap of the rule's concurrent checks (nil for a rule
	// with none): the summary shows it as "overlap 365/424 peak 9".
	Overlap *Overlap `json:"overlap,omitempty"`
}

// SpecResult is one spec's outcome.
type SpecResult struct {
	Name    string      `json:"name"`
	RuleID  string      `json:"rule,omitempty"`
	Level   rules.Level `json:"level,omitempty"`
	Era     harness.Era `json:"era,omitempty"`
	Area    string      `json:"area,omitempty"`
	Outcome Outcome     `json:"outcome"`
	// State is Ginkgo's word for it: passed, failed, skipped, panicked, timedout, ...
	State string `json:"state"`
	// Message is the failure, warning or skip message.
	Message string `json:"message,omitempty"`
	// Cause is the one-line cause of an aborted or setup-refused spec, shared by every
	// spec it stopped.
	Cause string `json:"cause,omitempty"`
	// Subject is set when the spec said whose code it judged (Env.DecidedBy).
	Subject rules.Subject `json:"subject,omitempty"`
	// StoreTestable marks a not-exercised spec the store could have been tested on had
	// the harness been able to drive it (S-CTX-1's held calls without harness.Blocker),
	// unlike a check storecheck's own code decides (S-VAL-4 under --exec). It makes a
	// MUST rule partly verified.
	StoreTestable bool `json:"store_testable,omitempty"`
	// Overlap is the measured overlap of the spec's concurrent checks (nil when it ran
	// none; report entry storecheck.overlap).
	Overlap  *Overlap      `json:"overlap,omitempty"`
	Notes    []string      `json:"notes,omitempty"`
	Location string        `json:"location,omitempty"`
	Duration time.Duration `json:"duration_ns"`
}

// Totals counts rule results by outcome (every subject), and the specs that ran.
// BySubject splits the counts by whose code the rule judged; the store's passes are
// BySubject["store"]["passed"].
type Totals struct {
	Passed         int                               `json:"passed"`
	Failed         int                               `json:"failed"`
	Warned         int                               `json:"warned"`
	Skipped        int                               `json:"skipped"`
	NotCovered     int                               `json:"not_covered"`
	Aborted        int                               `json:"aborted"`
	SetupRefused   int                               `json:"setup_refused"`
	PartlyVerified int                               `json:"partly_verified"`
	Inconclusive   int                               `json:"inconclusive"`
	NotExercised   int                               `json:"not_exercised"`
	Specs          int                               `json:"specs"`
	BySubject      map[rules.Subject]map[Outcome]int `json:"by_subject,omitempty"`
}

func (t *Totals) Add(o Outcome, subject rules.Subject) {
	switch o {
	case Passed:
		t.Passed++
	case Failed:
		t.Failed++
	case Warned:
		t.Warned++
	case Skipped:
		t.Skipped++
	case NotCovered:
		t.NotCovered++
	case Aborted:
		t.Aborted++
	case SetupRefused:
		t.SetupRefused++
	case PartlyVerified:
		t.PartlyVerified++
	case Inconclusive:
		t.Inconclusive++
	case NotExercised:
		t.NotExercised++
	}
	if t.BySubject == nil {
		t.BySubject = map[rules.Subject]map[Outcome]int{}
	}
	if t.BySubject[subject] == nil {
		t.BySubject[subject] = map[Outcome]int{}
	}
	t.BySubject[subject][o]++
}

// NewReport makes a report of rule results judged outside the Ginkgo battery (storecheck
// probe): meta carries the run's identity; the rules' totals are counted here. When meta
// has no spec results, each row judged becomes one, so that the summary's details and the
// JUnit report read a probe's rows as they read the battery's specs.
func NewReport(meta Report, rules []RuleResult) *Report {
	r := meta
	r.Rules = rules
	r.Totals = Totals{}
	rowsAsSpecs := len(r.Specs) == 0
	for _, rr := range rules {
		r.Totals.Add(rr.Outcome, rr.Subject)
		r.Totals.Specs += len(rr.Specs)
		if rowsAsSpecs && rr.Outcome != NotCovered {
			r.Specs = append(r.Specs, rowSpec(rr))
		}
	}
	return &r
}

// rowSpec is a row judged outside the battery as a spec result: its reasons are the
// message, the first of them the cause of an aborted or setup-refused row.
func rowSpec(rr RuleResult) SpecResult {
	name := rr.Text
	if len(rr.Specs) > 0 {
		name = strings.Join(rr.Specs, "; ")
	}
	s := SpecResult{Name: "[" + rr.ID + "] " + name, RuleID: rr.ID, Level: rr.Level, Era: rr.Era, Area: rr.Area,
		Outcome: rr.Outcome, Message: strings.Join(rr.Reasons, "\n"), Subject: rr.Subject, Notes: rr.Notes}
	switch rr.Outcome {
	case Passed, Warned, PartlyVerified:
		s.State = "passed"
	case Failed:
		s.State = "failed"
	case Aborted, SetupRefused:
		s.State = string(rr.Outcome)
		s.Cause = FirstLine(firstOf(rr.Reasons))
	default:
		s.State = "skipped"
	}
	return s
}

// OK reports whether the run passed: no rule failed, aborted or had its setup refused,
// nothing failed outside the rules, and some rule was exercised (unless AllowEmpty);
// under Strict, no rule was only partly verified or inconclusive. Warnings (outside
// Strict), inconclusive (outside Strict) and not-exercised rules, skips and rules not
// covered do not fail a run, as long as one rule beside them was exercised.
func (r *Report) OK() bool {
	if len(r.SuiteFailures) > 0 {
		return false
	}
	for _, rr := range r.Rules {
		if rr.Outcome.failsRun(r.Strict) {
			return false
		}
	}
	if _, none := r.NoneExercised(); none && !r.AllowEmpty {
		return false
	}
	return true
}

// NoneExercised reports whether the run exercised no rule: it has no row, or every row
// is not exercised, skipped or not covered. Such a run checked nothing (a wrong URL, a
// server without tasks, a selection the harness cannot check), so it does not pass unless
// AllowEmpty. cause is read from the rows: their reason when they give one or a few
// (each with its eras), else how many reasons they give. A run with suite failures fails
// on those and is not reported here.
func (r *Report) NoneExercised() (cause string, none bool) {
	if len(r.SuiteFailures) > 0 {
		return "", false
	}
	if len(r.Rules) == 0 {
		return "the selection holds no rule in the eras run", true
	}
	var reasons []string
	eras := map[string][]string{}
	for _, rr := range r.Rules {
		var why string
		switch rr.Outcome {
		case NotExercised, Skipped:
			why = FirstLine(firstOf(rr.Reasons))
			if why == "" {
				why = string(rr.Outcome)
			}
		case NotCovered:
			why = "the battery has no spec for the rule in this era"
		default:
			return "", false
		}
		if _, seen := eras[why]; !seen {
			reasons = append(reasons, why)
		}
		if !slices.Contains(eras[why], string(rr.Era)) {
			eras[why] = append(eras[why], string(rr.Era))
		}
	}
	switch {
	case len(reasons) == 1:
		return reasons[0], true
	case len(reasons) <= maxCausesQuoted:
		for i, why := range reasons {
			reasons[i] = "(" + strings.Join(eras[why], ", ") + ") " + why
		}
		return strings.Join(reasons, "; "), true
	}
	return fmt.Sprintf("every rule was not exercised, skipped or not covered, for %d different reasons: see the table", len(reasons)), true
}

// maxCausesQuoted is how many different reasons of the rows NoneExercised quotes.
const maxCausesQuoted = 3

// Alarms returns the rules, as "ID era", that the run found broken: failed, warned
// (whether or not the run was Strict: a SHOULD fault is an alarm too), aborted or
// refused at setup. Unlike OK it leaves out what a run could not tell (inconclusive,
// partly verified), so that it answers whether a store known to be honest drew a false
// alarm. It does not depend on r.Strict.
func (r *Report) Alarms() []string {
	var out []string
	for _, rr := range r.Rules {
		if rr.Outcome == Warned || rr.Outcome.failsRun(false) {
			out = append(out, rr.ID+" "+string(rr.Era))
		}
	}
	if len(r.SuiteFailures) > 0 {
		out = append(out, "the suite itself")
	}
	return out
}

// Rule returns the result of rule id in era.
func (r *Report) Rule(id string, era harness.Era) (RuleResult, bool) {
	for _, rr := range r.Rules {
		if rr.ID == id && rr.Era == era {
			return rr, true
		}
	}
	return RuleResult{}, false
}

// JSON writes the report as indented JSON: its schema (schema.Report), the storecheck
// that wrote it, the report, and no_rule_exercised naming the cause when the run
// exercised no rule.
func (r *Report) JSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	cause, _ := r.NoneExercised()
	return enc.Encode(File{Schema: schema.Report, Storecheck: version.Get(), Report: r, NoRuleExercised: cause})
}

// File is a report as its JSON file holds it: what JSON writes and storecheck report
// reads back.
type File struct {
	Schema     string       `json:"schema"`
	Storecheck version.Info `json:"storecheck"`
	*Report
	NoRuleExercised string `json:"no_rule_exercised,omitempty"`
}

// JUnit writes the report as JUnit XML: one testsuite per era, one testcase per spec
// (a warning is a passing testcase whose system-out carries the warning), and one
// skipped testcase per rule not covered, so that coverage shows in CI.
func (r *Report) JUnit(w io.Writer) error {
	suites := reporters.JUnitTestSuites{Time: r.Duration.Seconds()}
	for _, era := range r.Eras {
		ts := r.junitEra(era)
		suites.Tests += ts.Tests
		suites.Failures += ts.Failures
		suites.Errors += ts.Errors
		suites.Disabled += ts.Skipped
		suites.TestSuites = append(suites.TestSuites, ts)
	}
	if ts, ok := r.junitRunErrors(); ok {
		suites.Tests += ts.Tests
		suites.Errors += ts.Errors
		suites.TestSuites = append(suites.TestSuites, ts)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(suites); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// junitEra is the testsuite of one era: the run's properties, a testcase per spec of
// the era, and a skipped testcase per rule the era does not cover.
func (r *Report) junitEra(era harness.Era) reporters.JUnitTestSuite {
	ts := reporters.JUnitTestSuite{
		Name:      fmt.Sprintf("storecheck %s [%s era]", r.Store, era),
		Package:   "github.com/storecheck/storecheck/conformance",
		Timestamp: r.Started.UTC().Format("2006-01-02T15:04:05"),
		Properties: reporters.JUnitProperties{Properties: []reporters.JUnitProperty{
			{Name: "store", Value: r.Store},
			{Name: "era", Value: string(era)},
			{Name: "seed", Value: fmt.Sprint(r.Seed)},
			{Name: "strict", Value: fmt.Sprint(r.Strict)},
			{Name: "label_filter", Value: r.LabelFilter},
		}},
	}
	for _, s := range r.Specs {
		if s.Era != era {
			continue
		}
		ts.Time += s.Duration.Seconds()
		ts.TestCases = append(ts.TestCases, junitSpec(&ts, r.Store, s))
	}
	for _, rr := range r.Rules {
		if rr.Era != era || rr.Outcome != NotCovered {
			continue
		}
		ts.Skipped++
		ts.TestCases = append(ts.TestCases, reporters.JUnitTestCase{
			Name:      fmt.Sprintf("[%s] not covered", rr.ID),
			Classname: junitClass(r.Store, era, rr.Area),
			Status:    "skipped",
			Skipped:   &reporters.JUnitSkipped{Message: "skipped - not covered: the battery has no spec for this rule in this era"},
		})
	}
	ts.Tests = len(ts.TestCases)
	return ts
}

// junitSpec is the testcase of spec s, counted in its suite ts as a failure, an error
// (aborted, setup refused: the rule was not judged) or a skip; a warning or a partial
// verification that ran passes, with what it found in its system-out.
func junitSpec(ts *reporters.JUnitTestSuite, store string, s SpecResult) reporters.JUnitTestCase {
	tc := reporters.JUnitTestCase{
		Name:      s.Name,
		Classname: junitClass(store, s.Era, s.Area),
		Status:    s.State,
		Time:      s.Duration.Seconds(),
	}
	switch s.Outcome {
	case Failed:
		ts.Failures++
		tc.Failure = &reporters.JUnitFailure{Message: FirstLine(s.Message), Type: s.State, Description: s.Message + locationSuffix(s.Location)}
	case Aborted:
		// An error, not a failure: the rule was not judged.
		ts.Errors++
		tc.Status = string(Aborted)
		tc.Error = &reporters.JUnitError{Message: "aborted - " + s.Cause, Type: string(Aborted), Description: s.Message}
	case SetupRefused:
		ts.Errors++
		tc.Status = string(SetupRefused)
		tc.Error = &reporters.JUnitError{Message: "setup refused - " + s.Cause, Type: "setup-refused", Description: s.Message}
	case Skipped, NotExercised, Inconclusive:
		ts.Skipped++
		tc.Status = string(s.Outcome)
		tc.Skipped = &reporters.JUnitSkipped{Message: string(s.Outcome) + " - " + s.Message}
	case PartlyVerified:
		tc.Status = string(PartlyVerified)
		if s.State == "skipped" {
			ts.Skipped++
			tc.Skipped = &reporters.JUnitSkipped{Message: "partly verified - " + s.Message}
		} else {
			tc.SystemOut = "partly verified (fails under --strict):\n" + s.Message
		}
	case Warned:
		tc.SystemOut = "warning (SHOULD, not strict):\n" + s.Message
	}
	if len(s.Notes) > 0 {
		tc.SystemErr = strings.Join(s.Notes, "\n")
	}
	return tc
}

// junitRunErrors is the testsuite of the run's own failures (the suite's, and a run that
// exercised no rule when that is not allowed), each an errored testcase; ok is false
// when there are none.
func (r *Report) junitRunErrors() (ts reporters.JUnitTestSuite, ok bool) {
	type runError struct{ name, message string }
	var runErrors []runError
	for i, f := range r.SuiteFailures {
		runErrors = append(runErrors, runError{fmt.Sprintf("suite failure %d", i+1), f})
	}
	if cause, none := r.NoneExercised(); none && !r.AllowEmpty {
		// The run's own verdict: without it a run that checked nothing has no failing testcase.
		runErrors = append(runErrors, runError{"no rule exercised", "no rule exercised: " + cause})
	}
	if len(runErrors) == 0 {
		return ts, false
	}
	ts = reporters.JUnitTestSuite{Name: fmt.Sprintf("storecheck %s [suite]", r.Store), Package: "github.com/storecheck/storecheck/conformance"}
	for _, f := range runErrors {
		ts.TestCases = append(ts.TestCases, reporters.JUnitTestCase{
			Name:      f.name,
			Classname: junitClass(r.Store, "suite", ""),
			Status:    "failed",
			Error:     &reporters.JUnitError{Message: FirstLine(f.message), Type: "failed", Description: f.message},
		})
	}
	ts.Tests, ts.Errors = len(ts.TestCases), len(ts.TestCases)
	return ts, true
}

func junitClass(store string, era harness.Era, area string) string {
	c := "storecheck." + store + "." + string(era)
	if area != "" {
		c += "." + area
	}
	return c
}

func locationSuffix(loc string) string {
	if loc == "" {
		return ""
	}
	return "\n" + loc
}

func FirstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Limits of the summary, so that a failing run prints about a screenful of detail
// beyond the rule table; the JSON report has everything.
const (
	summaryFullMessages = 3   // failures (and warnings) shown with their message
	summaryMessageLines = 15  // lines of one message shown
	summaryLineWidth    = 240 // characters of one line of a message shown
	summaryOneLiners    = 10  // further failures shown as one line each
)

// Summary writes the human summary: a header, one row per rule, the causes of aborted
// and setup-refused specs (one line per cause), the first failures and warnings, the
// rules not covered, and the closing line with the store's own counts.
func (r *Report) Summary(w io.Writer) error {
	var b strings.Builder
	eras := r.eraNames()
	strict := ""
	if r.Strict {
		strict = ", strict"
	}
	fmt.Fprintf(&b, "storecheck: %s, eras %s, seed %d%s, %d specs in %s\n",
		r.Store, strings.Join(eras, "+"), r.Seed, strict, r.Totals.Specs, r.Duration.Round(time.Millisecond))
	if r.LabelFilter != "" {
		fmt.Fprintf(&b, "selection: %s\n", r.LabelFilter)
	}
	b.WriteString("\n")
	notCovered := r.writeRuleTable(&b)
	if len(r.Findings) > 0 {
		b.WriteString("\nFindings:\n")
		for _, f := range r.Findings {
			fmt.Fprintf(&b, "  %s\n", f)
		}
	}
	r.writeCauses(&b, Aborted, "Aborted (bring-up or the transport failed; these specs say nothing about their rules)")
	r.writeCauses(&b, SetupRefused, "Setup refused (the "+r.subjectWord()+" refused a call these specs needed; their rules could not be checked)")
	if more := r.writeMessages(&b); more {
		where := "the JSON report (--json FILE)"
		if r.DetailsPath != "" {
			where = r.DetailsPath
		}
		fmt.Fprintf(&b, "\nEvery message in full: %s\n", where)
	}
	if len(r.SuiteFailures) > 0 {
		b.WriteString("\nSuite failures:\n")
		for _, f := range r.SuiteFailures {
			fmt.Fprintf(&b, "%s\n", indent(headLines(f, summaryMessageLines), "    "))
		}
	}
	if len(notCovered) > 0 {
		fmt.Fprintf(&b, "\nNot covered (the battery has no spec for these yet):\n%s\n", wrap(notCovered, "    ", 92))
	}
	if cause, none := r.NoneExercised(); none {
		allowed := ""
		if r.AllowEmpty {
			allowed = " (allowed)"
		}
		fmt.Fprintf(&b, "\nno rule exercised%s: %s\n", allowed, cause)
	}
	fmt.Fprintf(&b, "\n%s: %s; seed %d\n", r.verdictWord(), r.ClosingCounts(), r.Seed)
	_, err := io.WriteString(w, b.String())
	return err
}

// eraNames are the names of the eras run, in order.
func (r *Report) eraNames() []string {
	var eras []string
	for _, e := range r.Eras {
		eras = append(eras, string(e))
	}
	return eras
}

// verdictWord is the run's verdict in a word: PASS when it is OK, else FAIL.
func (r *Report) verdictWord() string {
	if r.OK() {
		return "PASS"
	}
	return "FAIL"
}

// writeRuleTable writes the summary's table, one row per rule and era judged; the rules
// not covered are left out of it and returned instead, each with its eras.
func (r *Report) writeRuleTable(b *strings.Builder) (notCovered []string) {
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RULE\tOF\tLEVEL\tERA\tOUTCOME\tNOTE")
	uncoveredEras := map[string][]string{}
	for _, rr := range r.Rules {
		if rr.Outcome == NotCovered {
			if uncoveredEras[rr.ID] == nil {
				notCovered = append(notCovered, rr.ID)
			}
			uncoveredEras[rr.ID] = append(uncoveredEras[rr.ID], string(rr.Era))
			continue
		}
		outcome := string(rr.Outcome)
		if rr.Outcome == Failed {
			outcome = "FAILED"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", rr.ID, rr.Subject, strings.ToUpper(string(rr.Level)), rr.Era, outcome, ruleNote(rr))
	}
	tw.Flush()
	for i, id := range notCovered {
		notCovered[i] = id + " (" + strings.Join(uncoveredEras[id], ", ") + ")"
	}
	return notCovered
}

// ruleNote is a rule's note in the summary's table: why it was not judged whole, the
// gist of what broke it, or a passing rule's first note; and for a concurrency rule,
// whatever its outcome, how much its calls overlapped.
func ruleNote(rr RuleResult) string {
	note := ""
	switch rr.Outcome {
	case Skipped, NotExercised, PartlyVerified, Inconclusive:
		note = strings.Join(rr.Reasons, "; ")
	case Failed, Warned, Aborted, SetupRefused:
		note = gist(firstOf(rr.Reasons))
	case Passed:
		if len(rr.Notes) > 0 {
			note = rr.Notes[0]
		}
	}
	note = truncate(FirstLine(note), 90)
	if rr.Overlap != nil {
		note = strings.TrimSuffix(rr.Overlap.Short()+"; "+note, "; ")
	}
	return note
}

// writeMessages writes the failures, then the warnings: the first few with their
// message, then one line each, then a count; more is whether any message was cut.
func (r *Report) writeMessages(b *strings.Builder) (more bool) {
	for _, section := range []struct {
		title   string
		outcome Outcome
	}{{"Failures", Failed}, {"Warnings (SHOULD rules; they fail under --strict)", Warned}} {
		var specs []SpecResult
		for _, s := range r.Specs {
			if s.Outcome == section.outcome {
				specs = append(specs, s)
			}
		}
		if len(specs) == 0 {
			continue
		}
		fmt.Fprintf(b, "\n%s (%d specs):\n", section.title, len(specs))
		for i, s := range specs {
			switch {
			case i < summaryFullMessages:
				fmt.Fprintf(b, "\n--- %s (%s era)\n%s\n", s.Name, s.Era, indent(headLines(s.Message, summaryMessageLines), "    "))
				if s.Location != "" {
					fmt.Fprintf(b, "    at %s\n", s.Location)
				}
				more = more || strings.Count(s.Message, "\n") >= summaryMessageLines
			case i < summaryFullMessages+summaryOneLiners:
				if i == summaryFullMessages {
					b.WriteString("\n")
				}
				fmt.Fprintf(b, "--- %s (%s era): %s\n", s.Name, s.Era, truncate(gist(s.Message), 100))
				more = true
			default:
				fmt.Fprintf(b, "... and %d more\n", len(specs)-i)
				more = true
			}
			if i >= summaryFullMessages+summaryOneLiners {
				break
			}
		}
	}
	return more
}

// subjectWord is what the report checked: a server (storecheck probe) or a store.
func (r *Report) subjectWord() string {
	if _, server := r.Totals.BySubject[rules.SubjectServer]; server {
		return "server"
	}
	return "store"
}

// ClosingCounts is the counts part of the closing line: the store's rules first (only
// their passes are the store's), then the library's and the facade's.
func (r *Report) ClosingCounts() string {
	var parts []string
	_, server := r.Totals.BySubject[rules.SubjectServer]
	for _, subj := range []rules.Subject{rules.SubjectStore, rules.SubjectLibrary, rules.SubjectFacade, rules.SubjectBattery, rules.SubjectServer} {
		counts := r.Totals.BySubject[subj]
		if len(counts) == 0 && (subj != rules.SubjectStore || server) {
			continue
		}
		var cs []string
		for _, o := range outcomeOrder {
			if n := counts[o]; n > 0 || o == Passed {
				cs = append(cs, fmt.Sprintf("%d %s", n, o))
			}
		}
		parts = append(parts, fmt.Sprintf("%s rules %s", subj, strings.Join(cs, ", ")))
	}
	return strings.Join(parts, "; ")
}

// writeCauses writes one line per cause of the specs with outcome o: the cause, how
// many specs of which rules it stopped, and the first spec it stopped.
func (r *Report) writeCauses(b *strings.Builder, o Outcome, title string) {
	type group struct {
		first string
		specs int
		rules []string
	}
	var causes []string
	groups := map[string]*group{}
	for _, s := range r.Specs {
		if s.Outcome != o {
			continue
		}
		g := groups[s.Cause]
		if g == nil {
			g = &group{first: s.Name + " (" + string(s.Era) + " era)"}
			groups[s.Cause] = g
			causes = append(causes, s.Cause)
		}
		g.specs++
		if !slices.Contains(g.rules, s.RuleID) {
			g.rules = append(g.rules, s.RuleID)
		}
	}
	if len(causes) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s:\n", title)
	for _, c := range causes {
		g := groups[c]
		fmt.Fprintf(b, "  %s\n", truncate(c, 200))
		fmt.Fprintf(b, "    %d specs of %d rules, first %s\n    rules: %s\n", g.specs, len(g.rules), g.first,
			strings.TrimSpace(wrap(g.rules, "           ", 92)))
	}
}

// headLines is s cut to its first n lines, each cut to summaryLineWidth characters,
// saying how many lines were left out.
func headLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	more := ""
	if len(lines) > n {
		more = fmt.Sprintf("\n... %d more lines (see the JSON report)", len(lines)-n)
		lines = lines[:n]
	}
	for i, l := range lines {
		lines[i] = truncate(l, summaryLineWidth)
	}
	return strings.Join(lines, "\n") + more
}

// gist is the line of a spec's message that says what went wrong: the first line
// after the rule's own text and the store line that suite.run puts first (the server
// line, in the probe's).
func gist(msg string) string {
	for _, l := range strings.Split(msg, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "[") && strings.Contains(l, "] ") && ruleHeader.MatchString(l) || strings.HasPrefix(l, "store: ") || strings.HasPrefix(l, "server: ") || l == "---" {
			continue
		}
		return l
	}
	return FirstLine(msg)
}

var ruleHeader = regexp.MustCompile(`^\[[A-Z]+(-[A-Z]+)*-\d+ (MUST|SHOULD)\] `)

// wrap joins items with ", " into lines of at most width characters.
func wrap(items []string, prefix string, width int) string {
	var lines []string
	line := prefix
	for i, it := range items {
		sep := ", "
		if i == len(items)-1 {
			sep = ""
		}
		if len(line)+len(it)+len(sep) > width && line != prefix {
			lines = append(lines, strings.TrimRight(line, " "))
			line = prefix
		}
		line += it + sep
	}
	return strings.Join(append(lines, line), "\n")
}

func firstOf(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

func truncate(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}

func JudgeRule(rule rules.Rule, era harness.Era, specs []SpecResult) RuleResult {
	rr := RuleResult{ID: rule.ID, Level: rule.Level, Era: era, Area: rule.Area, Text: rule.Text, Subject: rule.Subject()}
	if rule.ID == "" { // a spec labelled with an unknown rule
		rr.Subject = rules.SubjectStore
	}
	if len(specs) == 0 {
		rr.Outcome = NotCovered
		return rr
	}
	count := map[Outcome]int{}
	verified := 0 // specs that ran against the store, wholly or in part
	untested := 0 // not-exercised specs of a MUST rule that the store could have been tested on
	for _, s := range specs {
		if s.Outcome == NotExercised && s.StoreTestable && rule.Level == rules.Must {
			untested++
		}
		rr.Specs = append(rr.Specs, s.Name)
		count[s.Outcome]++
		rr.Notes = append(rr.Notes, s.Notes...)
		if s.Subject != "" {
			rr.Subject = s.Subject
		}
		if s.Overlap != nil {
			if rr.Overlap == nil {
				rr.Overlap = &Overlap{}
			}
			rr.Overlap.add(*s.Overlap)
		}
		if s.Outcome == Passed || s.Outcome == Warned || s.Outcome == PartlyVerified && s.State != "skipped" {
			verified++
		}
	}
	switch {
	case count[Failed] > 0:
		rr.Outcome = Failed
	case count[Aborted] > 0:
		rr.Outcome = Aborted
	case count[SetupRefused] > 0:
		rr.Outcome = SetupRefused
	case count[Warned] > 0:
		rr.Outcome = Warned
	case count[Inconclusive] > 0:
		rr.Outcome = Inconclusive
	case count[PartlyVerified] > 0 || untested > 0:
		// Even with no spec verified (every one skipped for no clock control): the
		// rule was left unchecked by the harness, not inapplicable (docs/spec.md).
		rr.Outcome = PartlyVerified
	case verified > 0:
		rr.Outcome = Passed
	case count[NotExercised] > 0:
		rr.Outcome = NotExercised
	default:
		rr.Outcome = Skipped
	}
	for _, s := range specs {
		same := s.Outcome == rr.Outcome || rr.Outcome == Skipped && s.Outcome == PartlyVerified
		switch {
		case same:
			reason := s.Message
			if s.Cause != "" { // aborted, setup refused: the cause, once per rule
				reason = s.Cause
			}
			if reason != "" && !slices.Contains(rr.Reasons, reason) {
				rr.Reasons = append(rr.Reasons, reason)
			}
		case s.Outcome == NotExercised && s.StoreTestable && rr.Outcome == PartlyVerified:
			if r := "not exercised: " + s.Message; !slices.Contains(rr.Reasons, r) {
				rr.Reasons = append(rr.Reasons, r)
			}
		case s.Outcome == PartlyVerified && rr.Outcome == Inconclusive:
			rr.Notes = append(rr.Notes, "partly verified: "+s.Message)
		case s.Outcome == Skipped || s.Outcome == NotExercised:
			rr.Notes = append(rr.Notes, "partly "+string(s.Outcome)+": "+s.Message)
		}
	}
	return rr
}

// OverlapStats is what a concurrent check measured, summed over its histories (a
// history is one recorded run of concurrent clients; a race check records one per
// round).
type OverlapStats struct {
	Histories int `json:"histories"`
	// Ops counts the calls recorded; OverlappingOps those whose call-to-return interval
	// (as the battery saw it, at its side of the Store interface) intersects the
	// interval of a call of another client on the same task.
	Ops            int     `json:"ops"`
	OverlappingOps int     `json:"overlapping_ops"`
	Share          float64 `json:"share"`
	// PeakInFlight is the most calls at the store at once: requests sent and not yet
	// answered when the harness counts them (harness.InFlightGauge: the wire client),
	// otherwise calls entered and not yet returned at the Store interface.
	PeakInFlight int `json:"peak_in_flight"`
	// MinOverlapping is the least OverlappingOps, and MinInFlight the least
	// PeakInFlight, for the check to count: below either the check is inconclusive.
	MinOverlapping int `json:"min_overlapping"`
	MinInFlight    int `json:"min_in_flight"`
	// PlannedRounds, when set, is how many rounds the check planned: its time budget
	// (Budget.RaceTime) stopped it after Histories of them, conclusive.
	PlannedRounds int `json:"planned_rounds,omitempty"`
}

// Conclusive reports whether the check overlapped enough to count: MinOverlapping
// overlapping calls and a peak of MinInFlight.
func (s OverlapStats) Conclusive() bool {
	return s.OverlappingOps >= s.MinOverlapping && s.PeakInFlight >= s.MinInFlight && s.Ops > 0
}

func (s OverlapStats) String() string {
	return fmt.Sprintf("%d of %d calls (%.1f%%) overlapped another client's call on the same task (at least %d needed); peak %d calls in flight at the store (at least %d needed); %d histories",
		s.OverlappingOps, s.Ops, 100*s.Share, s.MinOverlapping, s.PeakInFlight, s.MinInFlight, s.Histories)
}

// AddStats folds one check's stats in.
func (o *Overlap) AddStats(s OverlapStats) {
	o.add(Overlap{Checks: 1, Histories: s.Histories, OverlappingOps: s.OverlappingOps, Ops: s.Ops,
		PeakInFlight: s.PeakInFlight, Conclusive: s.Conclusive()})
}

// add folds another sum in.
func (o *Overlap) add(p Overlap) {
	if o.Checks == 0 {
		o.Conclusive = true
	}
	o.Checks += p.Checks
	o.Histories += p.Histories
	o.OverlappingOps += p.OverlappingOps
	o.Ops += p.Ops
	o.PeakInFlight = max(o.PeakInFlight, p.PeakInFlight)
	o.Conclusive = o.Conclusive && p.Conclusive
	if o.Ops > 0 {
		o.Share = float64(o.OverlappingOps) / float64(o.Ops)
	}
}

// Short is the summary's form: "overlap 365/424 peak 9", with "below threshold" when a
// check did not overlap enough to count.
func (o Overlap) Short() string {
	s := fmt.Sprintf("overlap %d/%d peak %d", o.OverlappingOps, o.Ops, o.PeakInFlight)
	if !o.Conclusive {
		s += " (below threshold)"
	}
	return s
}

// Overlap is the measured overlap of a spec's concurrent checks (SpecResult.Overlap) or
// of a rule's (RuleResult.Overlap), summed: calls that overlapped another client's call
// on the same task, calls made, their share, the peak of calls in flight at the store,
// and whether every check measured reached the threshold (MinOverlapping overlapping
// calls, a peak of MinInFlight).
type Overlap struct {
	// Checks counts the concurrent checks measured (a spec may run more than one).
	Checks         int     `json:"checks"`
	Histories      int     `json:"histories"`
	OverlappingOps int     `json:"overlapping_ops"`
	Ops            int     `json:"ops"`
	Share          float64 `json:"share"`
	PeakInFlight   int     `json:"peak_in_flight"`
	// Conclusive: every check measured overlapped enough to count.
	Conclusive bool `json:"conclusive"`
}

// Merge joins the reports of one run whose eras were checked in separate processes
// into the report of the whole run: meta carries the run's identity (store, every era,
// seed, strictness, wall time); the parts' rules and specs are put in the order of
// meta.Eras, each era's in the order its process took them; suite failures follow one
// another (meta's own last: a part that could not run); and the totals are counted
// again, as one process would have counted them.
func Merge(meta Report, parts ...*Report) *Report {
	r := meta
	r.Rules, r.Specs, r.SuiteFailures = nil, nil, nil
	for _, p := range parts {
		r.Rules = append(r.Rules, p.Rules...)
		r.Specs = append(r.Specs, p.Specs...)
		r.SuiteFailures = append(r.SuiteFailures, p.SuiteFailures...)
	}
	r.SuiteFailures = append(r.SuiteFailures, meta.SuiteFailures...)
	place := func(e harness.Era) int {
		if i := slices.Index(meta.Eras, e); i >= 0 {
			return i
		}
		return len(meta.Eras)
	}
	slices.SortStableFunc(r.Rules, func(a, b RuleResult) int { return place(a.Era) - place(b.Era) })
	slices.SortStableFunc(r.Specs, func(a, b SpecResult) int { return place(a.Era) - place(b.Era) })
	r.Totals = Totals{Specs: len(r.Specs)}
	for _, rr := range r.Rules {
		r.Totals.Add(rr.Outcome, rr.Subject)
	}
	return &r
}
