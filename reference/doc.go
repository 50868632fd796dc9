// Package reference holds what both task eras share (docs/spec.md section 0): statuses and
// their transition table, callers and the owner truth table, task ids, sentinel errors
// and the clock that stores and facades read.
//
// The era packages (reference/legacy, reference/modern) build their store contracts and
// reference facades on it; reference/memstore is the embedded in-memory store.
package reference
