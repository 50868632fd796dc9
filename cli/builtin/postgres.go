package builtin

import (
	"context"
	"flag"
	"fmt"
	"runtime"

	"github.com/storecheck/storecheck/adapters/postgres"
	"github.com/storecheck/storecheck/adapters/postgres/pgcontainer"
	"github.com/storecheck/storecheck/cli"
	"github.com/storecheck/storecheck/conformance/harness"
)

func postgresAdapters() (as []cli.Adapter) {
	var dsn string
	as = append(as, cli.Adapter{
		Name:    "postgres",
		Summary: "PostgreSQL, both eras: a container it starts itself, or --dsn (each spec in its own schema, dropped after)",
		// Each process its own container, or its own schemas on the server of --dsn
		// (S-CTX-1's holds lock a schema's table, not the server): one per processor.
		Parallel: func() int { return runtime.NumCPU() },
		Flags: func(fs *flag.FlagSet) {
			dsnFlag(fs, &dsn, "dsn", "postgres")
		},
		Open: func(ctx context.Context) (harness.Harness, func(), error) {
			return onPostgres(ctx, dsn, "--dsn", postgres.NewHarness)
		},
		OpenFaults: func(ctx context.Context) (harness.Harness, func(), error) {
			if err := ownBackend(dsn, "server", "--dsn"); err != nil {
				return nil, nil, err
			}
			srv, err := pgcontainer.StartFaultable(ctx)
			if err != nil {
				return nil, nil, err
			}
			stop := func() { stopAfter(ctx, srv.Stop) }
			h, err := postgres.NewFaultHarness(ctx, srv.DSN, srv.Faults)
			if err != nil {
				stop()
				return nil, nil, err
			}
			return h, func() { h.Close(); stop() }, nil
		},
	})
	return as
}

// dsnFlag registers the flag name naming an existing PostgreSQL server for adapter.
func dsnFlag(fs *flag.FlagSet, dsn *string, name, adapter string) {
	fs.StringVar(dsn, name, "", adapter+": connection string of an existing server (default: $"+
		pgcontainer.EnvURL+", else a container from $"+pgcontainer.EnvImage+" or "+pgcontainer.DefaultImage+")")
}

// onPostgres brings a harness up with newHarness on the server at dsn, or, when dsn is
// empty, on a container it starts and stops with the harness's Close. flag names the
// flag that gives dsn, for the error.
func onPostgres[H interface {
	harness.Harness
	Close()
}](ctx context.Context, dsn, flag string, newHarness func(dsn string) H) (harness.Harness, func(), error) {
	if dsn != "" {
		h := newHarness(dsn)
		return h, h.Close, nil
	}
	url, stop, err := pgcontainer.Start(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("%w (or pass %s)", err, flag)
	}
	h := newHarness(url)
	return h, func() {
		h.Close()
		stopAfter(ctx, stop)
	}, nil
}
