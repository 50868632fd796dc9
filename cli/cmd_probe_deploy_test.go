package cli

import (
	"strings"
	"testing"
)

// TestProbeDeploymentFlagsAreUsage: a deployment the flags cannot make (one copy, a
// shape of no name, copies of no command, or with a URL beside them, a command whose
// copies have no port of their own) is a usage error (exit 2) naming the fault, before
// any server is called or started.
func TestProbeDeploymentFlagsAreUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"one copy", []string{"--instances", "1", "--exec", "storecheck serve --mcp 127.0.0.1:{port}"}, "--instances 1: give at least 2"},
		{"unknown shape", []string{"--shape", "sticky", "http://127.0.0.1:1/mcp", "http://127.0.0.1:2/mcp"}, `--shape "sticky": want any or routed`},
		{"copies of no command", []string{"--instances", "3", "http://127.0.0.1:1/mcp"}, "--instances goes with the server's command after --exec"},
		{"no port placeholder", []string{"--instances", "2", "--exec", "storecheck serve --mcp 127.0.0.1:8080"}, "names no {port}"},
	} {
		args := append([]string{"probe", "--principal", "a=ta", "--principal", "b=tb"}, tc.args...)
		code, _, stderr := cliRun(t, args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, want %d naming %q:\n%s", tc.name, code, exitUsage, tc.want, stderr)
		}
	}
}
