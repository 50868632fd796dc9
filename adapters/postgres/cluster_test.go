package postgres_test

import (
	"context"
	"testing"

	"github.com/storecheck/storecheck/adapters/postgres"
	"github.com/storecheck/storecheck/internal/pgschema"
	"github.com/storecheck/storecheck/mcp/server/clustertest"
)

// TestScaledOut: three MCP server instances, each with its own harness, pools and
// LISTEN connection on one named schema, are one server to their clients
// (clustertest.Run).
func TestScaledOut(t *testing.T) {
	dsn := srv.Get(t)
	name := pgschema.RandomName("storecheck_mcp_")
	t.Cleanup(func() {
		admin, err := pgschema.AdminPool(context.Background(), dsn)
		if err == nil {
			_ = pgschema.Drop(context.Background(), admin, name)
			admin.Close()
		}
	})
	clustertest.Run(t, clustertest.Named(func() (clustertest.NamedHarness, func()) {
		h := postgres.NewHarness(dsn)
		return h, h.Close
	}, name))
}
