package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// errReports: the pinned reports cannot make a table (a missing, unreadable or empty one).
var errReports = errors.New("compat: bad pinned reports")

// entry is one implementation of the index: the report it was judged by and what it is.
type entry struct {
	Key            string `json:"key"`            // the report's file name without .json
	Implementation string `json:"implementation"` // what was checked
	Version        string `json:"version"`        // its version, as the refresh found it
	Kind           string `json:"kind"`           // "store" (storecheck run) or "server" (storecheck probe)
	Command        string `json:"command"`        // how the report was made, storecheck's path elided
}

// report holds the fields of a run or probe report the table reads. Everything else a
// report carries (its specs, its totals, fields later versions add) is ignored.
type report struct {
	Started    string `json:"started"`
	Storecheck struct {
		Version  string `json:"version"`
		Revision string `json:"revision"`
		Modified bool   `json:"modified"`
	} `json:"storecheck"`
	Rules []struct {
		ID      string `json:"id"`
		Era     string `json:"era"`
		Subject string `json:"subject"`
		Outcome string `json:"outcome"`
	} `json:"rules"`
}

// cell counts the rules of one family and era by what they say of the implementation.
type cell struct {
	Passed int `json:"passed"`
	Failed int `json:"failed"` // failed, aborted or setup refused
	Warned int `json:"warned"`
	Other  int `json:"other"` // not exercised, skipped, partly verified, inconclusive
}

// row is one implementation's line of the table.
type row struct {
	entry
	Date       string          `json:"date"`
	Storecheck string          `json:"storecheck"`
	Verdict    string          `json:"verdict"` // "pass" or "fail"
	Cells      map[string]cell `json:"cells"`   // by column
	Shields    shields         `json:"shields"`
}

// shields is a row's badge in the shields.io endpoint form.
type shields struct {
	SchemaVersion int    `json:"schemaVersion"`
	Label         string `json:"label"`
	Message       string `json:"message"`
	Color         string `json:"color"`
}

// table is the whole compatibility table, also its JSON form.
type table struct {
	Source  string   `json:"source"`
	Legend  string   `json:"legend"`
	Columns []string `json:"columns"`
	Rows    []row    `json:"rows"`
}

const legend = "per rule family and era, the rules that passed (✓), failed, were aborted or had " +
	"their setup refused (✗), warned (⚠: a SHOULD), and were not judged (·: not exercised, skipped, " +
	"partly verified, inconclusive)"

// judged: the subjects whose rules say something of the implementation (not storecheck's
// own library, not the battery's checks on itself).
var judged = []string{"store", "facade", "server"}

// loadTable reads dir's index.json and every report it names.
func loadTable(dir, source string) (table, error) {
	var index []entry
	if err := readJSON(filepath.Join(dir, "index.json"), &index); err != nil {
		return table{}, err
	}
	t := table{Source: source, Legend: legend}
	seen := map[string]bool{}
	for _, e := range index {
		var r report
		if err := readJSON(filepath.Join(dir, e.Key+".json"), &r); err != nil {
			return table{}, err
		}
		if len(r.Rules) == 0 {
			return table{}, fmt.Errorf("%w: %s.json holds no rule", errReports, e.Key)
		}
		rw := makeRow(e, r)
		for col := range rw.Cells {
			seen[col] = true
		}
		t.Rows = append(t.Rows, rw)
	}
	for col := range seen {
		t.Columns = append(t.Columns, col)
	}
	slices.SortFunc(t.Columns, compareColumns)
	return t, nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%w: %w", errReports, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%w: %s: %w", errReports, path, err)
	}
	return nil
}

func makeRow(e entry, r report) row {
	rw := row{entry: e, Date: day(r.Started), Storecheck: storecheckVersion(r), Verdict: "pass", Cells: map[string]cell{}}
	var total cell
	for _, rule := range r.Rules {
		if !slices.Contains(judged, rule.Subject) {
			continue
		}
		col := family(rule.ID) + " " + rule.Era
		c := rw.Cells[col]
		c.count(rule.Outcome)
		rw.Cells[col] = c
		total.count(rule.Outcome)
	}
	if total.Failed > 0 {
		rw.Verdict = "fail"
	}
	rw.Shields = badge(e, total)
	return rw
}

func (c *cell) count(outcome string) {
	switch outcome {
	case "passed":
		c.Passed++
	case "failed", "aborted", "setup refused":
		c.Failed++
	case "warned":
		c.Warned++
	case "not covered": // no spec for the rule in this era: nothing was asked
	default:
		c.Other++
	}
}

func badge(e entry, total cell) shields {
	b := shields{SchemaVersion: 1, Label: "storecheck " + e.Kind, Color: "brightgreen",
		Message: fmt.Sprintf("%d passed", total.Passed)}
	if total.Failed > 0 {
		b.Message = fmt.Sprintf("%d failed, %d passed", total.Failed, total.Passed)
		b.Color = "red"
	} else if total.Warned > 0 {
		b.Color = "yellow"
	}
	return b
}

// family is a rule's family: its ID's first part, and the facade's second (L-F, M-F).
func family(id string) string {
	parts := strings.Split(id, "-")
	if len(parts) > 2 && parts[1] == "F" {
		return parts[0] + "-F"
	}
	return parts[0]
}

// Columns go by era (legacy, modern, sdk), then family in the order of docs/spec.md.
var (
	eraOrder    = []string{"legacy", "modern", "sdk"}
	familyOrder = []string{"S", "L", "L-F", "M", "M-F", "P", "F", "V"}
)

func compareColumns(a, b string) int {
	fa, ea, _ := strings.Cut(a, " ")
	fb, eb, _ := strings.Cut(b, " ")
	if c := rank(eraOrder, ea) - rank(eraOrder, eb); c != 0 {
		return c
	}
	if c := rank(familyOrder, fa) - rank(familyOrder, fb); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// rank is v's place in order; unknown values go after every known one.
func rank(order []string, v string) int {
	if i := slices.Index(order, v); i >= 0 {
		return i
	}
	return len(order)
}

func day(started string) string {
	if len(started) >= len("2006-01-02") {
		return started[:len("2006-01-02")]
	}
	return "unknown"
}

// storecheckVersion names the storecheck that wrote r, "unknown" for a report from before
// reports carried it.
func storecheckVersion(r report) string {
	s := r.Storecheck
	if s.Version == "" {
		return "unknown"
	}
	v := shortVersion(s.Version, s.Revision)
	if s.Modified {
		v += " (modified)"
	}
	return v
}

// pseudo matches the part of a pseudo-version that names a commit.
var pseudo = regexp.MustCompile(`\d{14}-[0-9a-f]{12}`)

// shortVersion is a release's tag, or else the revision's first 7 digits.
func shortVersion(version, revision string) string {
	if revision == "" || version != "(devel)" && !pseudo.MatchString(version) {
		return version
	}
	return revision[:min(len(revision), 7)]
}
