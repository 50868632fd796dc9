package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/mcp/cluster"
	"github.com/storecheck/storecheck/mcp/server"
	"github.com/storecheck/storecheck/reference"
)

// instanceFlags are serve --mcp's flags for one instance of several over one store.
type instanceFlags struct {
	namespace string
	secretEnv string
	lease     time.Duration
}

func (f *instanceFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.namespace, "namespace", "", "with --mcp: serve the adapter's namespace `NAME` (a Postgres schema, a Redis key prefix), made\n"+
		"by the first instance and kept: instances started with the same NAME, adapter and server are one\n"+
		"MCP server (docs/mcp.md, Deployment); needs --secret-env")
	fs.StringVar(&f.secretEnv, "secret-env", "", "with --namespace: the environment `VAR` holding the secret every instance signs cursors and\nrequestState with")
	fs.DurationVar(&f.lease, "lease", server.DefaultLease, "with --namespace: how long a task's work stays leased to its instance without renewal;\nanother instance ends it failed once the lease runs out")
}

// namedHarness is a harness that opens a namespace by name (the Postgres and Redis
// adapters).
type namedHarness interface {
	OpenNamed(ctx context.Context, clock reference.Clock, name string) (harness.Namespace, error)
}

// clusterNamespace is a namespace with what instances share beyond its tasks.
type clusterNamespace interface {
	Cluster(ctx context.Context) (cluster.Backend, error)
}

var (
	errNotShared = errors.New("--namespace: the adapter cannot share a namespace between instances (postgres, river-postgres, redis and redis-cluster can, on a server given by --dsn, --river-dsn, --redis-url or --redis-cluster-url)")
	errNoSecret  = errors.New("--namespace needs --secret-env naming a variable that holds the instances' shared secret")
)

// secret is the instances' shared secret ("" when none is given).
func (f instanceFlags) secret() string {
	if f.secretEnv == "" {
		return ""
	}
	return os.Getenv(f.secretEnv)
}

// open is the namespace served: a fresh one, or the named one.
func (f instanceFlags) open(ctx context.Context, h harness.Harness) (harness.Namespace, error) {
	if f.namespace == "" {
		return h.Open(ctx, reference.SystemClock{})
	}
	if f.secret() == "" {
		return nil, errNoSecret
	}
	nh, ok := h.(namedHarness)
	if !ok {
		return nil, errNotShared
	}
	return nh.OpenNamed(ctx, reference.SystemClock{}, f.namespace)
}

// join makes cfg one instance of the named namespace's deployment: the shared secret,
// the namespace's signals and leases (closed with the server's context).
func (f instanceFlags) join(ctx context.Context, ns harness.Namespace, cfg *server.Config) error {
	if f.namespace == "" {
		return nil
	}
	cn, ok := ns.(clusterNamespace)
	if !ok {
		return errNotShared
	}
	b, err := cn.Cluster(ctx)
	if err != nil {
		return fmt.Errorf("--namespace %s: %w", f.namespace, err)
	}
	context.AfterFunc(ctx, func() { b.Close() })
	cfg.Secret, cfg.Signals, cfg.Leases, cfg.Lease = []byte(f.secret()), b, b, f.lease
	return nil
}
