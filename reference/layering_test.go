package reference_test

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/storecheck/storecheck/"

// referenceDeps lists the packages under reference/ and what they depend on, with go
// list's flags (-test adds the tests').
func referenceDeps(t *testing.T, flags ...string) []string {
	t.Helper()
	args := append(append([]string{"list", "-deps"}, flags...), "-f", `{{.ImportPath}}`, module+"reference/...")
	out, err := exec.Command("go", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	pkgs := strings.Fields(string(out))
	if len(pkgs) == 0 {
		t.Fatal("go list listed no packages: the check would pass vacuously")
	}
	return pkgs
}

// TestReferenceImportsNoConformance keeps the layering: the reference stores can be
// embedded without the battery, so no package under reference/ (tests included) may
// import one under conformance/.
func TestReferenceImportsNoConformance(t *testing.T) {
	for _, p := range referenceDeps(t, "-test") {
		if strings.HasPrefix(p, module+"conformance") {
			t.Errorf("a package under reference/ depends on %s (find the importer with: go list -test -deps -f '{{.ImportPath}} {{.Imports}}' ./reference/...)", p)
		}
	}
}

// TestReferenceImportsNoRootInternal keeps the arrows pointing down: the reference
// stores depend on nothing of the module outside reference/, so its root internal/
// packages (which serve the adapters and the tools) are not theirs. Tests may use the
// shared benchmark harness.
func TestReferenceImportsNoRootInternal(t *testing.T) {
	for _, p := range referenceDeps(t) {
		if strings.HasPrefix(p, module) && !strings.HasPrefix(p, module+"reference") {
			t.Errorf("a package under reference/ depends on %s, outside reference/ (find the importer with: go list -deps -f '{{.ImportPath}} {{.Imports}}' ./reference/...)", p)
		}
	}
}
