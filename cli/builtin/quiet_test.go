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
// line and its stderr is empty; with -v those lines are on stderr. Two runs of one rule,
// about 2 s each.
func TestContainerLinesOnlyWithV(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Postgres container twice; skipped with -short")
	}
	run := func(extra ...string) (stdout, stderr string) {
		t.Helper()
		args := append([]string{"run", "--adapter", "postgres", "--era", "legacy", "--rules", "L-GET-1", "--seed", "1"}, extra...)
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), asCLI+"=1")
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == 2 && strings.Contains(errOut.String(), "bring-up of adapter") && os.Getenv("CI") != "true" {
			t.Skipf("postgres: the backend cannot be brought up here: %s", errOut.String())
		}
		if err != nil {
			t.Fatalf("storecheck %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out.String(), errOut.String())
		}
		return out.String(), errOut.String()
	}
	stdout, stderr := run()
	lines := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "PASS: store rules 1 passed") {
		t.Errorf("storecheck run --adapter postgres: stdout ends with %q, want the summary line \"PASS: store rules 1 passed; seed 1\":\n%s", last, stdout)
	}
	if stderr != "" {
		t.Errorf("storecheck run --adapter postgres without -v: stderr is not empty (the container library's lines?):\n%s", stderr)
	}
	_, stderr = run("-v")
	if !strings.Contains(stderr, "Container started") || !strings.Contains(stderr, "Container terminated") {
		t.Errorf("storecheck run --adapter postgres -v: stderr lacks the container library's start and stop lines:\n%s", stderr)
	}
}
