package servermutants_test

import (
	"testing"

	"github.com/storecheck/storecheck/mcp/servermutants"
)

// TestCatalogue: every mutant has a name of its own, and exactly one of: it breaks
// rules, it is an honest twin, it serves nothing to exercise.
func TestCatalogue(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range servermutants.Catalogue() {
		if m.Name == "" || seen[m.Name] {
			t.Errorf("mutant %q: empty or repeated name", m.Name)
		}
		seen[m.Name] = true
		if kinds := btoi(m.Honest) + btoi(m.Empty) + btoi(len(m.Breaks) > 0); kinds != 1 {
			t.Errorf("mutant %s: honest %v, empty %v, breaks %v; want exactly one of an honest twin, a server with nothing to exercise, rules it breaks", m.Name, m.Honest, m.Empty, m.Breaks)
		}
		if got, ok := servermutants.ByName(m.Name); !ok || got.Name != m.Name {
			t.Errorf("ByName(%q) = %q, %v", m.Name, got.Name, ok)
		}
	}
	if len(seen) < 20 {
		t.Errorf("%d server mutants; the catalogue lost some", len(seen))
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
