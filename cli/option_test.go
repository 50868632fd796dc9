package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/conformance/mutants"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/memstore"
	"github.com/storecheck/storecheck/reference/modern"
	"github.com/storecheck/storecheck/schema/schematest"
)

// ownStore stands for a store author's harness: another module's store under its own name.
func ownStore() harness.Harness {
	return harness.InProcess("my-store", harness.Capabilities{Legacy: true, Modern: true, Clock: true},
		func(clock reference.Clock) (legacy.Store, modern.Store) {
			s := memstore.New(memstore.WithClock(clock))
			return s.Legacy(), s.Modern()
		})
}

func TestWithHarnessIsTheDefault(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := Run(t.Context(), []string{"help"}, &out, &errOut, WithHarness(ownStore())); code != exitOK {
		t.Fatalf("help: exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "my-store") || !strings.Contains(out.String(), "(the default)") {
		t.Errorf("help does not offer the binary's own store as the default:\n%s", out.String())
	}

	dir := t.TempDir()
	report := filepath.Join(dir, "r.json")
	cmd := exec.Command(os.Args[0], "run", "--rules", "L-GET-1,M-GET-1", "--json", report)
	cmd.Env = append(os.Environ(), childEnv+"=own-store")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatal(err)
		}
		t.Fatalf("run with the own store: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	schematest.CheckFile(t, report)
	r, err := readReport(report)
	if err != nil {
		t.Fatal(err)
	}
	if r.Store != "my-store" {
		t.Errorf("run without --adapter checked %q, want the binary's own store my-store", r.Store)
	}
	for id, era := range map[string]conformance.Era{"L-GET-1": conformance.EraLegacy, "M-GET-1": conformance.EraModern} {
		if rr, ok := r.Rule(id, era); !ok || rr.Outcome != conformance.Passed {
			t.Errorf("%s: %+v, want passed", id, rr)
		}
	}
}

func TestWithAdapterBringUpError(t *testing.T) {
	var out, errOut bytes.Buffer
	failing := WithAdapter("needs-db", "a store whose backend is down", func(context.Context) (harness.Harness, func(), error) {
		return nil, nil, errors.New("connection refused")
	})
	code := Run(t.Context(), []string{"run"}, &out, &errOut, failing)
	if code != exitUsage || !strings.Contains(errOut.String(), "needs-db") || !strings.Contains(errOut.String(), "connection refused") {
		t.Errorf("run with a failing own adapter: exit %d, stderr %q; want 2 naming it and why", code, errOut.String())
	}
}

func TestBenchOwnStore(t *testing.T) {
	var out, errOut bytes.Buffer
	code := Run(t.Context(), []string{"bench", "--benchtime", "5x", "--count", "1", "--ops", "legacy-get,modern-get"}, &out, &errOut, WithHarness(ownStore()))
	if code != exitOK || !strings.Contains(out.String(), "my-store vs mutex+map") || !strings.Contains(out.String(), "modern-get") {
		t.Errorf("bench of the binary's own store: exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
}

// TestMutantsNaturalRacesSelectsThem: --natural-races narrows the catalogue to the
// natural race mutants, so `make mutants` judges exactly those 20 times.
func TestMutantsNaturalRacesSelectsThem(t *testing.T) {
	code, out, errOut := cliRun(t, "mutants", "--list", "--natural-races")
	if code != 0 {
		t.Fatalf("mutants --list --natural-races: exit %d: %s", code, errOut)
	}
	listed := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		listed[strings.Fields(l)[0]] = true
	}
	for _, m := range mutants.Catalogue() {
		if listed[m.Name] != m.Build.NaturalRace() {
			t.Errorf("mutants --list --natural-races: %s listed %v, natural race %v", m.Name, listed[m.Name], m.Build.NaturalRace())
		}
	}
	for _, name := range []string{"check-then-act", "lost-update", "sdk-result-written-apart"} {
		if !listed[name] {
			t.Errorf("mutants --list --natural-races does not list %s\n%s", name, out)
		}
	}
	if listed["cleanup-ge"] {
		t.Errorf("mutants --list --natural-races lists cleanup-ge, which is no race\n%s", out)
	}
}
