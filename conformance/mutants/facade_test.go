package mutants_test

import (
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/storecheck/storecheck/conformance/mutants"
)

// TestFacadeMutantsFailExactlyTheirRulesOverTheWire runs the battery (--strict) over the
// wire protocol against every facade mutant (conformance/mutants/facade.go), served with
// its broken facade as the child's facade layer (storecheck serve --facade), once per
// era it lives in: each fails exactly the rules it declares, no other (a rule it cannot
// be judged on may read inconclusive, skipped or not exercised, never failed). Compare
// TestSDKMutantsFailExactlyTheirRules.
func TestFacadeMutantsFailExactlyTheirRulesOverTheWire(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the battery once per facade mutant and era over the wire; skipped with -short")
	}
	var ms []mutants.Mutant
	for _, m := range mutants.Catalogue() {
		if strings.HasPrefix(m.Name, "facade-") {
			ms = append(ms, m)
		}
	}
	if len(ms) < 3 {
		t.Fatalf("%d facade mutants in the catalogue, want at least 3", len(ms))
	}
	bin := buildCLI(t)
	dir := t.TempDir()
	start := time.Now()
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		failed = map[string][]string{} // mutant → rules failed in any of its eras
		sem    = make(chan struct{}, 2)
	)
	for _, m := range ms {
		for _, era := range m.Eras {
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				report := filepath.Join(dir, m.Name+"-"+string(era)+".json")
				out, err := runCLI(bin, "run", "--adapter", "exec",
					"--exec", strconv.Quote(bin)+" serve --facade --adapter mutant:"+m.Name,
					"--era", string(era), "--strict", "--json", report)
				rules, rerr, derr := readRules(report)
				if rerr != nil {
					t.Errorf("%s %s over the wire: no report (%v): %s", m.Name, era, err, lastLinesOf(out, 30))
					return
				}
				if derr != nil {
					t.Errorf("%s %s: %v", m.Name, era, derr)
					return
				}
				mu.Lock()
				defer mu.Unlock()
				for _, rule := range rules {
					if rule.Outcome == "failed" && !slices.Contains(failed[m.Name], rule.ID) {
						failed[m.Name] = append(failed[m.Name], rule.ID)
					}
				}
				if _, ok := failed[m.Name]; !ok {
					failed[m.Name] = nil
				}
			})
		}
	}
	wg.Wait()
	for _, m := range ms {
		got, ok := failed[m.Name]
		if !ok {
			continue // reported above
		}
		sort.Strings(got)
		want := slices.Clone(m.Breaks)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s over the wire (%s): failed %v, want exactly %v", m.Name, m.Defect, got, want)
		}
	}
	t.Logf("%d facade mutants over the wire in %s", len(ms), time.Since(start).Round(time.Second))
}
