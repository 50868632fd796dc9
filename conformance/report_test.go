package conformance

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/conformance/ginkgoreport"
	"github.com/storecheck/storecheck/conformance/report"
	"github.com/storecheck/storecheck/conformance/rules"
	"github.com/storecheck/storecheck/conformance/sharedspecs"
)

// These tests build Reports from synthetic Ginkgo reports: Execute itself runs Ginkgo,
// which can happen once per process, and this package's battery test already does.

type fakeSpec struct {
	rule    string
	era     Era
	text    string
	state   types.SpecState
	message string
	panic   string
	warning string
	notes   map[string]string
}

func (f fakeSpec) report() types.SpecReport {
	rule, ok := rules.ByID(f.rule)
	if !ok {
		panic("fakeSpec: unknown rule " + f.rule)
	}
	sr := types.SpecReport{
		ContainerHierarchyTexts:  []string{"storecheck", "fake [" + string(f.era) + " era]"},
		ContainerHierarchyLabels: [][]string{{}, {string(f.era)}},
		LeafNodeType:             types.NodeTypeIt,
		LeafNodeText:             "[" + f.rule + "] " + f.text,
		LeafNodeLabels:           rules.SpecLabels(rule, f.era),
		State:                    f.state,
		RunTime:                  3 * time.Millisecond,
		Failure:                  types.Failure{Message: f.message, ForwardedPanic: f.panic},
	}
	if f.message != "" && f.state != types.SpecStateSkipped {
		sr.Failure.Location = types.CodeLocation{FileName: "conformance/fake.go", LineNumber: 42}
	}
	if f.warning != "" {
		sr.ReportEntries = append(sr.ReportEntries, types.ReportEntry{Name: battery.LabelWarning, Value: types.WrapEntryValue(f.warning)})
	}
	for name, v := range f.notes {
		sr.ReportEntries = append(sr.ReportEntries, types.ReportEntry{Name: name, Value: types.WrapEntryValue(v)})
	}
	return sr
}

func fakeRun[S fakeSpec | types.SpecReport](specs ...S) types.Report {
	tr := types.Report{SuiteDescription: "fake", StartTime: time.Unix(1_764_400_000, 0), RunTime: time.Second}
	for _, s := range specs {
		switch s := any(s).(type) {
		case fakeSpec:
			tr.SpecReports = append(tr.SpecReports, s.report())
		case types.SpecReport:
			tr.SpecReports = append(tr.SpecReports, s)
		}
	}
	return tr
}

var (
	passed   = types.SpecStatePassed
	failed   = types.SpecStateFailed
	skipped  = types.SpecStateSkipped
	timedout = types.SpecStateTimedout
	panicked = types.SpecStatePanicked
)

func mustSelection(t *testing.T, eras []Era, filter string) ginkgoreport.Selection {
	t.Helper()
	sel, err := ginkgoreport.NewSelection(eras, filter, nil)
	if err != nil {
		t.Fatalf("newSelection(%q): %v", filter, err)
	}
	return sel
}

func sampleReport(t *testing.T) *report.Report {
	t.Helper()
	tr := fakeRun(
		fakeSpec{rule: "L-LIST-2", era: EraLegacy, text: "limit", state: passed},
		fakeSpec{rule: "S-OWN-1", era: EraLegacy, text: "truth table a", state: passed},
		fakeSpec{rule: "S-OWN-1", era: EraLegacy, text: "truth table b", state: failed, message: "[S-OWN-1 MUST] Every scoped operation follows the owner truth table.\n  store: fake (legacy era)\n  input:    Get(\"t1\")\n  expected: ErrNotFound\n  got:      owner leak"},
		fakeSpec{rule: "S-VAL-3", era: EraLegacy, text: "1 MiB", state: passed, warning: "[S-VAL-3 SHOULD] too slow"},
		fakeSpec{rule: "L-CLEAN-1", era: EraLegacy, text: "cleanup", state: skipped, message: "no clock control"},
		fakeSpec{rule: "L-CREATE-1", era: EraLegacy, text: "create", state: timedout, message: "A spec timeout occurred"},
		fakeSpec{rule: "L-GET-1", era: EraLegacy, text: "get", state: panicked, message: "Test Panicked", panic: "nil map"},
		fakeSpec{rule: "L-F-FIN-2", era: EraLegacy, text: "race", state: passed},
		fakeSpec{rule: "L-F-FIN-2", era: EraLegacy, text: "race, shared", state: skipped, message: "not applicable: single instance",
			notes: map[string]string{"cleanup error": "drop schema: boom"}},
		fakeSpec{rule: "S-OWN-1", era: EraModern, text: "truth table", state: passed},
		// Left out by the label filter below: Ginkgo reports it as skipped, without reason.
		fakeSpec{rule: "M-GET-1", era: EraModern, text: "get", state: skipped},
	)
	meta := report.Report{Store: "fake", Eras: []Era{EraLegacy, EraModern}, Seed: 77}
	return ginkgoreport.BuildReport(meta, tr, mustSelection(t, meta.Eras, "!M-GET-1"))
}

func TestReportOutcomes(t *testing.T) {
	r := sampleReport(t)
	cases := []struct {
		id      string
		era     Era
		outcome report.Outcome
		reason  string // a substring of the first reason; "" for none
	}{
		{"L-LIST-2", EraLegacy, report.Passed, ""},
		{"S-OWN-1", EraLegacy, report.Failed, "got:      owner leak"},
		{"S-OWN-1", EraModern, report.Passed, ""},
		{"S-VAL-3", EraLegacy, report.Warned, "too slow"},
		{"L-CLEAN-1", EraLegacy, report.Skipped, "no clock control"},
		{"L-CREATE-1", EraLegacy, report.Failed, "timed out"},
		{"L-GET-1", EraLegacy, report.Failed, "panic: nil map"},
		{"L-F-FIN-2", EraLegacy, report.Passed, ""},
		{"L-UPDATE-1", EraLegacy, report.NotCovered, ""},
		{"M-SWAP-1", EraModern, report.NotCovered, ""},
	}
	for _, c := range cases {
		rr, ok := r.Rule(c.id, c.era)
		if !ok {
			t.Errorf("rule %s (%s): missing from the report", c.id, c.era)
			continue
		}
		if rr.Outcome != c.outcome {
			t.Errorf("rule %s (%s): outcome %q, want %q (reasons %q)", c.id, c.era, rr.Outcome, c.outcome, rr.Reasons)
		}
		if c.reason != "" && (len(rr.Reasons) == 0 || !strings.Contains(rr.Reasons[0], c.reason)) {
			t.Errorf("rule %s (%s): reasons %q, want one containing %q", c.id, c.era, rr.Reasons, c.reason)
		}
		if c.reason == "" && len(rr.Reasons) > 0 {
			t.Errorf("rule %s (%s): reasons %q, want none", c.id, c.era, rr.Reasons)
		}
	}
	if _, ok := r.Rule("M-GET-1", EraModern); ok {
		t.Errorf("M-GET-1 was filtered out, yet the report has a result for it")
	}
	if _, ok := r.Rule("L-GET-1", EraModern); ok {
		t.Errorf("L-GET-1 is a legacy rule, yet the report has a modern result for it")
	}
	if _, ok := r.Rule("B-ISO-1", EraLegacy); ok {
		t.Errorf("B-ISO-1 is a battery self-check, yet the report lists it for a store")
	}
	fin, _ := r.Rule("L-F-FIN-2", EraLegacy)
	if len(fin.Notes) != 2 || !strings.Contains(strings.Join(fin.Notes, "\n"), "not applicable: single instance") ||
		!strings.Contains(strings.Join(fin.Notes, "\n"), "drop schema: boom") {
		t.Errorf("L-F-FIN-2 notes = %q, want the skipped spec's reason and the cleanup error", fin.Notes)
	}
	if len(fin.Specs) != 2 {
		t.Errorf("L-F-FIN-2 specs = %q, want both spec names", fin.Specs)
	}

	// Totals count results: 35 legacy and 31 modern rules are selected (M-GET-1 is
	// filtered out); 9 legacy and 1 modern have specs.
	legacyRules, modernRules := 0, 0
	for _, rule := range rules.All() {
		if rules.AppliesTo(rule, EraLegacy) {
			legacyRules++
		}
		if rules.AppliesTo(rule, EraModern) && rule.ID != "M-GET-1" {
			modernRules++
		}
	}
	want := report.Totals{Passed: 3, Failed: 3, Warned: 1, Skipped: 1, NotCovered: legacyRules + modernRules - 8, Specs: 10}
	if !reflect.DeepEqual(flat(r.Totals), want) {
		t.Errorf("totals = %+v, want %+v", r.Totals, want)
	}
	if r.OK() {
		t.Errorf("OK() = true for a run with failed MUST rules")
	}
	if a := r.Alarms(); len(a) != 4 {
		t.Errorf("Alarms() = %v, want the 3 failed rules and the warned one", a)
	}
}

func TestReportOKWithOnlyWarningsAndSkips(t *testing.T) {
	tr := fakeRun(
		fakeSpec{rule: "S-VAL-3", era: EraModern, state: passed, warning: "slow"},
		fakeSpec{rule: "M-SWEEP-1", era: EraModern, state: skipped, message: "no clock control"},
		fakeSpec{rule: "M-GET-1", era: EraModern, state: passed},
	)
	r := ginkgoreport.BuildReport(report.Report{Store: "fake", Eras: []Era{EraModern}}, tr, mustSelection(t, []Era{EraModern}, "S-VAL-3 || M-SWEEP-1 || M-GET-1"))
	if !r.OK() {
		t.Errorf("OK() = false for warnings and skips only; totals %+v, suite failures %q", r.Totals, r.SuiteFailures)
	}
	if got := len(r.Rules); got != 3 {
		t.Errorf("%d rule results, want 3 (the selection): %+v", got, r.Rules)
	}
	tr.SpecialSuiteFailureReasons = []string{"Interrupted by User"}
	r = ginkgoreport.BuildReport(report.Report{Store: "fake", Eras: []Era{EraModern}}, tr, mustSelection(t, []Era{EraModern}, ""))
	if r.OK() || len(r.SuiteFailures) != 1 {
		t.Errorf("an interrupted run: OK() = %v, suite failures %q; want false and the reason", r.OK(), r.SuiteFailures)
	}
}

func TestReportStrictShouldFails(t *testing.T) {
	// Under Strict the spec itself fails (suite.run calls Fail for a SHOULD fault).
	tr := fakeRun(fakeSpec{rule: "L-CREATE-2", era: EraLegacy, state: failed, message: "[L-CREATE-2 SHOULD] overwrote"})
	r := ginkgoreport.BuildReport(report.Report{Store: "fake", Eras: []Era{EraLegacy}, Strict: true}, tr, mustSelection(t, []Era{EraLegacy}, "L-CREATE-2"))
	rr, _ := r.Rule("L-CREATE-2", EraLegacy)
	if rr.Outcome != report.Failed || r.OK() {
		t.Errorf("strict SHOULD failure: outcome %q, OK %v; want failed, false", rr.Outcome, r.OK())
	}
}

func TestReportJSON(t *testing.T) {
	r := sampleReport(t)
	var buf bytes.Buffer
	if err := r.JSON(&buf); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Store  string
		Seed   int64
		Rules  []report.RuleResult
		Specs  []report.SpecResult
		Totals report.Totals
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("JSON report does not decode: %v\n%s", err, buf.String())
	}
	if got.Store != "fake" || got.Seed != 77 || !reflect.DeepEqual(got.Totals, r.Totals) || len(got.Rules) != len(r.Rules) || len(got.Specs) != 10 {
		t.Errorf("decoded JSON = store %q seed %d totals %+v, %d rules, %d specs; want fake, 77, %+v, %d, 10",
			got.Store, got.Seed, got.Totals, len(got.Rules), len(got.Specs), r.Totals, len(r.Rules))
	}
	if !strings.Contains(buf.String(), `"outcome": "not covered"`) {
		t.Errorf("JSON report lacks the not-covered outcome:\n%s", buf.String())
	}
}

func TestReportJUnit(t *testing.T) {
	r := sampleReport(t)
	var buf bytes.Buffer
	if err := r.JUnit(&buf); err != nil {
		t.Fatal(err)
	}
	var suites reporters.JUnitTestSuites
	if err := xml.Unmarshal(buf.Bytes(), &suites); err != nil {
		t.Fatalf("JUnit report is not valid XML: %v\n%s", err, buf.String())
	}
	if len(suites.TestSuites) != 2 {
		t.Fatalf("%d testsuites, want one per era (2)", len(suites.TestSuites))
	}
	legacySuite := suites.TestSuites[0]
	if legacySuite.Properties.WithName("era") != "legacy" || legacySuite.Properties.WithName("seed") != "77" {
		t.Errorf("first testsuite properties = %+v, want era legacy, seed 77", legacySuite.Properties)
	}
	var failures, skips, warnings int
	for _, tc := range legacySuite.TestCases {
		if tc.Failure != nil {
			failures++
		}
		if tc.Skipped != nil {
			skips++
		}
		if strings.Contains(tc.SystemOut, "too slow") {
			warnings++
		}
	}
	legacyNotCovered := 0
	for _, rr := range r.Rules {
		if rr.Era == EraLegacy && rr.Outcome == report.NotCovered {
			legacyNotCovered++
		}
	}
	if failures != 3 || skips != 2+legacyNotCovered || warnings != 1 {
		t.Errorf("legacy testsuite: %d failures, %d skipped, %d warnings; want 3, %d, 1", failures, skips, 2+legacyNotCovered, warnings)
	}
	if legacySuite.Failures != failures || legacySuite.Tests != len(legacySuite.TestCases) || suites.Failures != 3 {
		t.Errorf("counters: suite failures %d tests %d (cases %d), total failures %d", legacySuite.Failures, legacySuite.Tests, len(legacySuite.TestCases), suites.Failures)
	}
}

func TestReportSummary(t *testing.T) {
	r := sampleReport(t)
	out := summaryOf(t, r)
	t.Log(out)
	for _, want := range []string{
		"storecheck: fake, eras legacy+modern, seed 77",
		"S-OWN-1", "FAILED", "input:    Get(\"t1\")", "got:      owner leak",
		"L-CLEAN-1", "no clock control",
		"Warnings", "too slow",
		"Not covered", "L-UPDATE-1 (legacy)", "S-TRANS-1 (legacy, modern)",
		"FAIL: store rules 2 passed, 3 failed, 1 warned, 1 skipped",
		"facade rules 1 passed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}

func TestSelectionMatchesSpecLabels(t *testing.T) {
	sel := mustSelection(t, []Era{EraLegacy, EraModern}, "S-OWN-1 || area:list")
	own, _ := rules.ByID("S-OWN-1")
	list, _ := rules.ByID("L-LIST-4")
	get, _ := rules.ByID("L-GET-1")
	if !sel.Wants(own, EraModern) || !sel.Wants(list, EraLegacy) || sel.Wants(get, EraLegacy) || sel.Wants(list, EraModern) {
		t.Errorf("selection %q: wants(S-OWN-1 modern)=%v wants(L-LIST-4 legacy)=%v wants(L-GET-1 legacy)=%v wants(L-LIST-4 modern)=%v; want true true false false",
			sel.Filter, sel.Wants(own, EraModern), sel.Wants(list, EraLegacy), sel.Wants(get, EraLegacy), sel.Wants(list, EraModern))
	}
}

// flat is t without its per-subject counts, for comparing the overall ones.
func flat(t report.Totals) report.Totals {
	t.BySubject = nil
	return t
}

// TestReportNewOutcomes: the markers a spec leaves (Env.Inconclusive, PartlyVerified,
// NotExercised, a refused setup call, an abort) decide the outcome of its spec and rule,
// which of them fail a run with and without Strict, and how the summary groups causes.
func TestReportNewOutcomes(t *testing.T) {
	const died = "store process exited unexpectedly (signal: killed) (in flight: legacy.get)"
	const refused = "the store refused Update with ErrUnsupported"
	tr := fakeRun(
		fakeSpec{rule: "L-GET-1", era: EraLegacy, text: "get", state: passed},
		fakeSpec{rule: "L-CLEAN-1", era: EraLegacy, text: "ttl", state: passed},
		fakeSpec{rule: "L-CLEAN-1", era: EraLegacy, text: "boundary", state: skipped, message: "no clock control",
			notes: map[string]string{battery.EntryPartly: "no clock control: a boundary spec"}},
		fakeSpec{rule: "S-CONC-1", era: EraLegacy, text: "lin", state: passed, notes: map[string]string{battery.EntryInconclusive: "overlap 2% < 10%"}},
		fakeSpec{rule: "S-VAL-4", era: EraLegacy, text: "copies", state: skipped, message: "not exercised: x",
			notes: map[string]string{battery.EntryNotExercised: "the wire client copies values"}},
		fakeSpec{rule: "L-UPDATE-1", era: EraLegacy, text: "merge", state: skipped, message: "setup refused: ...",
			notes: map[string]string{battery.EntrySetupRefused: refused}},
		fakeSpec{rule: "L-UPDATE-2", era: EraLegacy, text: "missing", state: skipped, message: "setup refused: ...",
			notes: map[string]string{battery.EntrySetupRefused: refused}},
		fakeSpec{rule: "L-LIST-1", era: EraLegacy, text: "status", state: failed, message: "faults caused by the transport",
			notes: map[string]string{battery.EntryAborted: died}},
		fakeSpec{rule: "L-LIST-2", era: EraLegacy, text: "limit", state: skipped, message: "aborted: not run",
			notes: map[string]string{battery.EntryAborted: died}},
		fakeSpec{rule: "S-TRANS-1", era: EraLegacy, text: "table", state: passed},
	)
	sel := mustSelection(t, []Era{EraLegacy}, "L-GET-1 || L-CLEAN-1 || S-CONC-1 || S-VAL-4 || L-UPDATE-1 || L-UPDATE-2 || L-LIST-1 || L-LIST-2 || S-TRANS-1")
	r := ginkgoreport.BuildReport(report.Report{Store: "fake", Eras: []Era{EraLegacy}, Seed: 5}, tr, sel)
	for id, want := range map[string]report.Outcome{
		"L-GET-1": report.Passed, "L-CLEAN-1": report.PartlyVerified, "S-CONC-1": report.Inconclusive, "S-VAL-4": report.NotExercised,
		"L-UPDATE-1": report.SetupRefused, "L-UPDATE-2": report.SetupRefused, "L-LIST-1": report.Aborted, "L-LIST-2": report.Aborted, "S-TRANS-1": report.Passed,
	} {
		if rr, _ := r.Rule(id, EraLegacy); rr.Outcome != want {
			t.Errorf("%s: outcome %q, want %q (reasons %q)", id, rr.Outcome, want, rr.Reasons)
		}
	}
	if rr, _ := r.Rule("S-TRANS-1", EraLegacy); rr.Subject != rules.SubjectLibrary {
		t.Errorf("S-TRANS-1 subject %q, want library", rr.Subject)
	}
	if got := r.Totals.BySubject[rules.SubjectStore][report.Passed]; got != 1 {
		t.Errorf("store passes = %d, want 1 (L-GET-1 only: S-TRANS-1 is the library's)", got)
	}
	if r.OK() {
		t.Error("OK() = true with aborted and setup-refused rules")
	}
	if len(r.Alarms()) == 0 {
		t.Error("Alarms() is empty with aborted and setup-refused rules")
	}
	out := summaryOf(t, r)
	t.Log(out)
	for _, want := range []string{
		"Aborted (", died, "2 specs of 2 rules, first [L-LIST-1] status",
		"Setup refused (", refused, "rules: L-UPDATE-1, L-UPDATE-2",
		"store rules 1 passed, 2 aborted, 2 setup refused, 1 partly verified, 1 inconclusive, 1 not exercised; library rules 1 passed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
	if n := strings.Count(out, "\n  "+refused+"\n"); n != 1 {
		t.Errorf("the setup cause has %d lines of its own, want one", n)
	}

	// Only partly verified and inconclusive: a pass, failed by Strict for either.
	tr = fakeRun(tr.SpecReports[1:4]...)
	for _, sel := range []string{"L-CLEAN-1 || S-CONC-1", "L-CLEAN-1", "S-CONC-1"} {
		r = ginkgoreport.BuildReport(report.Report{Store: "fake", Eras: []Era{EraLegacy}}, tr, mustSelection(t, []Era{EraLegacy}, sel))
		if !r.OK() {
			t.Errorf("%s (partly verified, inconclusive): OK() = false without Strict", sel)
		}
		r.Strict = true
		if r.OK() {
			t.Errorf("%s (partly verified, inconclusive): OK() = true under Strict", sel)
		}
		if a := r.Alarms(); len(a) != 0 {
			t.Errorf("%s (partly verified, inconclusive): Alarms() = %v, want none", sel, a)
		}
	}

	var junit bytes.Buffer
	r.Strict = false
	r = ginkgoreport.BuildReport(report.Report{Store: "fake", Eras: []Era{EraLegacy}}, fakeRun(tr.SpecReports...), mustSelection(t, []Era{EraLegacy}, ""))
	if err := r.JUnit(&junit); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(junit.String(), "partly verified - no clock control") || !strings.Contains(junit.String(), "inconclusive - overlap") {
		t.Errorf("JUnit lacks the new outcomes:\n%s", junit.String())
	}
}

// TestReportUnverifiedMustRules: a rule every spec of which was skipped for no clock
// control reads "partly verified", not "skipped" (docs/spec.md: never passed, --strict
// fails it); a MUST rule one of whose specs the harness could not drive (S-CTX-1's held
// calls without harness.Blocker) reads "partly verified", not "passed"; a spec decided
// by storecheck's own code (S-VAL-4 under --exec) stays "not exercised".
func TestReportUnverifiedMustRules(t *testing.T) {
	tr := fakeRun(
		fakeSpec{rule: "M-SWEEP-1", era: EraModern, text: "boundary", state: skipped, message: "no clock control",
			notes: map[string]string{battery.EntryPartly: "no clock control: a boundary spec"}},
		fakeSpec{rule: "S-CTX-1", era: EraModern, text: "ended before", state: passed},
		fakeSpec{rule: "S-CTX-1", era: EraModern, text: "held", state: skipped, message: "not exercised: " + sharedspecs.NoBlocker,
			notes: map[string]string{battery.EntryNotExercised: sharedspecs.NoBlocker, battery.EntryStoreTestable: sharedspecs.NoBlocker}},
		fakeSpec{rule: "S-VAL-4", era: EraModern, text: "copies", state: skipped, message: "not exercised: " + battery.RemoteCopies,
			notes: map[string]string{battery.EntryNotExercised: battery.RemoteCopies}},
	)
	sel := mustSelection(t, []Era{EraModern}, "M-SWEEP-1 || S-CTX-1 || S-VAL-4")
	r := ginkgoreport.BuildReport(report.Report{Store: "fake", Eras: []Era{EraModern}}, tr, sel)
	for id, want := range map[string]report.Outcome{"M-SWEEP-1": report.PartlyVerified, "S-CTX-1": report.PartlyVerified, "S-VAL-4": report.NotExercised} {
		if rr, _ := r.Rule(id, EraModern); rr.Outcome != want {
			t.Errorf("%s: outcome %q, want %q (reasons %q)", id, rr.Outcome, want, rr.Reasons)
		}
	}
	if rr, _ := r.Rule("S-CTX-1", EraModern); len(rr.Reasons) == 0 || !strings.Contains(rr.Reasons[0], "harness.Blocker") {
		t.Errorf("S-CTX-1 reasons %q do not say what was not exercised", rr.Reasons)
	}
	if !r.OK() {
		t.Error("OK() = false without Strict")
	}
	r.Strict = true
	if r.OK() {
		t.Error("OK() = true under Strict with partly verified MUST rules")
	}
	// Strict on its own: M-SWEEP-1 alone and S-CTX-1 alone fail; S-VAL-4 alone exercised
	// nothing, so it fails unless an empty run is allowed, and then it passes (not
	// exercised is no fault, even under Strict).
	for sel, ok := range map[string]bool{"S-VAL-4": false, "M-SWEEP-1": false, "S-CTX-1": false} {
		r := ginkgoreport.BuildReport(report.Report{Store: "fake", Eras: []Era{EraModern}, Strict: true}, tr, mustSelection(t, []Era{EraModern}, sel))
		if r.OK() != ok {
			t.Errorf("%s under Strict: OK() = %v, want %v", sel, r.OK(), ok)
		}
		r.AllowEmpty = true
		if want := sel == "S-VAL-4"; r.OK() != want {
			t.Errorf("%s under Strict, an empty run allowed: OK() = %v, want %v", sel, r.OK(), want)
		}
	}
}

// TestAlarmsCountWarnings: a SHOULD warning is an alarm whether the run was Strict or
// not (TestHonestStore runs without Strict and reads the alarms afterwards).
func TestAlarmsCountWarnings(t *testing.T) {
	tr := fakeRun(fakeSpec{rule: "S-VAL-3", era: EraLegacy, text: "1 MiB", state: passed, warning: "[S-VAL-3 SHOULD] too slow"})
	for _, strict := range []bool{false, true} {
		r := ginkgoreport.BuildReport(report.Report{Store: "fake", Eras: []Era{EraLegacy}}, tr, mustSelection(t, []Era{EraLegacy}, "S-VAL-3"))
		r.Strict = strict
		if a := r.Alarms(); len(a) != 1 || a[0] != "S-VAL-3 legacy" {
			t.Errorf("Strict=%v: Alarms() = %v, want [S-VAL-3 legacy]", strict, a)
		}
	}
}

// TestReportOverlap: each spec's storecheck.overlap entries become its structured
// Overlap, a rule sums its specs', the JSON report carries both, and the summary shows
// the short form on every concurrency rule, whatever its outcome.
func TestReportOverlap(t *testing.T) {
	stats := func(over, ops, peak int) string {
		b, _ := json.Marshal(report.OverlapStats{Histories: 4, Ops: ops, OverlappingOps: over, Share: float64(over) / float64(ops),
			PeakInFlight: peak, MinOverlapping: battery.MinOverlapping, MinInFlight: battery.MinInFlight})
		return string(b)
	}
	lin := fakeSpec{rule: "S-CONC-1", era: EraLegacy, text: "lin", state: passed}.report()
	lin.ReportEntries = append(lin.ReportEntries,
		types.ReportEntry{Name: battery.EntryOverlap, Value: types.WrapEntryValue(stats(300, 400, 9))},
		types.ReportEntry{Name: battery.EntryOverlap, Value: types.WrapEntryValue(stats(65, 24, 3))})
	tr := fakeRun(lin,
		fakeSpec{rule: "L-CONC-1", era: EraLegacy, text: "counter", state: passed,
			notes: map[string]string{battery.EntryOverlap: stats(3, 500, 1), battery.EntryInconclusive: "too little overlap"}}.report(),
		fakeSpec{rule: "L-CREATE-2", era: EraLegacy, text: "one id", state: failed, message: "two winners",
			notes: map[string]string{battery.EntryOverlap: stats(70, 80, 4)}}.report(),
		fakeSpec{rule: "L-GET-1", era: EraLegacy, text: "get", state: passed}.report(),
	)
	r := ginkgoreport.BuildReport(report.Report{Store: "fake", Eras: []Era{EraLegacy}}, tr, mustSelection(t, []Era{EraLegacy}, "S-CONC-1 || L-CONC-1 || L-CREATE-2 || L-GET-1"))
	conc, _ := r.Rule("S-CONC-1", EraLegacy)
	if o := conc.Overlap; o == nil || o.Checks != 2 || o.OverlappingOps != 365 || o.Ops != 424 || o.PeakInFlight != 9 || !o.Conclusive {
		t.Errorf("S-CONC-1 overlap = %+v, want 2 checks, 365/424, peak 9, conclusive", o)
	}
	if rr, _ := r.Rule("L-CONC-1", EraLegacy); rr.Outcome != report.Inconclusive || rr.Overlap == nil || rr.Overlap.Conclusive {
		t.Errorf("L-CONC-1 = %q, overlap %+v, want inconclusive and not conclusive", rr.Outcome, rr.Overlap)
	}
	if rr, _ := r.Rule("L-GET-1", EraLegacy); rr.Overlap != nil {
		t.Errorf("L-GET-1 has overlap %+v, want none", rr.Overlap)
	}
	for _, s := range r.Specs {
		for _, n := range s.Notes {
			if strings.HasPrefix(n, battery.EntryOverlap) {
				t.Errorf("spec %s keeps the overlap as a note: %s", s.Name, n)
			}
		}
	}
	var js bytes.Buffer
	if err := r.JSON(&js); err != nil {
		t.Fatal(err)
	}
	var back report.Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if rr, _ := back.Rule("S-CONC-1", EraLegacy); rr.Overlap == nil || *rr.Overlap != *conc.Overlap || back.Specs[0].Overlap == nil {
		t.Errorf("JSON round trip lost the overlap: rule %+v, spec %+v", rr.Overlap, back.Specs[0].Overlap)
	}
	for _, key := range []string{`"overlapping_ops": 365`, `"ops": 424`, `"peak_in_flight": 9`, `"conclusive": true`, `"share"`} {
		if !strings.Contains(js.String(), key) {
			t.Errorf("JSON report lacks %s", key)
		}
	}
	out := summaryOf(t, r)
	for rule, want := range map[string]string{"S-CONC-1": "passed overlap 365/424 peak 9",
		"L-CONC-1":   "inconclusive overlap 3/500 peak 1 (below threshold); too little overlap",
		"L-CREATE-2": "FAILED overlap 70/80 peak 4; two winners"} {
		found := false
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) > 0 && f[0] == rule {
				found = strings.Contains(strings.Join(f, " "), want)
			}
		}
		if !found {
			t.Errorf("summary row of %s lacks %q:\n%s", rule, want, out)
		}
	}
}

// summaryOf is r's summary; an error writing it ends the test.
func summaryOf(t *testing.T, r *report.Report) string {
	t.Helper()
	var buf bytes.Buffer
	if err := r.Summary(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}
