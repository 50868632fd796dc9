package cli

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestProbeSilentServerExits1: a server that never answers ends the probe within its
// timeouts, with exit status 1 and the cause of every aborted rule on stderr.
func TestProbeSilentServerExits1(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // read, so that the server sees the client leave
		select {
		case <-r.Context().Done():
		case <-time.After(time.Minute):
		}
	}))
	defer hs.Close()
	code, stdout, stderr := cliRun(t, "probe", "--timeout", "200ms", "--principal", "alice=ta", "--principal", "bob=tb", hs.URL+"/mcp")
	if code != exitFailed {
		t.Errorf("exit %d, want %d\n%s\n%s", code, exitFailed, stdout, stderr)
	}
	if !strings.Contains(stderr, "the server gave no usable answer to") || !strings.Contains(stderr, "V-DENY-1 legacy: no usable answer from the server: timeout (no answer within 200ms)") {
		t.Errorf("stderr does not name the cause:\n%s", stderr)
	}
	if !regexp.MustCompile(`0 passed, \d+ aborted`).MatchString(stdout) || strings.Contains(stdout, "  passed") {
		t.Errorf("the summary:\n%s", stdout)
	}
}

// TestProbeExec: storecheck probe --exec starts `storecheck serve --mcp stdio`, a child
// per principal, and the reference server passes; V-SESSION-1 is not exercised.
func TestProbeExec(t *testing.T) {
	t.Setenv(childEnv, "1") // the child is this binary acting as storecheck
	code, stdout, stderr := cliRun(t, "probe", "--strict", "--exec", os.Args[0], "serve", "--adapter", "memstore", "--mcp", "stdio")
	if code != exitOK || !regexp.MustCompile(`V-SESSION-1 +server +MUST +legacy +not exercised`).MatchString(stdout) ||
		!regexp.MustCompile(`V-FIN-1 +server +MUST +modern +passed`).MatchString(stdout) || !strings.Contains(stdout, "storecheck: stdio: ") {
		t.Errorf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, args := range [][]string{
		{"probe", "http://127.0.0.1:1/mcp", "--exec", "true"},
		{"probe", "--exec"},
		{"probe", "--token-env", "T", "http://127.0.0.1:1/mcp"},
		{"probe", "--exec", "storecheck-no-such-command"},
	} {
		if code, _, stderr := cliRun(t, args...); code != exitUsage {
			t.Errorf("%q: exit %d, want %d: %s", args, code, exitUsage, stderr)
		}
	}
}
