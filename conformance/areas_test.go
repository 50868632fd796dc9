package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storecheck/storecheck/conformance/rules"
)

// TestSpecSitesPointAtTheirSpecs: every site SpecSites gives is the line of an It call
// for its rule, and every rule a store era runs has at least one site.
func TestSpecSitesPointAtTheirSpecs(t *testing.T) {
	sites := SpecSites("")
	if len(sites) < 100 {
		t.Fatalf("SpecSites(\"\") = %d sites; want the whole battery (more than 100)", len(sites))
	}
	files := map[string][]string{}
	byRule := map[string]int{}
	for _, s := range sites {
		byRule[s.Rule]++
		lines, ok := files[s.File]
		if !ok {
			b, err := os.ReadFile(filepath.Join("..", s.File))
			if err != nil {
				t.Fatalf("site %s:%d of %s: %v", s.File, s.Line, s.Rule, err)
			}
			lines = strings.Split(string(b), "\n")
			files[s.File] = lines
		}
		if s.Line < 1 || s.Line > len(lines) || !strings.Contains(lines[s.Line-1], `It("`+s.Rule+`"`) {
			t.Errorf("site %s:%d of %s (%q): that line is not its It call", s.File, s.Line, s.Rule, s.Text)
		}
	}
	for _, r := range rules.All() {
		switch {
		case r.Part == rules.PartBattery:
			// B-REPRO-1 runs in the battery; the others are its own tests'.
		case r.Part == rules.PartFaults || r.Part == rules.PartServer:
			if byRule[r.ID] != 0 {
				t.Errorf("%s (%s era) has %d battery sites; want none", r.ID, r.Part, byRule[r.ID])
			}
		case byRule[r.ID] == 0:
			t.Errorf("%s (%s era) has no spec site", r.ID, r.Part)
		}
	}
	if one := SpecSites("L-LIST-1"); len(one) < 2 {
		t.Errorf("SpecSites(L-LIST-1) = %v; want its two specs", one)
	}
}
