package typescriptsdk

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/storecheck/storecheck/adapters/wire"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonvalue"
	"github.com/storecheck/storecheck/reference/sdk"
)

// pinnedVersion is the SDK version package.json pins exactly, which package-lock.json
// and the installed package must agree on.
func pinnedVersion(t *testing.T) string {
	t.Helper()
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	var lock struct {
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	for path, v := range map[string]any{"package.json": &pkg, "package-lock.json": &lock} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	v := pkg.Dependencies["@modelcontextprotocol/sdk"]
	if v == "" || strings.ContainsAny(v, "^~<>=* x") {
		t.Fatalf("package.json pins @modelcontextprotocol/sdk as %q; want an exact version", v)
	}
	if l := lock.Packages["node_modules/@modelcontextprotocol/sdk"].Version; l != v {
		t.Fatalf("package-lock.json has @modelcontextprotocol/sdk %q, package.json pins %q", l, v)
	}
	return v
}

// TestShimMapsFaithfully: the shim declares what the store documents and carries every
// operation to the store and back unchanged: values exact, the store's errors mapped to
// the codes that name them. A mapping fault here would show up as a rule failure the
// store does not have.
func TestShimMapsFaithfully(t *testing.T) {
	version := pinnedVersion(t)
	c := startShim(t)
	h := c.Hello()
	wantSupport := wire.SDKSupport{Policy: sdk.Policy{Sessionless: sdk.SessionlessUnrestricted, TTLFrom: sdk.TTLFromCreation}, Mutate: true}
	if h.Protocol != 3 || !h.SDK || h.Legacy || h.Modern || h.Clock || h.SDKSupport != wantSupport {
		t.Fatalf("hello = %+v; want protocol 3, the sdk profile only, %+v, no clock", h, wantSupport)
	}
	if !strings.HasSuffix(h.Name, " "+version) {
		t.Errorf("the shim names itself %q; want the installed SDK version %s (the installed package differs from the pin: run npm ci)", h.Name, version)
	}
	st, err := c.SDK()
	if err != nil {
		t.Fatal(err)
	}
	for name, ok := range map[string]bool{"Deleter": is[sdk.Deleter](st), "Cleaner": is[sdk.Cleaner](st), "Waiter": is[sdk.Waiter](st)} {
		if ok {
			t.Errorf("the TypeScript store has no %s, but the client's store is one", name)
		}
	}
	ctx := context.Background()
	ttl, poll := int64(120_000), int64(250)
	task, err := st.CreateTask(ctx, "A", sdk.CreateParams{TTL: &ttl, PollInterval: &poll, RequestID: "req-1", Request: map[string]any{"method": "tools/call"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(task.TaskID) != 32 || task.Status != reference.StatusWorking || task.TTL == nil || *task.TTL != ttl ||
		task.PollInterval == nil || *task.PollInterval != poll || task.CreatedAt != task.LastUpdatedAt {
		t.Errorf("CreateTask = %+v; want the store's 32-hex id, working, ttl %d, pollInterval %d", task, ttl, poll)
	}
	if _, err := sdk.ParseTime(task.CreatedAt); err != nil {
		t.Error(err)
	}
	if err := st.UpdateTaskStatus(ctx, "A", task.TaskID, reference.StatusInputRequired, "waiting for you"); err != nil {
		t.Fatal(err)
	}
	got, err := st.GetTask(ctx, "A", task.TaskID)
	if err != nil || got.Status != reference.StatusInputRequired || got.StatusMessage != "waiting for you" {
		t.Errorf("GetTask after UpdateTaskStatus = %+v, %v", got, err)
	}
	// The store's errors, each mapped to the code that names it.
	for _, tc := range []struct {
		what string
		err  error
		want error
	}{
		{"GetTask of an unknown id", func() error { _, err := st.GetTask(ctx, "A", "nope"); return err }(), reference.ErrNotFound},
		{"GetTaskResult of a task without a result", func() error { _, err := st.GetTaskResult(ctx, "A", task.TaskID); return err }(), reference.ErrNoResult},
		{"ListTasks with a cursor the store never issued", func() error { _, err := st.ListTasks(ctx, "A", "nope"); return err }(), reference.ErrInvalid},
		{"UpdateTaskStatus of an unknown id", st.UpdateTaskStatus(ctx, "A", "nope", reference.StatusCancelled, ""), reference.ErrNotFound},
	} {
		if !errors.Is(tc.err, tc.want) {
			t.Errorf("%s = %v; want %v", tc.what, tc.err, tc.want)
		}
	}
	// Results go to the store and back exactly: big integers, 1.0, 1e-7, astral text.
	result, err := jsonvalue.DecodeObject([]byte(`{"content":[{"type":"text","text":"é𝄞\u0000"}],"structuredContent":{"n":9223372036854775807,"one":1.0,"small":1e-7,"neg":-0.1000000000000000055511151231257827}}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.StoreTaskResult(ctx, "A", task.TaskID, reference.StatusCompleted, result); err != nil {
		t.Fatal(err)
	}
	back, err := st.GetTaskResult(ctx, "A", task.TaskID)
	if err != nil || !jsonvalue.Equal(back, result) {
		t.Errorf("GetTaskResult = %s, %v; want %s exactly", jsonvalue.Describe(back), err, jsonvalue.Describe(result))
	}
	if err := st.StoreTaskResult(ctx, "A", task.TaskID, reference.StatusFailed, result); !errors.Is(err, reference.ErrTerminal) {
		t.Errorf("a second StoreTaskResult = %v; want ErrTerminal", err)
	}
	// Pages are the store's: 10 a page, every task once.
	for range 14 {
		if _, err := st.CreateTask(ctx, "B", sdk.CreateParams{}); err != nil {
			t.Fatal(err)
		}
	}
	p1, err := st.ListTasks(ctx, "B", "")
	if err != nil || len(p1.Tasks) != 10 || p1.NextCursor == "" {
		t.Fatalf("first page = %d tasks, cursor %q, %v; want 10 and a cursor", len(p1.Tasks), p1.NextCursor, err)
	}
	p2, err := st.ListTasks(ctx, "B", p1.NextCursor)
	if err != nil || len(p2.Tasks) != 4 || p2.NextCursor != "" {
		t.Errorf("second page = %d tasks, cursor %q, %v; want the last 4 and no cursor", len(p2.Tasks), p2.NextCursor, err)
	}
	// sdk.mutate reaches the object the store handed out (createTask returns its own).
	if err := st.(sdk.CallerMutator).MutateHeld(ctx, p1.Tasks[0].TaskID, sdk.HeldCreatedTask); err != nil {
		t.Fatal(err)
	}
	if got, err := st.GetTask(ctx, "B", p1.Tasks[0].TaskID); err != nil || got.Status != reference.StatusFailed || got.StatusMessage != "mutated by the caller" {
		t.Errorf("after mutating the created task: %+v, %v; the store hands out its own object (probes.mjs), so the mutation must show", got, err)
	}
	if err := st.(sdk.CallerMutator).MutateHeld(ctx, "nope", sdk.HeldStoredResult); !errors.Is(err, reference.ErrNotFound) {
		t.Errorf("MutateHeld with nothing held = %v; want ErrNotFound", err)
	}
	if err := c.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := st.GetTask(ctx, "A", task.TaskID); !errors.Is(err, reference.ErrNotFound) {
		t.Errorf("GetTask after reset = %v; want ErrNotFound", err)
	}
}

func is[T any](v any) bool { _, ok := v.(T); return ok }
