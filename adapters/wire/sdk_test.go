package wire_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/storecheck/storecheck/adapters/memharness"
	"github.com/storecheck/storecheck/adapters/wire"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonvalue"
	"github.com/storecheck/storecheck/reference/memstore"
	"github.com/storecheck/storecheck/reference/sdk"
)

// keepingSDK is memstore's SDK store with one defect: it keeps the result map the
// caller passed and hands that very map out again (the TypeScript store's aliasing).
type keepingSDK struct {
	*memstore.SDK
	mu   sync.Mutex
	kept map[string]sdk.Result
}

func (s *keepingSDK) StoreTaskResult(ctx context.Context, session, id string, status reference.Status, r sdk.Result) error {
	if err := s.SDK.StoreTaskResult(ctx, session, id, status, r); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kept[id] = r
	return nil
}

func (s *keepingSDK) GetTaskResult(ctx context.Context, session, id string) (sdk.Result, error) {
	if _, err := s.SDK.GetTaskResult(ctx, session, id); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.kept[id], nil
}

func sdkOf(t *testing.T, c *wire.Client) sdk.Store {
	t.Helper()
	st, err := c.SDK()
	if err != nil {
		t.Fatalf("SDK() of a child declaring the profile: %v", err)
	}
	return st
}

// TestSDKOverWire: every sdk.* op through the client and `storecheck serve`'s server
// against memstore's SDK store, which must come back exactly as in process.
func TestSDKOverWire(t *testing.T) {
	c := startServed(t, "store")
	h := c.Hello()
	want := wire.SDKSupport{Policy: sdk.Policy{Sessionless: sdk.SessionlessIsolated, TTLFrom: sdk.TTLFromCreation}, Delete: true, Cleanup: true, Wait: true, Mutate: true}
	if h.Protocol != 3 || !h.SDK || h.SDKSupport != want {
		t.Fatalf("hello = %+v, want protocol 3 with the sdk profile %+v", h, want)
	}
	st := sdkOf(t, c)
	if st.Policy() != want.Policy {
		t.Errorf("Policy() = %+v, want %+v", st.Policy(), want.Policy)
	}
	for name, ok := range map[string]bool{"Deleter": is[sdk.Deleter](st), "Cleaner": is[sdk.Cleaner](st), "Waiter": is[sdk.Waiter](st), "CallerMutator": is[sdk.CallerMutator](st)} {
		if !ok {
			t.Errorf("the client's store is no %s although the child declared it", name)
		}
	}
	ctx := context.Background()
	ttl := int64(60_000)
	task, err := st.CreateTask(ctx, "A", sdk.CreateParams{TTL: &ttl, Request: map[string]any{"method": "tools/call"}, RequestID: 7})
	if err != nil || task.Status != reference.StatusWorking || task.TTL == nil || *task.TTL != ttl || len(task.TaskID) != 22 {
		t.Fatalf("CreateTask = %+v, %v; want a working task with ttl %d and a 22-character id", task, err, ttl)
	}
	if _, err := sdk.ParseTime(task.CreatedAt); err != nil {
		t.Errorf("createdAt: %v", err)
	}
	if got, err := st.GetTask(ctx, "A", task.TaskID); err != nil || got.TaskID != task.TaskID {
		t.Errorf("GetTask(A) = %+v, %v", got, err)
	}
	if _, err := st.GetTask(ctx, "B", task.TaskID); !errors.Is(err, reference.ErrNotFound) {
		t.Errorf("GetTask(B) of A's task = %v, want ErrNotFound", err)
	}
	if _, err := st.GetTaskResult(ctx, "A", task.TaskID); !errors.Is(err, reference.ErrNoResult) {
		t.Errorf("GetTaskResult of a working task = %v, want ErrNoResult (wire code no_result)", err)
	}
	if err := st.UpdateTaskStatus(ctx, "A", task.TaskID, "bogus", ""); !errors.Is(err, reference.ErrInvalid) {
		t.Errorf("UpdateTaskStatus(bogus) = %v, want ErrInvalid", err)
	}
	if err := st.UpdateTaskStatus(ctx, "A", task.TaskID, reference.StatusInputRequired, "need input"); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.GetTask(ctx, "A", task.TaskID); got.StatusMessage != "need input" || got.Status != reference.StatusInputRequired {
		t.Errorf("after UpdateTaskStatus: %+v", got)
	}
	result, _ := jsonvalue.DecodeObject([]byte(`{"content":[{"type":"text","text":"é𝄞"}],"n":9223372036854775807,"f":1e-7}`))
	if err := st.StoreTaskResult(ctx, "A", task.TaskID, reference.StatusCompleted, result); err != nil {
		t.Fatal(err)
	}
	got, err := st.GetTaskResult(ctx, "A", task.TaskID)
	if err != nil || !jsonvalue.Equal(got, result) {
		t.Errorf("GetTaskResult = %s, %v; want %s exactly", jsonvalue.Describe(got), err, jsonvalue.Describe(result))
	}
	if err := st.StoreTaskResult(ctx, "A", task.TaskID, reference.StatusFailed, result); !errors.Is(err, reference.ErrTerminal) {
		t.Errorf("a second StoreTaskResult = %v, want ErrTerminal", err)
	}
	// Aliasing through the held values: memstore copies, so nothing changes.
	m := st.(sdk.CallerMutator)
	for _, what := range []sdk.Held{sdk.HeldCreatedTask, sdk.HeldStoredResult, sdk.HeldReturnedResult} {
		if err := m.MutateHeld(ctx, task.TaskID, what); err != nil {
			t.Errorf("MutateHeld(%s): %v", what, err)
		}
	}
	if got, err := st.GetTaskResult(ctx, "A", task.TaskID); err != nil || !jsonvalue.Equal(got, result) {
		t.Errorf("after mutating the held values, GetTaskResult = %s, %v; memstore copies, so want it unchanged", jsonvalue.Describe(got), err)
	}
	if got, _ := st.GetTask(ctx, "A", task.TaskID); got.Status != reference.StatusCompleted {
		t.Errorf("after mutating the created task, GetTask = %+v; want it completed still", got)
	}
	if err := m.MutateHeld(ctx, "nope", sdk.HeldStoredResult); !errors.Is(err, reference.ErrNotFound) {
		t.Errorf("MutateHeld of a task with nothing held = %v, want ErrNotFound", err)
	}
	// Paging: memstore's pages hold 50; 120 tasks of session P come back once each.
	seen := map[string]bool{}
	for range 120 {
		tk, err := st.CreateTask(ctx, "P", sdk.CreateParams{})
		if err != nil {
			t.Fatal(err)
		}
		seen[tk.TaskID] = false
	}
	cursor, pages := "", 0
	for {
		p, err := st.ListTasks(ctx, "P", cursor)
		if err != nil {
			t.Fatalf("ListTasks page %d: %v", pages, err)
		}
		pages++
		for _, tk := range p.Tasks {
			if done, ok := seen[tk.TaskID]; !ok || done {
				t.Errorf("page %d lists %s: not P's or twice", pages, tk.TaskID)
			}
			seen[tk.TaskID] = true
		}
		if cursor = p.NextCursor; cursor == "" {
			break
		}
	}
	for id, done := range seen {
		if !done {
			t.Errorf("task %s never listed", id)
		}
	}
	if pages != 3 {
		t.Errorf("120 tasks in %d pages, want 3 of at most 50", pages)
	}
	if _, err := st.ListTasks(ctx, "P", "no-such-cursor"); !errors.Is(err, reference.ErrInvalid) {
		t.Errorf("ListTasks with a cursor never issued = %v, want ErrInvalid", err)
	}
	// Wait: woken by an update, or the context's error at its deadline.
	w := st.(sdk.Waiter)
	waitCtx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	start := time.Now()
	err = w.WaitForUpdate(waitCtx, "P", firstKey(seen))
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 3*time.Second {
		t.Errorf("WaitForUpdate with nothing changing = %v after %v, want DeadlineExceeded at about 100ms", err, time.Since(start))
	}
	woken := make(chan error, 1)
	id := firstKey(seen)
	go func() {
		wctx, cancel := context.WithTimeout(ctx, 4*time.Second)
		defer cancel()
		woken <- w.WaitForUpdate(wctx, "P", id)
	}()
	time.Sleep(100 * time.Millisecond)
	if err := st.UpdateTaskStatus(ctx, "P", id, reference.StatusCancelled, ""); err != nil {
		t.Fatal(err)
	}
	if err := <-woken; err != nil {
		t.Errorf("WaitForUpdate across an update = %v, want nil", err)
	}
	if err := st.(sdk.Deleter).DeleteTask(ctx, "P", id); err != nil {
		t.Errorf("DeleteTask: %v", err)
	}
	if _, err := st.GetTask(ctx, "P", id); !errors.Is(err, reference.ErrNotFound) {
		t.Errorf("GetTask after DeleteTask = %v, want ErrNotFound", err)
	}
	if n, err := st.(sdk.Cleaner).Cleanup(ctx); err != nil || n != 0 {
		t.Errorf("Cleanup with nothing expired = %d, %v; want 0", n, err)
	}
	if err := c.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := st.GetTask(ctx, "A", task.TaskID); !errors.Is(err, reference.ErrNotFound) {
		t.Errorf("GetTask after reset = %v, want ErrNotFound: reset drops the sdk tasks too", err)
	}
}

// TestSDKMutateFindsAliasing: a Go store that keeps the caller's result map is caught
// through the wire exactly like the TypeScript one: sdk.mutate changes its data.
func TestSDKMutateFindsAliasing(t *testing.T) {
	c := startServed(t, "sdk-keeping")
	st := sdkOf(t, c)
	ctx := context.Background()
	task, err := st.CreateTask(ctx, "A", sdk.CreateParams{})
	if err != nil {
		t.Fatal(err)
	}
	result := sdk.Result{"content": []any{}}
	if err := st.StoreTaskResult(ctx, "A", task.TaskID, reference.StatusCompleted, result); err != nil {
		t.Fatal(err)
	}
	if err := st.(sdk.CallerMutator).MutateHeld(ctx, task.TaskID, sdk.HeldStoredResult); err != nil {
		t.Fatal(err)
	}
	got, err := st.GetTaskResult(ctx, "A", task.TaskID)
	if err != nil || got["storecheck_mutated"] != true {
		t.Errorf("GetTaskResult after mutating the stored result = %s, %v; want the caller's mutation to show (the store keeps the caller's map)", jsonvalue.Describe(got), err)
	}
}

func TestSDKHelloAndAnswerFailures(t *testing.T) {
	for _, tc := range []struct {
		mode  string
		frags []string
	}{
		{"sdk-undeclared", []string{"hello", "sdk must be an object"}},
		{"sdk-bad-policy", []string{"hello", `"open"`}},
		{"sdk-none", []string{"hello", "no era and profiles no profile"}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			_, err := start(t, tc.mode, wire.Options{})
			wantErr(t, err, wire.ErrProtocol, tc.frags...)
		})
	}
	ctx := context.Background()
	for _, tc := range []struct {
		mode  string
		call  func(st sdk.Store) error
		frags []string
	}{
		{"sdk-no-ttl", func(st sdk.Store) error { _, err := st.CreateTask(ctx, "A", sdk.CreateParams{}); return err }, []string{"sdk.create", "ttl is missing"}},
		{"sdk-float-ttl", func(st sdk.Store) error { _, err := st.GetTask(ctx, "A", "t"); return err }, []string{"sdk.get", "1.5"}},
		{"sdk-bad-page", func(st sdk.Store) error { _, err := st.ListTasks(ctx, "A", ""); return err }, []string{"sdk.list", "tasks[0]", "taskId"}},
		{"sdk-wait-null", func(st sdk.Store) error { return st.(sdk.Waiter).WaitForUpdate(ctx, "A", "t") }, []string{"sdk.wait", "want true"}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			c := mustStart(t, tc.mode, wire.Options{})
			wantErr(t, tc.call(sdkOf(t, c)), wire.ErrProtocol, tc.frags...)
		})
	}
	// A child without the profile: SDK() refuses, and the harness declares no SDK.
	c := mustStart(t, "honest", wire.Options{})
	if _, err := c.SDK(); !errors.Is(err, reference.ErrUnsupported) {
		t.Errorf("SDK() of a child without the profile = %v, want ErrUnsupported", err)
	}
}

func is[T any](v any) bool { _, ok := v.(T); return ok }

func firstKey(m map[string]bool) string {
	for k := range m {
		return k
	}
	return ""
}

// sdkKeepingHarness is memstore with keepingSDK as its SDK-profile store.
func sdkKeepingHarness() harness.Harness {
	return harness.WithSDK(memharness.Harness(), func(clock reference.Clock) sdk.Store {
		return &keepingSDK{SDK: memstore.NewSDK(memstore.WithSDKClock(clock)), kept: map[string]sdk.Result{}}
	})
}
