package cli

import (
	"strings"
	"testing"
)

// TestServeMCPNamespaceRefused: --namespace is a usage error on an adapter that cannot
// share a namespace between processes (memstore), and without a shared secret: an
// instance that would sign cursors alone is not started.
func TestServeMCPNamespaceRefused(t *testing.T) {
	for _, c := range []struct {
		env, want string
		args      []string
	}{
		{"", "--secret-env", []string{"--namespace", "shared"}},
		{"s3cret", "cannot share a namespace", []string{"--namespace", "shared", "--secret-env", "MCP_SECRET"}},
	} {
		t.Setenv("MCP_SECRET", c.env)
		args := append([]string{"serve", "--adapter", "memstore", "--mcp", "stdio"}, c.args...)
		code, _, errOut := cliRun(t, args...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("storecheck %s (MCP_SECRET=%q): exit %d, stderr %q; want %d naming %q", strings.Join(args, " "), c.env, code, errOut, exitUsage, c.want)
		}
	}
}
