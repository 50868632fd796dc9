// Package builtin holds the command line's adapters on database backends (postgres,
// redis, redis-cluster, river-postgres, river-sqlite) and links their benchmark targets.
// cmd/storecheck gives them to cli.Main; a store author's own main, which needs none of
// their drivers, leaves this package out:
//
//	func main() { cli.Main(builtin.Adapters()) }
package builtin

import (
	"github.com/storecheck/storecheck/cli"

	// The benchmark targets of the same backends (storecheck bench --adapter postgres).
	_ "github.com/storecheck/storecheck/benchmarks/dbtargets"
)

// Adapters is the option that adds every adapter of this package to the command line.
func Adapters() cli.Option {
	var as []cli.Adapter
	as = append(as, postgresAdapters()...)
	as = append(as, redisAdapters()...)
	as = append(as, riverAdapters()...)
	return cli.WithAdapters(as...)
}
