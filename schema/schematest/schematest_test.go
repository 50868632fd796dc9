package schematest

import (
	"bytes"
	"errors"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/storecheck/storecheck/conformance/faults"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/conformance/report"
	"github.com/storecheck/storecheck/conformance/rules"
	"github.com/storecheck/storecheck/schema"
)

// sample is a report with a row of every kind of field filled: a failed rule with
// reasons and overlap, a passed one, and their specs.
func sample(t *testing.T) []byte {
	t.Helper()
	ov := &report.Overlap{Checks: 1, Histories: 2, OverlappingOps: 3, Ops: 4, Share: 0.75, PeakInFlight: 2, Conclusive: true}
	r := report.NewReport(report.Report{Store: "memstore", Eras: []harness.Era{harness.EraLegacy}, Seed: 7,
		Started: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), Duration: time.Second, Findings: []string{"a finding"}},
		[]report.RuleResult{
			{ID: "L-LIST-1", Level: rules.Must, Era: harness.EraLegacy, Area: "list", Text: "t", Subject: rules.SubjectStore,
				Outcome: report.Failed, Reasons: []string{"sent x, expected y, got z"}, Specs: []string{"s1"}, Overlap: ov},
			{ID: "S-OWN-1", Level: rules.Should, Era: harness.EraLegacy, Area: "owner", Text: "t", Subject: rules.SubjectStore,
				Outcome: report.Passed, Specs: []string{"s2"}},
		})
	var b bytes.Buffer
	if err := r.JSON(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestSchemaAcceptsWhatIsWritten: a report JSON writes conforms to the schema it names,
// and so does a faults report.
func TestSchemaAcceptsWhatIsWritten(t *testing.T) {
	Check(t, sample(t))
	f := &faults.Report{Store: "redis", Started: time.Now(), Faults: []faults.FaultResult{{Fault: "kill",
		Recovery: map[string]time.Duration{"legacy": time.Second}, Rules: []faults.RuleVerdict{{ID: "F-OUTAGE-1", Outcome: faults.Passed}}}}}
	var b bytes.Buffer
	if err := f.JSON(&b); err != nil {
		t.Fatal(err)
	}
	Check(t, b.Bytes())
}

// TestSchemaRejectsABrokenReport: a field removed, mistyped, an outcome unknown or a field
// unknown to the schema fail validation; a report naming no known schema fails as such.
func TestSchemaRejectsABrokenReport(t *testing.T) {
	data := sample(t)
	rule := func(m map[string]any) map[string]any { return m["rules"].([]any)[0].(map[string]any) }
	for _, tc := range []struct {
		name   string
		change func(m map[string]any)
		want   error
	}{
		{"store removed", func(m map[string]any) { delete(m, "store") }, ErrInvalid},
		{"seed a string", func(m map[string]any) { m["seed"] = "7" }, ErrInvalid},
		{"the version block removed", func(m map[string]any) { delete(m, "storecheck") }, ErrInvalid},
		{"the rule digest malformed", func(m map[string]any) { m["storecheck"].(map[string]any)["rules"].(map[string]any)["digest"] = "md5" }, ErrInvalid},
		{"a rule's outcome unknown", func(m map[string]any) { rule(m)["outcome"] = "sort of" }, ErrInvalid},
		{"a rule's reasons a string", func(m map[string]any) { rule(m)["reasons"] = "sent x" }, ErrInvalid},
		{"a rule's level removed", func(m map[string]any) { delete(rule(m), "level") }, ErrInvalid},
		{"started not a time", func(m map[string]any) { m["started"] = "yesterday" }, ErrInvalid},
		{"a field the schema lacks", func(m map[string]any) { m["verdict"] = "pass" }, ErrInvalid},
		{"the schema unknown", func(m map[string]any) { m["schema"] = "https://storecheck.dev/schema/report/v9.json" }, ErrUnknownSchema},
		{"no schema", func(m map[string]any) { delete(m, "schema") }, ErrUnknownSchema},
	} {
		err := Validate(Edit(t, data, tc.change))
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: Validate = %v, want %v", tc.name, err, tc.want)
		}
	}
}

// TestEverySchemaIsNamed: every schema file has the identifier package schema names it by,
// and every report kind's file exists.
func TestEverySchemaIsNamed(t *testing.T) {
	files, _ := fs.Glob(schema.Files, "*.json")
	for _, id := range []string{schema.Report, schema.Faults, schema.Mutants, schema.ServerMutants} {
		name := schema.File(id)
		b, err := schema.Files.ReadFile(name)
		if err != nil {
			t.Errorf("schema %s: file %q: %v (files: %v)", id, name, err, files)
			continue
		}
		if !strings.Contains(string(b), `"$id": "`+id+`"`) {
			t.Errorf("schema file %s does not declare $id %s", name, id)
		}
	}
	if _, err := compiled(); err != nil {
		t.Errorf("the schemas do not compile: %v", err)
	}
}
