package redisstore_test

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/storecheck/storecheck/reference/legacy"
)

func TestLatency(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	f.legacy.Create(ctx, "a", legacy.Task{"x": 1})
	sc := redis.NewScript("return 1")
	start := time.Now()
	for range 2000 {
		sc.Run(ctx, f.client, []string{"k"})
	}
	t.Logf("trivial script: %v", time.Since(start)/2000)
	start = time.Now()
	for range 2000 {
		f.client.HSet(ctx, "{x}k", "a", "b")
	}
	t.Logf("HSET: %v", time.Since(start)/2000)
	start = time.Now()
	for range 2000 {
		f.legacy.Update(ctx, "a", legacy.Task{"y": 2})
	}
	t.Logf("Update: %v", time.Since(start)/2000)
	f.client.Del(ctx, "{x}k")
	t.Log(f.client.Do(ctx, "SLOWLOG", "GET", "5").Val())
	t.Log(f.client.Info(ctx, "commandstats").Val())
}
