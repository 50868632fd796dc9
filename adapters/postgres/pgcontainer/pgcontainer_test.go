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
	t.Setenv(EnvURL, "")
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	dsn, stop, err := Start(ctx)
	if err != nil {
		containers.SkipOrFail(t, "postgres", err)
	}
	defer func() {
		if err := stop(context.Background()); err != nil {
			t.Errorf("stop: %v", err)
		}
	}()
	t.Setenv(EnvURL, dsn)
	again, noop, err := Start(ctx)
	if err != nil || again != dsn {
		t.Fatalf("Start with %s set = %q, %v; want %q", EnvURL, again, err, dsn)
	}
	if err := noop(ctx); err != nil {
		t.Fatalf("stop of an existing server: %v", err)
	}
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
}
