package rediscontainer

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/network"

	"github.com/storecheck/storecheck/adapters/internal/containers"
)

// Persistence is how a Redis server keeps what it acknowledged.
type Persistence string

const (
	// AOFAlways: appendonly yes, appendfsync always. Every write is in the AOF, fsynced,
	// before Redis answers: a crash loses nothing acknowledged.
	AOFAlways Persistence = "always"
	// AOFEverySec: appendonly yes, appendfsync everysec (the battery's containers): a
	// crash may lose about the last second of acknowledged writes.
	AOFEverySec Persistence = "everysec"
	// Default: Redis's own defaults, what `redis-server` without a configuration does:
	// no AOF, RDB snapshots after 3600 s with 1 change, 300 s with 100, 60 s with 10 000.
	// A crash loses every write since the last snapshot.
	Default Persistence = "default"
)

// ParsePersistence accepts always, everysec and default.
func ParsePersistence(s string) (Persistence, error) {
	switch p := Persistence(strings.TrimSpace(s)); p {
	case AOFAlways, AOFEverySec, Default:
		return p, nil
	}
	return "", fmt.Errorf("redis persistence %q: want always, everysec or default", s)
}

func (p Persistence) args() []string {
	switch p {
	case AOFAlways:
		return []string{"--appendonly", "yes", "--appendfsync", "always", "--save", ""}
	case Default:
		return nil
	}
	return []string{"--appendonly", "yes", "--appendfsync", "everysec", "--save", ""}
}

// Setting describes p for reports.
func (p Persistence) Setting() string {
	switch p {
	case AOFAlways:
		return "appendonly yes, appendfsync always"
	case Default:
		return "Redis defaults: appendonly no, save 3600 1 300 100 60 10000"
	}
	return "appendonly yes, appendfsync everysec"
}

// LosesOnCrash reports whether a crash may lose acknowledged writes under p.
func (p Persistence) LosesOnCrash() bool { return p != AOFAlways }

// want is the persistence configuration a server started with p reports
// (CONFIG GET): what the durability declared from p rests on.
func (p Persistence) want() map[string]string {
	switch p {
	case AOFAlways:
		return map[string]string{"appendonly": "yes", "appendfsync": "always", "save": ""}
	case Default:
		return map[string]string{"appendonly": "no", "save": "3600 1 300 100 60 10000"}
	}
	return map[string]string{"appendonly": "yes", "appendfsync": "everysec", "save": ""}
}

// CheckConfig compares a server's CONFIG GET answers (appendonly, appendfsync, save)
// with what p sets: the durability declared from the command line is the server's
// only if the server says so (an image's redis.conf or a changed default would
// otherwise go unnoticed).
func (p Persistence) CheckConfig(got map[string]string) error {
	var bad []string
	for _, k := range []string{"appendonly", "appendfsync", "save"} {
		want, ok := p.want()[k]
		if !ok {
			continue
		}
		if v, present := got[k]; !present || v != want {
			bad = append(bad, fmt.Sprintf("%s is %q, want %q", k, v, want))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("redis persistence %s: the server's CONFIG GET disagrees: %s", p, strings.Join(bad, "; "))
	}
	return nil
}

// VerifyConfig reads the server's persistence configuration (CONFIG GET) and checks
// it against p (CheckConfig).
func (p Persistence) VerifyConfig(ctx context.Context, c *redis.Client) error {
	got := map[string]string{}
	for _, k := range []string{"appendonly", "appendfsync", "save"} {
		m, err := c.ConfigGet(ctx, k).Result()
		if err != nil {
			return fmt.Errorf("CONFIG GET %s: %w", k, err)
		}
		for kk, v := range m {
			got[kk] = v
		}
	}
	return p.CheckConfig(got)
}

// Server is a Redis server in a container that faults can be injected into.
type Server struct {
	Options     *redis.Options
	Persistence Persistence
	// Faults pauses, kills and restarts the container; after a restart the server
	// answers at Options.Addr again (its port is pinned, its data kept).
	Faults *containers.Faults
	Stop   func(context.Context) error
}

// StartFaultable starts a Redis server with persistence p for the fault checks: always a
// container (never STORECHECK_REDIS_URL, a server that is not ours to kill), its port
// pinned so that it comes back at the same address. The caller must call Stop.
func StartFaultable(ctx context.Context, p Persistence) (*Server, error) {
	quietClientLogs()
	img, err := image(ctx)
	if err != nil {
		return nil, err
	}
	_, _ = containers.ReapOrphans(ctx)
	ctr, err := run(ctx, img, testcontainers.WithCmd(persistentArgs(p)...), containers.PinPorts(port+"/tcp"),
		testcontainers.WithLabels(containers.Owned()))
	stop := terminator(ctr)
	var opts *redis.Options
	if err == nil {
		var addr string
		addr, err = published(ctx, ctr)
		opts = &redis.Options{Addr: addr, ContextTimeoutEnabled: true, Protocol: protocol}
	}
	if err == nil {
		err = pingNew(ctx, opts, 60*time.Second)
	}
	if err == nil {
		c := redis.NewClient(opts)
		err = p.VerifyConfig(ctx, c)
		_ = c.Close()
	}
	if err != nil {
		_ = stop(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("rediscontainer: image %s: %w", img, err)
	}
	return &Server{Options: opts, Persistence: p, Stop: stop, Faults: &containers.Faults{
		ID:    ctr.GetContainerID(),
		Ready: func(ctx context.Context) error { return pingNew(ctx, opts, 5*time.Second) },
	}}, nil
}

// Cluster is a Redis Cluster of ClusterSize primaries, each with one replica, in
// containers that faults can be injected into: the whole cluster paused, killed and
// restarted, or one primary killed and its replica promoted.
type Cluster struct {
	Options     *redis.ClusterOptions
	Persistence Persistence

	nw    *testcontainers.DockerNetwork
	nodes []*clusterNode
	route *routes

	mu     sync.Mutex
	killed *clusterNode
}

type clusterNode struct {
	name   string
	ctr    testcontainers.Container
	faults *containers.Faults
	addr   string // published on the host
	ip     string // on the cluster's network
}

// routes maps an announced address (on the network) to the published one; a node
// started again may get another address on the network, so routes can change.
type routes struct {
	mu sync.Mutex
	m  map[string]string
}

func (r *routes) get(addr string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	to, ok := r.m[addr]
	return to, ok
}

func (r *routes) set(from, to string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.m[from] = to
}

// nodeTimeout is the faultable cluster's cluster-node-timeout: a dead primary is
// replaced by its replica about this long after it died.
const nodeTimeout = 2000

// StartFaultableCluster starts a cluster of ClusterSize primaries and ClusterSize
// replicas with persistence p, ports pinned. The caller must call Stop.
func StartFaultableCluster(ctx context.Context, p Persistence) (*Cluster, error) {
	quietClientLogs()
	img, err := image(ctx)
	if err != nil {
		return nil, err
	}
	_, _ = containers.ReapOrphans(ctx)
	c := &Cluster{Persistence: p, route: &routes{m: map[string]string{}}}
	if err := c.start(ctx, img); err != nil {
		_ = c.Stop(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("rediscontainer: cluster of image %s: %w", img, err)
	}
	return c, nil
}

// start starts c's nodes on a network of their own, forms them into a healthy cluster
// and sets c.Options once a cluster client is served.
func (c *Cluster) start(ctx context.Context, img containers.Image) error {
	var err error
	if c.nw, err = network.New(ctx); err != nil {
		return fmt.Errorf("create network: %w", err)
	}
	for i := range 2 * ClusterSize {
		if err := c.startNode(ctx, img, i); err != nil {
			return err
		}
	}
	if err := c.form(ctx); err != nil {
		return err
	}
	if err := c.waitHealthy(ctx, 60*time.Second); err != nil {
		return err
	}
	var seeds []string
	for _, n := range c.nodes[:ClusterSize] {
		seeds = append(seeds, n.addr)
	}
	c.Options = &redis.ClusterOptions{
		Addrs:                 seeds,
		ContextTimeoutEnabled: true,
		Protocol:              protocol,
		// go-redis reloads the slot map on MOVED, and otherwise every 60 s by default:
		// a client whose primary died keeps dialling it (connection refused, no MOVED)
		// for up to a minute after its replica took over. Reloading every second is what
		// makes the store serve again within seconds of a failover (F-RECOVER-1).
		ClusterStateReloadInterval: time.Second,
		Dialer:                     routeDialer(c.route.get),
	}
	cc := redis.NewClusterClient(c.Options)
	defer cc.Close()
	return waitCluster(ctx, cc, 30*time.Second)
}

// startNode starts node i (a primary below ClusterSize, a replica from there) and
// routes its announced and published addresses to the published one.
func (c *Cluster) startNode(ctx context.Context, img containers.Image, i int) error {
	name := fmt.Sprintf("redis-%d", i)
	ctr, err := run(ctx, img,
		network.WithNetwork([]string{name}, c.nw),
		containers.PinPorts(port+"/tcp"),
		testcontainers.WithLabels(containers.Owned()),
		testcontainers.WithCmd(persistentArgs(c.Persistence, "--cluster-enabled", "yes",
			"--cluster-config-file", "/tmp/nodes.conf", "--cluster-node-timeout", fmt.Sprint(nodeTimeout))...))
	if ctr != nil {
		c.nodes = append(c.nodes, &clusterNode{name: name, ctr: ctr})
	}
	if err != nil {
		return err
	}
	n := c.nodes[i]
	if n.addr, err = published(ctx, ctr); err != nil {
		return err
	}
	if n.ip, err = networkIP(ctx, ctr, c.nw.Name); err != nil {
		return err
	}
	c.route.set(net.JoinHostPort(n.ip, port), n.addr)
	c.route.set(n.addr, n.addr)
	addr := n.addr
	n.faults = &containers.Faults{ID: ctr.GetContainerID(), Ready: func(ctx context.Context) error {
		return pingNew(ctx, &redis.Options{Addr: addr, Protocol: protocol}, 5*time.Second)
	}}
	return nil
}

// form makes the cluster of c's started nodes: the primaries form it as StartCluster's
// do; then each replica meets it and replicates its primary. Every node's persistence
// is verified.
func (c *Cluster) form(ctx context.Context) error {
	clients := c.clients()
	defer closeAll(clients)
	ips := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		ips[i] = n.ip
	}
	if err := form(ctx, clients[:ClusterSize], ips[:ClusterSize]); err != nil {
		return err
	}
	for i := range ClusterSize {
		if err := c.Persistence.VerifyConfig(ctx, clients[i]); err != nil {
			return fmt.Errorf("primary %d: %w", i, err)
		}
	}
	for i := ClusterSize; i < len(c.nodes); i++ {
		r := clients[i]
		if err := ping(ctx, r, 60*time.Second); err != nil {
			return fmt.Errorf("replica %d: %w", i, err)
		}
		if err := c.Persistence.VerifyConfig(ctx, r); err != nil {
			return fmt.Errorf("replica %d: %w", i, err)
		}
		if err := r.ConfigSet(ctx, "cluster-announce-ip", ips[i]).Err(); err != nil {
			return fmt.Errorf("replica %d: CONFIG SET cluster-announce-ip: %w", i, err)
		}
		if err := r.ClusterMeet(ctx, ips[0], port).Err(); err != nil {
			return fmt.Errorf("replica %d: CLUSTER MEET: %w", i, err)
		}
	}
	for i := ClusterSize; i < len(c.nodes); i++ {
		primary, err := clients[i-ClusterSize].ClusterMyID(ctx).Result()
		if err != nil {
			return err
		}
		if err := retry(ctx, 30*time.Second, func() error {
			return clients[i].ClusterReplicate(ctx, primary).Err()
		}); err != nil {
			return fmt.Errorf("replica %d: CLUSTER REPLICATE %s: %w", i, primary, err)
		}
	}
	return nil
}

func (c *Cluster) clients() []*redis.Client {
	var out []*redis.Client
	for _, n := range c.nodes {
		out = append(out, redis.NewClient(&redis.Options{Addr: n.addr, Protocol: protocol}))
	}
	return out
}

func closeAll(cs []*redis.Client) {
	for _, c := range cs {
		_ = c.Close()
	}
}

func retry(ctx context.Context, timeout time.Duration, fn func() error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		err := fn()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// waitHealthy waits until every live node reports cluster_state:ok and every primary
// that should have a replica has one whose link is up.
func (c *Cluster) waitHealthy(ctx context.Context, timeout time.Duration) error {
	clients := c.clients()
	defer closeAll(clients)
	return retry(ctx, timeout, func() error {
		up := 0
		for i, cl := range clients {
			if c.isKilled(c.nodes[i]) {
				continue
			}
			info, err := cl.ClusterInfo(ctx).Result()
			if err != nil {
				return fmt.Errorf("%s: %w", c.nodes[i].name, err)
			}
			if !strings.Contains(info, "cluster_state:ok") {
				return fmt.Errorf("%s: %s", c.nodes[i].name, firstLine(info, "cluster_state:"))
			}
			repl, err := cl.Info(ctx, "replication").Result()
			if err != nil {
				return err
			}
			if strings.Contains(repl, "role:slave") {
				if !strings.Contains(repl, "master_link_status:up") {
					return fmt.Errorf("%s: replica link down", c.nodes[i].name)
				}
				up++
			}
		}
		if c.killedNode() == nil && up != ClusterSize {
			return fmt.Errorf("%d of %d replicas replicating", up, ClusterSize)
		}
		return nil
	})
}

func (c *Cluster) isKilled(n *clusterNode) bool { return c.killedNode() == n }

func (c *Cluster) killedNode() *clusterNode {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.killed
}

// Stop removes every container and the network.
func (c *Cluster) Stop(ctx context.Context) error {
	var errs []error
	for _, n := range c.nodes {
		errs = append(errs, terminator(n.ctr)(ctx))
	}
	if c.nw != nil {
		errs = append(errs, c.nw.Remove(ctx))
	}
	return errors.Join(errs...)
}

// Pause freezes every node.
func (c *Cluster) Pause(ctx context.Context) error {
	return c.each(func(n *clusterNode) error { return n.faults.Pause(ctx) })
}

// Unpause thaws every node.
func (c *Cluster) Unpause(ctx context.Context) error {
	if err := c.each(func(n *clusterNode) error { return n.faults.Unpause(ctx) }); err != nil {
		return err
	}
	return c.waitHealthy(ctx, time.Minute)
}

// Kill sends SIGKILL to every node.
func (c *Cluster) Kill(ctx context.Context) error {
	return c.each(func(n *clusterNode) error { return n.faults.Kill(ctx) })
}

// Restart starts every node again and returns once the cluster is healthy.
func (c *Cluster) Restart(ctx context.Context) error {
	if err := c.each(func(n *clusterNode) error { return c.restart(ctx, n) }); err != nil {
		return err
	}
	return c.waitHealthy(ctx, time.Minute)
}

func (c *Cluster) each(fn func(n *clusterNode) error) error {
	var errs []error
	for _, n := range c.nodes {
		errs = append(errs, fn(n))
	}
	return errors.Join(errs...)
}

// restart starts a killed node and announces its address on the network again (a
// CONFIG SET does not outlive the process, and the address may have changed).
func (c *Cluster) restart(ctx context.Context, n *clusterNode) error {
	if err := n.faults.Restart(ctx); err != nil {
		return fmt.Errorf("%s: %w", n.name, err)
	}
	ip, err := networkIP(ctx, n.ctr, c.nw.Name)
	if err != nil {
		return err
	}
	n.ip = ip
	c.route.set(net.JoinHostPort(ip, port), n.addr)
	cl := redis.NewClient(&redis.Options{Addr: n.addr, Protocol: protocol})
	defer cl.Close()
	return cl.ConfigSet(ctx, "cluster-announce-ip", ip).Err()
}

// KillPrimary kills the primary serving slot 0 and returns once its replica has taken
// over and the cluster serves every slot again.
func (c *Cluster) KillPrimary(ctx context.Context) (string, error) {
	clients := c.clients()
	defer closeAll(clients)
	var (
		victim   *clusterNode
		victimID string
	)
	for i, cl := range clients {
		info, err := cl.Info(ctx, "replication").Result()
		if err != nil {
			return "", err
		}
		if !strings.Contains(info, "role:master") {
			continue
		}
		primary, err := slot0Primary(ctx, cl)
		if err != nil {
			return "", err
		}
		id, err := cl.ClusterMyID(ctx).Result()
		if err != nil {
			return "", err
		}
		if primary == id {
			victim, victimID = c.nodes[i], id
		}
	}
	if victim == nil {
		return "", errors.New("no primary serves slot 0")
	}
	if err := victim.faults.Kill(ctx); err != nil {
		return "", err
	}
	c.mu.Lock()
	c.killed = victim
	c.mu.Unlock()
	// Until the others notice (cluster-node-timeout) the cluster still says ok: wait
	// for another node to own slot 0 first.
	survivor := clients[0]
	if victim == c.nodes[0] {
		survivor = clients[1]
	}
	if err := retry(ctx, time.Minute, func() error {
		primary, err := slot0Primary(ctx, survivor)
		if err != nil {
			return err
		}
		if primary != "" && primary != victimID {
			return nil
		}
		return errors.New("slot 0 still on the killed primary")
	}); err != nil {
		return victim.name, fmt.Errorf("no replica took over from %s: %w", victim.name, err)
	}
	if err := c.waitHealthy(ctx, time.Minute); err != nil {
		return victim.name, fmt.Errorf("no replica took over from %s: %w", victim.name, err)
	}
	return victim.name + " (primary of slot 0)", nil
}

// slot0Primary is the ID of the primary that cl's view of the cluster (CLUSTER SHARDS,
// Redis 7.0 and later) says serves slot 0, or "" when none does.
func slot0Primary(ctx context.Context, cl *redis.Client) (string, error) {
	shards, err := cl.ClusterShards(ctx).Result()
	if err != nil {
		return "", err
	}
	for _, sh := range shards {
		if !slices.ContainsFunc(sh.Slots, func(r redis.SlotRange) bool { return r.Start == 0 }) {
			continue
		}
		for _, n := range sh.Nodes {
			if n.Role == "master" {
				return n.ID, nil
			}
		}
	}
	return "", nil
}

// RestoreKilled starts the node KillPrimary killed; it rejoins as a replica.
func (c *Cluster) RestoreKilled(ctx context.Context) error {
	n := c.killedNode()
	if n == nil {
		return nil
	}
	if err := c.restart(ctx, n); err != nil {
		return err
	}
	c.mu.Lock()
	c.killed = nil
	c.mu.Unlock()
	return c.waitHealthy(ctx, time.Minute)
}

// quiet discards go-redis's internal log lines.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

// quietClientLogs silences go-redis's own logging (process-wide): during a fault run
// its pool logs every refused dial, thousands of lines, which the fault report counts
// instead.
func quietClientLogs() { redis.SetLogger(quiet{}) }
