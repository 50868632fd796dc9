package mutants

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReferenceCodeNamesNoMutant: the stores users run (reference/, adapters/) carry no
// deliberate defect; a defect lives here, as a wrapper or hook around them. A mutant's
// name in their code (tests and mutants packages aside) is a defect woven in.
func TestReferenceCodeNamesNoMutant(t *testing.T) {
	var names []string
	for _, m := range append(Catalogue(), Variants()...) {
		names = append(names, m.Name)
	}
	names = append(names, DiesMidRunName, RefusesUpdateName, PanicsInRaceName)
	for _, dir := range []string{"reference", "adapters"} {
		root := filepath.Join("..", "..", dir)
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && strings.Contains(d.Name(), "mutants") {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			text, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, name := range names {
				if i := strings.Index(string(text), name); i >= 0 {
					line := strings.Count(string(text[:i]), "\n") + 1
					t.Errorf("%s:%d names mutant %q: the reference stores must carry no defect (a mutant is a wrapper in conformance/mutants)", path, line, name)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("walking %s: %v", root, err)
		}
	}
}

// TestHonestStoresNameNoMutant: the honest stores every mutant is built over (store.go,
// sdk_store.go) name no mutant; each defect is a wrapper or hook in its family's file.
func TestHonestStoresNameNoMutant(t *testing.T) {
	for _, path := range []string{"store.go", "sdk_store.go"} {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range Catalogue() {
			if strings.Contains(string(text), m.Name) {
				t.Errorf("%s names mutant %q: the honest store must carry no defect (write it as a wrapper or hook in its family's file)", path, m.Name)
			}
		}
	}
}
