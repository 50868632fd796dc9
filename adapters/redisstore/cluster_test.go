package redisstore_test

import (
	"context"
	"testing"

	"github.com/storecheck/storecheck/adapters/redisstore"
	"github.com/storecheck/storecheck/mcp/server/clustertest"
)

// TestScaledOut: three MCP server instances, each with its own harness and clients on
// one named prefix of one Redis server, are one server to their clients
// (clustertest.Run).
func TestScaledOut(t *testing.T) {
	newClient := newClientFunc(t)
	clustertest.RunNamed(t, func() (clustertest.NamedHarness, func()) {
		h := redisstore.NewHarness("redis", newClient, 4)
		return h, h.Close
	}, func(name string) {
		c := newClient()
		defer c.Close()
		_, _ = redisstore.DeletePrefix(context.Background(), c, name)
	})
}
