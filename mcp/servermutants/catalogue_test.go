package servermutants_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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
		if kinds := btoi(m.Build.Honest) + btoi(m.Build.Empty) + btoi(len(m.Breaks) > 0); kinds != 1 {
			t.Errorf("mutant %s: honest %v, empty %v, breaks %v; want exactly one of an honest twin, a server with nothing to exercise, rules it breaks", m.Name, m.Build.Honest, m.Build.Empty, m.Breaks)
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

// shipped are the directories of the code users run that must hold no defect: the
// reference server and the reference stores and facades.
var shipped = []string{"../server", "../../reference"}

// TestShippedCodeNamesNoDefect: no defect of the catalogue is named in the shipped code
// (its tests aside), nor the word Mutant: a defect is a wrapper here, never a branch
// there.
func TestShippedCodeNamesNoDefect(t *testing.T) {
	words := []string{"Mutant"}
	for _, m := range servermutants.Catalogue() {
		words = append(words, m.Name)
	}
	files := 0
	for _, dir := range shipped {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			files++
			for i, line := range strings.Split(string(src), "\n") {
				for _, w := range words {
					if strings.Contains(line, w) {
						t.Errorf("%s:%d names %q, which shipped code must not: %s", path, i+1, w, strings.TrimSpace(line))
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 20 {
		t.Errorf("read %d shipped files under %v; the walk missed them", files, shipped)
	}
}
