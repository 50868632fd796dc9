package dbtargets

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/storecheck/storecheck/adapters/redisstore"
	"github.com/storecheck/storecheck/adapters/redisstore/rediscontainer"
	"github.com/storecheck/storecheck/benchmarks"
	"github.com/storecheck/storecheck/reference"
)

func init() {
	benchmarks.Register(benchmarks.Target{
		Name:    "redis",
		Summary: "the Redis adapter (one server) vs the equivalent raw commands (HSET, HGETALL, a minimal CAS script)",
		Start: func(ctx context.Context, env benchmarks.Env) (*benchmarks.Backend, error) {
			opts, stop, err := redisServer(ctx, env.RedisURL, rediscontainer.EnvURL, redis.ParseURL, rediscontainer.Start)
			if err != nil {
				return nil, err
			}
			opts.ContextTimeoutEnabled = true // as the bring-up's options have it
			opts.PoolSize = max(opts.PoolSize, benchmarks.SeedWorkers)
			return redisBackend("redis", redis.NewClient(opts), stop), nil
		},
	})
	benchmarks.Register(benchmarks.Target{
		Name:    "redis-cluster",
		Summary: "the Redis adapter on a 3-master Redis Cluster vs the equivalent raw commands on it",
		Start: func(ctx context.Context, env benchmarks.Env) (*benchmarks.Backend, error) {
			opts, stop, err := redisServer(ctx, env.RedisClusterURL, rediscontainer.EnvClusterURL, redis.ParseClusterURL, rediscontainer.StartCluster)
			if err != nil {
				return nil, err
			}
			opts.ContextTimeoutEnabled = true // as the bring-up's options have it
			opts.PoolSize = max(opts.PoolSize, benchmarks.SeedWorkers)
			return redisBackend("redis cluster", redis.NewClusterClient(opts), stop), nil
		},
	})
}

// redisServer is the options of the server (or cluster) at url, or, with url empty, of
// one start brings up (which needs Docker: needDocker), with the function that stops it.
func redisServer[O any](ctx context.Context, url, envVar string, parse func(string) (*O, error),
	start func(context.Context) (*O, func(context.Context) error, error),
) (*O, func(context.Context) error, error) {
	if err := needDocker(ctx, url, envVar); err != nil {
		return nil, nil, err
	}
	if url == "" {
		return start(ctx)
	}
	opts, err := parse(url)
	return opts, func(context.Context) error { return nil }, err
}

// redisBackend is the store and the baseline on client c; every Space is a fresh key
// prefix, deleted on Close.
func redisBackend(what string, c redis.UniversalClient, stop func(context.Context) error) *benchmarks.Backend {
	newPrefix := func() string {
		var b [8]byte
		_, _ = rand.Read(b[:])
		return "bench-" + hex.EncodeToString(b[:])
	}
	dropPrefix := func(prefix string) func(ctx context.Context) error {
		return func(ctx context.Context) error {
			_, err := redisstore.DeletePrefix(ctx, c, prefix)
			return err
		}
	}
	store := benchmarks.Subject{Label: "store", What: what + " adapter", Open: func(ctx context.Context) (*benchmarks.Space, error) {
		prefix := newPrefix()
		clock, set := benchmarks.ManualClock()
		s, err := redisstore.New(c, redisstore.WithPrefix(prefix), redisstore.WithClock(clock))
		if err != nil {
			return nil, err
		}
		return &benchmarks.Space{
			Legacy: benchmarks.StoreLegacy(s.Legacy(), set, nil),
			Modern: benchmarks.StoreModern(s.Modern(), clock),
			Close:  dropPrefix(prefix),
		}, nil
	}}
	base := benchmarks.Subject{Label: "baseline", What: "raw " + what + " commands", Open: func(ctx context.Context) (*benchmarks.Space, error) {
		prefix := newPrefix()
		r := &redisRaw{c: c, prefix: prefix, createdAt: time.Now().UnixMilli()}
		return &benchmarks.Space{Legacy: r, Modern: rawModern{(*redisRawModern)(r)}, Close: dropPrefix(prefix)}, nil
	}}
	return &benchmarks.Backend{Store: store, Baseline: base, Stop: func(ctx context.Context) error {
		err := c.Close()
		if e := stop(ctx); e != nil {
			err = e
		}
		return err
	}}
}

// redisRaw is the baseline: one hash per task, a sorted set per owner for List and one
// of completed tasks by created_at for Cleanup, no scripts but the minimal CAS. Keys
// are "{prefix:…}" so that DeletePrefix finds them; each task's key is its own slot.
type redisRaw struct {
	c         redis.UniversalClient
	prefix    string
	createdAt int64
}

func (r *redisRaw) key(id string) string       { return "{" + r.prefix + ":t:" + id + "}" }
func (r *redisRaw) ownerKey(o string) string   { return "{" + r.prefix + ":o:" + o + "}" }
func (r *redisRaw) doneKey() string            { return "{" + r.prefix + ":done}" }
func (r *redisRaw) modernKey(id string) string { return "{" + r.prefix + ":m:" + id + "}" }

// Create is HSET of the task's fields and ZADD to its owner's index, pipelined.
func (r *redisRaw) Create(ctx context.Context, id, owner string) error {
	_, err := r.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, r.key(id), "task_id", `"`+id+`"`, "status", `"working"`, "created_at", r.createdAt,
			"owner", strconv.Quote(owner), "tool", `"search"`, "args", `{"page":0,"q":"task stores"}`, "progress", 0)
		p.ZAdd(ctx, r.ownerKey(owner), redis.Z{Member: id})
		return nil
	})
	return err
}

func (r *redisRaw) Get(ctx context.Context, id string) error {
	h, err := r.c.HGetAll(ctx, r.key(id)).Result()
	if err == nil && len(h) == 0 {
		err = reference.NotFound(id)
	}
	return err
}

func (r *redisRaw) Update(ctx context.Context, id string, n int) error {
	return r.c.HSet(ctx, r.key(id), "progress", n).Err()
}

// List is ZRANGE of the owner's index, then HGETALL of each task, pipelined.
func (r *redisRaw) List(ctx context.Context, owner string, limit int) (int, error) {
	ids, err := r.c.ZRange(ctx, r.ownerKey(owner), 0, int64(limit-1)).Result()
	if err != nil {
		return 0, err
	}
	cmds, err := r.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, id := range ids {
			p.HGetAll(ctx, r.key(id))
		}
		return nil
	})
	return len(cmds), err
}

func (r *redisRaw) Seed(ctx context.Context, ids []string, owner string, atMillis int64) error {
	_, err := r.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, id := range ids {
			p.HSet(ctx, r.key(id), "task_id", `"`+id+`"`, "status", `"completed"`, "created_at", atMillis, "owner", strconv.Quote(owner))
			p.ZAdd(ctx, r.doneKey(), redis.Z{Score: float64(atMillis), Member: id})
		}
		return nil
	})
	return err
}

// Cleanup is ZRANGEBYSCORE of the completed index, then UNLINK of each task and ZREM
// from the index, pipelined.
func (r *redisRaw) Cleanup(ctx context.Context, nowMillis int64, ttl time.Duration) (int, error) {
	bound := strconv.FormatInt(nowMillis-ttl.Milliseconds()-1, 10)
	ids, err := r.c.ZRangeByScore(ctx, r.doneKey(), &redis.ZRangeBy{Min: "-inf", Max: bound}).Result()
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	_, err = r.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		members := make([]any, len(ids))
		for i, id := range ids {
			p.Unlink(ctx, r.key(id))
			members[i] = id
		}
		p.ZRem(ctx, r.doneKey(), members...)
		return nil
	})
	return len(ids), err
}

// redisRawModern is the modern half of the baseline.
type redisRawModern redisRaw

// casScript is the least a compare-and-swap on Redis takes: compare the version field
// and write, atomically.
var casScript = redis.NewScript(`
if redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'b', ARGV[3])
return 1`)

func (r *redisRawModern) Create(ctx context.Context, id, owner string) error {
	return r.c.HSet(ctx, (*redisRaw)(r).modernKey(id), "v", 1, "c", r.createdAt, "o", owner, "b", modernBodyJSON).Err()
}

func (r *redisRawModern) get(ctx context.Context, id string) (int64, error) {
	h, err := r.c.HGetAll(ctx, (*redisRaw)(r).modernKey(id)).Result()
	if err != nil {
		return 0, err
	}
	if len(h) == 0 {
		return 0, reference.NotFound(id)
	}
	return strconv.ParseInt(h["v"], 10, 64)
}

func (r *redisRawModern) swap(ctx context.Context, id string, version int64) (bool, error) {
	n, err := casScript.Run(ctx, r.c, []string{(*redisRaw)(r).modernKey(id)}, version, version+1, modernBodyJSON).Int()
	return n == 1, err
}
