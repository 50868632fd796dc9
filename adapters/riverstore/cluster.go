package riverstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/storecheck/storecheck/adapters/postgres"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/internal/pgschema"
	"github.com/storecheck/storecheck/mcp/cluster"
	"github.com/storecheck/storecheck/reference"
)

// Several MCP server instances over one schema (storecheck serve --mcp --namespace):
// OpenNamed opens a schema by name, made and migrated by the first instance and left in
// place on Close; Cluster is the Postgres adapter's (LISTEN/NOTIFY, a lease table) on
// the same schema. A dead instance's tasks end failed when their lease runs out; River
// does not resume them, as the tools run in the server, not as River jobs.

// OpenNamed returns the namespace of the schema name, made and migrated when it does not
// exist yet; its Close leaves the schema and its tasks for the other instances.
func (h *PostgresHarness) OpenNamed(ctx context.Context, clock reference.Clock, name string) (harness.Namespace, error) {
	admin, err := h.admin.Pool(ctx)
	if err != nil {
		return nil, fmt.Errorf("river-postgres harness: %w", err)
	}
	if err := pgschema.Ensure(ctx, admin, name); err != nil {
		return nil, fmt.Errorf("river-postgres harness: schema %s: %w", name, err)
	}
	ns := &pgNamespace{h: h, schema: name, clock: clock, kept: true}
	ns.eras = eras[pgx.Tx]{ns.backend}
	pool, err := ns.newPool(ctx, 2) // MigratePostgres holds one for its lock
	if err == nil {
		err = MigratePostgres(ctx, pool)
	}
	if err != nil {
		return nil, errors.Join(err, ns.Close(ctx))
	}
	return ns, nil
}

// Cluster returns the MCP instances' backend on the namespace's schema, on a pool of its
// own (closed with the namespace).
func (n *pgNamespace) Cluster(ctx context.Context) (cluster.Backend, error) {
	pool, err := n.newPool(ctx, 4)
	if err != nil {
		return nil, err
	}
	return postgres.NewCluster(ctx, pool, n.schema)
}
