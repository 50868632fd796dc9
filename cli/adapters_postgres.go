package cli

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/storecheck/storecheck/adapters/postgres"
	"github.com/storecheck/storecheck/adapters/postgres/pgcontainer"
	"github.com/storecheck/storecheck/conformance/harness"
)

func init() {
	var dsn string
	addAdapter(adapter{
		name:    "postgres",
		summary: "PostgreSQL, both eras: a container it starts itself, or --dsn (each spec in its own schema, dropped after)",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&dsn, "dsn", "", "postgres: connection string of an existing server (default: $"+
				pgcontainer.EnvURL+", else a container from $"+pgcontainer.EnvImage+" or "+pgcontainer.DefaultImage+")")
		},
		open: func(ctx context.Context, _ string) (harness.Harness, func(), error) {
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
		openFaults: func(ctx context.Context, _ string) (harness.Harness, func(), error) {
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
}
