package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/schema/schematest"
)

func TestEraGroupsBalanceAndKeepOrder(t *testing.T) {
	all := []conformance.Era{conformance.EraLegacy, conformance.EraModern, conformance.EraSDK}
	for _, tc := range []struct {
		eras []conformance.Era
		n    int
		want [][]conformance.Era
	}{
		{all, 2, [][]conformance.Era{{conformance.EraModern}, {conformance.EraLegacy, conformance.EraSDK}}},
		{all, 3, [][]conformance.Era{{conformance.EraModern}, {conformance.EraLegacy}, {conformance.EraSDK}}},
		{all, 8, [][]conformance.Era{{conformance.EraModern}, {conformance.EraLegacy}, {conformance.EraSDK}}},
		{all, 1, [][]conformance.Era{all}},
		{all[:2], 2, [][]conformance.Era{{conformance.EraModern}, {conformance.EraLegacy}}},
		{all[:1], 4, [][]conformance.Era{{conformance.EraLegacy}}},
	} {
		if got := eraGroups(tc.eras, tc.n); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("eraGroups(%v, %d) = %v, want %v", tc.eras, tc.n, got, tc.want)
		}
	}
}

// TestRunInSeveralProcessesMatchesOne: the eras checked in two processes give the
// report one process gives for the same seed: the same rules, eras and outcomes in
// the same order, the same specs, one seed.
func TestRunInSeveralProcessesMatchesOne(t *testing.T) {
	dir := t.TempDir()
	rows := func(procs string) (*conformance.Report, map[string]string, []string) {
		path := filepath.Join(dir, procs+".json")
		code, out, errOut := cliProcess(t, "run", "--era", "legacy,sdk", "--seed", "7", "--procs", procs, "--json", path)
		if code != exitOK {
			t.Fatalf("storecheck run --procs %s: exit %d\nstdout:\n%s\nstderr:\n%s", procs, code, out, errOut)
		}
		schematest.CheckFile(t, path)
		r, err := readReport(path)
		if err != nil {
			t.Fatal(err)
		}
		outcomes := map[string]string{}
		for _, rr := range r.Rules {
			outcomes[rr.ID+" "+string(rr.Era)] = string(rr.Outcome)
		}
		var specs []string
		for _, s := range r.Specs {
			specs = append(specs, s.Name)
		}
		return r, outcomes, specs
	}
	one, oneRules, oneSpecs := rows("1")
	two, twoRules, twoSpecs := rows("2")
	if !reflect.DeepEqual(oneSpecs, twoSpecs) {
		t.Errorf("two processes ran the specs\n  %s\none process\n  %s", strings.Join(twoSpecs, "\n  "), strings.Join(oneSpecs, "\n  "))
	}
	// An inconclusive rule could not tell on that run (too little overlap on a loaded
	// machine, a late answer no later than the checker's own stall): it differs from the
	// other run's outcome by the machine's load, not by the split.
	same := len(oneRules) == len(twoRules)
	for rule, o := range oneRules {
		if t2, ok := twoRules[rule]; !ok || o != t2 && o != string(conformance.Inconclusive) && t2 != string(conformance.Inconclusive) {
			same = false
			t.Errorf("%s: one process read %q, two processes %q", rule, o, t2)
		}
	}
	if !same || two.Seed != 7 || !reflect.DeepEqual(two.Eras, one.Eras) || two.Totals.Specs != one.Totals.Specs {
		t.Errorf("two processes: seed %d, eras %v, %d rules, totals %+v; one process: eras %v, %d rules, totals %+v",
			two.Seed, two.Eras, len(twoRules), two.Totals, one.Eras, len(oneRules), one.Totals)
	}
}

// TestEraProcessWithoutReportIsAFailure: a process that wrote no report fails the run,
// named with its eras and its output.
func TestEraProcessWithoutReportIsAFailure(t *testing.T) {
	p := &eraProcess{eras: []conformance.Era{conformance.EraSDK}, report: filepath.Join(t.TempDir(), "none.json"), done: make(chan error, 1)}
	p.out.WriteString("panic: the store blew up\n")
	p.done <- os.ErrProcessDone
	own := &conformance.Report{Store: "memstore", Eras: []conformance.Era{conformance.EraModern}}
	o := &otherEras{procs: []*eraProcess{p}, eras: []conformance.Era{conformance.EraModern, conformance.EraSDK}, dir: t.TempDir(), cancel: func() {}}
	got := o.merge(own, own.Started)
	if got.OK() || len(got.SuiteFailures) != 1 || !strings.Contains(got.SuiteFailures[0], "eras sdk") || !strings.Contains(got.SuiteFailures[0], "the store blew up") {
		t.Errorf("merged report: OK %v, suite failures %q; want not OK, one failure naming eras sdk and its output", got.OK(), got.SuiteFailures)
	}
}

// TestEraPartBeyondTheGroupsChecksNothing: a process whose part has no group (fewer
// eras than parts) writes a report with no rules, which a merge leaves out; a part
// that has one checks just its group's eras.
func TestEraPartBeyondTheGroupsChecksNothing(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		part string
		want []conformance.Era
	}{{"2/2", nil}, {"1/2", []conformance.Era{conformance.EraLegacy}}} {
		path := filepath.Join(dir, strings.ReplaceAll(tc.part, "/", "-")+".json")
		code, out, errOut := cliRun(t, "run", "--era", "legacy", "--rules", "L-GET-1", "--era-part", tc.part, "--json", path)
		if code != exitOK {
			t.Fatalf("storecheck run --era-part %s: exit %d\nstdout:\n%s\nstderr:\n%s", tc.part, code, out, errOut)
		}
		schematest.CheckFile(t, path)
		r, err := readReport(path)
		if err != nil {
			t.Fatal(err)
		}
		var eras []conformance.Era
		for _, rr := range r.Rules {
			if !slices.Contains(eras, rr.Era) {
				eras = append(eras, rr.Era)
			}
		}
		if !reflect.DeepEqual(eras, tc.want) {
			t.Errorf("storecheck run --era legacy --era-part %s: rules of eras %v, want %v", tc.part, eras, tc.want)
		}
	}
}

func TestProcsFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--procs", "-1"}, "--procs -1"},
		{[]string{"run", "--procs", "2", "--rules", "L-GET-1"}, "whole battery only"},
		{[]string{"run", "--adapter", "exec", "--exec", "/nonexistent/store", "--procs", "2"}, "cannot be checked by several processes"},
		{[]string{"run", "--era-part", "0/2"}, "--era-part \"0/2\""},
		{[]string{"run", "--era-part", "3/2"}, "--era-part \"3/2\""},
		{[]string{"run", "--era-part", "1/2x"}, "--era-part \"1/2x\""},
		{[]string{"run", "--era-part", "1/2", "--procs", "2"}, "not with --procs 2"},
	} {
		code, _, errOut := cliRun(t, tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("storecheck %q: exit %d, stderr %q; want exit %d naming %q", tc.args, code, errOut, exitUsage, tc.want)
		}
	}
}
