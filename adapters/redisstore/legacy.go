package redisstore

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/storecheck/storecheck/adapters/internal/legacywrite"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonvalue"
	"github.com/storecheck/storecheck/reference/legacy"
)

// Legacy is the legacy-era store (docs/spec.md 1.1): legacy.Store plus the optional
// Canceler, Cleaner and ConditionalUpdater.
type Legacy struct {
	s *Store
	legacywrite.Writes
}

func newLegacy(s *Store) *Legacy {
	l := &Legacy{s: s}
	l.Writes = legacywrite.Writes{Modify: l.modify}
	return l
}

var (
	_ legacy.Store              = (*Legacy)(nil)
	_ legacy.Canceler           = (*Legacy)(nil)
	_ legacy.Cleaner            = (*Legacy)(nil)
	_ legacy.ConditionalUpdater = (*Legacy)(nil)
)

// Hash fields of a legacy task: data keys are "." + the task's key; the promoted
// fields start with "#", which no data field does.
const (
	fieldStatus  = "#s"
	fieldOwner   = "#o"
	fieldCreated = "#c"
)

func (l *Legacy) key(id string) (base, key string) {
	base = l.s.base(l.s.bucketOf(id))
	return base, base + ":l:" + id
}

// fields renders the keys of t (a canonical task, or changes) as hash fields: the JSON
// text of each value, plus the promoted fields for the framework keys present in t.
// del lists the promoted fields to remove (owner set to null, a created_at that is not
// an integer).
func fields(t legacy.Task) (pairs []any, del []any, err error) {
	pairs = make([]any, 0, 2*len(t)+6)
	for k, v := range t {
		text, err := encodeJSON(v)
		if err != nil {
			return nil, nil, fmt.Errorf("key %q: %w", k, err)
		}
		pairs = append(pairs, "."+k, text)
	}
	if _, ok := t[legacy.KeyStatus]; ok {
		pairs = append(pairs, fieldStatus, string(t.Status()))
	}
	if _, ok := t[legacy.KeyOwner]; ok {
		if o := t.Owner(); o != "" {
			pairs = append(pairs, fieldOwner, o)
		} else {
			del = append(del, fieldOwner)
		}
	}
	if _, ok := t[legacy.KeyCreatedAt]; ok {
		if c, ok := t.CreatedAt(); ok {
			pairs = append(pairs, fieldCreated, itoa(c))
		} else {
			del = append(del, fieldCreated)
		}
	}
	return pairs, del, nil
}

// decodeHash rebuilds a task from its hash (HGETALL as a flat field/value list).
func decodeHash(flat []string) (legacy.Task, error) {
	if len(flat)%2 != 0 {
		return nil, fmt.Errorf("%w: odd HGETALL reply", reference.ErrInternal)
	}
	t := make(legacy.Task, len(flat)/2)
	for i := 0; i < len(flat); i += 2 {
		f := flat[i]
		if len(f) == 0 || f[0] != '.' {
			continue
		}
		v, err := jsonvalue.Decode([]byte(flat[i+1]))
		if err != nil {
			return nil, fmt.Errorf("%w: stored value of key %q unreadable: %v", reference.ErrInternal, f[1:], err)
		}
		t[f[1:]] = v
	}
	return t, nil
}

// Create stores meta stamped with task_id, status working and created_at from the store's
// clock (L-CREATE-1); an existing id fails with reference.ErrExists and is untouched.
// One script.
func (l *Legacy) Create(ctx context.Context, id string, meta legacy.Task) (legacy.Task, error) {
	if err := l.s.begin(ctx, "create"); err != nil {
		return nil, err
	}
	row, err := legacy.NewRow(id, meta, l.s.now())
	if err != nil {
		return nil, err
	}
	pairs, _, err := fields(row)
	if err != nil {
		return nil, err
	}
	base, key := l.key(id)
	v, err := l.s.run(ctx, legacyCreate, []string{key}, append([]any{base, id}, pairs...)...)
	if err != nil {
		return nil, writeError(ctx, "create", err)
	}
	if n, _ := v.(int64); n != 1 {
		return nil, reference.ErrorFor(reference.ErrExists, id)
	}
	return row, nil // NewRow's copy is private
}

// Get returns the task, or reference.ErrNotFound (L-GET-1). One HGETALL.
func (l *Legacy) Get(ctx context.Context, id string) (legacy.Task, error) {
	if err := l.s.beginOn(ctx, "get", id); err != nil {
		return nil, err
	}
	_, key := l.key(id)
	m, err := l.s.hgetall(ctx, key)
	if err != nil {
		return nil, dbError(ctx, "get", err)
	}
	if len(m) == 0 {
		return nil, reference.NotFound(id)
	}
	flat := make([]string, 0, 2*len(m))
	for f, v := range m {
		flat = append(flat, f, v)
	}
	return decodeHash(flat)
}

// modify is the read-merge-write of Update, UpdateIf (allowed non-nil) and Cancel
// (legacywrite.Writes). The merge is field by field inside one script, so concurrent
// updates of disjoint keys all survive (L-CONC-1), an update racing a delete never
// resurrects the task, and UpdateIf's check and write are one step.
func (l *Legacy) modify(ctx context.Context, op, id string, allowed []reference.Status, changes legacy.Task) (legacy.Task, error) {
	if err := l.s.beginOn(ctx, op, id); err != nil {
		return nil, err
	}
	ch, err := legacy.Normalize(changes)
	if err != nil {
		return nil, err
	}
	pairs, del, err := fields(ch)
	if err != nil {
		return nil, err
	}
	base, key := l.key(id)
	args := []any{base, id}
	if allowed == nil {
		args = append(args, "-1")
	} else {
		args = append(args, itoa(int64(len(allowed))))
		for _, a := range allowed {
			args = append(args, string(a))
		}
	}
	args = append(args, itoa(int64(len(del))))
	args = append(args, del...)
	promoted := "0"
	for _, k := range []string{legacy.KeyStatus, legacy.KeyOwner, legacy.KeyCreatedAt} {
		if _, ok := ch[k]; ok {
			promoted = "1"
		}
	}
	args = append(args, promoted)
	args = append(args, pairs...)
	v, err := l.s.run(ctx, legacyUpdate, []string{key}, args...)
	if err != nil {
		return nil, writeError(ctx, op, err)
	}
	arr, ok := v.([]any)
	if !ok || len(arr) == 0 {
		return nil, fmt.Errorf("%w: redis: %s: unexpected reply %v", reference.ErrInternal, op, v)
	}
	switch arr[0] {
	case "nf":
		return nil, reference.NotFound(id)
	case "conflict":
		return nil, fmt.Errorf("%w: task %s is %v", reference.ErrConflict, id, arr[1:])
	case "ok":
		if len(arr) == 2 {
			flat, err := replyStrings(arr[1])
			if err != nil {
				return nil, err
			}
			return decodeHash(flat)
		}
	}
	return nil, fmt.Errorf("%w: redis: %s: unexpected reply %v", reference.ErrInternal, op, v)
}

// Delete removes the task; a missing id is not an error (L-DELETE-1). One script.
func (l *Legacy) Delete(ctx context.Context, id string) error {
	if err := l.s.beginOn(ctx, "delete", id); err != nil {
		return err
	}
	base, key := l.key(id)
	if _, err := l.s.run(ctx, legacyDelete, []string{key}, base, id); err != nil {
		return writeError(ctx, "delete", err)
	}
	return nil
}

// List returns the tasks matching opts, each once (L-LIST-1..4): status, owner scope and
// limit are applied by one script per bucket, the buckets in one pipeline.
//
// With a limit, each bucket is first asked for its share of it (limit ÷ buckets,
// rounded up) rather than the whole limit: asking every bucket for the whole limit
// read and shipped up to buckets × limit tasks to keep limit of them (16× the work at
// the default 16 buckets; the bench's 0.32× of raw commands). A bucket that had more
// than its share says so, and when the shares fall short of the limit those buckets are
// asked again for the rest (a task already taken is not taken twice). Every task
// returned matched when its bucket's script read it, as before.
func (l *Legacy) List(ctx context.Context, opts legacy.ListOptions) ([]legacy.Task, error) {
	out := []legacy.Task{}
	if err := l.s.begin(ctx, "list"); err != nil {
		return nil, err
	}
	if opts.Limit != nil && *opts.Limit <= 0 {
		return out, nil
	}
	hasStatus, status := "0", ""
	if opts.Status != nil {
		hasStatus, status = "1", *opts.Status
	}
	scope, principal := listScope(opts)
	if scope == "" {
		return out, nil
	}
	buckets := l.s.allBuckets()
	// ask[b] is how many rows bucket b is asked for (-1: all); got[b] how many it gave.
	ask := make(map[int]int, len(buckets))
	got := make(map[int]int, len(buckets))
	for _, b := range buckets {
		ask[b] = -1
		if opts.Limit != nil {
			ask[b] = (*opts.Limit + len(buckets) - 1) / len(buckets)
		}
	}
	var seen map[string]bool // the ids taken, from the second round on
	for len(buckets) > 0 {
		replies, err := l.s.perBucket(ctx, legacyList, buckets,
			func(b int) []string { return []string{l.s.base(b) + ":l#all"} },
			func(b int) []any {
				return []any{l.s.base(b), hasStatus, status, scope, principal, itoa(int64(ask[b]))}
			})
		if err != nil {
			return nil, dbError(ctx, "list", err)
		}
		var more []int
		for i, r := range replies {
			rows, hasMore, err := listReply(r)
			if err != nil {
				return nil, err
			}
			b := buckets[i]
			got[b] = len(rows)
			if hasMore {
				more = append(more, b)
			}
			for _, row := range rows {
				if !opts.LimitAllows(len(out)) {
					return out, nil
				}
				t, ok, err := listRow(row)
				if err != nil {
					return nil, err
				}
				if !ok {
					continue // cannot happen: an indexed id always has its hash
				}
				if seen != nil {
					id, _ := t[legacy.KeyTaskID].(string)
					if seen[id] {
						continue // taken in an earlier round
					}
					seen[id] = true
				}
				out = append(out, t)
			}
		}
		if !opts.LimitAllows(len(out)) || len(more) == 0 {
			return out, nil
		}
		// Short of the limit: the buckets that had more are asked again, each for what
		// it gave plus all that is still missing.
		if seen == nil {
			seen = make(map[string]bool, len(out))
			for _, t := range out {
				id, _ := t[legacy.KeyTaskID].(string)
				seen[id] = true
			}
		}
		need := *opts.Limit - len(out)
		for _, b := range more {
			ask[b] = got[b] + need
		}
		buckets = more
	}
	return out, nil
}

// listScope is the legacyList script's owner scope of opts (a: any, q: principal's
// own only, p: principal's and unowned, n: unowned) and its principal; scope is ""
// when no row can match (anonymous requiring an owner sees only unowned rows, and those
// are excluded).
func listScope(opts legacy.ListOptions) (scope, principal string) {
	switch p, isPrincipal := opts.Owner.Principal(); {
	case opts.Owner.IsAny():
		return "a", ""
	case isPrincipal && opts.RequireOwner:
		return "q", p
	case isPrincipal:
		return "p", p
	case opts.RequireOwner:
		return "", ""
	}
	return "n", ""
}

// listRow decodes one row of a legacyList reply; ok is false for an empty hash.
func listRow(row any) (t legacy.Task, ok bool, err error) {
	flat, err := replyStrings(row)
	if err != nil || len(flat) == 0 {
		return nil, false, err
	}
	t, err = decodeHash(flat)
	return t, err == nil, err
}

// listReply takes apart a legacyList reply: {rows, more}.
func listReply(r any) (rows []any, more bool, err error) {
	arr, ok := r.([]any)
	if !ok || len(arr) != 2 {
		return nil, false, fmt.Errorf("%w: redis: list: unexpected reply %T %v", reference.ErrInternal, r, r)
	}
	rows, ok = arr[0].([]any)
	if !ok && arr[0] != nil {
		return nil, false, fmt.Errorf("%w: redis: list: unexpected rows %T", reference.ErrInternal, arr[0])
	}
	n, _ := arr[1].(int64)
	return rows, n == 1, nil
}

// Cleanup removes the terminal tasks whose age now − created_at is strictly greater than
// ttl (L-CLEAN-1), now being the store's clock, and returns how many it removed. One
// script per bucket (in one pipeline), repeated for a bucket with more than a batch of
// candidates.
func (l *Legacy) Cleanup(ctx context.Context, ttl time.Duration) (int, error) {
	if err := l.s.begin(ctx, "cleanup"); err != nil {
		return 0, err
	}
	// The age is a whole number of milliseconds, so age > ttl ⇔ age > ⌊ttl⌋ms ⇔
	// created_at ≤ now − ⌊ttl⌋ms − 1, computed exactly and clamped to int64.
	floor := int64(ttl / time.Millisecond)
	if ttl%time.Millisecond < 0 {
		floor--
	}
	bound := new(big.Int).Sub(big.NewInt(l.s.now()), big.NewInt(floor))
	bound.Sub(bound, big.NewInt(1))
	switch {
	case bound.Cmp(big.NewInt(math.MinInt64)) < 0:
		return 0, nil // no created_at is that old
	case bound.Cmp(big.NewInt(math.MaxInt64)) > 0:
		bound.SetInt64(math.MaxInt64)
	}
	b := bound.String()
	return l.s.sweepBuckets(ctx, "cleanup", legacyCleanup, ":l#done", b)
}

// sweepBuckets runs a batch-limited removal script (legacyCleanup, modernSweep) over
// every bucket, again over the buckets that had a full batch, and sums the removals.
func (s *Store) sweepBuckets(ctx context.Context, op string, sc *redis.Script, zset, bound string) (int, error) {
	total := 0
	pending := s.allBuckets()
	for len(pending) > 0 {
		replies, err := s.perBucket(ctx, sc, pending,
			func(b int) []string { return []string{s.base(b) + zset} },
			func(b int) []any { return []any{s.base(b), bound, itoa(batch)} })
		if err != nil {
			return total, writeError(ctx, op, err)
		}
		var next []int
		for i, r := range replies {
			counts, err := replyInts(r)
			if err != nil || len(counts) < 2 {
				return total, fmt.Errorf("%w: redis: %s: unexpected reply %v", reference.ErrInternal, op, r)
			}
			total += int(counts[0])
			changed := counts[0]
			if len(counts) > 2 {
				changed += counts[2]
			}
			// A full batch that changed something may hide more; a full batch that
			// changed nothing holds only score ties the exact comparison rejected.
			if counts[1] == batch && changed > 0 {
				next = append(next, pending[i])
			}
		}
		pending = next
	}
	return total, nil
}
