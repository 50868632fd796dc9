package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/sdk"
)

// The child side of the SDK profile (protocol 3): a harness declaring Capabilities.SDK
// is served with its namespaces' SDK-profile stores (harness.SDKNamespace).

// heldValues are the values a caller of the served store holds (docs/wire.md,
// "Aliasing"), per task id: what CreateTask returned, the result passed to
// StoreTaskResult, the result GetTaskResult last returned. They are the very values the
// store handed over or was given, so sdk.mutate changes a Go store's data exactly when
// the store kept or handed out a reference.
type heldValues struct {
	mu      sync.Mutex
	created map[string]*sdk.Task
	stored  map[string]sdk.Result
	got     map[string]sdk.Result
}

func (h *heldValues) reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.created, h.stored, h.got = map[string]*sdk.Task{}, map[string]sdk.Result{}, map[string]sdk.Result{}
}

// holdTask holds t and returns its answer, encoded under the lock mutate takes: the
// client asks for a mutation only after it read the answer, but that order passes
// through a pipe, which Go's memory model (and its race detector) does not see.
func (h *heldValues) holdTask(t *sdk.Task) (json.RawMessage, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.created[t.TaskID] = t
	return encodeAnswer(t)
}

// holdStored holds the result a StoreTaskResult passed to the store.
func (h *heldValues) holdStored(id string, r sdk.Result) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stored[id] = r
}

// holdReturned holds the result GetTaskResult returned and returns its answer, encoded
// as holdTask's is.
func (h *heldValues) holdReturned(id string, r sdk.Result) (json.RawMessage, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.got[id] = r
	return encodeAnswer(r)
}

// mutate changes the held value in place, as docs/wire.md defines.
func (h *heldValues) mutate(id string, what sdk.Held) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	var r sdk.Result
	switch what {
	case sdk.HeldCreatedTask:
		if t := h.created[id]; t != nil {
			t.Status, t.StatusMessage = reference.StatusFailed, "mutated by the caller"
			return nil
		}
	case sdk.HeldStoredResult:
		r = h.stored[id]
	case sdk.HeldReturnedResult:
		r = h.got[id]
	default:
		return errArgs(opSDKMutate, `what must be "created_task", "stored_result" or "returned_result", got %q`, what)
	}
	if r == nil {
		return fmt.Errorf("%w: no %s of task %s is held", reference.ErrNotFound, what, id)
	}
	r["storecheck_mutated"] = true
	return nil
}

// sdkSupport is what the served SDK store declares: its policy and its optional
// operations, found by interface assertion.
func sdkSupport(st sdk.Store) SDKSupport {
	_, d := st.(sdk.Deleter)
	_, c := st.(sdk.Cleaner)
	_, w := st.(sdk.Waiter)
	return SDKSupport{Policy: st.Policy(), Delete: d, Cleanup: c, Wait: w, Mutate: true}
}

// helloV3 adds the version 3 keys to a hello answer; the caller holds s.mu shared.
func (s *server) helloV3(version int, hello map[string]any) {
	if version < 3 || s.sdk == nil {
		return
	}
	hello["profiles"] = []string{"sdk"}
	hello["sdk"] = sdkHello(sdkSupport(s.sdk))
}

func isSDKOp(op string) bool { return strings.HasPrefix(op, "sdk.") }

// dispatchSDK answers one sdk.* op; the caller holds s.mu shared.
func (s *server) dispatchSDK(ctx context.Context, op string, args map[string]any) (any, error) {
	st := s.sdk
	if s.version.Load() < 3 || st == nil {
		return nil, fmt.Errorf("%w: %s does not serve the sdk profile", reference.ErrUnsupported, s.name)
	}
	a := opArgs{op: op, args: args}
	session, err := decodeSession(args["session"])
	if err != nil {
		return nil, errArgs(op, "%v", err)
	}
	switch op {
	case opSDKCreate:
		p, err := decodeParams(args["params"])
		if err != nil {
			return nil, errArgs(op, "%v", err)
		}
		t, err := st.CreateTask(ctx, session, p)
		if err != nil {
			return nil, err
		}
		return s.held.holdTask(&t)
	case opSDKList:
		cursor, err := optionalString(args, "cursor")
		if err != nil {
			return nil, errArgs(op, "%v", err)
		}
		p, err := st.ListTasks(ctx, session, cursor)
		if err != nil {
			return nil, err
		}
		if p.Tasks == nil {
			p.Tasks = []sdk.Task{}
		}
		return p, nil
	case opSDKCleanup:
		c, ok := st.(sdk.Cleaner)
		if !ok {
			return nil, fmt.Errorf("%w: %s has no sdk cleanup", reference.ErrUnsupported, s.name)
		}
		return c.Cleanup(ctx)
	}
	id, err := a.str("task_id")
	if err != nil {
		return nil, err
	}
	return s.dispatchSDKTask(ctx, st, a, session, id)
}

// dispatchSDKTask answers one sdk.* op on the task id of session.
func (s *server) dispatchSDKTask(ctx context.Context, st sdk.Store, a opArgs, session, id string) (any, error) {
	switch a.op {
	case opSDKGet:
		return st.GetTask(ctx, session, id)
	case opSDKStoreResult:
		return s.sdkStoreResult(ctx, st, a, session, id)
	case opSDKGetResult:
		r, err := st.GetTaskResult(ctx, session, id)
		if err != nil {
			return nil, err
		}
		if r == nil {
			return nil, fmt.Errorf("%w: the store returned no result (nil) and no error", reference.ErrInternal)
		}
		return s.held.holdReturned(id, r)
	case opSDKUpdateStatus:
		status, err := a.str("status")
		if err != nil {
			return nil, err
		}
		msg, err := optionalString(a.args, "status_message")
		if err != nil {
			return nil, errArgs(a.op, "%v", err)
		}
		return nil, st.UpdateTaskStatus(ctx, session, id, reference.Status(status), msg)
	case opSDKDelete:
		d, ok := st.(sdk.Deleter)
		if !ok {
			return nil, fmt.Errorf("%w: %s has no sdk delete", reference.ErrUnsupported, s.name)
		}
		return nil, d.DeleteTask(ctx, session, id)
	case opSDKWait:
		return s.sdkWait(ctx, st, a, session, id)
	case opSDKMutate:
		what, err := a.str("what")
		if err != nil {
			return nil, err
		}
		return nil, s.held.mutate(id, sdk.Held(what))
	}
	return nil, fmt.Errorf("%w: unknown op %q", reference.ErrUnsupported, a.op)
}

// sdkStoreResult answers sdk.store_result.
func (s *server) sdkStoreResult(ctx context.Context, st sdk.Store, a opArgs, session, id string) (any, error) {
	status, err := a.str("status")
	if err != nil {
		return nil, err
	}
	var r sdk.Result
	switch x := a.args["result"].(type) {
	case nil:
	case map[string]any:
		r = x
	default:
		return nil, errArgs(a.op, "result must be an object, got %s", kindOf(x))
	}
	if err := st.StoreTaskResult(ctx, session, id, reference.Status(status), r); err != nil {
		return nil, err
	}
	if r != nil {
		s.held.holdStored(id, r)
	}
	return nil, nil
}

// sdkWait answers sdk.wait: true when the task changed, false when timeout_ms (capped
// at waitCap) passed first.
func (s *server) sdkWait(ctx context.Context, st sdk.Store, a opArgs, session, id string) (any, error) {
	w, ok := st.(sdk.Waiter)
	if !ok {
		return nil, fmt.Errorf("%w: %s has no sdk wait", reference.ErrUnsupported, s.name)
	}
	d, err := decodeOptionalMillis(a.args, "timeout_ms")
	if err != nil || d == nil || *d <= 0 {
		return nil, errArgs(a.op, "timeout_ms must be a positive integer")
	}
	wctx, cancel := context.WithTimeout(ctx, min(*d, waitCap))
	defer cancel()
	err = w.WaitForUpdate(wctx, session, id)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, context.DeadlineExceeded) && wctx.Err() != nil && ctx.Err() == nil:
		return false, nil
	}
	return nil, err
}

// openSDK opens the SDK-profile store of ns when the harness declares one.
func openSDK(ctx context.Context, caps harness.Capabilities, ns harness.Namespace) (sdk.Store, error) {
	if !caps.SDK {
		return nil, nil
	}
	return harness.OpenSDK(ctx, ns)
}

// waitCap bounds how long a served wait may last whatever timeout_ms says.
const waitCap = time.Minute
