package mutants

import (
	"strings"

	"github.com/storecheck/storecheck/reference"
)

// Defects in how ids are keyed and checked (S-ID-2): hooks on the honest store's key
// and id check.

// idMutants are the id defects.
var idMutants = []Mutant{
	{"trims-ids", []string{"S-ID-2"}, "ids are trimmed and case-folded (A and a are one task)", both, &wrapper{hooks: hooks{key: foldID}}},
	{"strict-ids", []string{"S-ID-2"}, "ids with : { } % _ * or over 255 bytes are refused", both, &wrapper{hooks: hooks{checkID: strictID}}},
	{"accepts-empty-id", []string{"S-ID-2"}, "Create accepts the empty id \"\"", both, &wrapper{hooks: hooks{checkID: emptyIDAccepted}}},
}

// foldID keys an id trimmed and case-folded, so that A and a are one task.
func foldID(id string) string { return strings.ToLower(strings.TrimSpace(id)) }

// strictID refuses ids with characters some backend treats specially, or past 255 bytes.
func strictID(id string) error {
	if strings.ContainsAny(id, ":{}%_*") || len(id) > 255 {
		return reference.ErrorFor(reference.ErrInvalid, id)
	}
	return reference.ValidateID(id)
}

// emptyIDAccepted takes "" as an id.
func emptyIDAccepted(id string) error {
	if id == "" {
		return nil
	}
	return reference.ValidateID(id)
}
