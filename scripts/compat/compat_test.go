package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storecheck/storecheck/schema/schematest"
)

// TestCommittedTableIsCurrent: docs/compatibility.md and docs/compatibility.json are what
// the pinned reports give. Nothing is run again: a changed report, index or generator
// without the regenerated table fails here.
func TestCommittedTableIsCurrent(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	files, err := generate(reportsDir)
	if err != nil {
		t.Fatal(err)
	}
	if err := compare(files); err != nil {
		t.Fatal(err)
	}
}

// TestPinnedReportsConform: every pinned report conforms to the schema it names, so the
// table is made of reports this storecheck reads as it writes them (a report of an older
// format is refreshed, not read past).
func TestPinnedReportsConform(t *testing.T) {
	var index []entry
	dir := filepath.Join("..", "..", reportsDir)
	if err := readJSON(filepath.Join(dir, "index.json"), &index); err != nil {
		t.Fatal(err)
	}
	for _, e := range index {
		schematest.CheckFile(t, filepath.Join(dir, e.Key+".json"))
	}
}

// TestTableCounts: each rule the implementation is judged by lands in its family's and
// era's cell by outcome, the library's and the battery's rules in none, and a failed,
// aborted or refused rule fails the row.
func TestTableCounts(t *testing.T) {
	dir := t.TempDir()
	index := `[{"key": "s", "implementation": "a store", "version": "1.0", "kind": "store", "command": "storecheck run"}]`
	rep := `{"started": "2026-12-06T12:00:00Z", "future_field": {"x": 1},
	  "storecheck": {"version": "(devel)", "revision": "0123456789abcdef", "modified": true},
	  "rules": [
	    {"id": "L-GET-1", "era": "legacy", "subject": "store", "outcome": "passed"},
	    {"id": "L-LIST-1", "era": "legacy", "subject": "store", "outcome": "aborted"},
	    {"id": "L-CREATE-2", "era": "legacy", "subject": "store", "outcome": "warned"},
	    {"id": "L-F-FIN-1", "era": "legacy", "subject": "facade", "outcome": "not exercised"},
	    {"id": "S-TRANS-1", "era": "legacy", "subject": "library", "outcome": "passed"},
	    {"id": "B-REPRO-1", "era": "modern", "subject": "battery", "outcome": "passed"},
	    {"id": "M-GET-1", "era": "modern", "subject": "store", "outcome": "setup refused"},
	    {"id": "M-SWAP-1", "era": "modern", "subject": "store", "outcome": "not covered"}]}`
	for name, body := range map[string]string{"index.json": index, "s.json": rep} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tb, err := loadTable(dir, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]cell{"L legacy": {Passed: 1, Failed: 1, Warned: 1}, "L-F legacy": {Other: 1}, "M modern": {Failed: 1}}
	r := tb.Rows[0]
	if len(r.Cells) != len(want) || strings.Join(tb.Columns, ",") != "L legacy,L-F legacy,M modern" {
		t.Errorf("cells %v, columns %v; want %v", r.Cells, tb.Columns, want)
	}
	for col, c := range want {
		if r.Cells[col] != c {
			t.Errorf("cell %q = %+v (%s); want %+v", col, r.Cells[col], r.Cells[col], c)
		}
	}
	if r.Verdict != "fail" || r.Date != "2026-12-06" || r.Storecheck != "0123456 (modified)" || r.Shields.Color != "red" {
		t.Errorf("row = %+v; want verdict fail, date 2026-12-06, storecheck 0123456 (modified), a red badge", r)
	}
	if md := string(markdown(tb)); !strings.Contains(md, "| a store | 1.0 | **FAIL** | ✓1 ✗1 ⚠1 | ·1 | ✗1 | 2026-12-06 | 0123456 (modified) |") {
		t.Errorf("the Markdown table lacks the row:\n%s", md)
	}
}
