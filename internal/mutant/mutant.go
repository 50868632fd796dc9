// Package mutant holds what every deliberate defect of storecheck has in common, whatever
// it breaks: its name, the rules it breaks and what is wrong, in one line. A family of
// defects (the task stores, the fault-revealed stores, the wire children, the reference
// MCP server) adds what it needs to build, run and judge one as its Build.
package mutant

// Mutant is one deliberate defect; B is its family's part: how the defect is built over
// the honest code, and what its family needs to run and judge it.
//
// What Breaks promises depends on the family, and each family's judge keeps its own
// reading:
//   - a task store (conformance/mutants): the battery kills it when a spec labelled with
//     one of Breaks fails; none for an honest variant, which must pass;
//   - a store whose defect only a fault reveals (conformance/faults): Breaks[0] must fail
//     in the mutant's fault, the others may, and every rule in neither must not;
//   - a wire child (conformance/mutants' wire mutants): the run fails exactly Breaks;
//   - the reference MCP server (mcp/servermutants): the probe fails exactly Breaks, and
//     none is an honest twin that must pass or a server with nothing to exercise.
type Mutant[B any] struct {
	// Name is the mutant's stable name, as the command line and the reports give it.
	Name string
	// Breaks are the IDs of the rules the defect breaks, read as its family says.
	Breaks []string
	// Defect says what is wrong, in one line ("none: ..." for an honest one).
	Defect string
	// Build is the family's part.
	Build B
}
