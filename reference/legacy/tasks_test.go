package legacy_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/internal/facadetest"
	"github.com/storecheck/storecheck/reference/jsonvalue"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/memstore"
)

var epoch = time.UnixMilli(1_764_400_000_000)

// newMem is a full store (Canceler, Cleaner, ConditionalUpdater) on a manual clock.
func newMem(t *testing.T) (*memstore.Legacy, *reference.ManualClock) {
	t.Helper()
	clock := reference.NewManualClock(epoch)
	return memstore.New(memstore.WithClock(clock)).Legacy(), clock
}

// plain hides every optional interface of the store it wraps.
type plain struct{ legacy.Store }

// cancelOnly offers Cancel but not UpdateIf.
type cancelOnly struct {
	legacy.Store
	legacy.Canceler
}

// conditionalOnly offers UpdateIf but not Cancel.
type conditionalOnly struct {
	legacy.Store
	legacy.ConditionalUpdater
}

// variants are the store shapes the facade must handle.
func variants(t *testing.T) map[string]legacy.Store {
	t.Helper()
	mk := func() *memstore.Legacy { s, _ := newMem(t); return s }
	c, d := mk(), mk()
	return map[string]legacy.Store{
		"full":             mk(),
		"plain":            plain{mk()},
		"cancel-only":      cancelOnly{c, c},
		"conditional-only": conditionalOnly{d, d},
	}
}

func q(v any) string { return jsonvalue.Describe(v) }

// truthTable is the owner truth table of docs/spec.md section 0 plus the system caller.
var truthTable = facadetest.Table(facadetest.Row{Owner: "Y", Caller: reference.Principal("Y ")})

// mustGet reads through the store, unscoped.
func mustGet(t *testing.T, st legacy.Store, id string) legacy.Task {
	t.Helper()
	task, err := st.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("store Get(%q): %v", id, err)
	}
	return task
}

func TestGetTruthTable(t *testing.T) {
	ctx := context.Background()
	for _, req := range []bool{false, true} {
		st, _ := newMem(t)
		tasks := legacy.New(st, legacy.WithRequireOwner(req))
		for i, row := range truthTable {
			id := fmt.Sprintf("get-%d", i)
			created, err := tasks.Create(ctx, id, legacy.Task{"k": "v"}, row.Owner)
			if err != nil {
				t.Fatal(err)
			}
			got, err := tasks.Get(ctx, id, row.Caller)
			op := fmt.Sprintf("Get(%q) of a task owned by %q as %s, require_owner=%v", id, row.Owner, row.Caller, req)
			if row.Allowed(req) {
				if err != nil || !legacy.Equal(got, created) {
					t.Errorf("L-F-SCOPE-1: %s: want %s, got %s, %v", op, q(created), q(got), err)
				}
				continue
			}
			if got != nil {
				t.Errorf("L-F-SCOPE-1: %s: a denied Get returned a task: %s", op, q(got))
			}
			facadetest.CheckNotFound(t, "L-F-SCOPE-1", op, err, id)
		}
		_, err := tasks.Get(ctx, "missing", reference.Principal("X"))
		facadetest.CheckNotFound(t, "L-GET-1", "Get of a missing id", err, "missing")
	}
}

func TestCancelTruthTable(t *testing.T) {
	ctx := context.Background()
	for name, st := range variants(t) {
		for _, req := range []bool{false, true} {
			tasks := legacy.New(st, legacy.WithRequireOwner(req))
			for i, row := range truthTable {
				id := fmt.Sprintf("cancel-%v-%d", req, i)
				before, err := tasks.Create(ctx, id, legacy.Task{"k": "v"}, row.Owner)
				if err != nil {
					t.Fatal(err)
				}
				got, err := tasks.Cancel(ctx, id, row.Caller)
				op := fmt.Sprintf("[%s] Cancel(%q) of a task owned by %q as %s, require_owner=%v", name, id, row.Owner, row.Caller, req)
				after := mustGet(t, st, id)
				if row.Allowed(req) {
					if err != nil || got.Status() != reference.StatusCancelled || after.Status() != reference.StatusCancelled {
						t.Errorf("L-F-SCOPE-1: %s: want the task cancelled, got %s, %v (stored %s)", op, q(got), err, q(after))
					}
					continue
				}
				facadetest.CheckNotFound(t, "L-F-SCOPE-1", op, err, id)
				if !legacy.Equal(after, before) {
					t.Errorf("L-F-SCOPE-1: %s: a denied Cancel must write nothing: before %s, after %s", op, q(before), q(after))
				}
			}
			_, err := tasks.Cancel(ctx, "missing", reference.System())
			facadetest.CheckNotFound(t, "L-F-SCOPE-1", fmt.Sprintf("[%s] Cancel of a missing id", name), err, "missing")
		}
	}
}

func TestListTruthTable(t *testing.T) {
	ctx := context.Background()
	for _, req := range []bool{false, true} {
		st, _ := newMem(t)
		tasks := legacy.New(st, legacy.WithRequireOwner(req))
		// One task per distinct owner; each caller lists them all.
		owners := []string{"", "Y"}
		for _, o := range owners {
			if _, err := tasks.Create(ctx, "owned-by-"+o, legacy.Task{}, o); err != nil {
				t.Fatal(err)
			}
		}
		for _, row := range truthTable {
			got, err := tasks.List(ctx, legacy.ListOptions{}, row.Caller)
			if err != nil {
				t.Fatal(err)
			}
			id := "owned-by-" + row.Owner
			present := slices.ContainsFunc(got, func(x legacy.Task) bool { return x.ID() == id })
			if present != row.Allowed(req) {
				t.Errorf("L-F-SCOPE-1: List as %s, require_owner=%v: task owned by %q present=%v, want %v (got %s)",
					row.Caller, req, row.Owner, present, row.Allowed(req), q(got))
			}
		}
	}
}

func TestCreateOwner(t *testing.T) {
	ctx := context.Background()
	st, _ := newMem(t)
	tasks := legacy.New(st)
	meta := legacy.Task{"owner": "mallory", "tool": "x"}
	got, err := tasks.Create(ctx, "a", meta, "alice")
	if err != nil || got["owner"] != "alice" || mustGet(t, st, "a")["owner"] != "alice" {
		t.Errorf("L-F-CREATE-1: Create(a, %s, owner alice): want owner alice, got %s, %v", q(meta), q(got), err)
	}
	if meta["owner"] != "mallory" {
		t.Errorf("L-F-CREATE-1: Create must not change the caller's map, owner became %v", meta["owner"])
	}
	// No owner: meta passes unchanged (a caller-supplied owner stays).
	got, err = tasks.Create(ctx, "b", legacy.Task{"owner": "zed", "n": 1}, "")
	if err != nil || got["owner"] != "zed" || !jsonvalue.Equal(got["n"], 1) {
		t.Errorf("L-F-CREATE-1: Create(b, {owner: zed, n: 1}, no owner): want meta unchanged, got %s, %v", q(got), err)
	}
	got, err = tasks.Create(ctx, "c", legacy.Task{"n": 1}, "")
	if _, has := got["owner"]; err != nil || has {
		t.Errorf("L-F-CREATE-1: Create(c, {n: 1}, no owner): want no owner key, got %s, %v", q(got), err)
	}
}

// terminate drives a fresh task to status s through the store.
func terminate(t *testing.T, st legacy.Store, id string, s reference.Status) legacy.Task {
	t.Helper()
	ctx := context.Background()
	if _, err := st.Create(ctx, id, legacy.Task{"keep": "me"}); err != nil {
		t.Fatal(err)
	}
	task, err := st.Update(ctx, id, legacy.Task{"status": string(s), "result": map[string]any{"n": 1}})
	if err != nil {
		t.Fatal(err)
	}
	return task
}

func TestFinality(t *testing.T) {
	ctx := context.Background()
	terminal := []reference.Status{reference.StatusCompleted, reference.StatusFailed, reference.StatusCancelled}
	for name, st := range variants(t) {
		tasks := legacy.New(st)
		for _, from := range terminal {
			for _, to := range append(reference.Statuses(), "bogus") {
				id := fmt.Sprintf("fin-%s-%s", from, to)
				before := terminate(t, st, id, from)
				changes := legacy.Task{"status": string(to), "extra": "written?"}
				got, err := tasks.Update(ctx, id, changes)
				if !errors.Is(err, reference.ErrTerminal) || got != nil {
					t.Errorf("L-F-FIN-1: [%s] Update(%q, %s) of a %s task: want ErrTerminal, got %s, %v", name, id, q(changes), from, q(got), err)
				}
				if after := mustGet(t, st, id); !legacy.Equal(after, before) {
					t.Errorf("L-F-FIN-1: [%s] refused Update(%q, %s) wrote: before %s, after %s", name, id, q(changes), q(before), q(after))
				}
			}
			id := fmt.Sprintf("fin-cancel-%s", from)
			before := terminate(t, st, id, from)
			if _, err := tasks.Cancel(ctx, id, reference.System()); !errors.Is(err, reference.ErrTerminal) {
				t.Errorf("L-F-FIN-1: [%s] Cancel(%q) of a %s task: want ErrTerminal, got %v", name, id, from, err)
			}
			if after := mustGet(t, st, id); !legacy.Equal(after, before) {
				t.Errorf("L-F-FIN-1: [%s] refused Cancel(%q) wrote: before %s, after %s", name, id, q(before), q(after))
			}
			// Writes without status are not checked.
			got, err := tasks.Update(ctx, id, legacy.Task{"note": "late"})
			if err != nil || got["note"] != "late" || got.Status() != from {
				t.Errorf("L-F-FIN-1: [%s] Update(%q, {note: late}) without status on a %s task: want written, got %s, %v", name, id, from, q(got), err)
			}
		}
	}
}

func TestTransitions(t *testing.T) {
	ctx := context.Background()
	for name, st := range variants(t) {
		tasks := legacy.New(st)
		for _, from := range []reference.Status{reference.StatusWorking, reference.StatusInputRequired} {
			for _, to := range reference.Statuses() {
				id := fmt.Sprintf("tr-%s-%s", from, to)
				if _, err := st.Create(ctx, id, legacy.Task{}); err != nil {
					t.Fatal(err)
				}
				if _, err := st.Update(ctx, id, legacy.Task{"status": string(from)}); err != nil {
					t.Fatal(err)
				}
				got, err := tasks.Update(ctx, id, legacy.Task{"status": string(to), "n": 2})
				if err != nil || got.Status() != to || !jsonvalue.Equal(got["n"], 2) {
					t.Errorf("L-F-FIN-1: [%s] Update(%q, {status: %s, n: 2}) from %s: want written, got %s, %v", name, id, to, from, q(got), err)
				}
			}
		}
		// Unknown or non-string target statuses break the table.
		for i, bad := range []any{"bogus", "Working", "", nil, 3, map[string]any{}} {
			id := fmt.Sprintf("tr-bad-%d", i)
			before, err := st.Create(ctx, id, legacy.Task{})
			if err != nil {
				t.Fatal(err)
			}
			changes := legacy.Task{"status": bad, "n": 1}
			_, err = tasks.Update(ctx, id, changes)
			if !errors.Is(err, reference.ErrInvalidTransition) {
				t.Errorf("L-F-FIN-1: [%s] Update(%q, %s): want ErrInvalidTransition, got %v", name, id, q(changes), err)
			}
			if after := mustGet(t, st, id); !legacy.Equal(after, before) {
				t.Errorf("L-F-FIN-1: [%s] refused Update(%q, %s) wrote: before %s, after %s", name, id, q(changes), q(before), q(after))
			}
		}
		_, err := tasks.Update(ctx, "missing", legacy.Task{"status": "completed"})
		facadetest.CheckNotFound(t, "L-UPDATE-2", fmt.Sprintf("[%s] status Update of a missing id", name), err, "missing")
	}
}

// recorder records which store methods the facade calls.
type recorder struct {
	legacy.Store
	mu    sync.Mutex
	calls []string
}

func (r *recorder) note(s string) {
	r.mu.Lock()
	r.calls = append(r.calls, s)
	r.mu.Unlock()
}

func (r *recorder) Update(ctx context.Context, id string, changes legacy.Task) (legacy.Task, error) {
	r.note("Update " + q(changes))
	return r.Store.Update(ctx, id, changes)
}

func (r *recorder) names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}

type recCancel struct{ *recorder }

func (r recCancel) Cancel(ctx context.Context, id string) (legacy.Task, error) {
	r.note("Cancel")
	return r.Store.(legacy.Canceler).Cancel(ctx, id)
}

type recCond struct{ *recorder }

func (r recCond) UpdateIf(ctx context.Context, id string, allowed []reference.Status, changes legacy.Task) (legacy.Task, error) {
	r.note(fmt.Sprintf("UpdateIf %v %s", allowed, q(changes)))
	return r.Store.(legacy.ConditionalUpdater).UpdateIf(ctx, id, allowed, changes)
}

type recBoth struct{ *recorder }

func (r recBoth) Cancel(ctx context.Context, id string) (legacy.Task, error) {
	return recCancel(r).Cancel(ctx, id)
}

func (r recBoth) UpdateIf(ctx context.Context, id string, allowed []reference.Status, c legacy.Task) (legacy.Task, error) {
	return recCond(r).UpdateIf(ctx, id, allowed, c)
}

func TestCancelUsesStoreCancel(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		wrap func(r *recorder) legacy.Store
		want []string
	}{
		{"plain", func(r *recorder) legacy.Store { return r }, []string{`Update {"status":"cancelled"}`}},
		{"cancel-only", func(r *recorder) legacy.Store { return recCancel{r} }, []string{"Cancel"}},
		{"conditional-only", func(r *recorder) legacy.Store { return recCond{r} },
			[]string{`UpdateIf [working input_required] {"status":"cancelled"}`}},
		{"both", func(r *recorder) legacy.Store { return recBoth{r} },
			[]string{`UpdateIf [working input_required] {"status":"cancelled"}`, "Cancel"}},
	}
	for _, c := range cases {
		mem, _ := newMem(t)
		r := &recorder{Store: mem}
		st := c.wrap(r)
		if _, err := mem.Create(ctx, "c1", legacy.Task{}); err != nil {
			t.Fatal(err)
		}
		got, err := legacy.New(st).Cancel(ctx, "c1", reference.Principal("p"))
		if err != nil || got.Status() != reference.StatusCancelled {
			t.Errorf("L-F-CANCEL-1: [%s] Cancel(c1): want cancelled, got %s, %v", c.name, q(got), err)
		}
		if calls := r.names(); !slices.Equal(calls, c.want) {
			t.Errorf("L-F-CANCEL-1: [%s] Cancel(c1) store calls: want %q, got %q", c.name, c.want, calls)
		}
	}
}

// racer completes the task inside the store just before the facade's first UpdateIf, so
// the facade's read is stale and its conditional write must lose.
type racer struct {
	*memstore.Legacy
	once sync.Once
}

func (r *racer) UpdateIf(ctx context.Context, id string, allowed []reference.Status, c legacy.Task) (legacy.Task, error) {
	r.once.Do(func() { _, _ = r.Legacy.Update(ctx, id, legacy.Task{"status": "completed", "result": "done"}) })
	return r.Legacy.UpdateIf(ctx, id, allowed, c)
}

func TestFinalityUnderRace(t *testing.T) {
	ctx := context.Background()
	for _, op := range []string{"Cancel", "Update"} {
		mem, _ := newMem(t)
		st := &racer{Legacy: mem}
		tasks := legacy.New(st)
		if _, err := mem.Create(ctx, "r", legacy.Task{}); err != nil {
			t.Fatal(err)
		}
		var err error
		if op == "Cancel" {
			_, err = tasks.Cancel(ctx, "r", reference.System())
		} else {
			_, err = tasks.Update(ctx, "r", legacy.Task{"status": "failed"})
		}
		if !errors.Is(err, reference.ErrTerminal) {
			t.Errorf("L-F-FIN-2: %s losing the race to a completion: want ErrTerminal, got %v", op, err)
		}
		if got := mustGet(t, mem, "r"); got.Status() != reference.StatusCompleted || got["result"] != "done" {
			t.Errorf("L-F-FIN-2: %s losing the race to a completion overwrote it: %s", op, q(got))
		}
	}

	// Real concurrency: exactly one of Cancel and Complete wins.
	mem, _ := newMem(t)
	tasks := legacy.New(mem)
	for i := range 200 {
		id := fmt.Sprintf("race-%d", i)
		if _, err := mem.Create(ctx, id, legacy.Task{}); err != nil {
			t.Fatal(err)
		}
		var cancelErr, completeErr error
		var wg sync.WaitGroup
		wg.Go(func() { _, cancelErr = tasks.Cancel(ctx, id, reference.System()) })
		wg.Go(func() { _, completeErr = tasks.Update(ctx, id, legacy.Task{"status": "completed"}) })
		wg.Wait()
		final := mustGet(t, mem, id).Status()
		switch {
		case cancelErr == nil && completeErr != nil && final == reference.StatusCancelled:
		case completeErr == nil && cancelErr != nil && final == reference.StatusCompleted:
		default:
			t.Fatalf("L-F-FIN-2: Cancel racing Update(completed) on %s: want exactly one winner, got cancel=%v complete=%v final=%s", id, cancelErr, completeErr, final)
		}
	}
}

// leaky ignores every option and returns all rows in descending id order: a store with
// a broken pushdown (L-F-LIST-1 must contain it).
type leaky struct {
	legacy.Store
	mu   sync.Mutex
	seen []legacy.ListOptions
}

func (l *leaky) List(ctx context.Context, opts legacy.ListOptions) ([]legacy.Task, error) {
	l.mu.Lock()
	l.seen = append(l.seen, opts)
	l.mu.Unlock()
	rows, err := l.Store.List(ctx, legacy.ListOptions{})
	sort.Slice(rows, func(i, j int) bool { return rows[i].ID() > rows[j].ID() })
	return rows, err
}

func ids(rows []legacy.Task) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.ID()
	}
	return out
}

func TestListRecheck(t *testing.T) {
	ctx := context.Background()
	mem, _ := newMem(t)
	st := &leaky{Store: mem}
	seed := legacy.New(mem)
	// id: owner, status
	rows := []struct{ id, owner, status string }{
		{"t01", "alice", "working"}, {"t02", "bob", "working"}, {"t03", "", "working"},
		{"t04", "alice", "completed"}, {"t05", "", "completed"}, {"t06", "bob", "completed"},
		{"t07", "alice", "working"}, {"t08", "Alice", "working"}, {"t09", "", "input_required"},
		{"t10", "alice", "working"},
	}
	for _, r := range rows {
		if _, err := seed.Create(ctx, r.id, legacy.Task{}, r.owner); err != nil {
			t.Fatal(err)
		}
		if r.status != "working" {
			if _, err := mem.Update(ctx, r.id, legacy.Task{"status": r.status}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A row with a null owner is unowned; a non-string owner is nobody's.
	if _, err := mem.Create(ctx, "t11", legacy.Task{"owner": nil}); err != nil {
		t.Fatal(err)
	}
	if _, err := mem.Create(ctx, "t12", legacy.Task{"owner": 7}); err != nil {
		t.Fatal(err)
	}
	working := "working"
	cases := []struct {
		caller reference.Caller
		req    bool
		opts   legacy.ListOptions
		want   []string // in the leaky store's (descending) order
	}{
		{reference.Principal("alice"), false, legacy.ListOptions{}, []string{"t11", "t10", "t09", "t07", "t05", "t04", "t03", "t01"}},
		{reference.Principal("alice"), true, legacy.ListOptions{}, []string{"t10", "t07", "t04", "t01"}},
		{reference.Principal("alice"), false, legacy.ListOptions{Status: &working}, []string{"t11", "t10", "t07", "t03", "t01"}},
		{reference.Principal("alice"), false, legacy.ListOptions{Status: &working, Limit: new(2)}, []string{"t11", "t10"}},
		{reference.Principal("alice"), true, legacy.ListOptions{Status: &working, Limit: new(2)}, []string{"t10", "t07"}},
		// opts.Owner is overridden by the caller's scope.
		{reference.Principal("alice"), true, legacy.ListOptions{Owner: legacy.PrincipalOwner("bob")}, []string{"t10", "t07", "t04", "t01"}},
		{reference.Anonymous(), false, legacy.ListOptions{Owner: legacy.AnyOwner()}, []string{"t11", "t09", "t05", "t03"}},
		{reference.Anonymous(), true, legacy.ListOptions{}, []string{}},
		{reference.Principal("bob"), false, legacy.ListOptions{Limit: new(1)}, []string{"t11"}},
		{reference.System(), true, legacy.ListOptions{Limit: new(3)}, []string{"t12", "t11", "t10"}},
		{reference.System(), false, legacy.ListOptions{Limit: new(0)}, []string{}},
		{reference.System(), false, legacy.ListOptions{Limit: new(-1)}, []string{}},
		{reference.Principal("alice"), false, legacy.ListOptions{Status: new("nope")}, []string{}},
	}
	for _, c := range cases {
		st.seen = nil
		got, err := legacy.New(st, legacy.WithRequireOwner(c.req)).List(ctx, c.opts, c.caller)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids(got), c.want) || got == nil {
			t.Errorf("L-F-LIST-1: List(%+v) as %s, require_owner=%v over a store that ignores its options: want %q, got %q",
				c.opts, c.caller, c.req, c.want, ids(got))
		}
		if len(st.seen) == 0 {
			continue // Limit <= 0 need not reach the store
		}
		pushed := st.seen[0]
		if pushed.Owner != legacy.ScopeOf(c.caller) || pushed.RequireOwner != c.req ||
			!slices.Equal(optInts(pushed.Limit), optInts(c.opts.Limit)) || !slices.Equal(optStrs(pushed.Status), optStrs(c.opts.Status)) {
			t.Errorf("L-F-LIST-1: List(%+v) as %s, require_owner=%v pushed %+v: want owner %s, require_owner %v, status and limit passed down",
				c.opts, c.caller, c.req, pushed, legacy.ScopeOf(c.caller), c.req)
		}
	}
}

func optInts(p *int) []int {
	if p == nil {
		return nil
	}
	return []int{*p}
}

func optStrs(p *string) []string {
	if p == nil {
		return nil
	}
	return []string{*p}
}

// TestListHonestStore checks the facade over a store that honours its options.
func TestListHonestStore(t *testing.T) {
	ctx := context.Background()
	mem, _ := newMem(t)
	tasks := legacy.New(mem)
	for i := range 5 {
		if _, err := tasks.Create(ctx, fmt.Sprintf("a%d", i), legacy.Task{}, "alice"); err != nil {
			t.Fatal(err)
		}
		if _, err := tasks.Create(ctx, fmt.Sprintf("b%d", i), legacy.Task{}, "bob"); err != nil {
			t.Fatal(err)
		}
	}
	got, err := tasks.List(ctx, legacy.ListOptions{Limit: new(3)}, reference.Principal("alice"))
	if err != nil || len(got) != 3 {
		t.Fatalf("L-F-LIST-1: List(limit 3) as alice: want 3 rows, got %q, %v", ids(got), err)
	}
	for _, r := range got {
		if r.Owner() != "alice" {
			t.Errorf("L-F-LIST-1: List(limit 3) as alice returned %s", q(r))
		}
	}
}

// cleaner records Cleanup and answers a fixed count.
type cleaner struct {
	legacy.Store
	got []time.Duration
}

func (c *cleaner) Cleanup(_ context.Context, ttl time.Duration) (int, error) {
	c.got = append(c.got, ttl)
	return 7, nil
}

func TestCleanup(t *testing.T) {
	ctx := context.Background()
	mem, clock := newMem(t)
	terminate(t, mem, "old-done", reference.StatusCompleted)
	if _, err := mem.Create(ctx, "old-working", legacy.Task{}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Hour)

	n, err := legacy.New(plain{mem}).Cleanup(ctx, time.Minute)
	if err != nil || n != 0 {
		t.Errorf("L-F-CLEAN-1: Cleanup over a store without Cleanup: want 0, nil, got %d, %v", n, err)
	}
	if _, err := mem.Get(ctx, "old-done"); err != nil {
		t.Errorf("L-F-CLEAN-1: Cleanup over a store without Cleanup removed a task: %v", err)
	}

	rec := &cleaner{Store: mem}
	n, err = legacy.New(rec).Cleanup(ctx, 90*time.Second)
	if err != nil || n != 7 || !slices.Equal(rec.got, []time.Duration{90 * time.Second}) {
		t.Errorf("L-F-CLEAN-1: Cleanup(90s) must call the store's Cleanup(90s) once and return its count 7: got %d, %v, calls %v", n, err, rec.got)
	}

	n, err = legacy.New(mem).Cleanup(ctx, time.Minute)
	if err != nil || n != 1 {
		t.Errorf("L-F-CLEAN-1: Cleanup(1m) over memstore with one old terminal task: want 1, got %d, %v", n, err)
	}
	if _, err := mem.Get(ctx, "old-done"); !errors.Is(err, reference.ErrNotFound) {
		t.Errorf("L-F-CLEAN-1: old completed task survived Cleanup: %v", err)
	}
	if _, err := mem.Get(ctx, "old-working"); err != nil {
		t.Errorf("L-F-CLEAN-1: Cleanup removed a working task: %v", err)
	}
}

func TestDeleteAndStore(t *testing.T) {
	ctx := context.Background()
	mem, _ := newMem(t)
	tasks := legacy.New(mem)
	if tasks.Store() != legacy.Store(mem) {
		t.Errorf("Store(): want the store given to New")
	}
	if _, err := tasks.Create(ctx, "d", legacy.Task{}, "alice"); err != nil {
		t.Fatal(err)
	}
	if err := tasks.Delete(ctx, "d"); err != nil {
		t.Fatal(err)
	}
	_, err := tasks.Get(ctx, "d", reference.System())
	facadetest.CheckNotFound(t, "L-DELETE-1", "Get after Delete", err, "d")
	if err := tasks.Delete(ctx, "d"); err != nil {
		t.Errorf("L-DELETE-1: Delete of a missing id: want nil, got %v", err)
	}
}

func TestContextCancelled(t *testing.T) {
	mem, _ := newMem(t)
	if _, err := mem.Create(context.Background(), "x", legacy.Task{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tasks := legacy.New(mem)
	if _, err := tasks.Update(ctx, "x", legacy.Task{"status": "completed"}); !errors.Is(err, context.Canceled) {
		t.Errorf("S-CTX-1: status Update with a cancelled context: want context.Canceled, got %v", err)
	}
	if got := mustGet(t, mem, "x"); got.Status() != reference.StatusWorking {
		t.Errorf("S-CTX-1: status Update with a cancelled context wrote %s", q(got))
	}
}

// wordy words its not-found differently from reference.NotFound.
type wordy struct{ legacy.Store }

func (w wordy) Get(ctx context.Context, id string) (legacy.Task, error) {
	task, err := w.Store.Get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("no row for key %q: %w", id, reference.ErrNotFound)
	}
	return task, nil
}

// TestNotFoundMessageFromStore checks S-OWN-2 over a store with its own wording: missing
// and denied must still read the same.
func TestNotFoundMessageFromStore(t *testing.T) {
	ctx := context.Background()
	mem, _ := newMem(t)
	tasks := legacy.New(wordy{mem})
	if _, err := tasks.Create(ctx, "owned", legacy.Task{}, "Y"); err != nil {
		t.Fatal(err)
	}
	_, denied := tasks.Get(ctx, "owned", reference.Principal("X"))
	facadetest.CheckNotFound(t, "S-OWN-2", "denied Get", denied, "owned")
	_, missing := tasks.Get(ctx, "nope", reference.Principal("X"))
	facadetest.CheckNotFound(t, "S-OWN-2", "Get of a missing id over a store with its own wording", missing, "nope")
	_, missing = tasks.Cancel(ctx, "nope", reference.Principal("X"))
	facadetest.CheckNotFound(t, "S-OWN-2", "Cancel of a missing id over a store with its own wording", missing, "nope")
}

// TestUpdateGoStatus checks that a status given as a Go value (reference.Status) is read
// as its JSON string, both for the check and for the write.
func TestUpdateGoStatus(t *testing.T) {
	ctx := context.Background()
	mem, _ := newMem(t)
	tasks := legacy.New(mem)
	if _, err := mem.Create(ctx, "g", legacy.Task{}); err != nil {
		t.Fatal(err)
	}
	got, err := tasks.Update(ctx, "g", legacy.Task{"status": reference.StatusCompleted})
	if err != nil || got.Status() != reference.StatusCompleted {
		t.Errorf("L-F-FIN-1: Update(g, {status: reference.StatusCompleted}): want completed, got %s, %v", q(got), err)
	}
	if _, err := tasks.Update(ctx, "g", legacy.Task{"status": reference.StatusWorking}); !errors.Is(err, reference.ErrTerminal) {
		t.Errorf("L-F-FIN-1: Update(g, {status: reference.StatusWorking}) after completion: want ErrTerminal, got %v", err)
	}
	if _, err := tasks.Update(ctx, "g", legacy.Task{"bad": make(chan int)}); !errors.Is(err, reference.ErrInvalid) {
		t.Errorf("Update with a value JSON cannot hold: want ErrInvalid, got %v", err)
	}
}

// stuck ignores its context and never lets a conditional write land.
type stuck struct{ legacy.Store }

func (stuck) Get(context.Context, string) (legacy.Task, error) {
	return legacy.Task{"task_id": "s", "status": "working"}, nil
}

func (stuck) UpdateIf(context.Context, string, []reference.Status, legacy.Task) (legacy.Task, error) {
	return nil, reference.ErrConflict
}

// TestRetryHonoursContext checks S-CTX-1 for the facade's own retry loop.
func TestRetryHonoursContext(t *testing.T) {
	facadetest.CheckRetryHonoursContext(t, "Update", func(ctx context.Context) error {
		_, err := legacy.New(stuck{}).Update(ctx, "s", legacy.Task{"status": "completed"})
		return err
	})
}
