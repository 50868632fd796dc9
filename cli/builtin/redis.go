package builtin

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"

	"github.com/redis/go-redis/v9"

	"github.com/storecheck/storecheck/adapters/redisstore"
	"github.com/storecheck/storecheck/adapters/redisstore/rediscontainer"
	"github.com/storecheck/storecheck/cli"
	"github.com/storecheck/storecheck/conformance/harness"
)

func redisAdapters() []cli.Adapter {
	f := &redisFlags{}
	return []cli.Adapter{f.node(), f.cluster()}
}

// redisFlags holds the Redis adapters' flags; persistence and buckets are shared by both.
type redisFlags struct {
	persistence     string
	url, clusterURL string
	buckets         int
}

// shared registers the flags both adapters read.
func (f *redisFlags) shared(fs *flag.FlagSet) {
	fs.StringVar(&f.persistence, "redis-persistence", string(rediscontainer.AOFAlways), "redis, redis-cluster with --faults: the containers' persistence: always (appendonly yes,\nappendfsync always), everysec, or default (Redis's own: no AOF, RDB snapshots)")
	fs.IntVar(&f.buckets, "redis-buckets", 0, "redis, redis-cluster: index buckets per namespace (default 4 on one node, 12 on a cluster)")
}

// bucketsFor is --redis-buckets, or def (the adapter's default) when it is not given.
func (f *redisFlags) bucketsFor(def int) int {
	if f.buckets > 0 {
		return f.buckets
	}
	return def
}

// faultPersistence is the persistence of the containers --faults starts; given, the
// URL flag's value, names a deployment storecheck may not kill.
func (f *redisFlags) faultPersistence(given, what, flag string) (rediscontainer.Persistence, error) {
	if err := ownBackend(given, what, flag); err != nil {
		return "", err
	}
	return rediscontainer.ParsePersistence(f.persistence)
}

// node is the adapter for one Redis server.
func (f *redisFlags) node() cli.Adapter {
	return cli.Adapter{
		Name:    "redis",
		Summary: "Redis, one node, both eras: a container it starts itself, or --redis-url (each spec on its own key prefix, deleted after)",
		// Each process its own container; never a shared server, which S-CTX-1's
		// CLIENT PAUSE holds for every client.
		Parallel: func() int {
			if f.url != "" || os.Getenv(rediscontainer.EnvURL) != "" {
				return 1
			}
			return runtime.NumCPU()
		},
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&f.url, "redis-url", "", "redis: URL of an existing server, redis://host:port/db (default: $"+
				rediscontainer.EnvURL+", else a container from $"+rediscontainer.EnvImage+" or "+rediscontainer.DefaultImage+")")
			f.shared(fs)
		},
		OpenFaults: func(ctx context.Context) (harness.Harness, func(), error) {
			p, err := f.faultPersistence(f.url, "server", "--redis-url")
			if err != nil {
				return nil, nil, err
			}
			srv, err := rediscontainer.StartFaultable(ctx, p)
			if err != nil {
				return nil, nil, err
			}
			h := redisstore.NewHarness("redis ("+string(p)+")", redisstore.Clients(srv.Options), f.bucketsFor(4))
			fh := redisstore.NewFaultHarness(h, srv.Faults, harness.Durability{MayLoseOnCrash: p.LosesOnCrash(), Setting: p.Setting()})
			return fh, closer(ctx, h, srv.Stop), nil
		},
		Open: func(ctx context.Context) (harness.Harness, func(), error) {
			opts, stop, err := openRedis(ctx, f.url)
			if err != nil {
				return nil, nil, err
			}
			h := redisstore.NewHarness("redis", redisstore.Clients(opts), f.bucketsFor(4))
			return h, closer(ctx, h, stop), nil
		},
	}
}

// cluster is the adapter for a Redis Cluster.
func (f *redisFlags) cluster() cli.Adapter {
	return cli.Adapter{
		Name:    "redis-cluster",
		Summary: "Redis Cluster, both eras: three masters in containers it starts itself, or --redis-cluster-url",
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&f.clusterURL, "redis-cluster-url", "", "redis-cluster: URL of an existing cluster, redis://host:port?addr=host2:port2 (default: $"+
				rediscontainer.EnvClusterURL+", else containers)")
		},
		OpenFaults: func(ctx context.Context) (harness.Harness, func(), error) {
			p, err := f.faultPersistence(f.clusterURL, "cluster", "--redis-cluster-url")
			if err != nil {
				return nil, nil, err
			}
			c, err := rediscontainer.StartFaultableCluster(ctx, p)
			if err != nil {
				return nil, nil, err
			}
			h := redisstore.NewHarness("redis-cluster ("+string(p)+")", redisstore.ClusterClients(c.Options), f.bucketsFor(12))
			fh := &redisstore.FailoverHarness{
				FaultHarness: redisstore.NewFaultHarness(h, c, harness.Durability{
					MayLoseOnCrash: p.LosesOnCrash(), MayLoseOnFailover: true,
					Setting: p.Setting() + "; replicas asynchronous",
				}),
				Failover: c,
			}
			return fh, closer(ctx, h, c.Stop), nil
		},
		Open: func(ctx context.Context) (harness.Harness, func(), error) {
			opts, stop, err := openCluster(ctx, f.clusterURL)
			if err != nil {
				return nil, nil, err
			}
			h := redisstore.NewHarness("redis-cluster", redisstore.ClusterClients(opts), f.bucketsFor(12))
			return h, closer(ctx, h, stop), nil
		},
	}
}

func openRedis(ctx context.Context, url string) (*redis.Options, func(context.Context) error, error) {
	return openOrStart(ctx, url, "--redis-url", redis.ParseURL, rediscontainer.Start,
		func(o *redis.Options) { o.ContextTimeoutEnabled = true })
}

func openCluster(ctx context.Context, url string) (*redis.ClusterOptions, func(context.Context) error, error) {
	return openOrStart(ctx, url, "--redis-cluster-url", redis.ParseClusterURL, rediscontainer.StartCluster,
		func(o *redis.ClusterOptions) { o.ContextTimeoutEnabled = true })
}

// openOrStart is the options of the server (or cluster) at url, given by flag, with
// context timeouts turned on (timeouts sets them: go-redis's two option types share no
// interface); with url empty, those of one start brings up, and its stop.
func openOrStart[O any](ctx context.Context, url, flag string, parse func(string) (*O, error),
	start func(context.Context) (*O, func(context.Context) error, error), timeouts func(*O),
) (*O, func(context.Context) error, error) {
	if url == "" {
		opts, stop, err := start(ctx)
		if err != nil {
			return nil, nil, fmt.Errorf("%w (or pass %s)", err, flag)
		}
		return opts, stop, nil
	}
	opts, err := parse(url)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", flag, err)
	}
	timeouts(opts)
	return opts, nil, nil
}

// closer closes the harness, then stops what the bring-up started (if anything).
func closer(ctx context.Context, h *redisstore.Harness, stop func(context.Context) error) func() {
	return func() {
		h.Close()
		if stop != nil {
			stopAfter(ctx, stop)
		}
	}
}
