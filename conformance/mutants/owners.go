package mutants

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
)

// Defects in owner scoping (S-OWN-*, L-OWNER-1): hooks on how owners compare and what
// the anonymous caller sees, and layers over what a task shows of its owner. The List
// defects that scope by owner are in list.go.

// ownerMutants are the owner defects.
var ownerMutants = []mutant.Mutant[Build]{
	{Name: "anonymous-fails-open", Breaks: []string{"S-OWN-1", "L-LIST-3", "M-GET-1"}, Defect: "a caller without a principal sees owned tasks (isolation fails open)", Build: Build{both, &wrapper{hooks: hooks{anonymousSees: true}}}},
	{Name: "owner-case-insensitive", Breaks: []string{"S-OWN-3", "S-OWN-1", "L-LIST-3", "M-GET-1"}, Defect: "owners compared case-insensitively (Alice sees alice's tasks)", Build: Build{both, &wrapper{hooks: hooks{sameOwner: strings.EqualFold}}}},
	{Name: "owner-prefix", Breaks: []string{"S-OWN-3", "S-OWN-1", "L-LIST-3", "M-GET-1"}, Defect: "owners compared by prefix (alice sees alice2's tasks)", Build: Build{both, &wrapper{hooks: hooks{sameOwner: eitherPrefix}, machines: true}}},
	{Name: "owner-wildcard", Breaks: []string{"S-OWN-3", "S-OWN-1", "L-LIST-3", "M-GET-1"}, Defect: "% and * in an owner act as wildcards (an unescaped LIKE)", Build: Build{both, &wrapper{hooks: hooks{sameOwner: wildcardMatch}, machines: true}}},
	{Name: "owner-not-promoted", Breaks: []string{"L-OWNER-1"}, Defect: "owner comes back nested under metadata, not at the top level", Build: Build{legacyOnly, legacyLayer(func(st legacyStore) legacy.Store { return ownerNested{st} })}},
	{Name: "denied-differs", Breaks: []string{"S-OWN-2", "M-GET-1", "M-SWAP-2"}, Defect: "a foreign task answers 'access denied' where a missing one answers 'not found'", Build: Build{modernOnly, modernLayer(func(st modernStore) modern.Store { return deniedDiffers{st} })}},
}

// eitherPrefix compares owners by prefix, either way.
func eitherPrefix(owner, principal string) bool {
	return strings.HasPrefix(owner, principal) || strings.HasPrefix(principal, owner)
}

// wildcardMatch treats % and * in the stored owner as "anything", as an unescaped SQL
// LIKE or glob would.
func wildcardMatch(pattern, s string) bool {
	if !strings.ContainsAny(pattern, "%*") {
		return pattern == s
	}
	prefix := pattern[:strings.IndexAny(pattern, "%*")]
	return strings.HasPrefix(s, prefix)
}

// ownerNested hands every task out with its owner nested under metadata.
type ownerNested struct{ legacyStore }

func nested(t legacy.Task, err error) (legacy.Task, error) {
	if o, ok := t[legacy.KeyOwner]; ok && err == nil {
		delete(t, legacy.KeyOwner)
		t["metadata"] = map[string]any{"owner": o}
	}
	return t, err
}

func (s ownerNested) Create(ctx context.Context, id string, meta legacy.Task) (legacy.Task, error) {
	return nested(s.legacyStore.Create(ctx, id, meta))
}

func (s ownerNested) Get(ctx context.Context, id string) (legacy.Task, error) {
	return nested(s.legacyStore.Get(ctx, id))
}

func (s ownerNested) Update(ctx context.Context, id string, changes legacy.Task) (legacy.Task, error) {
	return nested(s.legacyStore.Update(ctx, id, changes))
}

func (s ownerNested) UpdateIf(ctx context.Context, id string, allowed []reference.Status, changes legacy.Task) (legacy.Task, error) {
	return nested(s.legacyStore.UpdateIf(ctx, id, allowed, changes))
}

func (s ownerNested) Cancel(ctx context.Context, id string) (legacy.Task, error) {
	return nested(s.legacyStore.Cancel(ctx, id))
}

func (s ownerNested) List(ctx context.Context, opts legacy.ListOptions) ([]legacy.Task, error) {
	rows, err := s.legacyStore.List(ctx, opts)
	for _, t := range rows {
		_, _ = nested(t, nil)
	}
	return rows, err
}

// deniedDiffers answers a task the caller may not see with "access denied" where a
// missing one answers "not found".
type deniedDiffers struct{ modernStore }

// denied turns the not found of a task that exists into access denied.
func (s deniedDiffers) denied(id string, err error) error {
	if !errors.Is(err, reference.ErrNotFound) {
		return err
	}
	s.b.mu.Lock()
	_, hidden := s.find(id, reference.System())
	s.b.mu.Unlock()
	if hidden == nil {
		return fmt.Errorf("task %s: access denied: %w", id, reference.ErrNotFound)
	}
	return err
}

func (s deniedDiffers) Get(ctx context.Context, id string, caller reference.Caller) (modern.Task, error) {
	t, err := s.modernStore.Get(ctx, id, caller)
	return t, s.denied(id, err)
}

func (s deniedDiffers) Swap(ctx context.Context, caller reference.Caller, expected int64, next modern.Task) (modern.Task, error) {
	t, err := s.modernStore.Swap(ctx, caller, expected, next)
	return t, s.denied(next.TaskID, err)
}
