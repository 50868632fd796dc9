package conformance

import (
	"fmt"
	"regexp"

	"github.com/onsi/ginkgo/v2/types"
	"github.com/storecheck/storecheck/conformance/ginkgoreport"
	"github.com/storecheck/storecheck/conformance/rules"
)

// CheckSelection checks a selection before anything is started: every rule ID is known,
// the label expression parses, each focus expression compiles. A program (the CLI) calls
// it before bringing a store up, so that a typo costs no child process or container.
// Whether a rule belongs to an era the store implements is known only after bring-up,
// and Execute checks it then. Errors wrap ErrSelection.
func CheckSelection(ids []string, label string, focus []string) error {
	for _, id := range ids {
		if _, ok := rules.ByID(id); !ok {
			return fmt.Errorf("%w: unknown rule %q (storecheck list prints the rules)", ErrSelection, id)
		}
	}
	if label != "" {
		if _, err := types.ParseLabelFilter(label); err != nil {
			return fmt.Errorf("%w: label filter %q: %s", ErrSelection, label, ginkgoreport.Plain(err.Error()))
		}
	}
	for _, f := range focus {
		if _, err := regexp.Compile(f); err != nil {
			return fmt.Errorf("%w: focus %q: %v", ErrSelection, f, err)
		}
	}
	return nil
}
