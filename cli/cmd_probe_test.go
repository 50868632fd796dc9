package cli

import (
	"io"
	"net/http"
	"net/http/httptest"
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
