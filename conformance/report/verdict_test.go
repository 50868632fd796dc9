package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/conformance/rules"
)

// TestNoneExercisedFailsTheRun: a run whose every row is not exercised, skipped or not
// covered (or that has no row) does not pass, unless AllowEmpty; the cause is read from
// the rows; one rule exercised beside them, or one aborted, is not an empty run.
func TestNoneExercisedFailsTheRun(t *testing.T) {
	row := func(id string, era harness.Era, o Outcome, why ...string) RuleResult {
		return RuleResult{ID: id, Era: era, Outcome: o, Subject: rules.SubjectServer, Reasons: why, Specs: []string{id}}
	}
	const noTasks = "the server declares no tasks capability"
	for _, tc := range []struct {
		name  string
		rows  []RuleResult
		none  bool
		cause string
	}{
		{"no rows", nil, true, "the selection holds no rule in the eras run"},
		{"one reason", []RuleResult{row("V-A-1", "legacy", NotExercised, noTasks), row("V-B-1", "modern", NotExercised, noTasks)}, true, noTasks},
		{"a reason per era", []RuleResult{row("V-A-1", "legacy", NotExercised, noTasks), row("V-B-1", "legacy", NotExercised, noTasks),
			row("V-A-1", "modern", Skipped, "no extension")}, true, "(legacy) " + noTasks + "; (modern) no extension"},
		{"not covered", []RuleResult{row("V-A-1", "legacy", NotCovered)}, true, "the battery has no spec for the rule in this era"},
		{"many reasons", []RuleResult{row("V-A-1", "legacy", NotExercised, "a"), row("V-B-1", "legacy", NotExercised, "b"),
			row("V-C-1", "legacy", Skipped, "c"), row("V-D-1", "legacy", NotCovered)}, true, "for 4 different reasons: see the table"},
		{"one passed", []RuleResult{row("V-A-1", "legacy", NotExercised, noTasks), row("V-B-1", "legacy", Passed)}, false, ""},
		{"one inconclusive", []RuleResult{row("V-A-1", "legacy", NotExercised, noTasks), row("V-B-1", "legacy", Inconclusive, "never met")}, false, ""},
		{"one aborted", []RuleResult{row("V-A-1", "legacy", Aborted, "no answer")}, false, ""},
	} {
		r := NewReport(Report{Store: "s", Eras: []harness.Era{"legacy", "modern"}}, tc.rows)
		cause, none := r.NoneExercised()
		if none != tc.none || !strings.Contains(cause, tc.cause) {
			t.Errorf("%s: NoneExercised %v %q; want %v %q", tc.name, none, cause, tc.none, tc.cause)
		}
		var sum, junit, js bytes.Buffer
		if err := r.Summary(&sum); err != nil {
			t.Fatal(err)
		}
		_ = r.JUnit(&junit)
		_ = r.JSON(&js)
		wantOK := !tc.none && tc.name != "one aborted"
		if r.OK() != wantOK || strings.Contains(sum.String(), "\nno rule exercised: ") != tc.none ||
			strings.Contains(junit.String(), `"no rule exercised: `) != tc.none || strings.Contains(js.String(), `"no_rule_exercised"`) != tc.none {
			t.Errorf("%s: OK %v (want %v); the summary, JUnit and JSON must say \"no rule exercised\" exactly when none was:\n%s\n%s\n%s",
				tc.name, r.OK(), wantOK, sum.String(), junit.String(), js.String())
		}
		if tc.none {
			r.AllowEmpty = true
			sum.Reset()
			junit.Reset()
			_ = r.Summary(&sum)
			_ = r.JUnit(&junit)
			if !r.OK() || !strings.Contains(sum.String(), "no rule exercised (allowed): ") || strings.Contains(junit.String(), "no rule exercised") {
				t.Errorf("%s with AllowEmpty: OK %v; want true, the summary saying it, JUnit without an error:\n%s\n%s", tc.name, r.OK(), sum.String(), junit.String())
			}
		}
	}
}

// TestRowsAsSpecsInSummary: rows judged outside the battery (storecheck probe) are read
// as the battery's specs: a failed row's message (sent, expected, got) is listed under
// the table, its note is the fault rather than the era line, an aborted row's cause is
// listed, and JUnit has a testcase per row.
func TestRowsAsSpecsInSummary(t *testing.T) {
	msg := "[V-A-1 MUST] the rule\n  server: legacy era\n  input:    tasks/get of x\n  expected: an error\n  got:      a task"
	r := NewReport(Report{Store: "s", Eras: []harness.Era{"legacy"}}, []RuleResult{
		{ID: "V-A-1", Era: "legacy", Level: rules.Must, Outcome: Failed, Subject: rules.SubjectServer, Reasons: []string{msg}, Specs: []string{"a check"}},
		{ID: "V-B-1", Era: "legacy", Level: rules.Must, Outcome: Aborted, Subject: rules.SubjectServer, Reasons: []string{"no usable answer: tasks/get: timeout"}, Specs: []string{"b check"}},
		{ID: "V-C-1", Era: "legacy", Level: rules.Must, Outcome: Passed, Subject: rules.SubjectServer, Specs: []string{"c check"}},
	})
	var sum, junit bytes.Buffer
	if err := r.Summary(&sum); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Failures (1 specs):", "--- [V-A-1] a check (legacy era)", "input:    tasks/get of x", "expected: an error", "got:      a task",
		"Aborted (", "no usable answer: tasks/get: timeout", "FAILED   input:    tasks/get of x"} {
		if !strings.Contains(sum.String(), want) {
			t.Errorf("the summary lacks %q:\n%s", want, sum.String())
		}
	}
	if err := r.JUnit(&junit); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(junit.String(), "<testcase "); n != 3 || !strings.Contains(junit.String(), "<failure ") || !strings.Contains(junit.String(), `type="aborted"`) {
		t.Errorf("JUnit: %d testcases; want 3, a failure and an aborted error:\n%s", n, junit.String())
	}
}
