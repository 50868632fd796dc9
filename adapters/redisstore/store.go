package redisstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/storecheck/storecheck/adapters/internal/storeerr"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonvalue"
)

// DefaultPrefix is the key prefix of a store built without WithPrefix.
const DefaultPrefix = "storecheck"

// DefaultBuckets is the number of index buckets of a store built without WithBuckets.
const DefaultBuckets = 16

// MaxBuckets bounds WithBuckets: List, Cleanup and Sweep run one script per bucket.
const MaxBuckets = 1024

// batch is how many index entries one Cleanup or Sweep script examines, so that a large
// cleanup never blocks the server for long: Go runs the script again while it is busy.
const batch = 500

// Option configures a store.
type Option func(*config) error

type config struct {
	clock    reference.Clock
	prefix   string
	buckets  int
	backstop time.Duration
}

// WithClock makes the store read time from c (created_at, cleanup, expiry, sweep); the
// default is the real clock. The server's clock is never read for a decision.
func WithClock(c reference.Clock) Option {
	return func(cfg *config) error { cfg.clock = c; return nil }
}

// WithPrefix sets the key prefix: every key the store writes starts with "{" + prefix +
// ":". Instances with the same prefix (and bucket count) share their tasks; instances
// with different prefixes never see each other's. A prefix is 1..128 bytes of
// [A-Za-z0-9_./-]: no glob or hash-tag characters, so it can be matched by SCAN and sits
// inside a hash tag, and no ":", so that no prefix's keys match another's pattern.
func WithPrefix(p string) Option {
	return func(cfg *config) error {
		if err := validPrefix(p); err != nil {
			return err
		}
		cfg.prefix = p
		return nil
	}
}

// WithBuckets sets how many index buckets the tasks are spread over (1..MaxBuckets). A
// bucket is one hash slot: its tasks and their indexes live together, so every script
// is atomic over them. One bucket puts a whole prefix on one cluster node; more spread it
// over the cluster at the price of one script per bucket for List, Cleanup and Sweep.
// Every instance of a prefix must use the same count: the first call of an instance
// checks it against the count recorded under the prefix and refuses a mismatch.
func WithBuckets(n int) Option {
	return func(cfg *config) error {
		if n < 1 || n > MaxBuckets {
			return fmt.Errorf("%w: redis store: buckets %d not in 1..%d", reference.ErrInvalid, n, MaxBuckets)
		}
		cfg.buckets = n
		return nil
	}
}

// WithExpiryBackstop gives every modern task with a ttl a native Redis TTL of margin past
// its logical expiry (relative to the time of the write), so that a deployment that never
// sweeps does not keep expired tasks forever. Expiry decisions never depend on it: Get,
// Swap and Sweep use the store's clock. 0 (the default) sets no native TTL; a margin
// under one minute is refused, since it would not be "well beyond" the logical expiry.
func WithExpiryBackstop(margin time.Duration) Option {
	return func(cfg *config) error {
		if margin != 0 && margin < time.Minute {
			return fmt.Errorf("%w: redis store: expiry backstop %s is under a minute", reference.ErrInvalid, margin)
		}
		cfg.backstop = margin
		return nil
	}
}

func validPrefix(p string) error {
	if p == "" || len(p) > 128 {
		return fmt.Errorf("%w: redis store: prefix must be 1..128 bytes, got %d", reference.ErrInvalid, len(p))
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '_' || c == '.' || c == '/' || c == '-'
		if !ok {
			return fmt.Errorf("%w: redis store: prefix %q: byte %q is not one of [A-Za-z0-9_./-]", reference.ErrInvalid, p, c)
		}
	}
	return nil
}

// Store is a task store on one Redis server or one Redis Cluster, both eras. Its
// Legacy and Modern views share the client, the prefix and the configuration.
type Store struct {
	c   redis.UniversalClient
	cfg config

	mu      sync.Mutex  // serialises the first call's check
	checked atomic.Bool // the bucket count was checked against the prefix's
}

// New returns a store on c (a *redis.Client or *redis.ClusterClient). Give the client
// ContextTimeoutEnabled, so that a context's deadline bounds a call that is waiting on
// the server (S-CTX-1; the store itself stops waiting when a context is cancelled). The
// store does not close c.
func New(c redis.UniversalClient, opts ...Option) (*Store, error) {
	if c == nil {
		return nil, fmt.Errorf("%w: redis store: nil client", reference.ErrInvalid)
	}
	cfg := config{clock: reference.SystemClock{}, prefix: DefaultPrefix, buckets: DefaultBuckets}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if cfg.clock == nil {
		cfg.clock = reference.SystemClock{}
	}
	return &Store{c: c, cfg: cfg}, nil
}

// Legacy returns the legacy-era view of the store.
func (s *Store) Legacy() *Legacy { return newLegacy(s) }

// Modern returns the modern-era view of the store.
func (s *Store) Modern() *Modern { return &Modern{s: s} }

func (s *Store) now() int64 { return reference.NowMillis(s.cfg.clock) }

// bucketOf is the bucket of id: FNV-1a, so every instance computes the same one.
func (s *Store) bucketOf(id string) int {
	h := fnv.New32a()
	_, _ = h.Write([]byte(id))
	return int(h.Sum32() % uint32(s.cfg.buckets))
}

// base is the key base of bucket b: "{prefix:b}". The braces make it the hash tag of
// every key built on it, so a bucket's keys share one slot whatever follows (ids may
// contain braces: only the first "{...}" of a key counts).
func (s *Store) base(b int) string { return "{" + s.cfg.prefix + ":" + strconv.Itoa(b) + "}" }

func (s *Store) confKey() string { return "{" + s.cfg.prefix + ":conf}" }

// Pattern is the SCAN pattern that matches every key of prefix (and nothing of another
// valid prefix: the ":" after it ends the prefix).
func Pattern(prefix string) string { return "{" + prefix + ":*" }

// begin starts a call: it honours an already finished context (S-CTX-1) and, on an
// instance's first call, checks that the prefix is not in use with another bucket count
// (one SET NX GET, then never again).
func (s *Store) begin(ctx context.Context, op string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("redis: %s: %w", op, err)
	}
	if s.checked.Load() { // every call but the first: no lock shared by all callers
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.checked.Load() {
		return nil
	}
	want := "buckets=" + strconv.Itoa(s.cfg.buckets)
	old, err := interruptible(ctx, func() (string, error) {
		return s.c.SetArgs(ctx, s.confKey(), want, redis.SetArgs{Mode: "NX", Get: true}).Result()
	})
	switch {
	case errors.Is(err, redis.Nil):
	case err != nil:
		return dbError(ctx, op, err)
	case old != want:
		return fmt.Errorf("%w: redis store: prefix %q is in use with %s, this instance has %s",
			reference.ErrInvalid, s.cfg.prefix, old, want)
	}
	s.checked.Store(true)
	return nil
}

// beginOn is begin for a call on the task id, which must be valid before anything else.
func (s *Store) beginOn(ctx context.Context, op, id string) error {
	if err := reference.ValidateID(id); err != nil {
		return err
	}
	return s.begin(ctx, op)
}

// dbError turns an error met during op into the store's error (storeerr.Wrap), waiting
// for the context when the error is its deadline's.
func dbError(ctx context.Context, op string, err error) error {
	if known := storeerr.Known(ctx, "redis", op, err); known != nil {
		return known
	}
	if dl, ok := ctx.Deadline(); ok && !time.Now().Before(dl) {
		// go-redis puts the context's deadline on the connection (ContextTimeoutEnabled),
		// so this i/o timeout is the deadline's, though ctx.Err() may not say so yet: the
		// context's timer fires a moment after the socket's. Wait for it, so that a
		// caller never holds a context that looks alive beside an error saying it ended.
		<-ctx.Done()
		return fmt.Errorf("redis: %s: %w (%v)", op, ctx.Err(), err)
	}
	return fmt.Errorf("redis: %s: %w: %v", op, reference.ErrInternal, err)
}

// ErrUnknownOutcome marks a write whose answer never came (a read timeout, a lost
// connection, a context that ended while the server held the reply back): the server may
// have applied it, whole, or not at all. The store never sends it a second time
// (onceCmd); a caller that must know reads the task, bearing in mind that a read at once
// may come before the write lands: a command still on its way (through a proxy, or
// behind the read on another connection) is applied when the server gets it. It comes
// with reference.ErrInternal, or with the context's error when the context ended the
// wait.
var ErrUnknownOutcome = errors.New("no answer came: the write may or may not have been applied")

// writeError is dbError for a write script's failure: an error that is not the server's
// answer (a reply error is one: the script did not run, or refused) leaves the outcome
// unknown.
func writeError(ctx context.Context, op string, err error) error {
	werr := dbError(ctx, op, err)
	var reply redis.Error
	if errors.As(err, &reply) {
		return werr
	}
	if storeerr.IsSentinel(werr) {
		return werr
	}
	return fmt.Errorf("%w; %w", werr, ErrUnknownOutcome)
}

// interruptible runs f, which waits on the server, so that the context's cancellation
// ends the wait at once (S-CTX-1): go-redis ends a wait at the context's deadline
// (ContextTimeoutEnabled) but not when the context is cancelled, so a call behind a
// paused server or a long script would wait for the server. On cancellation f goes on in
// the background until the server answers: a command already sent may still be
// applied, whole, since every call is one command or one script (nothing or
// everything).
func interruptible[T any](ctx context.Context, f func() (T, error)) (T, error) {
	if ctx.Done() == nil {
		return f()
	}
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := f()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// onceCmd is a command go-redis must not send a second time. By default go-redis resends
// a command whose reply did not come within ReadTimeout: the standalone client up to
// MaxRetries times; the cluster client a lone command once more on the same node and
// then on others, and a node's share of a pipeline, up to MaxRedirects times in all,
// whatever MaxRetries says (go-redis v9.23.0 osscluster.go process and
// pipelineReadCmds). For a script that already ran, the second run answers for a store
// the first one changed: a Create reports "task already exists" for the task it made, a
// Swap a conflict with the version it wrote, a Cleanup counts 0 for the tasks it
// removed. Every path above skips a command whose NoRetry is true, so the call fails
// with the timeout instead (ErrUnknownOutcome), which is true: its outcome is unknown.
// Only MOVED and ASK answers, which mean the script did not run, still send it to the
// node named.
type onceCmd struct{ *redis.Cmd }

func (onceCmd) NoRetry() bool { return true }

// evalSha is the EVALSHA of sc on keys and args as go-redis's own EvalSha builds it
// (first key at position 3, so that a cluster routes it by its slot), marked NoRetry.
// args are scalars (go-redis would flatten a lone slice argument; none is passed).
func evalSha(ctx context.Context, sc *redis.Script, keys []string, args []any) onceCmd {
	a := make([]any, 3+len(keys), 3+len(keys)+len(args))
	a[0], a[1], a[2] = "evalsha", sc.Hash(), len(keys)
	for i, k := range keys {
		a[3+i] = k
	}
	cmd := redis.NewCmd(ctx, append(a, args...)...)
	if len(keys) > 0 {
		cmd.SetFirstKeyPos(3)
	}
	return onceCmd{cmd}
}

// run runs a script by SHA (EVALSHA), loading it on a node that lacks it (NOSCRIPT: it
// did not run, so sending it again is safe).
func (s *Store) run(ctx context.Context, sc *redis.Script, keys []string, args ...any) (any, error) {
	return interruptible(ctx, func() (any, error) {
		for attempt := 0; ; attempt++ {
			cmd := evalSha(ctx, sc, keys, args)
			_ = s.c.Process(ctx, cmd)
			v, err := cmd.Result()
			switch {
			case errors.Is(err, redis.Nil):
				return nil, nil
			case err != nil && redis.HasErrorPrefix(err, "NOSCRIPT") && attempt == 0:
				if err := sc.Load(ctx, s.c).Err(); err != nil {
					return nil, err
				}
				continue
			}
			return v, err
		}
	})
}

// hgetall reads a hash (HGETALL).
func (s *Store) hgetall(ctx context.Context, key string) (map[string]string, error) {
	return interruptible(ctx, func() (map[string]string, error) { return s.c.HGetAll(ctx, key).Result() })
}

// allBuckets lists every bucket of the store.
func (s *Store) allBuckets() []int {
	out := make([]int, s.cfg.buckets)
	for b := range out {
		out[b] = b
	}
	return out
}

// perBucket runs sc once for each of buckets in one pipeline (one round trip per node),
// keys and args given by the bucket; replies are in the order of buckets. The buckets
// of a node without the script (NOSCRIPT: it did not run there) run once more after a
// SCRIPT LOAD on every node; the others, which ran, are never sent again.
func (s *Store) perBucket(ctx context.Context, sc *redis.Script, buckets []int, keys func(b int) []string, args func(b int) []any) ([]any, error) {
	return interruptible(ctx, func() ([]any, error) { return s.perBucketWait(ctx, sc, buckets, keys, args) })
}

func (s *Store) perBucketWait(ctx context.Context, sc *redis.Script, buckets []int, keys func(b int) []string, args func(b int) []any) ([]any, error) {
	out := make([]any, len(buckets))
	todo := make([]int, len(buckets)) // indexes into buckets of the scripts to send
	for i := range todo {
		todo[i] = i
	}
	for attempt := 0; ; attempt++ {
		pipe := s.c.Pipeline()
		cmds := make([]onceCmd, len(todo))
		for j, i := range todo {
			cmds[j] = evalSha(ctx, sc, keys(buckets[i]), args(buckets[i]))
			_ = pipe.Process(ctx, cmds[j])
		}
		_, _ = pipe.Exec(ctx)
		var noScript []int
		for j, cmd := range cmds {
			v, err := cmd.Result()
			switch {
			case err == nil || errors.Is(err, redis.Nil):
				out[todo[j]] = v
				continue
			case redis.HasErrorPrefix(err, "NOSCRIPT") && attempt == 0:
				noScript = append(noScript, todo[j])
				continue
			}
			return nil, err
		}
		if len(noScript) == 0 {
			return out, nil
		}
		if err := sc.Load(ctx, s.c).Err(); err != nil {
			return nil, err
		}
		todo = noScript
	}
}

// encodeJSON renders a canonical value as JSON text. It refuses (ErrInvalid) strings that
// are not valid UTF-8, which encoding/json would otherwise alter silently.
func encodeJSON(v any) (string, error) {
	if err := checkUTF8(v, "$"); err != nil {
		return "", err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("%w: %v", reference.ErrInvalid, err)
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte{'\n'})), nil
}

// checkUTF8 refuses a value JSON text cannot carry exactly (jsonvalue.CheckUTF8).
func checkUTF8(v any, path string) error {
	if err := jsonvalue.CheckUTF8(v); err != nil {
		return fmt.Errorf("%w: %s: %v", reference.ErrInvalid, path, err)
	}
	return nil
}

// reply helpers: a script's reply is nested []any of string and int64.

func replyStrings(v any) ([]string, error) { return replyList[string](v) }

func replyInts(v any) ([]int64, error) { return replyList[int64](v) }

// replyList reads a reply that is a list of T.
func replyList[T string | int64](v any) ([]T, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%w: unexpected script reply %T", reference.ErrInternal, v)
	}
	out := make([]T, len(arr))
	for i, e := range arr {
		x, ok := e.(T)
		if !ok {
			return nil, fmt.Errorf("%w: unexpected script reply element %T", reference.ErrInternal, e)
		}
		out[i] = x
	}
	return out, nil
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
