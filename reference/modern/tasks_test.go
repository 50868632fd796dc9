package modern_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/internal/facadetest"
	"github.com/storecheck/storecheck/reference/jsonvalue"
	"github.com/storecheck/storecheck/reference/memstore"
	"github.com/storecheck/storecheck/reference/modern"
)

var epoch = time.UnixMilli(1_764_400_000_000)

// recorder is a Notifier that keeps every task it hears about.
type recorder struct {
	mu    sync.Mutex
	tasks []modern.Task
}

func (r *recorder) TaskChanged(task modern.Task) {
	r.mu.Lock()
	r.tasks = append(r.tasks, task)
	r.mu.Unlock()
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.tasks)
}

func (r *recorder) last() modern.Task {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.tasks[len(r.tasks)-1]
}

type fixture struct {
	store *memstore.Modern
	clock *reference.ManualClock
	notes *recorder
	tasks *modern.Tasks
}

// newFixture is a facade over memstore with a manual clock and a recording notifier;
// edit tweaks the config before New.
func newFixture(t *testing.T, edit func(*modern.Config)) *fixture {
	t.Helper()
	clock := reference.NewManualClock(epoch)
	f := &fixture{store: memstore.New(memstore.WithClock(clock)).Modern(), clock: clock, notes: &recorder{}}
	cfg := modern.Config{Store: f.store, Notifier: f.notes, Clock: clock}
	if edit != nil {
		edit(&cfg)
	}
	f.tasks = modern.New(cfg)
	return f
}

func (f *fixture) create(t *testing.T, opts modern.CreateOptions) modern.Task {
	t.Helper()
	task, err := f.tasks.Create(context.Background(), opts, nil)
	if err != nil {
		t.Fatalf("Create(%+v): %v", opts, err)
	}
	return task
}

// stored reads the task as the store has it (system, unscoped).
func (f *fixture) stored(t *testing.T, id string) modern.Task {
	t.Helper()
	task, err := f.store.Get(context.Background(), id, reference.System())
	if err != nil {
		t.Fatalf("store Get(%q): %v", id, err)
	}
	return task
}

func q(v any) string { return jsonvalue.Describe(v) }

func describe(t modern.Task) string {
	b, err := t.MarshalJSON()
	if err != nil {
		return fmt.Sprintf("%+v", t)
	}
	return string(b)
}

var truthTable = facadetest.Table(facadetest.Row{Owner: "caf\u00e9", Caller: reference.Principal("cafe\u0301")})

// TestScopeTruthTable runs Get, Update and Cancel through every row in both settings.
func TestScopeTruthTable(t *testing.T) {
	ctx := context.Background()
	for _, req := range []bool{false, true} {
		f := newFixture(t, func(c *modern.Config) { c.RequireOwner = req })
		for _, row := range truthTable {
			task := f.create(t, modern.CreateOptions{Owner: row.Owner})
			if _, err := f.tasks.RequireInput(ctx, task.TaskID, map[string]any{"k": "?"}); err != nil {
				t.Fatal(err)
			}
			before := f.stored(t, task.TaskID)
			where := fmt.Sprintf("task owned by %q as %s, require_owner=%v", row.Owner, row.Caller, req)

			got, err := f.tasks.Get(ctx, task.TaskID, row.Caller)
			if row.Allowed(req) {
				if err != nil || !modern.Equal(got, before) {
					t.Errorf("M-F-SCOPE-1: Get of a %s: want %s, got %s, %v", where, describe(before), describe(got), err)
				}
			} else {
				facadetest.CheckNotFound(t, "M-F-SCOPE-1", "Get of a "+where, err, task.TaskID)
			}

			notes := f.notes.count()
			got, err = f.tasks.Update(ctx, task.TaskID, row.Caller, map[string]any{"k": "answer"})
			if row.Allowed(req) {
				if err != nil || got.Status != reference.StatusWorking || !jsonvalue.Equal(got.InputResponses, map[string]any{"k": "answer"}) {
					t.Errorf("M-F-SCOPE-1: Update of a %s: want the answer delivered, got %s, %v", where, describe(got), err)
				}
			} else {
				facadetest.CheckNotFound(t, "M-F-SCOPE-1", "Update of a "+where, err, task.TaskID)
				if after := f.stored(t, task.TaskID); !modern.Equal(after, before) || f.notes.count() != notes {
					t.Errorf("M-F-SCOPE-1: denied Update of a %s wrote or notified: before %s, after %s", where, describe(before), describe(after))
				}
			}

			before = f.stored(t, task.TaskID)
			notes = f.notes.count()
			got, err = f.tasks.Cancel(ctx, task.TaskID, row.Caller)
			if row.Allowed(req) {
				if err != nil || got.Status != reference.StatusCancelled || f.stored(t, task.TaskID).Status != reference.StatusCancelled {
					t.Errorf("M-F-SCOPE-1: Cancel of a %s: want cancelled, got %s, %v", where, describe(got), err)
				}
			} else {
				facadetest.CheckNotFound(t, "M-F-SCOPE-1", "Cancel of a "+where, err, task.TaskID)
				if after := f.stored(t, task.TaskID); !modern.Equal(after, before) || f.notes.count() != notes {
					t.Errorf("M-F-SCOPE-1: denied Cancel of a %s wrote or notified: before %s, after %s", where, describe(before), describe(after))
				}
			}
		}
		for _, op := range []func() (modern.Task, error){
			func() (modern.Task, error) { return f.tasks.Get(ctx, "missing", reference.System()) },
			func() (modern.Task, error) { return f.tasks.Update(ctx, "missing", reference.System(), nil) },
			func() (modern.Task, error) { return f.tasks.Cancel(ctx, "missing", reference.System()) },
			func() (modern.Task, error) { return f.tasks.Complete(ctx, "missing", nil) },
		} {
			_, err := op()
			facadetest.CheckNotFound(t, "M-F-SCOPE-1", "an operation on a missing id", err, "missing")
		}
	}
}

func TestCreate(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, nil)
	var seenInStart modern.Task
	var startErr error
	task, err := f.tasks.Create(ctx, modern.CreateOptions{
		Owner: "alice", TTL: new(time.Minute), PollInterval: new(1500 * time.Millisecond), StatusMessage: "queued",
	}, func(ctx context.Context, id string) error {
		seenInStart, startErr = f.tasks.Status(ctx, id)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if startErr != nil || seenInStart.TaskID != task.TaskID {
		t.Errorf("M-F-CREATE-1: the worker started by start must see its task: Status = %s, %v", describe(seenInStart), startErr)
	}
	if err := reference.ValidateID(task.TaskID); err != nil || len(task.TaskID) != 22 {
		t.Errorf("M-F-CREATE-1: Create must generate an S-ID-1 id, got %q", task.TaskID)
	}
	want := modern.Task{
		TaskID: task.TaskID, Owner: "alice", Status: reference.StatusWorking, StatusMessage: "queued",
		CreatedAt: epoch.UnixMilli(), LastUpdatedAt: epoch.UnixMilli(), TTL: new(int64(60_000)), PollInterval: new(int64(1500)),
		Version: 1,
	}
	if !modern.Equal(task, want) || !modern.Equal(f.stored(t, task.TaskID), want) {
		t.Errorf("M-F-CREATE-1: Create: want %s, got %s (stored %s)", describe(want), describe(task), describe(f.stored(t, task.TaskID)))
	}
	if f.notes.count() != 1 || !modern.Equal(f.notes.last(), want) {
		t.Errorf("M-F-NOTIFY-1: Create must notify once with the stored task, got %d notifications", f.notes.count())
	}
	if other := f.create(t, modern.CreateOptions{}); other.TaskID == task.TaskID || other.Owner != "" || other.TTL != nil || other.PollInterval != nil {
		t.Errorf("M-F-CREATE-1: Create() with no options: want a new unowned task without ttl and poll interval, got %s", describe(other))
	}
}

func TestCreateRefusesNonPositive(t *testing.T) {
	ctx := context.Background()
	for _, d := range []time.Duration{0, -time.Millisecond, -time.Hour} {
		f := newFixture(t, nil)
		started := false
		start := func(context.Context, string) error { started = true; return nil }
		for _, opts := range []modern.CreateOptions{{TTL: new(d)}, {PollInterval: new(d)}} {
			task, err := f.tasks.Create(ctx, opts, start)
			if !errors.Is(err, reference.ErrInvalid) || task.TaskID != "" || started || f.notes.count() != 0 {
				t.Errorf("M-F-CREATE-1: Create(ttl %v, poll %v): want ErrInvalid, nothing stored, started or notified; got %s, %v, started=%v, notes=%d",
					opts.TTL, opts.PollInterval, describe(task), err, started, f.notes.count())
			}
		}
	}
}

func TestTTLClamp(t *testing.T) {
	const h = time.Hour
	cases := []struct {
		def, max  time.Duration
		requested *time.Duration
		want      *int64
	}{
		{0, 0, nil, nil},
		{h, 0, nil, new(int64(3_600_000))},
		{h, 0, new(5 * h), new(int64(18_000_000))},
		{h, 2 * h, nil, new(int64(3_600_000))},
		{h, 2 * h, new(30 * time.Minute), new(int64(1_800_000))},
		{h, 2 * h, new(3 * h), new(int64(7_200_000))},
		{h, 2 * h, new(2 * h), new(int64(7_200_000))},
		{5 * h, 2 * h, nil, new(int64(7_200_000))},
		{0, 2 * h, nil, new(int64(7_200_000))}, // none is clamped to the cap
		{0, 0, new(time.Microsecond), new(int64(1))},
	}
	for _, c := range cases {
		f := newFixture(t, func(cfg *modern.Config) { cfg.DefaultTTL, cfg.MaxTTL = c.def, c.max })
		task := f.create(t, modern.CreateOptions{TTL: c.requested})
		stored := f.stored(t, task.TaskID)
		if q(task.TTL) != q(c.want) || q(stored.TTL) != q(c.want) {
			t.Errorf("M-F-CREATE-1: ttl with default %v, max %v, requested %v: want %s ms, got %s (stored %s)",
				c.def, c.max, c.requested, q(c.want), q(task.TTL), q(stored.TTL))
		}
	}
}

func TestStartHookFailure(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, nil)
	boom := errors.New("queue is down")
	var id string
	task, err := f.tasks.Create(ctx, modern.CreateOptions{}, func(_ context.Context, tid string) error { id = tid; return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("M-F-CREATE-1: Create with a failing start: want an error wrapping the hook's, got %v", err)
	}
	wantErr := modern.RPCError(-32603, "queue is down", nil)
	stored := f.stored(t, id)
	for _, got := range []modern.Task{task, stored} {
		if got.TaskID != id || got.Status != reference.StatusFailed || !jsonvalue.Equal(got.Error, wantErr) || got.Version != 2 {
			t.Errorf("M-F-CREATE-1: a failed start must fail the task with %s, got %s", q(wantErr), describe(got))
		}
	}
	if f.notes.count() != 2 || f.notes.last().Status != reference.StatusFailed {
		t.Errorf("M-F-NOTIFY-1: create then fail: want 2 notifications, the last failed; got %d", f.notes.count())
	}

	// The hook failing because its context ended still fails the task.
	cctx, cancel := context.WithCancel(ctx)
	task, err = f.tasks.Create(cctx, modern.CreateOptions{}, func(c context.Context, _ string) error { cancel(); return c.Err() })
	if !errors.Is(err, context.Canceled) || f.stored(t, task.TaskID).Status != reference.StatusFailed {
		t.Errorf("M-F-CREATE-1: start failing with its context: want the task failed and context.Canceled, got %s, %v", describe(task), err)
	}
}

// terminal drives a new task to status s.
func (f *fixture) terminal(t *testing.T, s reference.Status) modern.Task {
	t.Helper()
	ctx := context.Background()
	task := f.create(t, modern.CreateOptions{Owner: "o"})
	var err error
	switch s {
	case reference.StatusCompleted:
		task, err = f.tasks.Complete(ctx, task.TaskID, map[string]any{"content": []any{}})
	case reference.StatusFailed:
		task, err = f.tasks.Fail(ctx, task.TaskID, modern.RPCError(-1, "x", nil))
	case reference.StatusCancelled:
		task, err = f.tasks.Cancel(ctx, task.TaskID, reference.Principal("o"))
	}
	if err != nil || task.Status != s {
		t.Fatalf("driving a task to %s: %s, %v", s, describe(task), err)
	}
	return task
}

func TestFinality(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, nil)
	for _, s := range []reference.Status{reference.StatusCompleted, reference.StatusFailed, reference.StatusCancelled} {
		before := f.terminal(t, s)
		id := before.TaskID
		ops := map[string]func() (modern.Task, error){
			"Complete":     func() (modern.Task, error) { return f.tasks.Complete(ctx, id, map[string]any{"late": true}) },
			"Fail":         func() (modern.Task, error) { return f.tasks.Fail(ctx, id, modern.RPCError(-2, "late", nil)) },
			"Progress":     func() (modern.Task, error) { return f.tasks.Progress(ctx, id, "late") },
			"RequireInput": func() (modern.Task, error) { return f.tasks.RequireInput(ctx, id, map[string]any{"k": 1}) },
			"Update": func() (modern.Task, error) {
				return f.tasks.Update(ctx, id, reference.Principal("o"), map[string]any{"k": 1})
			},
			"Cancel": func() (modern.Task, error) { return f.tasks.Cancel(ctx, id, reference.Principal("o")) },
		}
		for name, op := range ops {
			f.clock.Advance(time.Second)
			notes := f.notes.count()
			got, err := op()
			if !errors.Is(err, reference.ErrTerminal) || !modern.Equal(got, before) {
				t.Errorf("M-F-FIN-1: %s of a %s task: want (the task as is, ErrTerminal), got %s, %v", name, s, describe(got), err)
			}
			if after := f.stored(t, id); !modern.Equal(after, before) || f.notes.count() != notes {
				t.Errorf("M-F-FIN-1: refused %s of a %s task wrote or notified: before %s, after %s", name, s, describe(before), describe(after))
			}
		}
	}
	// After cancelled, a late Complete keeps it cancelled and stores no result.
	c := f.terminal(t, reference.StatusCancelled)
	if _, err := f.tasks.Complete(ctx, c.TaskID, map[string]any{"r": 1}); !errors.Is(err, reference.ErrTerminal) {
		t.Errorf("M-F-FIN-1: late Complete after Cancel: want ErrTerminal, got %v", err)
	}
	if got := f.stored(t, c.TaskID); got.Status != reference.StatusCancelled || got.Result != nil {
		t.Errorf("M-F-FIN-1: late Complete after Cancel changed the task: %s", describe(got))
	}
	if ok, err := f.tasks.Cancelled(ctx, c.TaskID); !ok || err != nil {
		t.Errorf("Cancelled of a cancelled task: want true, got %v, %v", ok, err)
	}
	if ok, err := f.tasks.Cancelled(ctx, f.terminal(t, reference.StatusCompleted).TaskID); ok || err != nil {
		t.Errorf("Cancelled of a completed task: want false, got %v, %v", ok, err)
	}
}

func TestInputRounds(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, nil)
	id := f.create(t, modern.CreateOptions{Owner: "o"}).TaskID
	me := reference.Principal("o")
	check := func(step string, got modern.Task, err error, status reference.Status, reqs, staged, resps map[string]any, issued []string) {
		t.Helper()
		if err != nil || got.Status != status || !jsonvalue.Equal(nz(got.InputRequests), reqs) ||
			!jsonvalue.Equal(nz(got.StagedResponses), staged) || !jsonvalue.Equal(nz(got.InputResponses), resps) ||
			!slices.Equal(got.IssuedKeys, issued) {
			t.Errorf("M-F-INPUT: %s: want status %s, requests %s, staged %s, responses %s, issued %q; got %s, %v",
				step, status, q(reqs), q(staged), q(resps), issued, describe(got), err)
		}
		if stored := f.stored(t, id); !modern.Equal(stored, got) {
			t.Errorf("M-F-INPUT: %s: returned %s but stored %s", step, describe(got), describe(stored))
		}
	}
	none := map[string]any{}

	got, err := f.tasks.RequireInput(ctx, id, map[string]any{"b": map[string]any{"q": "B?"}, "a": "A?"})
	check("RequireInput{a,b}", got, err, reference.StatusInputRequired, map[string]any{"a": "A?", "b": map[string]any{"q": "B?"}}, none, none, []string{"a", "b"})

	v := got.Version
	got, err = f.tasks.Update(ctx, id, me, map[string]any{"a": 1, "zzz": 2})
	check("Update{a, unknown zzz}", got, err, reference.StatusInputRequired, map[string]any{"b": map[string]any{"q": "B?"}}, map[string]any{"a": 1}, none, []string{"a", "b"})
	if got.Version != v+1 {
		t.Errorf("M-F-INPUT-2: a partial answer is one write: version %d -> %d", v, got.Version)
	}

	notes := f.notes.count()
	for _, resp := range []map[string]any{{"a": 99}, {"zzz": 1}, {}, nil} {
		got, err = f.tasks.Update(ctx, id, me, resp)
		check(fmt.Sprintf("Update%s (nothing to apply)", q(resp)), got, err, reference.StatusInputRequired, map[string]any{"b": map[string]any{"q": "B?"}}, map[string]any{"a": 1}, none, []string{"a", "b"})
		if got.Version != v+1 || f.notes.count() != notes {
			t.Errorf("M-F-INPUT-2: Update%s with nothing to apply wrote or notified: version %d", q(resp), got.Version)
		}
	}

	got, err = f.tasks.Update(ctx, id, me, map[string]any{"b": "B!", "a": "again"})
	check("Update{b, a again}", got, err, reference.StatusWorking, none, none, map[string]any{"a": 1, "b": "B!"}, []string{"a", "b"})

	for _, reuse := range []map[string]any{{"a": "?"}, {"c": "?", "b": "?"}} {
		before := f.stored(t, id)
		notes = f.notes.count()
		got, err = f.tasks.RequireInput(ctx, id, reuse)
		if !errors.Is(err, reference.ErrKeyReused) {
			t.Errorf("M-F-INPUT-1: RequireInput(%s) reusing a key: want ErrKeyReused, got %s, %v", q(reuse), describe(got), err)
		}
		if after := f.stored(t, id); !modern.Equal(after, before) || f.notes.count() != notes {
			t.Errorf("M-F-INPUT-1: refused RequireInput(%s) wrote or notified: before %s, after %s", q(reuse), describe(before), describe(after))
		}
	}

	got, err = f.tasks.RequireInput(ctx, id, map[string]any{"c": "C?"})
	check("RequireInput{c}", got, err, reference.StatusInputRequired, map[string]any{"c": "C?"}, none, none, []string{"a", "b", "c"})
	got, err = f.tasks.RequireInput(ctx, id, map[string]any{"d": "D?"})
	check("RequireInput{d} while c is outstanding", got, err, reference.StatusInputRequired, map[string]any{"c": "C?", "d": "D?"}, none, none, []string{"a", "b", "c", "d"})
	got, err = f.tasks.Update(ctx, id, me, map[string]any{"d": "D!"})
	check("Update{d}", got, err, reference.StatusInputRequired, map[string]any{"c": "C?"}, map[string]any{"d": "D!"}, none, []string{"a", "b", "c", "d"})
	got, err = f.tasks.Update(ctx, id, me, map[string]any{"c": "C!"})
	check("Update{c}", got, err, reference.StatusWorking, none, none, map[string]any{"c": "C!", "d": "D!"}, []string{"a", "b", "c", "d"})

	if _, err := f.tasks.RequireInput(ctx, id, nil); !errors.Is(err, reference.ErrInvalid) {
		t.Errorf("RequireInput with no requests: want ErrInvalid, got %v", err)
	}
}

func nz(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

func TestExpiry(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, nil)
	task := f.create(t, modern.CreateOptions{Owner: "o", TTL: new(10 * time.Second)})
	expires := task.CreatedAt + 10_000
	f.clock.SetMillis(expires - 1)
	if _, err := f.tasks.Get(ctx, task.TaskID, reference.Principal("o")); err != nil {
		t.Errorf("M-F-TTL-1: Get 1 ms before created_at+ttl: want found, got %v", err)
	}
	if _, err := f.tasks.Status(ctx, task.TaskID); err != nil {
		t.Errorf("M-F-TTL-1: Status 1 ms before created_at+ttl: want found, got %v", err)
	}
	f.clock.SetMillis(expires)
	for _, when := range []string{"before Sweep", "after Sweep"} {
		for _, c := range []reference.Caller{reference.Principal("o"), reference.System(), reference.Anonymous()} {
			_, err := f.tasks.Get(ctx, task.TaskID, c)
			facadetest.CheckNotFound(t, "M-F-TTL-1", fmt.Sprintf("Get as %s at exactly created_at+ttl, %s", c, when), err, task.TaskID)
		}
		_, err := f.tasks.Status(ctx, task.TaskID)
		facadetest.CheckNotFound(t, "M-F-TTL-1", "Status at exactly created_at+ttl, "+when, err, task.TaskID)
		_, err = f.tasks.Complete(ctx, task.TaskID, nil)
		facadetest.CheckNotFound(t, "M-F-TTL-1", "Complete at exactly created_at+ttl, "+when, err, task.TaskID)
		if _, err := f.store.Sweep(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// TestExpiryFacadeClock checks that the facade judges expiry by its own clock too, even
// when the store's clock lags.
func TestExpiryFacadeClock(t *testing.T) {
	ctx := context.Background()
	storeClock := reference.NewManualClock(epoch)
	facadeClock := reference.NewManualClock(epoch)
	tasks := modern.New(modern.Config{Store: memstore.New(memstore.WithClock(storeClock)).Modern(), Clock: facadeClock})
	task, err := tasks.Create(ctx, modern.CreateOptions{TTL: new(time.Second)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	facadeClock.Advance(time.Second)
	_, err = tasks.Status(ctx, task.TaskID)
	facadetest.CheckNotFound(t, "M-F-TTL-1", "Status at created_at+ttl by the facade's clock", err, task.TaskID)
}

func TestLastUpdatedAt(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, nil)
	task := f.create(t, modern.CreateOptions{})
	f.clock.Advance(1234 * time.Millisecond)
	got, err := f.tasks.Progress(ctx, task.TaskID, "half")
	if err != nil || got.LastUpdatedAt != task.CreatedAt+1234 || got.StatusMessage != "half" || got.CreatedAt != task.CreatedAt {
		t.Errorf("M-F: Progress 1234 ms later: want last_updated_at %d, message half, got %s, %v", task.CreatedAt+1234, describe(got), err)
	}
	f.clock.Advance(-time.Hour)
	got, err = f.tasks.Progress(ctx, task.TaskID, "back in time")
	if err != nil || got.LastUpdatedAt != task.CreatedAt+1234 {
		t.Errorf("M-F: last_updated_at must never decrease: clock moved back an hour, got %s, %v", describe(got), err)
	}
}

func TestNotifier(t *testing.T) {
	ctx := context.Background()
	var f *fixture
	var visible []bool
	// The notifier runs after the write: the store already has what it is told.
	check := modern.NotifierFunc(func(task modern.Task) {
		stored, err := f.store.Get(ctx, task.TaskID, reference.System())
		visible = append(visible, err == nil && modern.Equal(stored, task))
		f.notes.TaskChanged(task)
	})
	f = newFixture(t, func(c *modern.Config) { c.Notifier = check })
	task := f.create(t, modern.CreateOptions{Owner: "o"})
	id := task.TaskID
	steps := []struct {
		name   string
		op     func() (modern.Task, error)
		writes bool
	}{
		{"Progress", func() (modern.Task, error) { return f.tasks.Progress(ctx, id, "p") }, true},
		{"RequireInput", func() (modern.Task, error) { return f.tasks.RequireInput(ctx, id, map[string]any{"k": 1}) }, true},
		{"RequireInput reused", func() (modern.Task, error) { return f.tasks.RequireInput(ctx, id, map[string]any{"k": 1}) }, false},
		{"Update unknown key", func() (modern.Task, error) {
			return f.tasks.Update(ctx, id, reference.Principal("o"), map[string]any{"x": 1})
		}, false},
		{"Update denied", func() (modern.Task, error) {
			return f.tasks.Update(ctx, id, reference.Principal("p"), map[string]any{"k": 1})
		}, false},
		{"Update", func() (modern.Task, error) {
			return f.tasks.Update(ctx, id, reference.Principal("o"), map[string]any{"k": 1})
		}, true},
		{"Cancel denied", func() (modern.Task, error) { return f.tasks.Cancel(ctx, id, reference.Anonymous()) }, false},
		{"Complete", func() (modern.Task, error) { return f.tasks.Complete(ctx, id, map[string]any{"r": 1}) }, true},
		{"Complete again", func() (modern.Task, error) { return f.tasks.Complete(ctx, id, map[string]any{"r": 2}) }, false},
		{"Cancel terminal", func() (modern.Task, error) { return f.tasks.Cancel(ctx, id, reference.Principal("o")) }, false},
		{"Fail terminal", func() (modern.Task, error) { return f.tasks.Fail(ctx, id, modern.RPCError(1, "x", nil)) }, false},
	}
	if f.notes.count() != 1 {
		t.Fatalf("M-F-NOTIFY-1: Create: want 1 notification, got %d", f.notes.count())
	}
	for _, s := range steps {
		n := f.notes.count()
		got, err := s.op()
		want := n
		if s.writes {
			want++
		}
		if f.notes.count() != want {
			t.Errorf("M-F-NOTIFY-1: %s (writes=%v, err=%v): want %d notifications, got %d", s.name, s.writes, err, want-n, f.notes.count()-n)
			continue
		}
		if s.writes && (err != nil || !modern.Equal(f.notes.last(), got)) {
			t.Errorf("M-F-NOTIFY-1: %s: want the stored task %s notified, got %s, %v", s.name, describe(got), describe(f.notes.last()), err)
		}
	}
	for i, ok := range visible {
		if !ok {
			t.Errorf("M-F-NOTIFY-1: notification %d came before its write was visible in the store", i)
		}
	}
}

func TestNotifierPanic(t *testing.T) {
	ctx := context.Background()
	var logs bytes.Buffer
	calls := 0
	f := newFixture(t, func(c *modern.Config) {
		c.Notifier = modern.NotifierFunc(func(modern.Task) { calls++; panic("notifier exploded") })
		c.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	})
	task, err := f.tasks.Create(ctx, modern.CreateOptions{}, nil)
	if err != nil || task.TaskID == "" {
		t.Fatalf("M-F-NOTIFY-1: Create with a panicking notifier: want success, got %v", err)
	}
	got, err := f.tasks.Complete(ctx, task.TaskID, map[string]any{"ok": true})
	if err != nil || f.stored(t, task.TaskID).Status != reference.StatusCompleted || got.Version != 2 {
		t.Errorf("M-F-NOTIFY-1: Complete with a panicking notifier: want the write kept, got %s, %v", describe(got), err)
	}
	if calls != 2 || strings.Count(logs.String(), "notifier exploded") != 2 {
		t.Errorf("M-F-NOTIFY-1: want 2 notifier calls, each panic logged; got %d calls, log %q", calls, logs.String())
	}
}

// interloper makes one foreign write just before the facade's first Swap, so that the
// facade's CAS loses and must recompute on the new state.
type interloper struct {
	*memstore.Modern
	once  sync.Once
	write func(cur modern.Task) modern.Task
	swaps int
}

func (s *interloper) Swap(ctx context.Context, c reference.Caller, v int64, next modern.Task) (modern.Task, error) {
	s.swaps++
	s.once.Do(func() {
		cur, err := s.Modern.Get(ctx, next.TaskID, reference.System())
		if err == nil {
			_, _ = s.Modern.Swap(ctx, reference.System(), cur.Version, s.write(cur))
		}
	})
	return s.Modern.Swap(ctx, c, v, next)
}

func TestCASRetry(t *testing.T) {
	ctx := context.Background()
	complete := func(cur modern.Task) modern.Task {
		cur.Status, cur.Result = reference.StatusCompleted, map[string]any{"r": "kept"}
		return cur
	}
	progress := func(cur modern.Task) modern.Task { cur.StatusMessage = "worker"; return cur }
	clock := reference.NewManualClock(epoch)

	// Cancel loses to a completion: the completion stands, Cancel answers ErrTerminal.
	st := &interloper{Modern: memstore.New(memstore.WithClock(clock)).Modern(), write: complete}
	tasks := modern.New(modern.Config{Store: st, Clock: clock})
	task, err := tasks.Create(ctx, modern.CreateOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := tasks.Cancel(ctx, task.TaskID, reference.System())
	if !errors.Is(err, reference.ErrTerminal) || got.Status != reference.StatusCompleted || !jsonvalue.Equal(got.Result, map[string]any{"r": "kept"}) {
		t.Errorf("M-F-FIN-2: Cancel losing its CAS to a completion: want (completed task, ErrTerminal), got %s, %v", describe(got), err)
	}

	// Cancel loses to a progress write: it retries and wins, keeping the message.
	st = &interloper{Modern: memstore.New(memstore.WithClock(clock)).Modern(), write: progress}
	tasks = modern.New(modern.Config{Store: st, Clock: clock})
	if task, err = tasks.Create(ctx, modern.CreateOptions{}, nil); err != nil {
		t.Fatal(err)
	}
	got, err = tasks.Cancel(ctx, task.TaskID, reference.System())
	if err != nil || got.Status != reference.StatusCancelled || got.StatusMessage != "worker" || got.Version != 3 || st.swaps != 2 {
		t.Errorf("M-F-FIN-2: Cancel losing its CAS to a progress write: want a retry (2 swaps) that cancels at version 3 keeping the message, got %s, %v, %d swaps", describe(got), err, st.swaps)
	}
}

func TestRaceCancelComplete(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, func(c *modern.Config) { c.Notifier = nil })
	for i := range 200 {
		id := f.create(t, modern.CreateOptions{}).TaskID
		var cancelErr, completeErr, progressErr error
		var wg sync.WaitGroup
		wg.Go(func() { _, cancelErr = f.tasks.Cancel(ctx, id, reference.System()) })
		wg.Go(func() { _, completeErr = f.tasks.Complete(ctx, id, map[string]any{"i": i}) })
		wg.Go(func() { _, progressErr = f.tasks.Progress(ctx, id, "p") })
		wg.Wait()
		got := f.stored(t, id)
		switch {
		case cancelErr == nil && errors.Is(completeErr, reference.ErrTerminal) && got.Status == reference.StatusCancelled && got.Result == nil:
		case completeErr == nil && errors.Is(cancelErr, reference.ErrTerminal) && got.Status == reference.StatusCompleted && jsonvalue.Equal(got.Result, map[string]any{"i": i}):
		default:
			t.Fatalf("M-F-FIN-2: Cancel racing Complete: want exactly one winner, got cancel=%v complete=%v, task %s", cancelErr, completeErr, describe(got))
		}
		if progressErr != nil && !errors.Is(progressErr, reference.ErrTerminal) {
			t.Fatalf("M-F-FIN-2: Progress racing Cancel/Complete: want nil or ErrTerminal, got %v", progressErr)
		}
	}
}

func TestContextEnded(t *testing.T) {
	f := newFixture(t, nil)
	task := f.create(t, modern.CreateOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f.tasks.Complete(ctx, task.TaskID, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("S-CTX-1: Complete with an ended context: want context.Canceled, got %v", err)
	}
	if got := f.stored(t, task.TaskID); got.Status != reference.StatusWorking || got.Version != 1 {
		t.Errorf("S-CTX-1: Complete with an ended context wrote %s", describe(got))
	}
}

func TestValuesAreCopies(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, nil)
	id := f.create(t, modern.CreateOptions{}).TaskID
	result := map[string]any{"nested": map[string]any{"n": 1}}
	got, err := f.tasks.Complete(ctx, id, result)
	if err != nil {
		t.Fatal(err)
	}
	result["nested"].(map[string]any)["n"] = 2
	got.Result["nested"].(map[string]any)["n"] = 3
	f.notes.last().Result["nested"].(map[string]any)["n"] = 4
	if n := got.Result["nested"].(map[string]any)["n"]; n != 3 {
		t.Errorf("S-VAL-4: the notifier and the caller must get separate copies: the caller's result changed to %v", n)
	}
	if stored := f.stored(t, id); !jsonvalue.Equal(stored.Result, map[string]any{"nested": map[string]any{"n": 1}}) {
		t.Errorf("S-VAL-4: mutating values passed to or returned from the facade changed the stored result: %s", q(stored.Result))
	}
}

// stuck ignores its context and loses every Swap.
type stuck struct{ modern.Store }

func (stuck) Get(_ context.Context, id string, _ reference.Caller) (modern.Task, error) {
	return modern.Task{TaskID: id, Status: reference.StatusWorking, Version: 1}, nil
}

func (stuck) Swap(context.Context, reference.Caller, int64, modern.Task) (modern.Task, error) {
	return modern.Task{}, reference.ErrConflict
}

// TestRetryHonoursContext checks S-CTX-1 for the facade's own CAS loop.
func TestRetryHonoursContext(t *testing.T) {
	facadetest.CheckRetryHonoursContext(t, "Progress", func(ctx context.Context) error {
		_, err := modern.New(modern.Config{Store: stuck{}}).Progress(ctx, "s", "p")
		return err
	})
}
