package benchmarks

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
)

// LegacyOps are the legacy operations a case drives. A store's come from its
// legacy.Store (storeLegacy); a raw baseline writes the equivalent statements itself.
type LegacyOps interface {
	// Create makes the task id owned by owner.
	Create(ctx context.Context, id, owner string) error
	// Get reads the task id.
	Get(ctx context.Context, id string) error
	// Update writes progress n into the task id.
	Update(ctx context.Context, id string, n int) error
	// List lists owner's tasks, at most limit, and returns how many came back.
	List(ctx context.Context, owner string, limit int) (int, error)
	// Seed makes completed tasks created at atMillis (by the store's clock), owned by
	// owner, for Cleanup.
	Seed(ctx context.Context, ids []string, owner string, atMillis int64) error
	// Cleanup removes the terminal tasks older than ttl at nowMillis and returns how
	// many it removed.
	Cleanup(ctx context.Context, nowMillis int64, ttl time.Duration) (int, error)
}

// ModernOps are the modern operations a case drives.
type ModernOps interface {
	// Create makes the task id, owned by owner.
	Create(ctx context.Context, id, owner string) error
	// Get reads the task id as the system.
	Get(ctx context.Context, id string) error
	// Swap writes the task id (made by Create with owner) at version, which is its
	// current version, without reading it first.
	Swap(ctx context.Context, id, owner string, version int64) error
	// Lifecycle creates a task owned by owner, reports progress and completes it: three
	// writes, the last two each a read and a compare-and-swap.
	Lifecycle(ctx context.Context, owner string) error
	// Increment is one successful compare-and-swap on the task id: read, write at the
	// version read, again on a conflict.
	Increment(ctx context.Context, id string) error
}

// Space is an empty store (or baseline) to benchmark in: a fresh namespace of the
// backend. Close removes what the benchmarks wrote.
type Space struct {
	Legacy LegacyOps
	Modern ModernOps
	Close  func(ctx context.Context) error
}

// Subject is one side of a comparison: an adapter's store, or its baseline.
type Subject struct {
	// Label is "store" or "baseline": the subject key of a benchmark's name.
	Label string
	// What says what it is, for the table ("memstore", "mutex+map").
	What string
	// Open makes a fresh Space.
	Open func(ctx context.Context) (*Space, error)
}

// Backend is a target brought up: its store and its baseline on one backend.
type Backend struct {
	Store, Baseline Subject
	// Stop releases what Start started (containers, child processes); may be nil.
	Stop func(ctx context.Context) error
}

// Env is what bring-up may need from the caller.
type Env struct {
	// PostgresDSN names an existing server; empty starts a container (or reads
	// STORECHECK_POSTGRES_URL).
	PostgresDSN string
	// RedisURL names an existing server (redis://…); empty starts a container (or
	// reads STORECHECK_REDIS_URL).
	RedisURL string
	// RedisClusterURL names an existing cluster (redis://… with addr= seeds); empty
	// starts containers (or reads STORECHECK_REDIS_CLUSTER_URL).
	RedisClusterURL string
	// WireCommand is the child the wire target runs: a process that serves memstore
	// over the wire protocol on stdin/stdout (`storecheck serve --adapter memstore`).
	// Empty makes the wire target unavailable.
	WireCommand []string
	// WireEnv is the child's environment (empty: inherit).
	WireEnv []string
}

// ErrUnavailable is wrapped when a target's backend cannot be brought up here (no
// Docker outside CI, no wire command): the Go benchmarks skip it, the CLI says why.
var ErrUnavailable = errors.New("backend unavailable")

// Target is an adapter under benchmark.
type Target struct {
	// Name is the adapter's name (storecheck bench --adapter NAME).
	Name string
	// Summary says what the store and the baseline are.
	Summary string
	// Start brings the backend up.
	Start func(ctx context.Context, env Env) (*Backend, error)
}

var targets = map[string]Target{}

func addTarget(t Target) {
	if _, dup := targets[t.Name]; dup {
		panic("benchmarks: target registered twice: " + t.Name)
	}
	targets[t.Name] = t
}

// Targets lists every target by name.
func Targets() []Target {
	out := make([]Target, 0, len(targets))
	for _, t := range targets {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup finds a target by name; the error lists the names there are.
func Lookup(name string) (Target, error) {
	t, ok := targets[name]
	if !ok {
		var names []string
		for _, t := range Targets() {
			names = append(names, t.Name)
		}
		return Target{}, fmt.Errorf("unknown benchmark target %q (targets: %s)", name, strings.Join(names, ", "))
	}
	return t, nil
}
