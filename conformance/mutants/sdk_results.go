package mutants

import (
	"context"
	"errors"
	"runtime"

	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/sdk"
)

// The SDK profile's status, result and wait defects: which statuses a write takes and
// whether a terminal one is final (hooks: the checks sit inside the write's lock), and
// layers over how a result is stored, answered and waited on.

// sdkResultMutants are the SDK profile's status, result and wait defects.
var sdkResultMutants = []mutant.Mutant[Build]{
	{Name: "sdk-aliases", Breaks: []string{"P-RESULT-3"}, Defect: "(TS) CreateTask and GetTask hand out the stored task, StoreTaskResult keeps the caller's map, GetTaskResult returns the stored one", Build: Build{sdkOnly, sdkHooked(sdkHooks{shareStored: true})}},
	{Name: "sdk-unknown-status-stored", Breaks: []string{"P-STATUS-1"}, Defect: "(TS) UpdateTaskStatus stores any status, bogus included", Build: Build{sdkOnly, sdkHooked(sdkHooks{checkStatus: unknownStatusTaken})}},
	{Name: "sdk-complete-without-result", Breaks: []string{"P-RESULT-4"}, Defect: "(TS) UpdateTaskStatus(completed) is taken without a result: GetTaskResult can never answer", Build: Build{sdkOnly, sdkHooked(sdkHooks{checkStatus: completionTaken})}},
	{Name: "sdk-terminal-overwritable", Breaks: []string{"P-FIN-1", "P-FIN-2"}, Defect: "UpdateTaskStatus does not check for a terminal status: a completed task can be cancelled or resumed", Build: Build{sdkOnly, sdkHooked(sdkHooks{writeTerminal: true})}},
	{Name: "sdk-toctou-finish", Breaks: []string{"P-FIN-2"}, Defect: "terminal writes check the status under the lock, then write under it again later: racing writers both win (natural race)", Build: Build{sdkOnly, &wrapper{sdk: withSDKHooks(sdkHooks{afterCheck: runtime.Gosched}), race: true}}},
	{Name: "sdk-result-any-status", Breaks: []string{"P-RESULT-1"}, Defect: "(TS) StoreTaskResult takes any status: a working task gets a result", Build: Build{sdkOnly, sdkHooked(sdkHooks{checkResult: func(reference.Status) error { return nil }})}},
	{Name: "sdk-no-result-not-found", Breaks: []string{"P-RESULT-2"}, Defect: "GetTaskResult of a task without a result answers not found, as if the task were gone", Build: Build{sdkOnly, sdkLayer(func(st sdkStore) sdk.Store { return noResultNotFound{st} })}},
	{Name: "sdk-result-written-apart", Breaks: []string{"P-RESULT-1"}, Defect: "StoreTaskResult writes the status, then the result in a second write: a reader between them sees a completed task with no result (natural race)", Build: Build{sdkOnly, &wrapper{sdk: func(st sdkStore, _ *wrapState) sdk.Store { return resultWrittenApart{st} }, race: true, inProcessOnly: "its window between two writes is a scheduler yield inside the child: over the wire the readers' round trips rarely land in it"}}},
	{Name: "sdk-wait-returns-at-once", Breaks: []string{"P-WAIT-1"}, Defect: "WaitForUpdate returns at once, whether or not the task changed", Build: Build{sdkOnly, sdkLayer(func(st sdkStore) sdk.Store { return waitsNot{st} })}},
}

// unknownStatusTaken takes any status UpdateTaskStatus is given but completed and failed.
func unknownStatusTaken(status reference.Status) error {
	if !status.Known() {
		return nil
	}
	return sdkCheckStatus(status)
}

// completionTaken takes completed and failed without a result.
func completionTaken(status reference.Status) error {
	if status == reference.StatusCompleted || status == reference.StatusFailed {
		return nil
	}
	return sdkCheckStatus(status)
}

// noResultNotFound answers a task without a result as not found.
type noResultNotFound struct{ sdkStore }

func (s noResultNotFound) GetTaskResult(ctx context.Context, session, id string) (sdk.Result, error) {
	res, err := s.sdkStore.GetTaskResult(ctx, session, id)
	if errors.Is(err, reference.ErrNoResult) {
		return nil, reference.NotFound(id)
	}
	return res, err
}

// resultWrittenApart writes the status in one write and the result in a second: a
// reader between them sees a terminal task without its result.
type resultWrittenApart struct{ sdkStore }

func (s resultWrittenApart) StoreTaskResult(ctx context.Context, session, id string, status reference.Status, result sdk.Result) error {
	if err := s.live(ctx); err != nil {
		return err
	}
	obj, err := s.resultArgs(status, result)
	if err != nil {
		return err
	}
	if err := s.finish(session, id, false, func(r *sdkRow, now int64) { r.task.Status = status }); err != nil {
		return err
	}
	runtime.Gosched()
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if r, ok := s.b.tasks[id]; ok {
		r.result = obj
	}
	return nil
}

// waitsNot returns from WaitForUpdate at once, whether or not the task changed.
type waitsNot struct{ sdkStore }

func (s waitsNot) WaitForUpdate(ctx context.Context, session, id string) error {
	_, err := s.GetTask(ctx, session, id)
	return err
}
