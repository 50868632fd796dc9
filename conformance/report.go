package conformance

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
	"github.com/onsi/ginkgo/v2/types"
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
)

// Report is the result of one run of the battery, keyed by rule.
type Report struct {
	Store       string    `json:"store"`
	Eras        []Era     `json:"eras"`
	Seed        int64     `json:"seed"`
	Strict      bool      `json:"strict"`
	LabelFilter string    `json:"label_filter,omitempty"`
	Focus       []string  `json:"focus,omitempty"`
	Started     time.Time `json:"started"`
	// Duration is the wall time of the whole run.
	Duration time.Duration `json:"duration_ns"`
	// Rules holds one result per (rule, era) selected, in era order then in the
	// order of SPEC.md. A shared rule appears once per era it ran in.
	Rules []RuleResult `json:"rules"`
	// Specs holds every spec that was selected, in the order it ran.
	Specs []SpecResult `json:"specs"`
	// SuiteFailures are failures outside any rule's spec: a failing suite-level node,
	// a spec labelled with no known rule, an interrupted run.
	SuiteFailures []string `json:"suite_failures,omitempty"`
	Totals        Totals   `json:"totals"`
}

// RuleResult is one rule's outcome in one era.
type RuleResult struct {
	ID      string  `json:"id"`
	Level   Level   `json:"level"`
	Era     Era     `json:"era"`
	Area    string  `json:"area"`
	Text    string  `json:"text"`
	Outcome Outcome `json:"outcome"`
	// Reasons explain the outcome: failure messages, warnings, or skip reasons.
	Reasons []string `json:"reasons,omitempty"`
	// Notes are remarks that did not decide the outcome (a spec of a passing rule
	// skipped, a namespace that failed to close).
	Notes []string `json:"notes,omitempty"`
	// Specs names the rule's specs.
	Specs []string `json:"specs,omitempty"`
}

// SpecResult is one spec's outcome.
type SpecResult struct {
	Name    string  `json:"name"`
	RuleID  string  `json:"rule,omitempty"`
	Level   Level   `json:"level,omitempty"`
	Era     Era     `json:"era,omitempty"`
	Area    string  `json:"area,omitempty"`
	Outcome Outcome `json:"outcome"`
	// State is Ginkgo's word for it: passed, failed, skipped, panicked, timedout, ...
	State string `json:"state"`
	// Message is the failure, warning or skip message.
	Message  string        `json:"message,omitempty"`
	Notes    []string      `json:"notes,omitempty"`
	Location string        `json:"location,omitempty"`
	Duration time.Duration `json:"duration_ns"`
}

// Totals counts rule results by outcome, and the specs that ran.
type Totals struct {
	Passed     int `json:"passed"`
	Failed     int `json:"failed"`
	Warned     int `json:"warned"`
	Skipped    int `json:"skipped"`
	NotCovered int `json:"not_covered"`
	Specs      int `json:"specs"`
}

// OK reports whether the run passed: no rule failed and nothing failed outside the
// rules. Warnings, skips and rules not covered do not fail a run.
func (r *Report) OK() bool {
	return r.Totals.Failed == 0 && len(r.SuiteFailures) == 0
}

// Rule returns the result of rule id in era.
func (r *Report) Rule(id string, era Era) (RuleResult, bool) {
	for _, rr := range r.Rules {
		if rr.ID == id && rr.Era == era {
			return rr, true
		}
	}
	return RuleResult{}, false
}

// JSON writes the report as indented JSON.
func (r *Report) JSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// JUnit writes the report as JUnit XML: one testsuite per era, one testcase per spec
// (a warning is a passing testcase whose system-out carries the warning), and one
// skipped testcase per rule not covered, so that coverage shows in CI.
func (r *Report) JUnit(w io.Writer) error {
	suites := reporters.JUnitTestSuites{Time: r.Duration.Seconds()}
	for _, era := range r.Eras {
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
			tc := reporters.JUnitTestCase{
				Name:      s.Name,
				Classname: junitClass(r.Store, era, s.Area),
				Status:    s.State,
				Time:      s.Duration.Seconds(),
			}
			switch s.Outcome {
			case Failed:
				ts.Failures++
				tc.Failure = &reporters.JUnitFailure{Message: firstLine(s.Message), Type: s.State, Description: s.Message + locationSuffix(s.Location)}
			case Skipped:
				ts.Skipped++
				tc.Skipped = &reporters.JUnitSkipped{Message: "skipped - " + s.Message}
			case Warned:
				tc.SystemOut = "warning (SHOULD, not strict):\n" + s.Message
			}
			if len(s.Notes) > 0 {
				tc.SystemErr = strings.Join(s.Notes, "\n")
			}
			ts.TestCases = append(ts.TestCases, tc)
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
		suites.Tests += ts.Tests
		suites.Failures += ts.Failures
		suites.Disabled += ts.Skipped
		suites.TestSuites = append(suites.TestSuites, ts)
	}
	if len(r.SuiteFailures) > 0 {
		ts := reporters.JUnitTestSuite{Name: fmt.Sprintf("storecheck %s [suite]", r.Store), Package: "github.com/storecheck/storecheck/conformance"}
		for i, f := range r.SuiteFailures {
			ts.TestCases = append(ts.TestCases, reporters.JUnitTestCase{
				Name:      fmt.Sprintf("suite failure %d", i+1),
				Classname: junitClass(r.Store, "suite", ""),
				Status:    "failed",
				Error:     &reporters.JUnitError{Message: firstLine(f), Type: "failed", Description: f},
			})
		}
		ts.Tests, ts.Errors = len(ts.TestCases), len(ts.TestCases)
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

func junitClass(store string, era Era, area string) string {
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

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Summary writes the human summary: a header, one row per rule, then the messages of
// every failure and warning, the rules not covered, and the totals.
func (r *Report) Summary(w io.Writer) error {
	var b strings.Builder
	var eras []string
	for _, e := range r.Eras {
		eras = append(eras, string(e))
	}
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
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RULE\tLEVEL\tERA\tOUTCOME\tNOTE")
	var notCovered []string
	uncoveredEras := map[string][]string{}
	for _, rr := range r.Rules {
		if rr.Outcome == NotCovered {
			if uncoveredEras[rr.ID] == nil {
				notCovered = append(notCovered, rr.ID)
			}
			uncoveredEras[rr.ID] = append(uncoveredEras[rr.ID], string(rr.Era))
			continue
		}
		note := ""
		switch rr.Outcome {
		case Skipped:
			note = strings.Join(rr.Reasons, "; ")
		case Failed, Warned:
			note = gist(firstOf(rr.Reasons))
		case Passed:
			if len(rr.Notes) > 0 {
				note = rr.Notes[0]
			}
		}
		outcome := string(rr.Outcome)
		if rr.Outcome == Failed {
			outcome = "FAILED"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", rr.ID, strings.ToUpper(string(rr.Level)), rr.Era, outcome, truncate(note, 90))
	}
	tw.Flush()
	for i, id := range notCovered {
		notCovered[i] = id + " (" + strings.Join(uncoveredEras[id], ", ") + ")"
	}

	for _, section := range []struct {
		title   string
		outcome Outcome
	}{{"Failures", Failed}, {"Warnings (SHOULD rules; they fail under --strict)", Warned}} {
		first := true
		for _, s := range r.Specs {
			if s.Outcome != section.outcome {
				continue
			}
			if first {
				fmt.Fprintf(&b, "\n%s:\n", section.title)
				first = false
			}
			fmt.Fprintf(&b, "\n--- %s (%s era)\n%s\n", s.Name, s.Era, indent(s.Message, "    "))
			if s.Location != "" {
				fmt.Fprintf(&b, "    at %s\n", s.Location)
			}
		}
	}
	if len(r.SuiteFailures) > 0 {
		b.WriteString("\nSuite failures:\n")
		for _, f := range r.SuiteFailures {
			fmt.Fprintf(&b, "%s\n", indent(f, "    "))
		}
	}
	if len(notCovered) > 0 {
		fmt.Fprintf(&b, "\nNot covered (the battery has no spec for these yet):\n%s\n", wrap(notCovered, "    ", 92))
	}
	t := r.Totals
	verdict := "PASS"
	if !r.OK() {
		verdict = "FAIL"
	}
	fmt.Fprintf(&b, "\n%s: %d passed, %d failed, %d warned, %d skipped, %d not covered (rules); seed %d\n",
		verdict, t.Passed, t.Failed, t.Warned, t.Skipped, t.NotCovered, r.Seed)
	_, err := io.WriteString(w, b.String())
	return err
}

// gist is the line of a spec's message that says what went wrong: the first line
// after the rule's own text and the store line that suite.run puts first.
func gist(msg string) string {
	for _, l := range strings.Split(msg, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "[") && strings.Contains(l, "] ") && ruleHeader.MatchString(l) || strings.HasPrefix(l, "store: ") || l == "---" {
			continue
		}
		return l
	}
	return firstLine(msg)
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

// specLabels are the labels every spec of rule carries in era; selection by rule ID or
// label expression is evaluated against them.
func specLabels(rule Rule, era Era) []string {
	return []string{rule.ID, string(rule.Level), string(era), "area:" + rule.Area}
}

// appliesTo reports whether rule has specs in era: the shared rules run in both, and so
// does B-REPRO-1, whose specs replay each era's randomised checks against the store (the
// rerun hint of a failure names it).
func appliesTo(rule Rule, era Era) bool {
	return rule.Era == "shared" || rule.Era == string(era) || rule.ID == "B-REPRO-1"
}

// selection is what a run was asked to run.
type selection struct {
	eras   []Era
	filter string
	match  func([]string) bool // nil: every rule
	focus  *regexp.Regexp      // nil: no focus
}

func newSelection(eras []Era, filter string, focus []string) (selection, error) {
	s := selection{eras: eras, filter: filter}
	if filter != "" {
		m, err := types.ParseLabelFilter(filter)
		if err != nil {
			return s, fmt.Errorf("label filter %q: %s", filter, plain(err.Error()))
		}
		s.match = m
	}
	if len(focus) > 0 {
		re, err := regexp.Compile(strings.Join(focus, "|"))
		if err != nil {
			return s, fmt.Errorf("focus %q: %w", focus, err)
		}
		s.focus = re
	}
	return s, nil
}

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

// plain strips the terminal colours Ginkgo puts in its error messages.
func plain(s string) string { return strings.TrimSpace(ansi.ReplaceAllString(s, "")) }

// wants reports whether rule was selected in era.
func (s selection) wants(rule Rule, era Era) bool {
	if !appliesTo(rule, era) || !slices.Contains(s.eras, era) {
		return false
	}
	return s.match == nil || s.match(specLabels(rule, era))
}

// ran reports whether a spec was selected (Ginkgo reports the ones its filters left out
// as skipped; they are not part of the run).
func (s selection) ran(sr types.SpecReport) bool {
	if s.match != nil && !s.match(sr.Labels()) {
		return false
	}
	return s.focus == nil || s.focus.MatchString(sr.FullText())
}

// buildReport turns Ginkgo's report of a run into a Report keyed by rule. meta carries
// the run's identity (store, eras, seed, strictness); its Rules, Specs and Totals are
// filled here.
func buildReport(meta Report, tr types.Report, sel selection) *Report {
	r := meta
	r.LabelFilter = sel.filter
	if r.Started.IsZero() {
		r.Started = tr.StartTime
	}
	if r.Duration == 0 {
		r.Duration = tr.RunTime
	}
	type key struct {
		id  string
		era Era
	}
	byRule := map[key][]SpecResult{}
	for _, sr := range tr.SpecReports {
		if !sr.LeafNodeType.Is(types.NodeTypeIt) {
			if sr.Failed() {
				r.SuiteFailures = append(r.SuiteFailures, fmt.Sprintf("%s: %s", sr.LeafNodeType, failureMessage(sr)))
			}
			continue
		}
		if !sel.ran(sr) {
			continue
		}
		s := specResult(sr)
		r.Specs = append(r.Specs, s)
		if s.RuleID == "" || s.Era == "" {
			if s.Outcome == Failed {
				r.SuiteFailures = append(r.SuiteFailures, fmt.Sprintf("spec %q (labelled with no rule and era): %s", s.Name, s.Message))
			}
			continue
		}
		k := key{s.RuleID, s.Era}
		byRule[k] = append(byRule[k], s)
	}
	r.SuiteFailures = append(r.SuiteFailures, tr.SpecialSuiteFailureReasons...)

	seen := map[key]bool{}
	for _, era := range r.Eras {
		for _, rule := range catalogue {
			k := key{rule.ID, era}
			specs, ran := byRule[k]
			if !ran && (sel.focus != nil || !sel.wants(rule, era)) {
				continue
			}
			seen[k] = true
			r.Rules = append(r.Rules, ruleResult(rule, era, specs))
		}
	}
	// A spec labelled with a rule of another era (or an era not asked for) still counts.
	for _, s := range r.Specs {
		k := key{s.RuleID, s.Era}
		if s.RuleID == "" || seen[k] {
			continue
		}
		seen[k] = true
		rule, _ := RuleByID(s.RuleID)
		r.Rules = append(r.Rules, ruleResult(rule, s.Era, byRule[k]))
	}
	r.Totals = Totals{Specs: len(r.Specs)}
	for _, rr := range r.Rules {
		switch rr.Outcome {
		case Passed:
			r.Totals.Passed++
		case Failed:
			r.Totals.Failed++
		case Warned:
			r.Totals.Warned++
		case Skipped:
			r.Totals.Skipped++
		case NotCovered:
			r.Totals.NotCovered++
		}
	}
	return &r
}

func ruleResult(rule Rule, era Era, specs []SpecResult) RuleResult {
	rr := RuleResult{ID: rule.ID, Level: rule.Level, Era: era, Area: rule.Area, Text: rule.Text}
	if len(specs) == 0 {
		rr.Outcome = NotCovered
		return rr
	}
	count := map[Outcome]int{}
	for _, s := range specs {
		rr.Specs = append(rr.Specs, s.Name)
		count[s.Outcome]++
		rr.Notes = append(rr.Notes, s.Notes...)
	}
	switch {
	case count[Failed] > 0:
		rr.Outcome = Failed
	case count[Warned] > 0:
		rr.Outcome = Warned
	case count[Skipped] == len(specs):
		rr.Outcome = Skipped
	default:
		rr.Outcome = Passed
	}
	for _, s := range specs {
		switch {
		case s.Outcome == rr.Outcome:
			if s.Message != "" && !slices.Contains(rr.Reasons, s.Message) {
				rr.Reasons = append(rr.Reasons, s.Message)
			}
		case s.Outcome == Skipped:
			rr.Notes = append(rr.Notes, "partly skipped: "+s.Message)
		}
	}
	return rr
}

func specResult(sr types.SpecReport) SpecResult {
	s := SpecResult{
		Name:     sr.LeafNodeText,
		State:    sr.State.String(),
		Duration: sr.RunTime,
	}
	if s.Name == "" {
		s.Name = sr.FullText()
	}
	for _, l := range sr.Labels() {
		switch {
		case l == string(EraLegacy) || l == string(EraModern):
			s.Era = Era(l)
		case strings.HasPrefix(l, "area:"):
			s.Area = strings.TrimPrefix(l, "area:")
		default:
			if rule, ok := RuleByID(l); ok {
				s.RuleID, s.Level = rule.ID, rule.Level
				if s.Area == "" {
					s.Area = rule.Area
				}
			}
		}
	}
	for _, e := range sr.ReportEntries {
		if e.Name != labelWarning && e.Name != "" {
			s.Notes = append(s.Notes, e.Name+": "+e.StringRepresentation())
		}
	}
	switch {
	case sr.State.Is(types.SpecStateFailureStates):
		s.Outcome = Failed
		s.Message = failureMessage(sr)
		// Faults recorded on the Env all fail at suite.run's one Fail call: that
		// location says nothing; a panic's, a timeout's or a matcher's does.
		if loc := sr.Failure.Location; loc.FileName != "" && !strings.HasSuffix(loc.FileName, "conformance/suite.go") {
			s.Location = loc.String()
		}
	case sr.State.Is(types.SpecStateSkipped | types.SpecStatePending):
		s.Outcome = Skipped
		s.Message = strings.TrimSpace(sr.Failure.Message)
		if s.Message == "" {
			s.Message = "not run (the run was interrupted or hit its deadline)"
		}
	default:
		s.Outcome = Passed
		var warnings []string
		for _, e := range sr.ReportEntries {
			if e.Name == labelWarning {
				warnings = append(warnings, e.StringRepresentation())
			}
		}
		if len(warnings) > 0 {
			s.Outcome = Warned
			s.Message = strings.Join(warnings, "\n")
		}
	}
	return s
}

// failureMessage is a failed spec's message, saying how it failed when it did not
// simply record faults (a timeout, a panic, an interrupt).
func failureMessage(sr types.SpecReport) string {
	msg := strings.TrimSpace(sr.Failure.Message)
	switch {
	case sr.State.Is(types.SpecStatePanicked):
		msg = strings.TrimSpace("panic: " + sr.Failure.ForwardedPanic + "\n" + msg)
	case sr.State.Is(types.SpecStateTimedout):
		msg = "timed out (a store call did not return within the spec timeout): " + msg
	case sr.State.Is(types.SpecStateInterrupted):
		msg = "interrupted: " + msg
	case sr.State.Is(types.SpecStateAborted):
		msg = "aborted: " + msg
	}
	for _, af := range sr.AdditionalFailures {
		msg += "\nthen " + af.State.String() + ": " + strings.TrimSpace(af.Failure.Message)
	}
	if af := sr.Failure.AdditionalFailure; af != nil {
		msg += "\nthen " + af.State.String() + ": " + strings.TrimSpace(af.Failure.Message)
	}
	return msg
}
