// Package clibuild builds the storecheck command for tests that run it as a child
// process, the way a user runs it.
package clibuild

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// Storecheck builds cmd/storecheck into a directory of t's and returns the binary's
// path. It is a plain go build: no -race, whatever the calling test was built with.
func Storecheck(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "storecheck")
	build := exec.Command("go", "build", "-o", bin, "github.com/storecheck/storecheck/cmd/storecheck")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}
