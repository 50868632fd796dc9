package conformance

import (
	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/conformance/report"
	"github.com/storecheck/storecheck/conformance/rules"
)

// The battery's vocabulary, re-exported so that a caller of Run or Execute needs this
// package only: options from battery, rules from rules, outcomes and reports from
// report.

type (
	// Options tune a run of the battery (battery.Options).
	Options = battery.Options
	// Budget bounds the randomised checks (battery.Budget).
	Budget = battery.Budget
	// Era names a contract of docs/spec.md: legacy, modern or sdk. It is the one Era
	// type (harness.Era, which the battery's packages use), under its public name.
	Era = harness.Era
	// Rule is one rule of docs/spec.md (rules.Rule).
	Rule = rules.Rule
	// Level is MUST or SHOULD.
	Level = rules.Level
	// Subject is whose code a rule's verdict is about.
	Subject = rules.Subject
	// Report is a run's result (report.Report).
	Report = report.Report
	// RuleResult is one rule's result in one era.
	RuleResult = report.RuleResult
	// SpecResult is one spec's result.
	SpecResult = report.SpecResult
	// Outcome is how a rule or a spec fared.
	Outcome = report.Outcome
	// Totals counts rules by outcome.
	Totals = report.Totals
	// Overlap sums the overlap of a rule's concurrent checks.
	Overlap = report.Overlap
	// OverlapStats is the overlap one concurrent check measured.
	OverlapStats = report.OverlapStats
	// AreaTime is the time the specs of one area took.
	AreaTime = report.AreaTime
)

const (
	EraLegacy = harness.EraLegacy
	EraModern = harness.EraModern
	EraSDK    = harness.EraSDK

	Must   = rules.Must
	Should = rules.Should

	SubjectStore   = rules.SubjectStore
	SubjectLibrary = rules.SubjectLibrary
	SubjectFacade  = rules.SubjectFacade
	SubjectBattery = rules.SubjectBattery
	SubjectServer  = rules.SubjectServer

	Passed         = report.Passed
	Failed         = report.Failed
	Warned         = report.Warned
	Skipped        = report.Skipped
	NotCovered     = report.NotCovered
	Aborted        = report.Aborted
	SetupRefused   = report.SetupRefused
	PartlyVerified = report.PartlyVerified
	Inconclusive   = report.Inconclusive
	NotExercised   = report.NotExercised
)

// Rules returns the rule catalogue of docs/spec.md.
func Rules() []Rule { return rules.All() }

// RuleByID returns the rule with this ID.
func RuleByID(id string) (Rule, bool) { return rules.ByID(id) }

// NewReport builds a report from rule results judged elsewhere (storecheck probe).
func NewReport(meta Report, results []RuleResult) *Report { return report.NewReport(meta, results) }

// MergeReports joins the reports of one run whose eras were checked in separate
// processes (storecheck run --procs) into the report of the whole run.
func MergeReports(meta Report, parts ...*Report) *Report { return report.Merge(meta, parts...) }

// Eras returns the eras a run of h covers: asked, checked against what h declares, or
// every era h declares when asked is empty; in the order runs take them.
func Eras(h harness.Harness, asked []Era) ([]Era, error) { return selectEras(h, asked) }

// NewSeed picks a seed for a run (Options.Seed 0 picks one the same way).
func NewSeed() int64 { return battery.NewSeed() }
