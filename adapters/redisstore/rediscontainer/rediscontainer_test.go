package rediscontainer

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/storecheck/storecheck/adapters/internal/containers"
)

// TestExistingURLs: with STORECHECK_REDIS_URL or STORECHECK_REDIS_CLUSTER_URL set, Start
// and StartCluster start no container and answer with that deployment, or say why they
// cannot reach it.
func TestExistingURLs(t *testing.T) {
	for _, c := range []struct {
		env   string
		start func(context.Context) error
	}{
		{EnvURL, func(ctx context.Context) error { _, _, err := Start(ctx); return err }},
		{EnvClusterURL, func(ctx context.Context) error { _, _, err := StartCluster(ctx); return err }},
	} {
		for _, u := range []string{"redis://127.0.0.1:1/0?dial_timeout=100ms", "not a url"} {
			t.Setenv(c.env, u)
			ctx, cancel := context.WithTimeout(t.Context(), time.Second)
			err := c.start(ctx)
			cancel()
			if err == nil || !strings.Contains(err.Error(), c.env) {
				t.Errorf("%s=%q: want an error naming %s, got %v", c.env, u, c.env, err)
			}
			t.Setenv(c.env, "")
		}
	}
}

// TestContainerThenURL starts a container, then reuses it through STORECHECK_REDIS_URL:
// the second Start must answer with the same server and its stop must leave it running.
func TestContainerThenURL(t *testing.T) {
	containers.CheckReuse(t, "redis", EnvURL, Start,
		func(o *redis.Options) string { return fmt.Sprintf("redis://%s/0", o.Addr) },
		func(o *redis.Options) string { return o.Addr },
		func(ctx context.Context, t *testing.T, opts *redis.Options) {
			c := redis.NewClient(opts)
			defer c.Close()
			aof, err := c.ConfigGet(ctx, "appendonly").Result()
			if err != nil || aof["appendonly"] != "yes" {
				t.Errorf("server gone after the no-op stop, or AOF off: CONFIG GET appendonly = %v, %v", aof, err)
			}
		})
}

// TestCheckConfig: the persistence a fault server declares is checked against the
// server's own CONFIG GET answers, and a server that disagrees (an image whose
// redis.conf turns AOF on, a default that changed) is refused.
func TestCheckConfig(t *testing.T) {
	defaults := map[string]string{"appendonly": "no", "appendfsync": "everysec", "save": "3600 1 300 100 60 10000"}
	always := map[string]string{"appendonly": "yes", "appendfsync": "always", "save": ""}
	everysec := map[string]string{"appendonly": "yes", "appendfsync": "everysec", "save": ""}
	for _, c := range []struct {
		p    Persistence
		got  map[string]string
		want string // "" for no error, else a part of it
	}{
		{Default, defaults, ""},
		{AOFAlways, always, ""},
		{AOFEverySec, everysec, ""},
		{AOFAlways, everysec, `appendfsync is "everysec", want "always"`},
		{AOFAlways, defaults, `appendonly is "no", want "yes"`},
		{Default, always, `appendonly is "yes", want "no"`},
		{Default, map[string]string{"appendonly": "no", "save": ""}, `save is "", want "3600 1 300 100 60 10000"`},
		{AOFEverySec, map[string]string{}, "appendonly"},
	} {
		err := c.p.CheckConfig(c.got)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s.CheckConfig(%v) = %v, want nil", c.p, c.got, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s.CheckConfig(%v) = %v, want an error saying %s", c.p, c.got, err, c.want)
		}
	}
}

// TestFaultableConfig starts a fault server with each persistence and reads its
// configuration back with CONFIG GET: the durability declared from the command line is
// what the server runs (StartFaultable refuses one that disagrees; this checks it
// directly).
func TestFaultableConfig(t *testing.T) {
	if testing.Short() {
		t.Skip("starts containers; skipped with -short")
	}
	for _, p := range []Persistence{AOFAlways, Default} {
		t.Run(string(p), func(t *testing.T) {
			srv, err := StartFaultable(t.Context(), p)
			if err != nil {
				containers.SkipOrFail(t, "redis (faults)", err)
				return
			}
			containers.StopAtCleanup(t, srv.Stop)
			c := redis.NewClient(srv.Options)
			defer c.Close()
			for k, want := range p.want() {
				got, err := c.ConfigGet(t.Context(), k).Result()
				if err != nil || got[k] != want {
					t.Errorf("%s: CONFIG GET %s = %v, %v; want %q", p, k, got, err, want)
				}
			}
			if p.LosesOnCrash() != (p.want()["appendfsync"] != "always") {
				t.Errorf("%s: LosesOnCrash %v disagrees with its configuration %v", p, p.LosesOnCrash(), p.want())
			}
		})
	}
}
