package wire

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/sdk"
)

// sdkBase is the child's SDK-profile store (docs/wire.md, "SDK profile operations");
// clock as for legacyBase.
type sdkBase struct {
	c     *Client
	clock *reference.ManualClock
}

// The optional operations live in small types of their own, combined below, because
// the battery finds them by interface assertion: a value must have DeleteTask exactly
// when the child declared delete, and MutateHeld exactly when it declared mutate.
type (
	sdkDeleteOp  struct{ b *sdkBase }
	sdkCleanupOp struct{ b *sdkBase }
	sdkWaitOp    struct{ b *sdkBase }
	sdkMutateOp  struct{ b *sdkBase }
)

var (
	_ sdk.Store         = (*sdkBase)(nil)
	_ sdk.Deleter       = sdkDeleteOp{}
	_ sdk.Cleaner       = sdkCleanupOp{}
	_ sdk.Waiter        = sdkWaitOp{}
	_ sdk.CallerMutator = sdkMutateOp{}
)

// SDK returns the child's SDK-profile store, or an error wrapping
// reference.ErrUnsupported when the child does not serve the profile.
func (c *Client) SDK() (sdk.Store, error) { return c.sdkStore(nil) }

func (c *Client) sdkStore(clock *reference.ManualClock) (sdk.Store, error) {
	if !c.hello.SDK {
		return nil, fmt.Errorf("wire: %w: the store process does not serve the sdk profile (protocol 3, profiles [\"sdk\"])", reference.ErrUnsupported)
	}
	b := &sdkBase{c: c, clock: clock}
	s := c.hello.SDKSupport
	return combineSDK(b, s.Delete, s.Cleanup, s.Wait, s.Mutate), nil
}

// combineSDK is b with exactly the optional operations declared: one of 16 types.
func combineSDK(b *sdkBase, del, clean, wait, mutate bool) sdk.Store {
	if mutate {
		return combineSDKMutating(b, del, clean, wait)
	}
	return combineSDKNotMutating(b, del, clean, wait)
}

// combineSDKNotMutating is combineSDK for the 8 types without sdkMutateOp.
func combineSDKNotMutating(b *sdkBase, del, clean, wait bool) sdk.Store {
	d, l, w := sdkDeleteOp{b}, sdkCleanupOp{b}, sdkWaitOp{b}
	switch key := [3]bool{del, clean, wait}; key {
	case [3]bool{false, false, false}:
		return b
	case [3]bool{true, false, false}:
		return struct {
			*sdkBase
			sdkDeleteOp
		}{b, d}
	case [3]bool{false, true, false}:
		return struct {
			*sdkBase
			sdkCleanupOp
		}{b, l}
	case [3]bool{false, false, true}:
		return struct {
			*sdkBase
			sdkWaitOp
		}{b, w}
	case [3]bool{true, true, false}:
		return struct {
			*sdkBase
			sdkDeleteOp
			sdkCleanupOp
		}{b, d, l}
	case [3]bool{true, false, true}:
		return struct {
			*sdkBase
			sdkDeleteOp
			sdkWaitOp
		}{b, d, w}
	case [3]bool{false, true, true}:
		return struct {
			*sdkBase
			sdkCleanupOp
			sdkWaitOp
		}{b, l, w}
	}
	return struct {
		*sdkBase
		sdkDeleteOp
		sdkCleanupOp
		sdkWaitOp
	}{b, d, l, w}
}

// combineSDKMutating is combineSDK for the 8 types with sdkMutateOp.
func combineSDKMutating(b *sdkBase, del, clean, wait bool) sdk.Store {
	d, l, w, m := sdkDeleteOp{b}, sdkCleanupOp{b}, sdkWaitOp{b}, sdkMutateOp{b}
	switch key := [3]bool{del, clean, wait}; key {
	case [3]bool{false, false, false}:
		return struct {
			*sdkBase
			sdkMutateOp
		}{b, m}
	case [3]bool{true, false, false}:
		return struct {
			*sdkBase
			sdkDeleteOp
			sdkMutateOp
		}{b, d, m}
	case [3]bool{false, true, false}:
		return struct {
			*sdkBase
			sdkCleanupOp
			sdkMutateOp
		}{b, l, m}
	case [3]bool{false, false, true}:
		return struct {
			*sdkBase
			sdkWaitOp
			sdkMutateOp
		}{b, w, m}
	case [3]bool{true, true, false}:
		return struct {
			*sdkBase
			sdkDeleteOp
			sdkCleanupOp
			sdkMutateOp
		}{b, d, l, m}
	case [3]bool{true, false, true}:
		return struct {
			*sdkBase
			sdkDeleteOp
			sdkWaitOp
			sdkMutateOp
		}{b, d, w, m}
	case [3]bool{false, true, true}:
		return struct {
			*sdkBase
			sdkCleanupOp
			sdkWaitOp
			sdkMutateOp
		}{b, l, w, m}
	}
	return struct {
		*sdkBase
		sdkDeleteOp
		sdkCleanupOp
		sdkWaitOp
		sdkMutateOp
	}{b, d, l, w, m}
}

// Policy is the policy the child declared in hello.
func (s *sdkBase) Policy() sdk.Policy { return s.c.hello.SDKSupport.Policy }

func (s *sdkBase) taskCall(ctx context.Context, op string, args any) (sdk.Task, error) {
	return doAnswer(ctx, s.c, s.clock, op, args, decodeSDKTask)
}

// nullCall is a call whose ok value must be null.
func (s *sdkBase) nullCall(ctx context.Context, op string, args any) error {
	return s.c.do(ctx, s.clock, op, args, func(raw json.RawMessage) error {
		if string(raw) != "null" {
			return fmt.Errorf("want null, got %s", quoteLine(raw))
		}
		return nil
	})
}

// idArgs checks session and id for the wire and returns the args of a call on one task.
func idArgs(session, taskID string) (map[string]any, error) {
	if err := checkUTF8(session); err != nil {
		return nil, err
	}
	if err := checkUTF8(taskID); err != nil {
		return nil, err
	}
	return map[string]any{"task_id": taskID, "session": sessionArg(session)}, nil
}

func (s *sdkBase) CreateTask(ctx context.Context, session string, params sdk.CreateParams) (sdk.Task, error) {
	if err := checkUTF8(session); err != nil {
		return sdk.Task{}, err
	}
	p, err := paramsArg(params)
	if err != nil {
		return sdk.Task{}, err
	}
	return s.taskCall(ctx, opSDKCreate, map[string]any{"session": sessionArg(session), "params": p})
}

func (s *sdkBase) GetTask(ctx context.Context, session, taskID string) (sdk.Task, error) {
	args, err := idArgs(session, taskID)
	if err != nil {
		return sdk.Task{}, err
	}
	return s.taskCall(ctx, opSDKGet, args)
}

func (s *sdkBase) StoreTaskResult(ctx context.Context, session, taskID string, status reference.Status, result sdk.Result) error {
	args, err := idArgs(session, taskID)
	if err != nil {
		return err
	}
	if err := checkUTF8(string(status)); err != nil {
		return err
	}
	r, err := resultArg(result)
	if err != nil {
		return err
	}
	args["status"], args["result"] = string(status), r
	return s.nullCall(ctx, opSDKStoreResult, args)
}

func (s *sdkBase) GetTaskResult(ctx context.Context, session, taskID string) (sdk.Result, error) {
	args, err := idArgs(session, taskID)
	if err != nil {
		return nil, err
	}
	return doAnswer(ctx, s.c, s.clock, opSDKGetResult, args, decodeResult)
}

func (s *sdkBase) UpdateTaskStatus(ctx context.Context, session, taskID string, status reference.Status, message string) error {
	args, err := idArgs(session, taskID)
	if err != nil {
		return err
	}
	if err := checkUTF8([]string{string(status), message}); err != nil {
		return err
	}
	var msg any
	if message != "" {
		msg = message
	}
	args["status"], args["status_message"] = string(status), msg
	return s.nullCall(ctx, opSDKUpdateStatus, args)
}

func (s *sdkBase) ListTasks(ctx context.Context, session, cursor string) (sdk.Page, error) {
	if err := checkUTF8([]string{session, cursor}); err != nil {
		return sdk.Page{}, err
	}
	var c any
	if cursor != "" {
		c = cursor
	}
	return doAnswer(ctx, s.c, s.clock, opSDKList, map[string]any{"cursor": c, "session": sessionArg(session)}, decodeSDKPage)
}

func (o sdkDeleteOp) DeleteTask(ctx context.Context, session, taskID string) error {
	args, err := idArgs(session, taskID)
	if err != nil {
		return err
	}
	return o.b.nullCall(ctx, opSDKDelete, args)
}

func (o sdkCleanupOp) Cleanup(ctx context.Context) (int, error) {
	return doAnswer(ctx, o.b.c, o.b.clock, opSDKCleanup, map[string]any{}, decodeCount)
}

// WaitForUpdate sends sdk.wait with the time ctx has left as timeout_ms (at most 90%
// of the request timeout), so that the child answers by then and never holds later
// requests up (a request whose caller gave up is still waited for: Client.send). The
// child answers true once the task changed, false at the timeout; a false with ctx
// still alive (the cap was shorter) waits again.
func (o sdkWaitOp) WaitForUpdate(ctx context.Context, session, taskID string) error {
	args, err := idArgs(session, taskID)
	if err != nil {
		return err
	}
	for {
		limit := o.b.c.opts.Timeout * 9 / 10
		if d, ok := ctx.Deadline(); ok {
			limit = min(limit, time.Until(d))
		}
		if limit <= 0 {
			if err := ctx.Err(); err != nil {
				return &OpError{Op: opSDKWait, Err: err}
			}
			return &OpError{Op: opSDKWait, Err: context.DeadlineExceeded}
		}
		args["timeout_ms"] = durationMillis(limit)
		var changed bool
		err := o.b.c.do(ctx, o.b.clock, opSDKWait, args, func(raw json.RawMessage) error {
			switch string(raw) {
			case "true", "false":
				changed = string(raw) == "true"
				return nil
			}
			return fmt.Errorf("want true (changed) or false (timed out), got %s", quoteLine(raw))
		})
		switch {
		case err != nil:
			return err
		case changed:
			return nil
		}
		if err := ctx.Err(); err != nil {
			return &OpError{Op: opSDKWait, Err: err}
		}
	}
}

func (o sdkMutateOp) MutateHeld(ctx context.Context, taskID string, what sdk.Held) error {
	if err := checkUTF8(taskID); err != nil {
		return err
	}
	return o.b.nullCall(ctx, opSDKMutate, map[string]any{"task_id": taskID, "what": string(what)})
}
