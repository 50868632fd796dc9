package builtin

import (
	"context"
	"flag"

	"github.com/storecheck/storecheck/adapters/riverstore"
	"github.com/storecheck/storecheck/cli"
	"github.com/storecheck/storecheck/conformance/harness"
)

func riverAdapters() (as []cli.Adapter) {
	var dsn, dir string
	as = append(as, cli.Adapter{
		Name: "river-postgres",
		Summary: "River job queue on PostgreSQL (riverpgxv5), both eras: each task row inserted with its job; " +
			"a container it starts itself, or --river-dsn (each spec in its own schema, migrated by rivermigrate)",
		Flags: func(fs *flag.FlagSet) {
			dsnFlag(fs, &dsn, "river-dsn", "river-postgres")
		},
		Open: func(ctx context.Context) (harness.Harness, func(), error) {
			return onPostgres(ctx, dsn, "--river-dsn", riverstore.NewPostgresHarness)
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
