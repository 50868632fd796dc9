package mutants

import (
	"context"
	"errors"

	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/sdk"
)

// The SDK profile's delete defects, each a layer over the honest DeleteTask.

// sdkDeleteMutants are the SDK profile's delete defects.
var sdkDeleteMutants = []mutant.Mutant[Build]{
	{Name: "sdk-delete-missing-succeeds", Breaks: []string{"P-DELETE-1"}, Defect: "DeleteTask of a missing task answers success", Build: Build{sdkOnly, sdkLayer(func(st sdkStore) sdk.Store { return deleteMissingOK{st} })}},
	{Name: "sdk-delete-foreign-succeeds", Breaks: []string{"P-DELETE-1"}, Defect: "DeleteTask looks the id up without the session, then deletes by id and session: another session's task answers success and is left in place", Build: Build{sdkOnly, sdkLayer(func(st sdkStore) sdk.Store { return deleteForeignOK{st} })}},
	{Name: "sdk-delete-expired-succeeds", Breaks: []string{"P-DELETE-1"}, Defect: "DeleteTask finds a task whose ttl has passed but that no read or sweep has dropped yet, and answers success (a DELETE whose WHERE has no expiry)", Build: Build{sdkOnly, sdkLayer(func(st sdkStore) sdk.Store { return deleteExpiredOK{st} })}},
}

// deleteMissingOK answers success for a missing task.
type deleteMissingOK struct{ sdkStore }

func (s deleteMissingOK) DeleteTask(ctx context.Context, session, id string) error {
	if err := s.sdkStore.DeleteTask(ctx, session, id); !errors.Is(err, reference.ErrNotFound) {
		return err
	}
	return nil
}

// deleteForeignOK looks the id up without the session, then deletes by id and session:
// another session's task answers success and is left in place.
type deleteForeignOK struct{ sdkStore }

func (s deleteForeignOK) DeleteTask(ctx context.Context, session, id string) error {
	if err := s.live(ctx); err != nil {
		return err
	}
	s.b.mu.Lock()
	r, ok := s.b.tasks[id]
	foreign := ok && !s.visible(r, session)
	s.b.mu.Unlock()
	if foreign {
		return nil
	}
	return s.sdkStore.DeleteTask(ctx, session, id)
}

// deleteExpiredOK deletes a task found by id and session, expired or not (a DELETE
// whose WHERE has no expiry).
type deleteExpiredOK struct{ sdkStore }

func (s deleteExpiredOK) DeleteTask(ctx context.Context, session, id string) error {
	if err := s.live(ctx); err != nil {
		return err
	}
	s.b.mu.Lock()
	if r, ok := s.b.tasks[id]; ok && s.visible(r, session) {
		s.remove(r)
		s.b.mu.Unlock()
		return nil
	}
	s.b.mu.Unlock()
	return s.sdkStore.DeleteTask(ctx, session, id)
}
