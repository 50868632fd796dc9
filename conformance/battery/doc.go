// Package battery is the core every spec runs on: Suite registers a spec of one rule
// (Suite.It), Env is what a spec works with (the store on a fresh namespace, the
// battery's clock, the fault recorder and the outcome entries), and the shared
// fixtures, race rounds and overlap meter the spec packages use.
//
// It knows no rule's specs: those live in the spec packages (legacyspecs, modernspecs,
// sdkspecs, sharedspecs, facadespecs, property), and package conformance lists them in
// its table of contents (areas.go).
package battery
