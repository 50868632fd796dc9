package wire_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/storecheck/storecheck/adapters/memharness"
	"github.com/storecheck/storecheck/adapters/wire"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// facadeServeEnv makes this test binary a Go child serving memstore (see TestMain in
// client_test.go): "facade" with the reference facades as its facade layer, "store"
// without one.
const facadeServeEnv = "STORECHECK_WIRE_SERVE_CHILD"

func serveChild(mode string) {
	h := memharness.Harness()
	switch mode {
	case "facade":
		h = harness.WithReferenceFacades(h)
	case "sdk-keeping":
		h = sdkKeepingHarness()
	}
	if err := wire.Serve(context.Background(), os.Stdin, os.Stdout, h, wire.ServeOptions{Log: os.Stderr}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func startServed(t *testing.T, mode string) *wire.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := wire.Start(ctx, []string{os.Args[0]}, wire.Options{Env: append(os.Environ(), facadeServeEnv+"="+mode), Timeout: 5 * time.Second, CloseGrace: 5 * time.Second})
	if err != nil {
		t.Fatalf("Start(serve %s): %v", mode, err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return c
}

// TestNegotiation: storecheck offers 3 (ProtocolVersion); a version 3 child answers 3
// with its layers, a strict version 1 child that refuses the offer is asked again with
// lower versions down to 1 and keeps working, a lenient one answers 1.
func TestNegotiation(t *testing.T) {
	for _, tc := range []struct {
		name, env, mode string
		protocol        int
		store, facade   bool
	}{
		{"go child with facade", facadeServeEnv, "facade", 3, true, true},
		{"go child without facade", facadeServeEnv, "store", 3, true, false},
		{"strict version 1 child", fakeEnv, "v1-strict", 1, true, false},
		{"lenient version 1 child", fakeEnv, "honest", 1, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c, err := wire.Start(ctx, []string{os.Args[0]}, wire.Options{Env: append(os.Environ(), tc.env+"="+tc.mode), Timeout: 5 * time.Second, CloseGrace: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			h := c.Hello()
			if h.Protocol != tc.protocol || h.Store != tc.store || h.Facade != tc.facade {
				t.Errorf("hello = %+v, want protocol %d, store %v, facade %v", h, tc.protocol, tc.store, tc.facade)
			}
			_, lerr := c.LegacyFacade(harness.FacadeConfig{})
			if tc.facade != (lerr == nil) || (!tc.facade && !errors.Is(lerr, reference.ErrUnsupported)) {
				t.Errorf("LegacyFacade: %v, want a facade: %v (else ErrUnsupported)", lerr, tc.facade)
			}
			if tc.env == fakeEnv {
				// A version 1 child still serves its store.
				if _, err := c.Legacy().Get(ctx, "t1"); err != nil {
					t.Errorf("legacy Get over a version 1 session: %v", err)
				}
			}
		})
	}
}

// TestLegacyFacadeOverWire runs the legacy facade ops against the reference facade
// served by Go: the answers must be the reference facade's, error codes included.
func TestLegacyFacadeOverWire(t *testing.T) {
	ctx := context.Background()
	c := startServed(t, "facade")
	if err := c.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	f, err := c.LegacyFacade(harness.FacadeConfig{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.Create(ctx, "t1", legacy.Task{"owner": "mallory", "n": json.Number("9223372036854775807")}, "alice")
	if err != nil || got["owner"] != "alice" || got["n"] != json.Number("9223372036854775807") {
		t.Fatalf("Create(t1, owner alice) = %v, %v; want owner alice, n exact", got, err)
	}
	if _, err := f.Get(ctx, "t1", reference.Principal("bob")); !errors.Is(err, reference.ErrNotFound) {
		t.Errorf("Get(t1, bob) = %v, want ErrNotFound", err)
	}
	if _, err := f.Create(ctx, "t2", legacy.Task{}, ""); err != nil {
		t.Fatal(err)
	}
	rows, err := f.List(ctx, legacy.ListOptions{Owner: legacy.PrincipalOwner("alice")}, reference.Anonymous())
	if err != nil || len(rows) != 1 || rows[0].ID() != "t2" {
		t.Errorf("List(owner alice, anonymous) = %v, %v; want only the unowned t2 (scope from the caller)", rows, err)
	}
	if _, err := f.Update(ctx, "t1", legacy.Task{"status": "bogus"}); !errors.Is(err, reference.ErrInvalidTransition) {
		t.Errorf("Update(t1, status bogus) = %v, want ErrInvalidTransition", err)
	}
	if got, err := f.Cancel(ctx, "t1", reference.Principal("alice")); err != nil || got.Status() != reference.StatusCancelled {
		t.Errorf("Cancel(t1, alice) = %v, %v", got, err)
	}
	if _, err := f.Cancel(ctx, "t1", reference.Principal("alice")); !errors.Is(err, reference.ErrTerminal) {
		t.Errorf("second Cancel(t1) = %v, want ErrTerminal", err)
	}
	// require_owner is sent with facade.configure before the next call that needs it.
	strict, err := c.LegacyFacade(harness.FacadeConfig{RequireOwner: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := strict.Get(ctx, "t2", reference.Principal("alice")); !errors.Is(err, reference.ErrNotFound) {
		t.Errorf("require_owner Get(unowned t2, alice) = %v, want ErrNotFound", err)
	}
	if _, err := f.Get(ctx, "t2", reference.Principal("alice")); err != nil {
		t.Errorf("default Get(unowned t2, alice) after a require_owner call = %v, want the task (configuration switched back)", err)
	}
	if n, err := f.Cleanup(ctx, time.Hour); err != nil || n != 0 {
		t.Errorf("Cleanup(1h) = %d, %v; want 0", n, err)
	}
}

// TestModernFacadeOverWire: the worker's and the client's steps, the start hook run on
// the battery's side, and a terminal Cancel answered with the task.
func TestModernFacadeOverWire(t *testing.T) {
	ctx := context.Background()
	c := startServed(t, "facade")
	if err := c.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	f, err := c.ModernFacade(harness.FacadeConfig{MaxTTL: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	alice := reference.Principal("alice")
	task, err := f.Create(ctx, modern.CreateOptions{Owner: "alice", TTL: new(time.Hour)}, func(ctx context.Context, id string) error {
		_, err := f.Status(ctx, id)
		return err // the task exists before start runs
	})
	if err != nil || task.TTL == nil || *task.TTL != 10_000 || task.Version != 1 {
		t.Fatalf("Create(ttl 1h) with max 10s = %+v, %v; want ttl 10000 ms, version 1", task, err)
	}
	if _, err := f.Create(ctx, modern.CreateOptions{TTL: new(-time.Second)}, nil); !errors.Is(err, reference.ErrInvalid) {
		t.Errorf("Create(ttl -1s) = %v, want ErrInvalid", err)
	}
	id := task.TaskID
	if _, err := f.RequireInput(ctx, id, map[string]any{"k": "?"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.RequireInput(ctx, id, map[string]any{"k": "again"}); !errors.Is(err, reference.ErrKeyReused) {
		t.Errorf("RequireInput(reused k) = %v, want ErrKeyReused", err)
	}
	got, err := f.Update(ctx, id, alice, map[string]any{"k": "yes", "never": "issued"})
	if err != nil || got.Status != reference.StatusWorking || len(got.InputResponses) != 1 {
		t.Errorf("Update(k, never) = %+v, %v; want working with input_responses {k}", got, err)
	}
	if _, err := f.Get(ctx, id, reference.Principal("bob")); !errors.Is(err, reference.ErrNotFound) {
		t.Errorf("Get(bob) = %v, want ErrNotFound", err)
	}
	done, err := f.Complete(ctx, id, map[string]any{"content": []any{}})
	if err != nil || done.Status != reference.StatusCompleted {
		t.Fatalf("Complete = %+v, %v", done, err)
	}
	after, err := f.Cancel(ctx, id, alice)
	if !errors.Is(err, reference.ErrTerminal) || after.Status != reference.StatusCompleted || after.Version != done.Version {
		t.Errorf("Cancel of a completed task = %+v, %v; want the task unchanged and ErrTerminal", after, err)
	}
	if yes, err := f.Cancelled(ctx, id); err != nil || yes {
		t.Errorf("Cancelled = %v, %v; want false", yes, err)
	}

	boom := errors.New("worker pool is full")
	failed, err := f.Create(ctx, modern.CreateOptions{Owner: "alice"}, func(context.Context, string) error { return boom })
	if !errors.Is(err, boom) || failed.Status != reference.StatusFailed || fmt.Sprint(failed.Error["code"]) != "-32603" || failed.Error["message"] != boom.Error() {
		t.Errorf("Create with a failing start = %+v, %v; want failed with -32603 and an error wrapping the hook's", failed, err)
	}
}

// TestFacadeConfigDeclared: a configuration the child did not declare is refused on the
// battery's side with ErrUnsupported, before anything is sent.
func TestFacadeConfigDeclared(t *testing.T) {
	c := startServed(t, "store")
	if _, err := c.ModernFacade(harness.FacadeConfig{}); !errors.Is(err, reference.ErrUnsupported) {
		t.Errorf("ModernFacade of a child without a facade layer = %v, want ErrUnsupported", err)
	}
}

// TestOwnerEmptyTravelsAsEmpty: a facade create with owner "" (no owner) sends "" to
// the child, so that a child which takes "" for a real owner is caught, and the facade
// NoOwnerAsNull returns sends null, so that one which mishandles null is caught too
// (docs/wire.md, "Values"); a named owner travels as itself either way.
func TestOwnerEmptyTravelsAsEmpty(t *testing.T) {
	ctx := context.Background()
	c, err := start(t, "echo-owner", wire.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lf, err := c.LegacyFacade(harness.FacadeConfig{})
	if err != nil {
		t.Fatal(err)
	}
	mf, err := c.ModernFacade(harness.FacadeConfig{})
	if err != nil {
		t.Fatal(err)
	}
	type nullable[F any] interface{ NoOwnerAsNull() F }
	ln, ok := lf.(nullable[legacy.Facade])
	if !ok {
		t.Fatalf("the legacy facade %T has no NoOwnerAsNull", lf)
	}
	mn, ok := mf.(nullable[modern.Facade])
	if !ok {
		t.Fatalf("the modern facade %T has no NoOwnerAsNull", mf)
	}
	for _, tc := range []struct {
		how   string
		l     legacy.Facade
		m     modern.Facade
		empty string // what "no owner" travels as
	}{
		{"facade", lf, mf, `""`},
		{"NoOwnerAsNull facade", ln.NoOwnerAsNull(), mn.NoOwnerAsNull(), `null`},
	} {
		for owner, want := range map[string]string{"": tc.empty, "alice": `"alice"`} {
			got, err := tc.l.Create(ctx, "t", legacy.Task{}, owner)
			if raw, _ := json.Marshal(got["seen_owner"]); err != nil || string(raw) != want {
				t.Errorf("legacy %s Create(owner %q) sent owner %s (%v), want %s", tc.how, owner, raw, err, want)
			}
			_, err = tc.m.Create(ctx, modern.CreateOptions{Owner: owner}, nil)
			if err == nil || !strings.Contains(err.Error(), "seen owner "+want) {
				t.Errorf("modern %s Create(owner %q): %v, want the child to have seen owner %s", tc.how, owner, err, want)
			}
		}
	}
}
