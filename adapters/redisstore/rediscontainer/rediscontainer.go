// Package rediscontainer brings up Redis for tests and the CLI: one server, or a Redis
// Cluster of three masters. Either an existing deployment named by an environment
// variable (STORECHECK_REDIS_URL, STORECHECK_REDIS_CLUSTER_URL), or containers started
// with testcontainers-go from the official image (redis:7-alpine) or from the local
// Debian image built by scripts/ready-machine (STORECHECK_REDIS_IMAGE=local).
//
// The cluster's containers share a Docker network made for them; the bring-up forms the
// cluster itself (CONFIG SET cluster-announce-ip, CLUSTER ADDSLOTS, CLUSTER MEET) and
// waits until every node reports cluster_state:ok. The nodes announce their addresses
// on that network, which the host may not route to; the returned ClusterOptions carry a
// Dialer that maps each announced address to the node's port published on the host (the
// address testcontainers reports, 127.0.0.1 with TESTCONTAINERS_HOST_OVERRIDE), and
// refuses any other address, so all traffic stays on the host's published ports.
package rediscontainer

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/network"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/storecheck/storecheck/adapters/internal/containers"
)

const (
	// EnvURL names an existing server to use instead of a container (a redis:// URL).
	EnvURL = "STORECHECK_REDIS_URL"
	// EnvClusterURL names an existing cluster instead of containers: a redis:// URL of one
	// node, more seed nodes as addr= parameters (redis.ParseClusterURL).
	EnvClusterURL = "STORECHECK_REDIS_CLUSTER_URL"
	// EnvImage selects the image: unset for the default, "local" for
	// containers.LocalImage, or an image name.
	EnvImage = "STORECHECK_REDIS_IMAGE"
	// DefaultImage is the official image.
	DefaultImage = "redis:7-alpine"
)

// ClusterSize is the number of masters StartCluster brings up.
const ClusterSize = 3

const port = "6379"

// protocol is RESP2: the store needs nothing of RESP3, and go-redis checks a RESP3
// connection for push notifications before every reply, which costs a system call per
// command (its share of the battery's client CPU is in docs/performance.md, "Figures
// behind other comments").
const protocol = 2

// serverArgs is the command of every container: the local image has no entrypoint, and
// the official one runs a command that starts with redis-server as it is. AOF is on
// (fsync every second, AOFEverySec), so the server keeps what it acknowledged across a
// restart, bar the last second's writes on a crash.
func serverArgs(extra ...string) []string { return persistentArgs(AOFEverySec, extra...) }

// persistentArgs is serverArgs with persistence p.
func persistentArgs(p Persistence, extra ...string) []string {
	args := append([]string{"redis-server", "--bind", "0.0.0.0", "--protected-mode", "no",
		"--port", port, "--dir", "/tmp"}, p.args()...)
	return append(args, extra...)
}

// Start returns the options of a ready Redis server and a function that stops it (a
// no-op for a server named by STORECHECK_REDIS_URL). Errors wrap containers.ErrNoDocker
// when no Docker engine answers. The caller must call stop: nothing else reaps the
// container.
func Start(ctx context.Context) (opts *redis.Options, stop func(context.Context) error, err error) {
	if u := strings.TrimSpace(os.Getenv(EnvURL)); u != "" {
		return existing(ctx, EnvURL, u, redis.ParseURL, func(ctx context.Context, opts *redis.Options) error {
			opts.ContextTimeoutEnabled = true
			return pingNew(ctx, opts, 10*time.Second)
		})
	}
	img, err := image(ctx)
	if err != nil {
		return nil, nil, err
	}
	ctr, err := run(ctx, img)
	stop = terminator(ctr)
	if err != nil {
		_ = stop(context.WithoutCancel(ctx))
		return nil, nil, fmt.Errorf("rediscontainer: image %s: %w", img, err)
	}
	addr, err := published(ctx, ctr)
	if err == nil {
		opts = &redis.Options{Addr: addr, ContextTimeoutEnabled: true, Protocol: protocol}
		err = pingNew(ctx, opts, 60*time.Second)
	}
	if err != nil {
		_ = stop(context.WithoutCancel(ctx))
		return nil, nil, fmt.Errorf("rediscontainer: image %s: %w", img, err)
	}
	return opts, stop, nil
}

// StartCluster returns the options of a ready Redis Cluster of ClusterSize masters and a
// function that stops it (a no-op for a cluster named by STORECHECK_REDIS_CLUSTER_URL).
// Errors wrap containers.ErrNoDocker when no Docker engine answers. The caller must call
// stop.
func StartCluster(ctx context.Context) (opts *redis.ClusterOptions, stop func(context.Context) error, err error) {
	if u := strings.TrimSpace(os.Getenv(EnvClusterURL)); u != "" {
		return existing(ctx, EnvClusterURL, u, redis.ParseClusterURL, func(ctx context.Context, opts *redis.ClusterOptions) error {
			opts.ContextTimeoutEnabled = true
			c := redis.NewClusterClient(opts)
			defer c.Close()
			return waitCluster(ctx, c, 10*time.Second)
		})
	}
	img, err := image(ctx)
	if err != nil {
		return nil, nil, err
	}
	started := &clusterContainers{}
	stop = started.stop
	fail := func(err error) (*redis.ClusterOptions, func(context.Context) error, error) {
		_ = stop(context.WithoutCancel(ctx))
		return nil, nil, fmt.Errorf("rediscontainer: cluster of image %s: %w", img, err)
	}
	if started.nw, err = network.New(ctx); err != nil {
		return fail(fmt.Errorf("create network: %w", err))
	}
	route, seeds, err := started.startNodes(ctx, img)
	if err != nil {
		return fail(err)
	}
	opts = &redis.ClusterOptions{
		Addrs:                 seeds,
		ContextTimeoutEnabled: true,
		Protocol:              protocol,
		Dialer: routeDialer(func(addr string) (string, bool) {
			to, ok := route[addr]
			return to, ok
		}),
	}
	c := redis.NewClusterClient(opts)
	defer c.Close()
	if err := waitCluster(ctx, c, 30*time.Second); err != nil {
		return fail(err)
	}
	return opts, stop, nil
}

// existing is the options of the deployment at url, named by envVar, once ready (which
// also turns context timeouts on: go-redis's two option types share no interface) has
// found it answering; its stop is a no-op, since storecheck did not start it.
func existing[O any](ctx context.Context, envVar, url string, parse func(string) (*O, error),
	ready func(context.Context, *O) error,
) (*O, func(context.Context) error, error) {
	opts, err := parse(url)
	if err == nil {
		err = ready(ctx, opts)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("rediscontainer: %s: %w", envVar, err)
	}
	return opts, func(context.Context) error { return nil }, nil
}

// form makes one cluster of nodes: each announces its address on the network, takes an
// equal share of the 16384 slots, and the first meets the others. It returns when every
// node reports cluster_state:ok with all nodes known.
func form(ctx context.Context, nodes []*redis.Client, ips []string) error {
	const slots = 16384
	for i, n := range nodes {
		if err := ping(ctx, n, 60*time.Second); err != nil {
			return fmt.Errorf("node %d: %w", i, err)
		}
		if err := n.ConfigSet(ctx, "cluster-announce-ip", ips[i]).Err(); err != nil {
			return fmt.Errorf("node %d: CONFIG SET cluster-announce-ip: %w", i, err)
		}
		lo, hi := i*slots/len(nodes), (i+1)*slots/len(nodes)-1
		if err := n.ClusterAddSlotsRange(ctx, lo, hi).Err(); err != nil {
			return fmt.Errorf("node %d: CLUSTER ADDSLOTS %d..%d: %w", i, lo, hi, err)
		}
	}
	for i := 1; i < len(nodes); i++ {
		if err := nodes[0].ClusterMeet(ctx, ips[i], port).Err(); err != nil {
			return fmt.Errorf("CLUSTER MEET %s: %w", ips[i], err)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	want := fmt.Sprintf("cluster_known_nodes:%d", len(nodes))
	for {
		ready := 0
		var last string
		for _, n := range nodes {
			info, err := n.ClusterInfo(ctx).Result()
			if err == nil && strings.Contains(info, "cluster_state:ok") && strings.Contains(info, want) {
				ready++
			} else if err != nil {
				last = err.Error()
			} else {
				last = firstLine(info, "cluster_state:")
			}
		}
		if ready == len(nodes) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster not ok within 60s (%d of %d nodes ok; last: %s)", ready, len(nodes), last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func firstLine(info, prefix string) string {
	for _, l := range strings.Split(info, "\n") {
		if strings.HasPrefix(l, prefix) {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// waitCluster waits until a cluster client can write to every master (the client has the
// slot map and every node answers).
func waitCluster(ctx context.Context, c *redis.ClusterClient, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	for {
		last = c.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error {
			return n.Ping(ctx).Err()
		})
		if last == nil {
			// One key per third of the slot space, so that every master is reached
			// through the client's own routing.
			for _, k := range []string{"{a}", "{b}", "{c}"} {
				if last = c.Exists(ctx, k).Err(); last != nil {
					break
				}
			}
		}
		if last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster did not answer within %s: %w", timeout, last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func image(ctx context.Context) (containers.Image, error) {
	if err := containers.DockerAvailable(ctx); err != nil {
		return containers.Image{}, fmt.Errorf("rediscontainer: %w", err)
	}
	img, err := containers.ResolveImage(ctx, EnvImage, DefaultImage)
	if err != nil {
		return containers.Image{}, fmt.Errorf("rediscontainer: %w", err)
	}
	return img, nil
}

// clusterContainers are the containers and the network of a cluster StartCluster starts.
type clusterContainers struct {
	ctrs []testcontainers.Container
	nw   *testcontainers.DockerNetwork
}

func (cc *clusterContainers) stop(ctx context.Context) error {
	var errs []error
	for _, c := range cc.ctrs {
		errs = append(errs, terminator(c)(ctx))
	}
	if cc.nw != nil {
		errs = append(errs, cc.nw.Remove(ctx))
	}
	return errors.Join(errs...)
}

// startNodes starts ClusterSize primaries on cc.nw and forms them into a cluster. route
// maps each node's announced address (on the network) and its published one (on the
// host) to the published one; seeds are the published ones.
func (cc *clusterContainers) startNodes(ctx context.Context, img containers.Image) (route map[string]string, seeds []string, err error) {
	route = map[string]string{}
	nodes := make([]*redis.Client, 0, ClusterSize)
	defer func() {
		for _, n := range nodes {
			_ = n.Close()
		}
	}()
	var ips []string
	for i := range ClusterSize {
		ctr, err := run(ctx, img,
			network.WithNetwork([]string{fmt.Sprintf("redis-%d", i)}, cc.nw),
			testcontainers.WithCmd(serverArgs("--cluster-enabled", "yes",
				"--cluster-config-file", "/tmp/nodes.conf", "--cluster-node-timeout", "5000")...))
		if ctr != nil {
			cc.ctrs = append(cc.ctrs, ctr)
		}
		if err != nil {
			return nil, nil, err
		}
		addr, err := published(ctx, ctr)
		if err != nil {
			return nil, nil, err
		}
		ip, err := networkIP(ctx, ctr, cc.nw.Name)
		if err != nil {
			return nil, nil, err
		}
		ips = append(ips, ip)
		route[net.JoinHostPort(ip, port)] = addr
		route[addr] = addr
		seeds = append(seeds, addr)
		nodes = append(nodes, redis.NewClient(&redis.Options{Addr: addr}))
	}
	if err := form(ctx, nodes, ips); err != nil {
		return nil, nil, err
	}
	return route, seeds, nil
}

// routeDialer dials, for a node's address, the address lookup routes it to; an address
// lookup does not know is no node of the cluster.
func routeDialer(lookup func(addr string) (string, bool)) func(ctx context.Context, netw, addr string) (net.Conn, error) {
	return func(ctx context.Context, netw, addr string) (net.Conn, error) {
		to, ok := lookup(addr)
		if !ok {
			return nil, fmt.Errorf("rediscontainer: %s is not a node of this cluster", addr)
		}
		var d net.Dialer
		return d.DialContext(ctx, netw, to)
	}
}

// run starts one Redis container with its port published. Both kinds of image get the
// command: the local one has no entrypoint, the official one passes a command that
// starts with redis-server through.
func run(ctx context.Context, img containers.Image, opts ...testcontainers.ContainerCustomizer) (testcontainers.Container, error) {
	all := append([]testcontainers.ContainerCustomizer{
		testcontainers.WithCmd(serverArgs()...),
		testcontainers.WithExposedPorts(port + "/tcp"),
		// The port check of wait.ForListeningPort needs tools the local image lacks;
		// the callers ping for real afterwards.
		testcontainers.WithWaitStrategy(wait.ForLog("Ready to accept connections").WithStartupTimeout(2 * time.Minute)),
	}, opts...)
	ctr, err := testcontainers.Run(ctx, img.Name, all...)
	if ctr == nil {
		// A nil *DockerContainer in the interface would not compare equal to nil: the
		// callers' "if ctr != nil" would keep a container that never started.
		return nil, err
	}
	return ctr, err
}

func terminator(ctr testcontainers.Container) func(context.Context) error {
	return func(ctx context.Context) error {
		if ctr == nil {
			return nil
		}
		return testcontainers.TerminateContainer(ctr, testcontainers.StopContext(ctx))
	}
}

// published is the host address of the container's Redis port.
func published(ctx context.Context, ctr testcontainers.Container) (string, error) {
	host, err := ctr.Host(ctx)
	if err != nil {
		return "", err
	}
	p, err := ctr.MappedPort(ctx, port+"/tcp")
	if err != nil {
		return "", err
	}
	return net.JoinHostPort(host, p.Port()), nil
}

// networkIP is the container's address on the named network.
func networkIP(ctx context.Context, ctr testcontainers.Container, name string) (string, error) {
	info, err := ctr.Inspect(ctx)
	if err != nil {
		return "", err
	}
	if ep, ok := info.NetworkSettings.Networks[name]; ok && ep != nil && ep.IPAddress.IsValid() {
		return ep.IPAddress.String(), nil
	}
	return "", fmt.Errorf("container %s has no address on network %s", ctr.GetContainerID(), name)
}

// pingNew pings a new client on opts, then closes it.
func pingNew(ctx context.Context, opts *redis.Options, timeout time.Duration) error {
	c := redis.NewClient(opts)
	defer c.Close()
	return ping(ctx, c, timeout)
}

// ping sends PING until the server answers or timeout passes.
func ping(ctx context.Context, c *redis.Client, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	for {
		if last = c.Ping(ctx).Err(); last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("server did not answer within %s: %w", timeout, last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
