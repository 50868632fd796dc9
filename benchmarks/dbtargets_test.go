package benchmarks_test

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/storecheck/storecheck/adapters/redisstore/rediscontainer"
	"github.com/storecheck/storecheck/benchmarks"
	_ "github.com/storecheck/storecheck/benchmarks/dbtargets" // registers postgres, redis, river-*
)

func BenchmarkPostgres(b *testing.B)      { benchmarks.BenchTarget(b, "postgres") }
func BenchmarkRedis(b *testing.B)         { benchmarks.BenchTarget(b, "redis") }
func BenchmarkRedisCluster(b *testing.B)  { benchmarks.BenchTarget(b, "redis-cluster") }
func BenchmarkRiverSQLite(b *testing.B)   { benchmarks.BenchTarget(b, "river-sqlite") }
func BenchmarkRiverPostgres(b *testing.B) { benchmarks.BenchTarget(b, "river-postgres") }

// BenchmarkRedisServerTime is BenchmarkRedis with what the server spent per op, for the
// server's half of a ratio that a Go profile cannot show (the adapter's work is in Lua):
// server-cpu-µs/op is the server process's CPU time (INFO cpu, user + system, all its
// threads) over the timed loop, and server-cmds/op the commands it ran (INFO
// commandstats after CONFIG RESETSTAT: an EVALSHA and each command its script ran count
// one each). It resets the server's statistics and reads its CPU time, so it needs a
// server of its own, named by STORECHECK_REDIS_URL.
func BenchmarkRedisServerTime(b *testing.B) {
	url := os.Getenv(rediscontainer.EnvURL)
	if url == "" {
		b.Skip("needs a server of its own, named by " + rediscontainer.EnvURL + " (CONFIG RESETSTAT resets its statistics)")
	}
	opts, err := redis.ParseURL(url)
	if err != nil {
		b.Fatal(err)
	}
	c := redis.NewClient(opts)
	defer c.Close()
	ctx := context.Background()
	info := func(b *testing.B, section string) string {
		s, err := c.Info(ctx, section).Result()
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	// field sums the numbers after key= (or key:) on every line of an INFO section.
	field := func(s, key string) float64 {
		var sum float64
		for _, line := range strings.Split(s, "\n") {
			for _, sep := range []string{key + "=", key + ":"} {
				if _, rest, ok := strings.Cut(line, sep); ok {
					if i := strings.IndexAny(rest, ",\r"); i >= 0 {
						rest = rest[:i]
					}
					v, _ := strconv.ParseFloat(rest, 64)
					sum += v
				}
			}
		}
		return sum
	}
	cpu := func(b *testing.B) float64 {
		s := info(b, "cpu")
		return field(s, "used_cpu_user") + field(s, "used_cpu_sys")
	}
	benchmarks.BenchTargetWith(b, "redis", func(b *testing.B, run func(*testing.B)) {
		if err := c.ConfigResetStat(ctx).Err(); err != nil {
			b.Fatal(err)
		}
		before := cpu(b)
		run(b)
		spent := cpu(b) - before
		// Counted with them: the few INFO calls of this measurement, over b.N ops.
		calls := field(info(b, "commandstats"), "calls")
		b.ReportMetric(spent*1e6/float64(b.N), "server-cpu-µs/op")
		b.ReportMetric(calls/float64(b.N), "server-cmds/op")
	})
}

// TestRiverSQLiteCasesRunOnce runs the row+job inserts and the plain updates once against
// the River store on SQLite and its baseline (no Docker needed), so the River benchmark
// code cannot rot unseen. (Every case takes 95 s on a loaded 2-core machine.)
func TestRiverSQLiteCasesRunOnce(t *testing.T) {
	target, err := benchmarks.Lookup("river-sqlite")
	if err != nil {
		t.Fatal(err)
	}
	results, err := benchmarks.Run(t.Context(), target, benchmarks.Options{Env: benchmarks.TestEnv(), Benchtime: "1x", CleanupBenchtime: "1x", Ops: riverOps})
	if err != nil {
		t.Fatalf("Run(river-sqlite, 1x): %v", err)
	}
	want := 0
	for _, k := range benchmarks.Cases() {
		if slices.Contains(riverOps, k.Op) {
			want += 2 * len(k.Modes)
		}
	}
	if len(results) != want {
		t.Errorf("Run(river-sqlite) gave %d results, want %d", len(results), want)
	}
	for _, r := range results {
		if r.Failed != "" || r.N != 1 || r.NsPerOp <= 0 {
			t.Errorf("%s: N = %d, %.0f ns/op, failure %q", r.Name(), r.N, r.NsPerOp, r.Failed)
		}
	}
}

var riverOps = []string{"legacy-create", "legacy-update", "modern-create", "modern-swap"}
