package builtin

import (
	"context"
	"flag"
	"fmt"
	"github.com/storecheck/storecheck/cli"
	"time"

	"github.com/storecheck/storecheck/adapters/postgres/pgcontainer"
	"github.com/storecheck/storecheck/adapters/river"
	"github.com/storecheck/storecheck/conformance/harness"
)

func riverAdapters() (as []cli.Adapter) {
	var dsn, dir string
	as = append(as, cli.Adapter{
		Name: "river-postgres",
		Summary: "River job queue on PostgreSQL (riverpgxv5), both eras: each task row inserted with its job; " +
			"a container it starts itself, or --river-dsn (each spec in its own schema, migrated by rivermigrate)",
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&dsn, "river-dsn", "", "river-postgres: connection string of an existing server (default: $"+
				pgcontainer.EnvURL+", else a container from $"+pgcontainer.EnvImage+" or "+pgcontainer.DefaultImage+")")
		},
		Open: func(ctx context.Context) (harness.Harness, func(), error) {
			if dsn != "" {
				h := riverstore.NewPostgresHarness(dsn)
				return h, h.Close, nil
			}
			url, stop, err := pgcontainer.Start(ctx)
			if err != nil {
				return nil, nil, fmt.Errorf("%w (or pass --river-dsn)", err)
			}
			h := riverstore.NewPostgresHarness(url)
			return h, func() {
				h.Close()
				stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
				defer cancel()
				_ = stop(stopCtx)
			}, nil
		},
	})
	as = append(as, cli.Adapter{
		Name: "river-sqlite",
		Summary: "River job queue on SQLite (riversqlite, pure-Go modernc.org/sqlite), both eras: " +
			"each spec a fresh database file; needs nothing",
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&dir, "river-sqlite-dir", "", "river-sqlite: directory for the database files (default: a temporary one, removed after)")
		},
		Open: func(ctx context.Context) (harness.Harness, func(), error) {
			h, err := riverstore.NewSQLiteHarness(dir)
			if err != nil {
				return nil, nil, err
			}
			return h, h.Close, nil
		},
	})
	return as
}
