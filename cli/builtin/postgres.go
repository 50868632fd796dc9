package builtin

import (
	"context"
	"flag"
	"fmt"
	"github.com/storecheck/storecheck/cli"
	"time"

	"github.com/storecheck/storecheck/adapters/postgres"
	"github.com/storecheck/storecheck/adapters/postgres/pgcontainer"
	"github.com/storecheck/storecheck/conformance/harness"
)

func postgresAdapters() (as []cli.Adapter) {
	var dsn string
	as = append(as, cli.Adapter{
		Name:    "postgres",
		Summary: "PostgreSQL, both eras: a container it starts itself, or --dsn (each spec in its own schema, dropped after)",
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&dsn, "dsn", "", "postgres: connection string of an existing server (default: $"+
				pgcontainer.EnvURL+", else a container from $"+pgcontainer.EnvImage+" or "+pgcontainer.DefaultImage+")")
		},
		Open: func(ctx context.Context) (harness.Harness, func(), error) {
			if dsn != "" {
				h := postgres.NewHarness(dsn)
				return h, h.Close, nil
			}
			url, stop, err := pgcontainer.Start(ctx)
			if err != nil {
				return nil, nil, fmt.Errorf("%w (or pass --dsn)", err)
			}
			h := postgres.NewHarness(url)
			return h, func() {
				h.Close()
				stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
				defer cancel()
				_ = stop(stopCtx)
			}, nil
		},
		OpenFaults: func(ctx context.Context) (harness.Harness, func(), error) {
			if dsn != "" {
				return nil, nil, fmt.Errorf("--faults needs a server storecheck starts and may kill, not --dsn")
			}
			srv, err := pgcontainer.StartFaultable(ctx)
			if err != nil {
				return nil, nil, err
			}
			stop := func() {
				stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
				defer cancel()
				_ = srv.Stop(stopCtx)
			}
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
