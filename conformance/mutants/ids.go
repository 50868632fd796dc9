package mutants

import (
	"strings"

	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/reference"
)

// Defects in how ids are keyed and checked (S-ID-2): hooks on the honest store's key
// and id check.

// idMutants are the id defects.
var idMutants = []mutant.Mutant[Build]{
	{Name: "trims-ids", Breaks: []string{"S-ID-2"}, Defect: "ids are trimmed and case-folded (A and a are one task)", Build: Build{both, &wrapper{hooks: hooks{key: foldID}}}},
	{Name: "strict-ids", Breaks: []string{"S-ID-2"}, Defect: "ids with : { } % _ * or over 255 bytes are refused", Build: Build{both, &wrapper{hooks: hooks{checkID: strictID}}}},
	{Name: "accepts-empty-id", Breaks: []string{"S-ID-2"}, Defect: "Create accepts the empty id \"\"", Build: Build{both, &wrapper{hooks: hooks{checkID: emptyIDAccepted}}}},
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
