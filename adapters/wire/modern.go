package wire

import (
	"context"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/modern"
)

// modernStore is the child's modern store; clock as for legacyBase.
type modernStore struct {
	c     *Client
	clock *reference.ManualClock
}

func (s *modernStore) taskCall(ctx context.Context, op string, args any) (modern.Task, error) {
	return doAnswer(ctx, s.c, s.clock, op, args, decodeModernTask)
}

func (s *modernStore) Create(ctx context.Context, task modern.Task) (modern.Task, error) {
	raw, err := encodeModernTask(task)
	if err != nil {
		return modern.Task{}, err
	}
	return s.taskCall(ctx, opModernCreate, map[string]any{"task": raw})
}

func (s *modernStore) Get(ctx context.Context, id string, caller reference.Caller) (modern.Task, error) {
	if err := checkUTF8(id); err != nil {
		return modern.Task{}, err
	}
	if err := callerUTF8(caller); err != nil {
		return modern.Task{}, err
	}
	return s.taskCall(ctx, opModernGet, map[string]any{"task_id": id, "caller": callerArg(caller)})
}

func (s *modernStore) Swap(ctx context.Context, caller reference.Caller, expectedVersion int64, next modern.Task) (modern.Task, error) {
	if err := callerUTF8(caller); err != nil {
		return modern.Task{}, err
	}
	raw, err := encodeModernTask(next)
	if err != nil {
		return modern.Task{}, err
	}
	return s.taskCall(ctx, opModernSwap, map[string]any{"caller": callerArg(caller), "expected_version": expectedVersion, "task": raw})
}

func (s *modernStore) Delete(ctx context.Context, id string) error {
	if err := checkUTF8(id); err != nil {
		return err
	}
	return s.c.do(ctx, s.clock, opModernDelete, map[string]any{"task_id": id}, nil)
}

func (s *modernStore) Sweep(ctx context.Context) (int, error) {
	return doAnswer(ctx, s.c, s.clock, opModernSweep, map[string]any{}, decodeCount)
}

func callerUTF8(c reference.Caller) error {
	id, _ := c.PrincipalID()
	return checkUTF8(id)
}
