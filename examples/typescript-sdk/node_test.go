package typescriptsdk

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/storecheck/storecheck/adapters/wire"
)

// needStore skips (fails under CI=true) when node or the npm install is missing.
func needStore(t *testing.T) {
	t.Helper()
	missing := ""
	if _, err := exec.LookPath("node"); err != nil {
		missing = "node is not on PATH"
	} else if _, err := os.Stat(filepath.Join("node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		missing = "the SDK is not installed (run `make node-deps` or `npm ci` in examples/typescript-sdk)"
	}
	if missing == "" {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true: %s; CI must check the TypeScript SDK's store", missing)
	}
	t.Skipf("%s (under CI=true this fails)", missing)
}

// shimArgv is the command that serves the store.
var shimArgv = []string{"node", "shim.mjs"}

// startShim starts the shim as a wire child.
func startShim(t *testing.T) *wire.Client {
	t.Helper()
	needStore(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := wire.Start(ctx, shimArgv, wire.Options{Timeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("starting the shim: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("closing the shim: %v", err)
		}
	})
	return c
}
