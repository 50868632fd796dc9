// Package model holds pure sequential models of the two task eras of docs/spec.md: the
// legacy store and facade (section 1) and the modern store and facade (section 2).
//
// A model is a map and plain functions: no locks, no clock of its own (every call that
// depends on time takes now), no code shared with the stores it judges. It is meant to
// be obviously right by reading, so that the property checks of the battery (random
// operation sequences, linearizability of concurrent histories) can hold a store to it.
// Models are not safe for concurrent use; Clone them for a branch of a search.
package model

import (
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/storecheck/storecheck/reference"
)

// ValidID reports whether id is one that every store must accept (S-ID-2): 1..512 bytes
// of valid UTF-8 without a NUL.
func ValidID(id string) bool {
	return id != "" && len(id) <= 512 && utf8.ValidString(id) && !strings.Contains(id, "\x00")
}

// Visible is the owner truth table of docs/spec.md section 0: the system sees everything; an
// unowned task is seen by every caller unless requireOwner; an owned task only by the
// principal with exactly that owner.
func Visible(owner string, c reference.Caller, requireOwner bool) bool {
	if c.IsSystem() {
		return true
	}
	if owner == "" {
		return !requireOwner
	}
	id, ok := c.PrincipalID()
	return ok && id == owner
}

// terminal and known restate the status table of section 0.
func terminal(s reference.Status) bool {
	return s == reference.StatusCompleted || s == reference.StatusFailed || s == reference.StatusCancelled
}

func known(s reference.Status) bool {
	switch s {
	case reference.StatusWorking, reference.StatusInputRequired,
		reference.StatusCompleted, reference.StatusFailed, reference.StatusCancelled:
		return true
	}
	return false
}

// transition is the table of section 0: from a known live status to any known status.
func transition(from, to reference.Status) bool {
	return known(from) && known(to) && !terminal(from)
}

// sentinels are the errors a model answers with; Kind names the one an error wraps.
var sentinels = []error{
	reference.ErrNotFound, reference.ErrExists, reference.ErrConflict, reference.ErrInvalid,
	reference.ErrTooLarge, reference.ErrTerminal, reference.ErrInvalidTransition,
	reference.ErrKeyReused, reference.ErrLimitReached, reference.ErrUnsupported,
}

// Kind returns the sentinel err wraps, nil for nil, and the innermost error of its
// chain when it wraps no sentinel (the cause a caller would test with errors.Is).
func Kind(err error) error {
	if err == nil {
		return nil
	}
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return s
		}
	}
	for {
		inner := errors.Unwrap(err)
		if inner == nil {
			return err
		}
		err = inner
	}
}

// SameKind reports whether got answers what want does: both nil, or got wraps want's
// sentinel.
func SameKind(want, got error) bool {
	if want == nil || got == nil {
		return want == nil && got == nil
	}
	return errors.Is(got, Kind(want))
}
