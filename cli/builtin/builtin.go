// Package builtin holds the command line's adapters on database backends (postgres,
// redis, redis-cluster, river-postgres, river-sqlite) and links their benchmark targets.
// cmd/storecheck gives them to cli.Main; a store author's own main, which needs none of
// their drivers, leaves this package out:
//
//	func main() { cli.Main(builtin.Adapters()) }
package builtin

import (
	"context"
	"fmt"
	"log"
	"time"

	tclog "github.com/testcontainers/testcontainers-go/log"

	"github.com/storecheck/storecheck/cli"

	// The benchmark targets of the same backends (storecheck bench --adapter postgres).
	_ "github.com/storecheck/storecheck/benchmarks/dbtargets"
)

// Adapters is the option that adds every adapter of this package to the command line.
func Adapters() cli.Option {
	// The container library's lines (created, started, stopped) go to the side log, shown
	// with -v only: what storecheck prints is its own.
	tclog.SetDefault(log.New(cli.SideLog(), "", log.LstdFlags))
	var as []cli.Adapter
	as = append(as, postgresAdapters()...)
	as = append(as, redisAdapters()...)
	as = append(as, riverAdapters()...)
	return cli.WithAdapters(as...)
}

// stopAfter stops what a bring-up started, for an adapter's cleanup: it gives stop a
// minute, even when ctx, the command's context, has already ended.
func stopAfter(ctx context.Context, stop func(context.Context) error) {
	stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	_ = stop(stopCtx)
}

// ownBackend refuses --faults on a backend given by flag (given is its value): the fault
// checks kill what they run on, so it must be a what storecheck starts itself.
func ownBackend(given, what, flag string) error {
	if given != "" {
		return fmt.Errorf("--faults needs a %s storecheck starts and may kill, not %s", what, flag)
	}
	return nil
}
