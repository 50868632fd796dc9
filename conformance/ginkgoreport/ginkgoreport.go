package ginkgoreport

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/onsi/ginkgo/v2/types"
	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/conformance/report"
	"github.com/storecheck/storecheck/conformance/rules"
)

// Selection is what a run was asked to run.
type Selection struct {
	eras   []harness.Era
	Filter string
	match  func([]string) bool // nil: every rule
	focus  *regexp.Regexp      // nil: no focus
}

func NewSelection(eras []harness.Era, filter string, focus []string) (Selection, error) {
	s := Selection{eras: eras, Filter: filter}
	if filter != "" {
		m, err := types.ParseLabelFilter(filter)
		if err != nil {
			return s, fmt.Errorf("label filter %q: %s", filter, Plain(err.Error()))
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

// Plain strips the terminal colours Ginkgo puts in its error messages.
func Plain(s string) string { return strings.TrimSpace(ansi.ReplaceAllString(s, "")) }

// Wants reports whether rule was selected in era.
func (s Selection) Wants(rule rules.Rule, era harness.Era) bool {
	if !rules.AppliesTo(rule, era) || !slices.Contains(s.eras, era) {
		return false
	}
	return s.match == nil || s.match(rules.SpecLabels(rule, era))
}

// Ran reports whether a spec was selected (Ginkgo reports the ones its filters left out
// as skipped; they are not part of the run).
func (s Selection) Ran(sr types.SpecReport) bool {
	if s.match != nil && !s.match(sr.Labels()) {
		return false
	}
	return s.focus == nil || s.focus.MatchString(sr.FullText())
}

// BuildReport turns Ginkgo's report of a run into a Report keyed by rule. meta carries
// the run's identity (store, eras, seed, strictness); its Rules, Specs and Totals are
// filled here.
func BuildReport(meta report.Report, tr types.Report, sel Selection) *report.Report {
	r := meta
	r.LabelFilter = sel.Filter
	if r.Started.IsZero() {
		r.Started = tr.StartTime
	}
	if r.Duration == 0 {
		r.Duration = tr.RunTime
	}
	type key struct {
		id  string
		era harness.Era
	}
	byRule := map[key][]report.SpecResult{}
	for _, sr := range tr.SpecReports {
		if !sr.LeafNodeType.Is(types.NodeTypeIt) {
			if sr.Failed() {
				r.SuiteFailures = append(r.SuiteFailures, fmt.Sprintf("%s: %s", sr.LeafNodeType, failureMessage(sr)))
			}
			continue
		}
		if !sel.Ran(sr) {
			continue
		}
		s := SpecResult(sr)
		for _, f := range append([]report.SpecResult{s}, foundFaults(sr, s)...) {
			r.Specs = append(r.Specs, f)
			if f.RuleID == "" || f.Era == "" {
				if f.Outcome == report.Failed {
					r.SuiteFailures = append(r.SuiteFailures, fmt.Sprintf("spec %q (labelled with no rule and era): %s", f.Name, f.Message))
				}
				continue
			}
			k := key{f.RuleID, f.Era}
			byRule[k] = append(byRule[k], f)
		}
	}
	r.SuiteFailures = append(r.SuiteFailures, tr.SpecialSuiteFailureReasons...)

	seen := map[key]bool{}
	for _, era := range r.Eras {
		for _, rule := range rules.Catalogue {
			k := key{rule.ID, era}
			specs, ran := byRule[k]
			if !ran && (sel.focus != nil || !sel.Wants(rule, era)) {
				continue
			}
			seen[k] = true
			r.Rules = append(r.Rules, report.JudgeRule(rule, era, specs))
		}
	}
	// A spec labelled with a rule of another era (or an era not asked for) still counts.
	for _, s := range r.Specs {
		k := key{s.RuleID, s.Era}
		if s.RuleID == "" || seen[k] {
			continue
		}
		seen[k] = true
		rule, _ := rules.ByID(s.RuleID)
		r.Rules = append(r.Rules, report.JudgeRule(rule, s.Era, byRule[k]))
	}
	r.Totals = report.Totals{Specs: len(r.Specs)}
	for _, rr := range r.Rules {
		r.Totals.Add(rr.Outcome, rr.Subject)
	}
	return &r
}

// storecheckEntry reports whether a report entry is one of the battery's own markers
// (read by SpecResult, not shown as a note).
func storecheckEntry(name string) bool {
	switch name {
	case battery.LabelWarning, battery.EntryInconclusive, battery.EntryPartly, battery.EntryNotExercised, battery.EntryStoreTestable, battery.EntrySetupRefused, battery.EntryAborted, battery.EntryDecidedBy, battery.EntryOverlap, battery.EntryFaultOf:
		return true
	}
	return false
}

// SpecResult is a Ginkgo spec report in the report's terms: its rule, era and area, its
// outcome and message.
func SpecResult(sr types.SpecReport) report.SpecResult {
	s := report.SpecResult{
		Name:     sr.LeafNodeText,
		State:    sr.State.String(),
		Duration: sr.RunTime,
	}
	if s.Name == "" {
		s.Name = sr.FullText()
	}
	readLabels(&s, sr.Labels())
	entries := readEntries(&s, sr.ReportEntries)
	if d := entries[battery.EntryDecidedBy]; len(d) > 0 {
		s.Subject = rules.Subject(d[0])
	}
	judgeSpec(&s, sr, entries)
	return s
}

// readLabels sets the spec's era, area and rule (with its level) from its labels; the
// area is the rule's when no label names one.
func readLabels(s *report.SpecResult, labels []string) {
	for _, l := range labels {
		switch {
		case l == string(harness.EraLegacy) || l == string(harness.EraModern) || l == string(harness.EraSDK):
			s.Era = harness.Era(l)
		case strings.HasPrefix(l, "area:"):
			s.Area = strings.TrimPrefix(l, "area:")
		default:
			if rule, ok := rules.ByID(l); ok {
				s.RuleID, s.Level = rule.ID, rule.Level
				if s.Area == "" {
					s.Area = rule.Area
				}
			}
		}
	}
}

// readEntries is the battery's markers among the spec's report entries, each value once
// per marker; the other named entries become the spec's notes, and every overlap
// check's stats (repeats included) are summed into its Overlap.
func readEntries(s *report.SpecResult, reportEntries types.ReportEntries) map[string][]string {
	entries := map[string][]string{}
	for _, e := range reportEntries {
		if storecheckEntry(e.Name) {
			v := e.StringRepresentation()
			if !slices.Contains(entries[e.Name], v) {
				entries[e.Name] = append(entries[e.Name], v)
			}
		} else if e.Name != "" {
			s.Notes = append(s.Notes, e.Name+": "+e.StringRepresentation())
		}
	}
	for _, e := range reportEntries { // every check's stats, repeats included
		var st report.OverlapStats
		if e.Name == battery.EntryOverlap && json.Unmarshal([]byte(e.StringRepresentation()), &st) == nil {
			if s.Overlap == nil {
				s.Overlap = &report.Overlap{}
			}
			s.Overlap.AddStats(st)
		}
	}
	return entries
}

// judgeSpec sets the spec's outcome and message from Ginkgo's state and the battery's
// markers: an abort first, whatever Ginkgo made of it; then a failure; then the
// markers of a spec that could not pass or fail outright.
func judgeSpec(s *report.SpecResult, sr types.SpecReport, entries map[string][]string) {
	skipMessage := func() string {
		m := strings.TrimSpace(sr.Failure.Message)
		if m == "" {
			m = "not run (the run was interrupted or hit its deadline)"
		}
		return m
	}
	switch {
	case len(entries[battery.EntryAborted]) > 0:
		// Whatever Ginkgo made of it (skipped, failed, panicked): the transport's doing.
		s.Outcome = report.Aborted
		s.Cause = entries[battery.EntryAborted][0]
		if sr.State.Is(types.SpecStateFailureStates) {
			s.Message = failureMessage(sr)
		} else {
			s.Message = skipMessage()
		}
	case sr.State.Is(types.SpecStateFailureStates):
		s.Outcome = report.Failed
		s.Message = failureMessage(sr)
		// Faults recorded on the Env all fail at suite.run's one Fail call: that
		// location says nothing; a panic's, a timeout's or a matcher's does.
		if loc := sr.Failure.Location; loc.FileName != "" && !strings.HasSuffix(loc.FileName, "conformance/battery/suite.go") {
			s.Location = loc.String()
		}
	case len(entries[battery.EntrySetupRefused]) > 0:
		s.Outcome = report.SetupRefused
		s.Cause = entries[battery.EntrySetupRefused][0]
		s.Message = skipMessage()
	case len(entries[battery.EntryNotExercised]) > 0:
		s.Outcome = report.NotExercised
		s.Message = strings.Join(entries[battery.EntryNotExercised], "; ")
		s.StoreTestable = len(entries[battery.EntryStoreTestable]) > 0
	case sr.State.Is(types.SpecStateSkipped|types.SpecStatePending) && len(entries[battery.EntryPartly]) > 0:
		s.Outcome = report.PartlyVerified
		s.Message = strings.Join(entries[battery.EntryPartly], "; ")
	case sr.State.Is(types.SpecStateSkipped | types.SpecStatePending):
		s.Outcome = report.Skipped
		s.Message = skipMessage()
	case len(entries[battery.LabelWarning]) > 0:
		s.Outcome = report.Warned
		s.Message = strings.Join(entries[battery.LabelWarning], "\n")
	case len(entries[battery.EntryInconclusive]) > 0:
		s.Outcome = report.Inconclusive
		s.Message = strings.Join(entries[battery.EntryInconclusive], "; ")
	case len(entries[battery.EntryPartly]) > 0:
		s.Outcome = report.PartlyVerified
		s.Message = strings.Join(entries[battery.EntryPartly], "; ")
	default:
		s.Outcome = report.Passed
	}
}

// foundFaults are the faults of other rules a spec filed (Env.FaultOf), each as a failed
// spec of that rule in the spec's era, so that the rule fails whatever its own specs
// found. A spec that was aborted files none: what it saw may be the transport's doing.
func foundFaults(sr types.SpecReport, s report.SpecResult) []report.SpecResult {
	if s.Outcome == report.Aborted {
		return nil
	}
	var out []report.SpecResult
	for _, e := range sr.ReportEntries {
		var f battery.FaultOf
		if e.Name != battery.EntryFaultOf || json.Unmarshal([]byte(e.StringRepresentation()), &f) != nil {
			continue
		}
		rule, ok := rules.ByID(f.Rule)
		if !ok {
			continue
		}
		out = append(out, report.SpecResult{
			Name: fmt.Sprintf("%s (a fault of %s it found)", s.Name, rule.ID), RuleID: rule.ID, Level: rule.Level,
			Era: s.Era, Area: rule.Area, Outcome: report.Failed, State: "failed", Message: f.Message,
		})
	}
	return out
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
