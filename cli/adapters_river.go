package cli

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/storecheck/storecheck/adapters/postgres/pgcontainer"
	"github.com/storecheck/storecheck/adapters/river"
	"github.com/storecheck/storecheck/conformance/harness"
)

func init() {
	var dsn, dir string
	addAdapter(adapter{
		name: "river-postgres",
		summary: "River job queue on PostgreSQL (riverpgxv5), both eras: each task row inserted with its job; " +
			"a container it starts itself, or --river-dsn (each spec in its own schema, migrated by rivermigrate)",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&dsn, "river-dsn", "", "river-postgres: connection string of an existing server (default: $"+
				pgcontainer.EnvURL+", else a container from $"+pgcontainer.EnvImage+" or "+pgcontainer.DefaultImage+")")
		},
		open: func(ctx context.Context, _ string) (harness.Harness, func(), error) {
			if dsn != "" {
				h := river.NewPostgresHarness(dsn)
				return h, h.Close, nil
			}
			url, stop, err := pgcontainer.Start(ctx)
			if err != nil {
				return nil, nil, fmt.Errorf("%w (or pass --river-dsn)", err)
			}
			h := river.NewPostgresHarness(url)
			return h, func() {
				h.Close()
				stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
				defer cancel()
				_ = stop(stopCtx)
			}, nil
		},
	})
	addAdapter(adapter{
		name: "river-sqlite",
		summary: "River job queue on SQLite (riversqlite, pure-Go modernc.org/sqlite), both eras: " +
			"each spec a fresh database file; needs nothing",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&dir, "river-sqlite-dir", "", "river-sqlite: directory for the database files (default: a temporary one, removed after)")
		},
		open: func(ctx context.Context, _ string) (harness.Harness, func(), error) {
			h, err := river.NewSQLiteHarness(dir)
			if err != nil {
				return nil, nil, err
			}
			return h, h.Close, nil
		},
	})
}
