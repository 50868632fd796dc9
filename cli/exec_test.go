package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// These run storecheck as a child process whose --exec child is storecheck serve (this
// test binary again, acting as the CLI through childEnv, which the children inherit).

func selfServe(adapter string) string {
	return strconv.Quote(os.Args[0]) + " serve --adapter " + adapter
}

func TestExecServeMemstorePasses(t *testing.T) {
	code, out, errOut := cliProcess(t, "run", "--exec", selfServe("memstore"),
		"--rules", "L-CREATE-1,L-UPDATE-1,L-LIST-4,L-CLEAN-1,M-SWAP-2,M-GET-1,S-VAL-1,S-CTX-1")
	if code != exitOK {
		t.Fatalf("run --exec memstore over the wire: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "memstore (wire)") || !strings.Contains(out, "L-CLEAN-1") {
		t.Errorf("summary does not name the served store and its rules:\n%s", out)
	}
}

func TestExecServeMutantFailsItsRule(t *testing.T) {
	code, out, errOut := cliProcess(t, "run", "--adapter", "exec", "--exec", selfServe("mutant:deep-merge"), "--era", "legacy", "--rules", "L-UPDATE-1")
	if code != exitFailed || !strings.Contains(out, "L-UPDATE-1") || !strings.Contains(out, "FAILED") {
		t.Fatalf("run --exec of the deep-merge mutant: exit %d, want 1 with L-UPDATE-1 FAILED\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

func TestExecBringUpAndUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--exec", "/nonexistent/store --flag"}, "/nonexistent/store"},
		{[]string{"run", "--exec", `python3 "unterminated`}, "unterminated"},
		{[]string{"run", "--adapter", "exec"}, "--exec"},
		{[]string{"run", "--adapter", "memstore", "--exec", "x"}, "cannot be combined"},
		{[]string{"serve", "--adapter", "nope"}, "unknown adapter"},
	} {
		code, _, errOut := cliRun(t, tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("storecheck %q: exit %d, stderr %q; want exit 2 mentioning %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestExecUsageErrorStartsNoChild: flags are checked before the store process starts.
func TestExecUsageErrorStartsNoChild(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "started")
	for _, args := range [][]string{
		{"run", "--exec", "sh -c 'touch " + marker + "'", "--rules", "NO-SUCH-RULE"},
		{"run", "--exec", "sh -c 'touch " + marker + "'", "--label", "((("},
		{"run", "--exec", "sh -c 'touch " + marker + "'", "--exec-timeout", "0"},
	} {
		code, _, errOut := cliRun(t, args...)
		if code != exitUsage {
			t.Errorf("storecheck %q: exit %d, want 2\n%s", args, code, errOut)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("storecheck %q started the store process before refusing its flags", args)
		}
		if strings.Contains(errOut, "stderr") {
			t.Errorf("storecheck %q: a usage error shows a store's stderr:\n%s", args, errOut)
		}
	}
}

// TestExecPassingRunShowsNoStderr: the store's log is shown only when it may explain a
// failure, not after a passing run.
func TestExecPassingRunShowsNoStderr(t *testing.T) {
	child := "sh -c 'echo store-log-line >&2; exec " + strconv.Quote(os.Args[0]) + " serve --adapter memstore'"
	code, out, errOut := cliProcess(t, "run", "--exec", child, "--era", "legacy", "--rules", "L-GET-1")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if strings.Contains(errOut, "store-log-line") {
		t.Errorf("a passing run printed the store's stderr:\n%s", errOut)
	}
	code, out, errOut = cliProcess(t, "run", "--exec", strings.Replace(child, "memstore", "mutant:deep-merge", 1), "--era", "legacy", "--rules", "L-UPDATE-1")
	if code != exitFailed || !strings.Contains(errOut, "store-log-line") {
		t.Errorf("a failing run: exit %d, want 1 with the store's stderr shown\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}
