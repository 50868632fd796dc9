package pgcontainer

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/storecheck/storecheck/adapters/internal/containers"
)

// TestExistingServerURL: with STORECHECK_POSTGRES_URL set, Start starts no container and
// answers with that server, or says why it cannot reach it.
func TestExistingServerURL(t *testing.T) {
	t.Setenv(EnvURL, "postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=1")
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer cancel()
	_, _, err := Start(ctx)
	if err == nil || !strings.Contains(err.Error(), EnvURL) {
		t.Fatalf("Start with %s on a closed port: want an error naming %s, got %v", EnvURL, EnvURL, err)
	}
}

// TestContainerThenURL starts a container, then reuses it through STORECHECK_POSTGRES_URL:
// the second Start must answer with the same server and its stop must leave it running.
func TestContainerThenURL(t *testing.T) {
	same := func(dsn string) string { return dsn }
	containers.CheckReuse(t, "postgres", EnvURL, Start, same, same, func(ctx context.Context, t *testing.T, dsn string) {
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatalf("server gone after the no-op stop: %v", err)
		}
		var fsync string
		err = conn.QueryRow(ctx, "SHOW fsync").Scan(&fsync)
		conn.Close(ctx)
		if err != nil || fsync != "on" {
			t.Errorf("SHOW fsync = %q, %v; want on", fsync, err)
		}
	})
}
