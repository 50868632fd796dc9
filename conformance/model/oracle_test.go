package model_test

import (
	"testing"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/conformance/model"
	"github.com/storecheck/storecheck/reference/legacy"
)

// The oracle every judge uses agrees with the truth table as docs/spec.md writes it out,
// for callers and for the List scope of each caller.
func TestVisibleIsTheTruthTable(t *testing.T) {
	for _, row := range battery.OwnerTable() {
		for _, ro := range []bool{false, true} {
			want := row.Allowed(ro)
			if got := model.Visible(row.Owner(), row.Caller, ro); got != want {
				t.Errorf("section 0 truth table, %s with %s: Visible(%q, %s) = %v, want %v", row.Name, battery.SettingName(ro), row.Owner(), row.Caller, got, want)
			}
			scope := legacy.ScopeOf(row.Caller)
			if got := model.Visible(row.Owner(), model.ScopeCaller(scope), ro); got != want {
				t.Errorf("L-LIST-3 scope, %s with %s: Visible(%q, ScopeCaller(%s)) = %v, want %v", row.Name, battery.SettingName(ro), row.Owner(), scope, got, want)
			}
		}
	}
}
