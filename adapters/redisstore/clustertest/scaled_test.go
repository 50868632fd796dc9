package clustertest

import (
	"context"
	"testing"

	"github.com/storecheck/storecheck/adapters/redisstore"
	mcpcluster "github.com/storecheck/storecheck/mcp/server/clustertest"
)

// TestScaledOut: three MCP server instances, each with its own harness and clients on
// one named prefix of a Redis Cluster (tasks spread over every master, signals published
// on one node and heard on others), are one server to their clients.
func TestScaledOut(t *testing.T) {
	newClient := newClientFunc(t)
	mcpcluster.RunNamed(t, func() (mcpcluster.NamedHarness, func()) {
		h := redisstore.NewHarness("redis-cluster", newClient, 12)
		return h, h.Close
	}, func(name string) {
		c := newClient()
		defer c.Close()
		_, _ = redisstore.DeletePrefix(context.Background(), c, name)
	})
}
