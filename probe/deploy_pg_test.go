package probe_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/storecheck/storecheck/adapters/postgres"
	"github.com/storecheck/storecheck/adapters/postgres/pgtest"
	"github.com/storecheck/storecheck/adapters/redisstore"
	"github.com/storecheck/storecheck/adapters/redisstore/rediscontainer"
	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/internal/pgschema"
	"github.com/storecheck/storecheck/mcp/server"
	"github.com/storecheck/storecheck/mcp/server/clustertest"
	"github.com/storecheck/storecheck/mcp/servermutants"
	"github.com/storecheck/storecheck/mcp/servermutants/mutanttest"
	"github.com/storecheck/storecheck/probe"
	"github.com/storecheck/storecheck/reference"
)

// scaledPostgres serves n instances of the reference server over one Postgres schema,
// each with its own pools and LISTEN connection (as separate processes would), sharing a
// secret, signals and leases, each with the deployment defect of m (zero: none); it
// returns their endpoints. Without Docker the test is skipped, except under CI.
func scaledPostgres(t *testing.T, dsn string, n int, m mutant.Mutant[servermutants.Build]) []string {
	t.Helper()
	return scaled(t, clustertest.Named(func() (clustertest.NamedHarness, func()) {
		h := postgres.NewHarness(dsn)
		return h, h.Close
	}, pgschema.RandomName("storecheck_probe_")), n, m)
}

// scaled serves n instances, each opened by open, with the deployment defect of m.
func scaled(t *testing.T, open clustertest.Open, n int, m mutant.Mutant[servermutants.Build]) []string {
	t.Helper()
	var urls []string
	for range n {
		in := open(t)
		t.Cleanup(func() { _ = in.Backend.Close() })
		cfg := server.Config{Legacy: in.Legacy, Modern: in.Modern, Signals: in.Backend, Leases: in.Backend,
			Secret: []byte("one deployment"), Lease: time.Second,
			Principals: map[string]string{"token-a": "alice", "token-b": "bob"}, MaxTasksPerPrincipal: testLimit}
		urls = append(urls, mutanttest.Start(t, cfg, m).URL+"/mcp")
	}
	return urls
}

// TestDeploymentPostgres: three instances of the reference server over one Postgres
// store, probed as a deployment any instance serves, pass every rule under --strict, the
// cross-instance rules exercised (V-XKILL-1 aside: the probe did not start them).
func TestDeploymentPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Postgres container (-short)")
	}
	checkDeploymentPasses(t, "three instances over Postgres", scaledPostgres(t, pgtest.DSN(t), 3, mutant.Mutant[servermutants.Build]{}))
}

// TestDeploymentRedisCluster is TestDeploymentPostgres over one key prefix of a Redis
// Cluster of three masters (containers), each instance with clients of its own.
func TestDeploymentRedisCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Redis Cluster in containers (-short)")
	}
	opts, stop, err := rediscontainer.StartCluster(t.Context())
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Redis Cluster: %v", err)
		}
		t.Skipf("no Redis Cluster: %v", err)
	}
	t.Cleanup(func() { _ = stop(context.Background()) })
	open := clustertest.Named(func() (clustertest.NamedHarness, func()) {
		h := redisstore.NewHarness("redis-cluster", redisstore.ClusterClients(opts), 12)
		return h, h.Close
	}, fmt.Sprintf("storecheck-probe-%d", time.Now().UnixNano()))
	checkDeploymentPasses(t, "three instances over a Redis Cluster", scaled(t, open, 3, mutant.Mutant[servermutants.Build]{}))
}

// checkDeploymentPasses: the deployment of urls, probed as one any instance serves,
// passes every rule under --strict, the cross-instance rules exercised (V-XKILL-1 aside:
// the probe did not start the instances).
func checkDeploymentPasses(t *testing.T, subject string, urls []string) {
	t.Helper()
	r := runConfig(t, probe.Config{Strict: true, Deployment: probe.Deployment{URLs: urls, Shape: probe.ShapeAny}}, 0)
	got := rows(r, crossRules)
	for _, era := range []string{"legacy", "modern"} {
		wantRow(t, got, "V-XKILL-1 "+era, conformance.NotExercised, "the probe did not start the instances")
	}
	r.Rules = slices.DeleteFunc(r.Rules, func(rr conformance.RuleResult) bool { return rr.ID == "V-XKILL-1" })
	checkPasses(t, subject, r)
	for _, id := range crossRules[:4] {
		for _, era := range []string{"legacy", "modern"} {
			if id == "V-XINPUT-1" && era == "legacy" {
				continue
			}
			wantRow(t, got, id+" "+era, conformance.Passed, "")
		}
	}
}

// asScaled makes the test binary one instance of the reference server over a Postgres
// schema shared with its siblings: the DSN and the schema on two lines of the variable, the port its argument.
const asScaled = "STORECHECK_PROBE_TEST_AS_SCALED"

// asScaledMutant names the deployment mutant an asScaled instance serves with.
const asScaledMutant = "STORECHECK_PROBE_TEST_SCALED_MUTANT"

// scaledLease is the lease of the instances the kill test starts.
const scaledLease = time.Second

// serveScaled serves one instance as asScaled says, until it is killed.
func serveScaled(spec, port string) int {
	ctx := context.Background()
	dsn, schema, _ := strings.Cut(spec, "\n")
	h := postgres.NewHarness(dsn)
	ns, err := h.OpenNamed(ctx, reference.SystemClock{}, schema)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	l, errL := ns.Legacy(ctx)
	m, errM := ns.Modern(ctx)
	b, errB := ns.(clustertest.NamedCluster).Cluster(ctx)
	if err := errors.Join(errL, errM, errB); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	cfg := server.Config{Legacy: l, Modern: m, Signals: b, Leases: b, Secret: []byte("one deployment"), Lease: scaledLease,
		Principals: map[string]string{"token-a": "alice", "token-b": "bob"}, MaxTasksPerPrincipal: testLimit}
	if name := os.Getenv(asScaledMutant); name != "" {
		mu, _ := servermutants.DeploymentByName(name)
		cfg = mu.Build.Configure(cfg, func() { os.Exit(3) })
	}
	srv, err := server.New(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Fprintln(os.Stderr, http.ListenAndServe("127.0.0.1:"+port, srv))
	return 1
}

// TestDeploymentPostgresKill: three `storecheck serve --mcp --namespace` over one
// Postgres schema, started by the probe, one killed mid-task in each era: no acknowledged task is lost and the dead
// instance's working task ends (failed, by another instance, once its lease runs out)
// within the lease; in runs rounds.
func TestDeploymentPostgresKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Postgres container (-short)")
	}
	t.Setenv(asCLI, "1")
	t.Setenv("STORECHECK_PROBE_TEST_SECRET", "one deployment")
	cmd := []string{os.Args[0], "serve", "--mcp", "127.0.0.1:{port}", "--adapter", "postgres", "--dsn", pgtest.DSN(t),
		"--namespace", pgschema.RandomName("storecheck_probe_"), "--secret-env", "STORECHECK_PROBE_TEST_SECRET", "--lease", scaledLease.String(),
		"--principal", "token-a=alice", "--principal", "token-b=bob"}
	runs := 2
	if s := os.Getenv("STORECHECK_PROBE_KILL_RUNS"); s != "" {
		runs, _ = strconv.Atoi(s)
	}
	for i := range runs {
		r := runConfig(t, probe.Config{Strict: true, Rules: []string{"V-XKILL-1"},
			Deployment: probe.Deployment{Command: cmd, Copies: 3, Lease: scaledLease}}, 2)
		for row := range rows(r, []string{"V-XKILL-1"}) {
			wantRow(t, rows(r, []string{"V-XKILL-1"}), row, conformance.Passed, "")
			if testing.Verbose() {
				t.Logf("run %d: %s: %q", i+1, row, rows(r, []string{"V-XKILL-1"})[row].Notes)
			}
		}
	}
}

// TestDeploymentMutantsAreKilled: each deployment defect (servermutants.Deployment),
// built into every instance of a deployment over one Postgres schema, fails exactly the
// cross-instance rules it breaks: two instances the test serves for the wrappers (the
// cross-instance rules but V-XKILL-1), three the probe starts and kills one of for a
// defect of leases (V-XKILL-1).
func TestDeploymentMutantsAreKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Postgres container (-short)")
	}
	dsn := pgtest.DSN(t)
	for _, m := range servermutants.Deployment() {
		t.Run(m.Name, func(t *testing.T) {
			cfg := probe.Config{Strict: true, Rules: crossRules[:4]}
			if slices.Contains(m.Breaks, "V-XKILL-1") {
				t.Setenv(asScaled, dsn+"\n"+pgschema.RandomName("storecheck_probe_"))
				t.Setenv(asScaledMutant, m.Name)
				cfg.Rules = []string{"V-XKILL-1"}
				cfg.Deployment = probe.Deployment{Command: []string{os.Args[0], "{port}"}, Copies: 3, Lease: scaledLease}
			} else {
				cfg.Deployment = probe.Deployment{URLs: scaledPostgres(t, dsn, 2, m)}
			}
			r := runConfig(t, cfg, 0)
			if killed, why := probe.Killed(r, m.Breaks); !killed {
				t.Errorf("deployment mutant %s (breaks %v): %s", m.Name, m.Breaks, why)
				for _, rr := range r.Rules {
					t.Logf("%s %s %s: %q", rr.ID, rr.Era, rr.Outcome, rr.Reasons)
				}
			}
		})
	}
}
