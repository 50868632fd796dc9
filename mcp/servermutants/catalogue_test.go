package servermutants_test

import (
	"testing"

	"github.com/storecheck/storecheck/mcp/servermutants"
)

// TestCatalogue: every mutant has a name of its own, and either breaks a rule or is an
// honest twin, never both.
func TestCatalogue(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range servermutants.Catalogue() {
		if m.Name == "" || seen[m.Name] {
			t.Errorf("mutant %q: empty or repeated name", m.Name)
		}
		seen[m.Name] = true
		if m.Honest == (len(m.Breaks) > 0) {
			t.Errorf("mutant %s: honest %v with breaks %v; want an honest twin or rules it breaks", m.Name, m.Honest, m.Breaks)
		}
		if got, ok := servermutants.ByName(m.Name); !ok || got.Name != m.Name {
			t.Errorf("ByName(%q) = %q, %v", m.Name, got.Name, ok)
		}
	}
	if len(seen) < 20 {
		t.Errorf("%d server mutants; the catalogue lost some", len(seen))
	}
}
