package builtin

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/storecheck/storecheck/cli"
)

// asCLI makes the test binary act as cmd/storecheck: a run executes the battery, which
// Ginkgo allows once per process, so each run test starts its own process.
const asCLI = "STORECHECK_BUILTIN_TEST_AS_CLI"

func TestMain(m *testing.M) {
	if os.Getenv(asCLI) == "1" {
		os.Exit(cli.Run(context.Background(), os.Args[1:], os.Stdout, os.Stderr, Adapters()))
	}
	os.Exit(m.Run())
}

// TestContainerLinesOnlyWithV: a run on a Postgres container of its own prints nothing of
// the container library's (created, started, stopped): its stdout ends with the summary
// line and its stderr is empty; with -v those lines are on stderr. Two runs of one rule at
// once, a few seconds.
func TestContainerLinesOnlyWithV(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two Postgres containers; skipped with -short")
	}
	type result struct {
		args           []string
		stdout, stderr string
		err            error
	}
	run := func(extra ...string) <-chan result {
		done := make(chan result, 1)
		go func() {
			args := append([]string{"run", "--adapter", "postgres", "--era", "legacy", "--rules", "L-GET-1", "--seed", "1"}, extra...)
			cmd := exec.Command(os.Args[0], args...)
			cmd.Env = append(os.Environ(), asCLI+"=1")
			var out, errOut bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errOut
			err := cmd.Run()
			done <- result{args, out.String(), errOut.String(), err}
		}()
		return done
	}
	quietRun, verboseRun := run(), run("-v")
	quiet, verbose := <-quietRun, <-verboseRun
	for _, r := range []result{quiet, verbose} {
		var exit *exec.ExitError
		if errors.As(r.err, &exit) && exit.ExitCode() == 2 && strings.Contains(r.stderr, "bring-up of adapter") && os.Getenv("CI") != "true" {
			t.Skipf("postgres: the backend cannot be brought up here: %s", r.stderr)
		}
		if r.err != nil {
			t.Fatalf("storecheck %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(r.args, " "), r.err, r.stdout, r.stderr)
		}
	}
	lines := strings.Split(strings.TrimRight(quiet.stdout, "\n"), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "PASS: store rules 1 passed") {
		t.Errorf("storecheck run --adapter postgres: stdout ends with %q, want the summary line \"PASS: store rules 1 passed; seed 1\":\n%s", last, quiet.stdout)
	}
	if quiet.stderr != "" {
		t.Errorf("storecheck run --adapter postgres without -v: stderr is not empty (the container library's lines?):\n%s", quiet.stderr)
	}
	if !strings.Contains(verbose.stderr, "Container started") || !strings.Contains(verbose.stderr, "Container terminated") {
		t.Errorf("storecheck run --adapter postgres -v: stderr lacks the container library's start and stop lines:\n%s", verbose.stderr)
	}
}
