package mutants

import (
	"context"
	"runtime"
	"strconv"

	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/sdk"
)

// The SDK profile's id and create defects: how ids are drawn (a hook: the draw is
// under CreateTask's lock) and what a create takes and stamps.

// sdkIDMutants are the SDK profile's id and create defects.
var sdkIDMutants = []mutant.Mutant[Build]{
	{Name: "sdk-sequential-ids", Breaks: []string{"P-ID-1"}, Defect: "CreateTask numbers its tasks: task-1, task-2, ... (distinct, guessable)", Build: Build{sdkOnly, &wrapper{sdk: sequentialIDs}}},
	{Name: "sdk-racy-ids", Breaks: []string{"P-ID-2"}, Defect: "the next id is drawn ahead and replaced only after the insert: concurrent creates share it (natural race)", Build: Build{sdkOnly, &wrapper{sdk: racyIDs, race: true}}},
	{Name: "sdk-create-no-last-updated", Breaks: []string{"P-CREATE-1"}, Defect: "a created task has no lastUpdatedAt until its first write", Build: Build{sdkOnly, sdkLayer(func(st sdkStore) sdk.Store { return noLastUpdated{st} })}},
	{Name: "sdk-keeps-negative-ttl", Breaks: []string{"P-CREATE-1"}, Defect: "(TS) a negative ttl is kept and reported as is", Build: Build{sdkOnly, sdkHooked(sdkHooks{checkCreate: func(sdk.CreateParams) error { return nil }})}},
	{Name: "sdk-delete-recycles-id", Breaks: []string{"P-DELETE-1"}, Defect: "DeleteTask hands the deleted id back to a pool CreateTask draws from first: a later task takes the deleted one's id (a slot allocator)", Build: Build{sdkOnly, &wrapper{sdk: recycledIDs}}},
}

// sequentialIDs numbers the tasks: task-1, task-2, ...
func sequentialIDs(st sdkStore, x *wrapState) sdk.Store {
	st.h.newID = func() string {
		x.sdk.counter++
		return "task-" + strconv.Itoa(x.sdk.counter)
	}
	return st
}

// racyIDs draws the next id ahead and hands it out on a read; it is replaced only once
// the read's create holds the lock again: two creates between those moments share it.
func racyIDs(st sdkStore, x *wrapState) sdk.Store {
	st.h.newID = func() string {
		if x.sdk.nextID == "" {
			x.sdk.nextID = reference.GenerateID()
		}
		id := x.sdk.nextID
		st.b.mu.Unlock()
		runtime.Gosched()
		st.b.mu.Lock()
		x.sdk.nextID = reference.GenerateID()
		return id
	}
	return st
}

// recycledIDs hands a deleted task's id back to a pool CreateTask draws from first.
func recycledIDs(st sdkStore, x *wrapState) sdk.Store {
	st.h.newID = func() string {
		if n := len(x.sdk.freed); n > 0 {
			id := x.sdk.freed[n-1]
			x.sdk.freed = x.sdk.freed[:n-1]
			return id
		}
		return reference.GenerateID()
	}
	return idsFreed{st, x}
}

type idsFreed struct {
	sdkStore
	x *wrapState
}

func (s idsFreed) DeleteTask(ctx context.Context, session, id string) error {
	if err := s.sdkStore.DeleteTask(ctx, session, id); err != nil {
		return err
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	s.x.sdk.freed = append(s.x.sdk.freed, id)
	return nil
}

// noLastUpdated leaves a created task without lastUpdatedAt until its first write.
type noLastUpdated struct{ sdkStore }

func (s noLastUpdated) CreateTask(ctx context.Context, session string, p sdk.CreateParams) (sdk.Task, error) {
	t, err := s.sdkStore.CreateTask(ctx, session, p)
	if err != nil {
		return t, err
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if r, ok := s.b.tasks[t.TaskID]; ok {
		r.task.LastUpdatedAt = ""
	}
	t.LastUpdatedAt = ""
	return t, nil
}
