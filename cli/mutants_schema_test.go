package cli

import (
	"path/filepath"
	"testing"

	"github.com/storecheck/storecheck/schema/schematest"
)

// TestServerVerdictsConform: the --json report of mutants --server conforms to its schema,
// for a killed mutant, one not killed, and an honest server with no row failing.
func TestServerVerdictsConform(t *testing.T) {
	path := filepath.Join(t.TempDir(), "server.json")
	runs := []serverMutantRun{
		{name: "honest", rules: "-", honest: true, killed: true},
		{name: "drop-owner", rules: "V-OWN-1", killed: true, rows: []string{"V-OWN-1 legacy failed"}},
		{name: "slow-list", rules: "V-LIST-1", why: "no row failed", rows: nil},
	}
	if err := writeServerVerdicts(path, runs); err != nil {
		t.Fatal(err)
	}
	schematest.CheckFile(t, path)
}
