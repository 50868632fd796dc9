package mutants

import (
	"context"
	"fmt"

	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/modern"
)

// Defects of the modern Swap (M-SWAP-*): a Swap that checks by another rule than the
// honest one, all under the one lock.

// swapMutants are the Swap defects.
var swapMutants = []mutant.Mutant[Build]{
	{Name: "cas-ignores-version", Breaks: []string{"M-SWAP-1", "M-SWAP-2", "M-SWAP-4", "S-CONC-1", "M-F-FIN-2"}, Defect: "Swap does not compare versions", Build: Build{modernOnly, swapping(swapRule{ignoreVersion: true})}},
	{Name: "foreign-conflicts", Breaks: []string{"M-SWAP-2", "S-OWN-2"}, Defect: "Swap of a foreign task with a stale version answers conflict (existence leak)", Build: Build{modernOnly, swapping(swapRule{foreignConflicts: true})}},
	{Name: "swap-owner-mutable", Breaks: []string{"M-SWAP-3"}, Defect: "Swap lets the owner change", Build: Build{modernOnly, swapping(swapRule{ownerMutable: true})}},
	{Name: "swap-created-at-mutable", Breaks: []string{"M-SWAP-3"}, Defect: "Swap lets created_at change", Build: Build{modernOnly, swapping(swapRule{createdAtMutable: true})}},
	{Name: "swap-version-from-next", Breaks: []string{"M-SWAP-1"}, Defect: "Swap stores the version the new task carries plus one, not expected + 1", Build: Build{modernOnly, swapping(swapRule{versionFromNext: true})}},
}

// swapRule is how a broken Swap checks and versions. The zero rule is the honest one.
type swapRule struct {
	foreignConflicts bool // a stale version answers conflict before the owner check
	ignoreVersion    bool // versions are not compared
	ownerMutable     bool // the owner may change
	createdAtMutable bool // created_at may change
	versionFromNext  bool // the new version is the one next carries plus one
	ownNotFound      bool // its own not found message, the same for every cause
}

type swapWith struct {
	modernStore
	r swapRule
}

func swapping(r swapRule) *wrapper {
	return modernLayer(func(st modernStore) modern.Store { return swapWith{st, r} })
}

func (s swapWith) Swap(ctx context.Context, caller reference.Caller, expected int64, next modern.Task) (modern.Task, error) {
	if err := s.ctxErr(ctx); err != nil {
		return modern.Task{}, err
	}
	n, err := s.inTask(next)
	if err != nil {
		return modern.Task{}, err
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if cur, ok := s.b.modern[s.key(n.TaskID)]; ok && s.r.foreignConflicts && cur.Version != expected {
		return modern.Task{}, reference.ErrorFor(reference.ErrConflict, n.TaskID)
	}
	cur, err := s.find(n.TaskID, caller)
	if err != nil {
		if s.r.ownNotFound {
			// Swap has its own message, the same for a missing, expired or foreign
			// task: it leaks nothing, though it differs from Get's.
			return modern.Task{}, fmt.Errorf("swap: task not found: %s: %w", n.TaskID, reference.ErrNotFound)
		}
		return modern.Task{}, err
	}
	if cur.Version != expected && !s.r.ignoreVersion {
		return modern.Task{}, reference.ErrorFor(reference.ErrConflict, n.TaskID)
	}
	if (n.Owner != cur.Owner && !s.r.ownerMutable) || (n.CreatedAt != cur.CreatedAt && !s.r.createdAtMutable) {
		return modern.Task{}, reference.ErrorFor(reference.ErrInvalid, n.TaskID)
	}
	switch {
	case s.r.ignoreVersion:
		n.Version = cur.Version + 1
	case s.r.versionFromNext:
		n.Version = next.Version + 1
	default:
		n.Version = expected + 1
	}
	s.b.modern[s.key(n.TaskID)] = n
	return s.outTask(n), nil
}
