package postgrestest

import (
	"context"
	"testing"

	"github.com/storecheck/storecheck/adapters/riverstore"
	"github.com/storecheck/storecheck/internal/pgschema"
	"github.com/storecheck/storecheck/mcp/server/clustertest"
)

// TestScaledOut: three MCP server instances over River's stores on one named Postgres
// schema, each with its own harness, pools and River clients, are one server to their
// clients (clustertest.Run).
func TestScaledOut(t *testing.T) {
	dsn := srv.Get(t)
	clustertest.RunNamed(t, func() (clustertest.NamedHarness, func()) {
		h := riverstore.NewPostgresHarness(dsn)
		return h, h.Close
	}, func(name string) {
		if admin, err := pgschema.AdminPool(context.Background(), dsn); err == nil {
			_ = pgschema.Drop(context.Background(), admin, name)
			admin.Close()
		}
	})
}
