package postgres_test

import (
	"context"
	"testing"

	"github.com/storecheck/storecheck/adapters/postgres"
	"github.com/storecheck/storecheck/internal/pgschema"
	"github.com/storecheck/storecheck/mcp/cluster"
	"github.com/storecheck/storecheck/mcp/server/clustertest"
	"github.com/storecheck/storecheck/reference"
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
	clustertest.Run(t, func(t testing.TB) clustertest.Instance {
		ctx := context.Background()
		h := postgres.NewHarness(dsn)
		ns, err := h.OpenNamed(ctx, reference.SystemClock{}, name)
		if err != nil {
			t.Fatalf("OpenNamed %s: %v", name, err)
		}
		t.Cleanup(func() { _ = ns.Close(ctx); h.Close() })
		ls, err := ns.Legacy(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ms, err := ns.Modern(ctx)
		if err != nil {
			t.Fatal(err)
		}
		b, err := ns.(interface {
			Cluster(context.Context) (cluster.Backend, error)
		}).Cluster(ctx)
		if err != nil {
			t.Fatalf("Cluster: %v", err)
		}
		return clustertest.Instance{Legacy: ls, Modern: ms, Backend: b}
	})
}
