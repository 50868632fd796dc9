package sharedspecs

import (
	"fmt"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference"
)

// S-TRANS-1 judges reference.ValidTransition, which both eras' facades use: it is
// registered for both eras so that a store of either era reports it. How the legacy
// facade applies the table over a store is L-F-FIN-1's.
// transitionTable is the table of docs/spec.md section 0, written out: from a non-terminal
// status every status is reachable, the same one included; from a terminal one nothing.
var transitionTable = map[reference.Status]map[reference.Status]bool{
	"working":        {"working": true, "input_required": true, "completed": true, "failed": true, "cancelled": true},
	"input_required": {"working": true, "input_required": true, "completed": true, "failed": true, "cancelled": true},
	"completed":      {},
	"failed":         {},
	"cancelled":      {},
}

func Transitions(s *battery.Suite) {
	s.It("S-TRANS-1", "ValidTransition answers exactly the transition table, and false for unknown statuses", func(e *battery.Env) {
		unknown := []reference.Status{"", "Working", "COMPLETED", "working ", "done", "canceled", "pending", "input-required", "\x00", "🙂"}
		all := append(reference.Statuses(), unknown...)
		for _, from := range all {
			for _, to := range all {
				want := transitionTable[from][to] // false for unknown statuses on either side
				var got bool
				panicked := func() (p any) {
					defer func() { p = recover() }()
					got = reference.ValidTransition(from, to)
					return nil
				}()
				input := fmt.Sprintf("ValidTransition(%q, %q)", from, to)
				if !e.Check(panicked == nil, input, fmt.Sprint(want), fmt.Sprintf("panic: %v", panicked)) {
					continue
				}
				e.Check(got == want, input, fmt.Sprint(want), fmt.Sprint(got))
			}
		}
		e.Check(len(reference.Statuses()) == 5, "Statuses()", "the five statuses of docs/spec.md", fmt.Sprint(reference.Statuses()))
		for _, st := range reference.Statuses() {
			_, known := transitionTable[st]
			e.Check(known, "Statuses()", "only the statuses of docs/spec.md", fmt.Sprintf("%q", st))
		}
	})
}
