package redisstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/storecheck/storecheck/adapters/internal/storetest"
	"github.com/storecheck/storecheck/adapters/redisstore"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// TestNumbersNeverPassThroughLua writes values that a cjson round trip would change
// (integers past 2^53, number spellings) and then updates other keys, removes and
// re-adds owners and moves the status through the scripts: every value must come back
// with its digits (S-VAL-1), because no script decodes the task's JSON.
func TestNumbersNeverPassThroughLua(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	meta, err := legacy.DecodeTask([]byte(`{"big":9223372036854775807,"neg":-9223372036854775807,
		"odd":9007199254740993,"tiny":1e-7,"max":1.7976931348623157e308,"nested":{"n":[12345678901234567890,0.1]},
		"nul":"a\u0000b","":"empty key","a.b":{"$x":[null,true,{}]},"astral":"𝄞 שלום é"}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.legacy.Create(ctx, "nums", meta); err != nil {
		t.Fatal(err)
	}
	steps := []legacy.Task{
		{"other": json.Number("18446744073709551615")},
		{"owner": "alice"},
		{"owner": nil, "status": "input_required"},
		{"status": "completed", "created_at": json.Number("9007199254740993")},
	}
	for _, ch := range steps {
		if _, err := f.legacy.Update(ctx, "nums", ch); err != nil {
			t.Fatalf("Update(%v): %v", ch, err)
		}
	}
	got, err := f.legacy.Get(ctx, "nums")
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range meta {
		if !jsonEqual(got[k], v) {
			t.Errorf("key %q: stored %s, got back %s", k, js(v), js(got[k]))
		}
	}
	for k, want := range map[string]string{"big": "9223372036854775807", "odd": "9007199254740993",
		"other": "18446744073709551615", "created_at": "9007199254740993"} {
		if n, ok := got[k].(json.Number); !ok || string(n) != want {
			t.Errorf("key %q came back as %#v, want the number %s", k, got[k], want)
		}
	}
	// The created_at past 2^53 still drives Cleanup exactly: 9007199254740993 is one more
	// than a double can tell from 9007199254740992.
	f.clock.SetMillis(9007199254740993 + 1000)
	if n, err := f.legacy.Cleanup(ctx, time.Second); err != nil || n != 0 {
		t.Errorf("Cleanup(1s) at created_at + 1 s = %d, %v; want 0 (age is not > ttl)", n, err)
	}
	f.clock.SetMillis(9007199254740993 + 1001)
	if n, err := f.legacy.Cleanup(ctx, time.Second); err != nil || n != 1 {
		t.Errorf("Cleanup(1s) at created_at + 1.001 s = %d, %v; want 1", n, err)
	}
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func jsonEqual(a, b any) bool { return js(a) == js(b) }

// TestIndexesMatchTasksUnderConcurrency runs writers that change status, owner and
// created_at of a few tasks while others delete and re-create them, then compares every
// index with the tasks themselves: each index entry must name a task that has that
// property, and each task must be in exactly its entries.
func TestIndexesMatchTasksUnderConcurrency(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	ids := []string{"t0", "t1", "t2", "t{3}", "t:4", "t*5"}
	statuses := []any{"working", "input_required", "completed", "failed", "cancelled", "odd", nil, json.Number("3")}
	owners := []any{"alice", "bob", nil, "", json.Number("1")}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for range 150 {
				id := ids[r.IntN(len(ids))]
				var err error
				switch r.IntN(6) {
				case 0:
					_, err = f.legacy.Create(ctx, id, legacy.Task{"owner": owners[r.IntN(len(owners))]})
				case 1:
					err = f.legacy.Delete(ctx, id)
				case 2:
					_, err = f.legacy.Cancel(ctx, id)
				case 3:
					_, err = f.legacy.UpdateIf(ctx, id, []reference.Status{"working", "input_required"},
						legacy.Task{"status": statuses[r.IntN(len(statuses))]})
				default:
					_, err = f.legacy.Update(ctx, id, legacy.Task{
						"status": statuses[r.IntN(len(statuses))], "owner": owners[r.IntN(len(owners))],
						"created_at": json.Number(fmt.Sprint(r.IntN(3) * 1000))})
				}
				if err != nil && !errors.Is(err, reference.ErrNotFound) && !errors.Is(err, reference.ErrExists) &&
					!errors.Is(err, reference.ErrConflict) {
					t.Errorf("goroutine %d: %v", g, err)
					return
				}
			}
		})
	}
	wg.Wait()
	// Ground truth from the tasks, then every index entry of every bucket.
	tasks := map[string]legacy.Task{}
	for _, id := range ids {
		if tk, err := f.legacy.Get(ctx, id); err == nil {
			tasks[id] = tk
		}
	}
	want := map[string][]string{}
	add := func(index, id string) { want[index] = append(want[index], id) }
	for id, tk := range tasks {
		add("all", id)
		add("status:"+string(tk.Status()), id)
		if o := tk.Owner(); o != "" {
			add("owner:"+o, id)
		} else {
			add("unowned", id)
		}
		if c, ok := tk.CreatedAt(); ok && tk.Status().Terminal() {
			add(fmt.Sprintf("done:%d", c), id)
		}
	}
	got := map[string][]string{}
	keys, err := f.client.Keys(ctx, redisstore.Pattern(f.prefix)).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		_, rest, _ := strings.Cut(k, "}:")
		switch {
		case rest == "l#all":
			got["all"] = append(got["all"], f.client.SMembers(ctx, k).Val()...)
		case strings.HasPrefix(rest, "l#s:"):
			got["status:"+rest[4:]] = append(got["status:"+rest[4:]], f.client.SMembers(ctx, k).Val()...)
		case strings.HasPrefix(rest, "l#o:"):
			got["owner:"+rest[4:]] = append(got["owner:"+rest[4:]], f.client.SMembers(ctx, k).Val()...)
		case rest == "l#u":
			got["unowned"] = append(got["unowned"], f.client.SMembers(ctx, k).Val()...)
		case rest == "l#done":
			for _, z := range f.client.ZRangeWithScores(ctx, k, 0, -1).Val() {
				key := fmt.Sprintf("done:%.0f", z.Score)
				got[key] = append(got[key], z.Member.(string))
			}
		}
	}
	for _, m := range []map[string][]string{want, got} {
		for k := range m {
			sort.Strings(m[k])
		}
	}
	if js(want) != js(got) {
		t.Errorf("indexes disagree with the tasks after concurrent writes:\n tasks say   %s\n indexes say %s", js(want), js(got))
	}
	if len(tasks) == 0 {
		t.Errorf("no task survived the run; the comparison proved nothing")
	}
}

// TestBucketCountIsChecked: two instances of one prefix with different bucket counts
// would put one id in two places; the second is refused on its first call.
func TestBucketCountIsChecked(t *testing.T) {
	f := newFixture(t) // 4 buckets
	ctx := t.Context()
	if _, err := f.legacy.Create(ctx, "x", legacy.Task{}); err != nil {
		t.Fatal(err)
	}
	other, err := redisstore.New(f.client, redisstore.WithPrefix(f.prefix), redisstore.WithBuckets(5))
	if err != nil {
		t.Fatal(err)
	}
	_, err = other.Legacy().Get(ctx, "x")
	if !errors.Is(err, reference.ErrInvalid) || !strings.Contains(err.Error(), "buckets=4") {
		t.Errorf("Get through an instance with 5 buckets on a 4-bucket prefix: want ErrInvalid naming buckets=4, got %v", err)
	}
	same, err := redisstore.New(f.client, redisstore.WithPrefix(f.prefix), redisstore.WithBuckets(4))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := same.Legacy().Get(ctx, "x"); err != nil {
		t.Errorf("Get through a second instance with the same bucket count: %v", err)
	}
}

func TestOptionsRefuseBadValues(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer c.Close()
	for _, opt := range []redisstore.Option{
		redisstore.WithPrefix(""), redisstore.WithPrefix("a{b}"), redisstore.WithPrefix("a*"),
		redisstore.WithPrefix("a:b"), redisstore.WithPrefix(strings.Repeat("p", 129)),
		redisstore.WithBuckets(0), redisstore.WithBuckets(redisstore.MaxBuckets + 1),
		redisstore.WithExpiryBackstop(time.Second),
	} {
		if _, err := redisstore.New(c, opt); !errors.Is(err, reference.ErrInvalid) {
			t.Errorf("New with a bad option: want ErrInvalid, got %v", err)
		}
	}
	if _, err := redisstore.New(nil); !errors.Is(err, reference.ErrInvalid) {
		t.Errorf("New(nil): want ErrInvalid, got %v", err)
	}
}

// TestPrefixesAreIsolated: two prefixes, one of which starts with the other, never see
// each other's tasks, and deleting one leaves the other.
func TestPrefixesAreIsolated(t *testing.T) {
	a := newFixture(t)
	ctx := t.Context()
	b, err := redisstore.New(a.client, redisstore.WithPrefix(a.prefix+"x"), redisstore.WithBuckets(4))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = redisstore.DeletePrefix(context.Background(), a.client, a.prefix+"x") })
	if _, err := a.legacy.Create(ctx, "same", legacy.Task{"from": "a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Legacy().Get(ctx, "same"); !errors.Is(err, reference.ErrNotFound) {
		t.Errorf("prefix %sx sees a task of prefix %s: %v", a.prefix, a.prefix, err)
	}
	if _, err := b.Legacy().Create(ctx, "same", legacy.Task{"from": "b"}); err != nil {
		t.Fatal(err)
	}
	if _, err := redisstore.DeletePrefix(ctx, a.client, a.prefix); err != nil {
		t.Fatal(err)
	}
	got, err := b.Legacy().Get(ctx, "same")
	if err != nil || got["from"] != "b" {
		t.Errorf("deleting prefix %s removed a task of %sx: %v, %v", a.prefix, a.prefix, got, err)
	}
}

// TestStoreClockNotServerClock moves the store's clock: cleanup and expiry must follow it, which they
// cannot if a script reads the server's TIME.
func TestStoreClockNotServerClock(t *testing.T) {
	f := newFixture(t)
	storetest.ClockFollowed(t, t.Context(), f.legacy, f.modern, f.clock)
}

// TestExpiryBackstop: with a margin, a task with a ttl gets a native TTL of its logical
// time left plus the margin, and loses it when a Swap removes the ttl; without a margin
// nothing has a native TTL.
func TestExpiryBackstop(t *testing.T) {
	ctx := t.Context()
	ttl := int64(60_000)
	for _, margin := range []time.Duration{0, time.Hour} {
		f := newFixture(t, redisstore.WithExpiryBackstop(margin))
		now := reference.NowMillis(f.clock)
		task := modern.Task{TaskID: "b", CreatedAt: now, TTL: &ttl, Status: reference.StatusWorking}
		if _, err := f.modern.Create(ctx, task); err != nil {
			t.Fatal(err)
		}
		key := findKey(t, f, ":m:b")
		pttl := f.client.PTTL(ctx, key).Val()
		want := time.Duration(ttl)*time.Millisecond + margin
		if margin == 0 && pttl >= 0 || margin > 0 && (pttl > want || pttl < want-time.Minute) {
			t.Errorf("margin %s: native PTTL %s after Create; want %s", margin, pttl, map[bool]any{true: "none", false: want}[margin == 0])
		}
		task.TTL = nil
		if _, err := f.modern.Swap(ctx, reference.System(), 1, task); err != nil {
			t.Fatal(err)
		}
		if pttl := f.client.PTTL(ctx, key).Val(); pttl >= 0 {
			t.Errorf("margin %s: native PTTL %s after a Swap removed the ttl; want none", margin, pttl)
		}
	}
}

// TestSwapKeepsExpiry: a Swap that keeps the expiry writes no expiry field, index entry
// or native TTL (modernSwap's short path); the ones written before must still hold, so
// Sweep removes the task at its expiry, not before, and the backstop stays, and a later
// change of the ttl still moves both (M-GET-1, M-SWEEP-1).
func TestSwapKeepsExpiry(t *testing.T) {
	ctx := t.Context()
	margin := time.Hour
	f := newFixture(t, redisstore.WithExpiryBackstop(margin))
	now := reference.NowMillis(f.clock)
	short, long := int64(60_000), int64(120_000)
	task := modern.Task{TaskID: "k", CreatedAt: now, Status: reference.StatusWorking}
	if _, err := f.modern.Create(ctx, task); err != nil {
		t.Fatal(err)
	}
	key := findKey(t, f, ":m:k")
	swap := func(v int64, ttl *int64, what string) {
		t.Helper()
		next := task
		next.TTL, next.StatusMessage = ttl, what
		if _, err := f.modern.Swap(ctx, reference.System(), v, next); err != nil {
			t.Fatalf("Swap %s: %v", what, err)
		}
	}
	pttl := func(ttl int64, what string) {
		t.Helper()
		got := f.client.PTTL(ctx, key).Val()
		want := time.Duration(ttl)*time.Millisecond + margin
		if got > want || got < want-time.Minute {
			t.Errorf("native PTTL %s after %s; want about %s", got, what, want)
		}
	}
	swap(1, nil, "no ttl kept")
	if got := f.client.PTTL(ctx, key).Val(); got >= 0 {
		t.Errorf("native PTTL %s after a Swap without a ttl; want none", got)
	}
	swap(2, &short, "ttl set")
	swap(3, &short, "ttl kept")
	pttl(short, "a Swap that kept the ttl")
	swap(4, &long, "ttl raised")
	pttl(long, "a Swap that raised the ttl")
	swap(5, &long, "raised ttl kept")
	pttl(long, "a second Swap that kept the ttl")
	f.clock.Advance(time.Duration(short) * time.Millisecond)
	if n, err := f.modern.Sweep(ctx); err != nil || n != 0 {
		t.Errorf("Sweep at the old expiry = %d, %v; want 0 (the ttl was raised)", n, err)
	}
	if got, err := f.modern.Get(ctx, "k", reference.System()); err != nil || got.StatusMessage != "raised ttl kept" {
		t.Errorf("Get at the old expiry = %+v, %v; want the last Swap's task", got, err)
	}
	f.clock.Advance(time.Duration(long-short) * time.Millisecond)
	if n, err := f.modern.Sweep(ctx); err != nil || n != 1 {
		t.Errorf("Sweep at the raised expiry = %d, %v; want 1", n, err)
	}
	if n, _ := f.client.Exists(ctx, key).Result(); n != 0 {
		t.Errorf("task key still there after Sweep removed it")
	}
}

func findKey(t *testing.T, f *fixture, suffix string) string {
	t.Helper()
	keys, err := f.client.Keys(t.Context(), redisstore.Pattern(f.prefix)).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if strings.HasSuffix(k, suffix) {
			return k
		}
	}
	t.Fatalf("no key ending in %q among %v", suffix, keys)
	return ""
}

// TestCleanupAndSweepInBatches puts more candidates than one script examines into one
// bucket: Cleanup and Sweep must go round again until all are gone.
func TestCleanupAndSweepInBatches(t *testing.T) {
	f := newFixture(t, redisstore.WithBuckets(1))
	ctx := t.Context()
	const n = 1100 // more than two batches of 500
	ttl := int64(1)
	now := reference.NowMillis(f.clock)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := g; i < n; i += 8 {
				id := fmt.Sprint(i)
				if _, err := f.legacy.Create(ctx, id, legacy.Task{}); err != nil {
					errs <- err
					return
				}
				if _, err := f.legacy.Update(ctx, id, legacy.Task{"status": "failed"}); err != nil {
					errs <- err
					return
				}
				if _, err := f.modern.Create(ctx, modern.Task{TaskID: id, CreatedAt: now, TTL: &ttl}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	f.clock.Advance(time.Second)
	if got, err := f.legacy.Cleanup(ctx, 0); err != nil || got != n {
		t.Errorf("Cleanup(0) of %d failed tasks in one bucket = %d, %v; want %d", n, got, err, n)
	}
	if got, err := f.modern.Sweep(ctx); err != nil || got != n {
		t.Errorf("Sweep of %d expired tasks in one bucket = %d, %v; want %d", n, got, err, n)
	}
}

// TestHostileIDsAndOwners: ids and owners with hash-tag, glob and separator characters
// are ordinary values; a principal named like a pattern sees exactly its own task.
func TestHostileIDsAndOwners(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	hostile := []string{`{`, `}`, `{a}`, `}{`, `*`, `?`, `[a-z]`, `\`, `:`, `l:x`, `l#all`, `#s`, `.x`, "a\nb", `%`, `_`}
	for i, s := range hostile {
		id := fmt.Sprintf("%s#%d", s, i)
		if _, err := f.legacy.Create(ctx, id, legacy.Task{"owner": s, "k": s, s: s}); err != nil {
			t.Fatalf("legacy Create(%q): %v", id, err)
		}
		if _, err := f.modern.Create(ctx, modern.Task{TaskID: id, Owner: s, Status: reference.StatusWorking, CreatedAt: 1}); err != nil {
			t.Fatalf("modern Create(%q): %v", id, err)
		}
	}
	for i, s := range hostile {
		id := fmt.Sprintf("%s#%d", s, i)
		got, err := f.legacy.Get(ctx, id)
		if err != nil || got["k"] != s || got[s] != s || got.ID() != id {
			t.Errorf("legacy Get(%q) = %v, %v", id, got, err)
		}
		rows, err := f.legacy.List(ctx, legacy.ListOptions{Owner: legacy.PrincipalOwner(s), RequireOwner: true})
		if err != nil || len(rows) != 1 || rows[0].ID() != id {
			t.Errorf("List(principal %q, require_owner) = %d rows, %v; want only %q", s, len(rows), err, id)
		}
		if _, err := f.modern.Get(ctx, id, reference.Principal(s+"x")); !errors.Is(err, reference.ErrNotFound) {
			t.Errorf("modern Get(%q, principal %q): want ErrNotFound, got %v", id, s+"x", err)
		}
	}
	rows, err := f.legacy.List(ctx, legacy.ListOptions{})
	if err != nil || len(rows) != len(hostile) {
		t.Errorf("List(any) = %d rows, %v; want %d", len(rows), err, len(hostile))
	}
}

// TestSwapErrors checks how a refused Swap is explained (M-SWAP-2, M-SWAP-3) and that it
// wrote nothing.
func TestSwapErrors(t *testing.T) {
	storetest.SwapErrors(t, t.Context(), newFixture(t).modern)
}

func TestInvalidUTF8IsRefusedNotAltered(t *testing.T) {
	f := newFixture(t)
	storetest.InvalidUTF8Refused(t, t.Context(), f.legacy, f.modern)
}

func TestCancelledContextReturnsPromptly(t *testing.T) {
	storetest.CancelledCreateReturnsPromptly(t, t.Context(), newFixture(t).legacy)
}

// TestScriptsReloadAfterFlush: a server that lost its script cache (restart, SCRIPT
// FLUSH) gets the scripts again, for single-key calls and for the per-bucket pipeline.
func TestScriptsReloadAfterFlush(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	if _, err := f.legacy.Create(ctx, "r", legacy.Task{}); err != nil {
		t.Fatal(err)
	}
	if err := f.client.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if rows, err := f.legacy.List(ctx, legacy.ListOptions{}); err != nil || len(rows) != 1 {
		t.Errorf("List after SCRIPT FLUSH = %d rows, %v; want 1", len(rows), err)
	}
	if err := f.client.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.legacy.Update(ctx, "r", legacy.Task{"x": 1}); err != nil {
		t.Errorf("Update after SCRIPT FLUSH: %v", err)
	}
}

// TestListLimitAcrossUnevenBuckets: List with a limit asks each bucket for its share
// first and the buckets that had more for the rest; whatever the spread of the tasks
// over the buckets, it returns min(limit, matching) distinct matching tasks.
func TestListLimitAcrossUnevenBuckets(t *testing.T) {
	f := newFixture(t) // 4 buckets: a share is limit ÷ 4
	ctx := t.Context()
	const mine = 23
	for i := range mine {
		if _, err := f.legacy.Create(ctx, fmt.Sprintf("u-%d", i), legacy.Task{"owner": "alice"}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 7 {
		if _, err := f.legacy.Create(ctx, fmt.Sprintf("o-%d", i), legacy.Task{"owner": "bob"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, limit := range []int{1, 3, 5, 9, 22, 23, 24, 100} {
		l := limit
		rows, err := f.legacy.List(ctx, legacy.ListOptions{Owner: legacy.PrincipalOwner("alice"), RequireOwner: true, Limit: &l})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, r := range rows {
			id, _ := r["task_id"].(string)
			if seen[id] || r.Owner() != "alice" {
				t.Errorf("List(alice, limit %d): row %v repeated or not alice's", limit, r)
			}
			seen[id] = true
		}
		if want := min(limit, mine); len(rows) != want {
			t.Errorf("List(alice, limit %d) returned %d rows, want %d (alice has %d tasks over 4 buckets)", limit, len(rows), want, mine)
		}
	}
}
