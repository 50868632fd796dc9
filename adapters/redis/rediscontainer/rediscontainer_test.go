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
	t.Setenv(EnvURL, "")
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	opts, stop, err := Start(ctx)
	if err != nil {
		containers.SkipOrFail(t, "redis", err)
	}
	defer func() {
		if err := stop(context.Background()); err != nil {
			t.Errorf("stop: %v", err)
		}
	}()
	t.Setenv(EnvURL, fmt.Sprintf("redis://%s/0", opts.Addr))
	again, noop, err := Start(ctx)
	if err != nil || again.Addr != opts.Addr {
		t.Fatalf("Start with %s set = %v, %v; want %s", EnvURL, again, err, opts.Addr)
	}
	if err := noop(ctx); err != nil {
		t.Fatalf("stop of an existing server: %v", err)
	}
	c := redis.NewClient(opts)
	defer c.Close()
	aof, err := c.ConfigGet(ctx, "appendonly").Result()
	if err != nil || aof["appendonly"] != "yes" {
		t.Errorf("server gone after the no-op stop, or AOF off: CONFIG GET appendonly = %v, %v", aof, err)
	}
}
