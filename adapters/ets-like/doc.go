// Package etslike is the Go twin of ConduitMCP's default store, ConduitMcp.Tasks.EtsStore:
// one ETS `set` table, that is one map keyed by task id behind one lock, rows
// copied in and out, every per-row operation atomic. List compiles its options (status,
// owner scope, require_owner) once into a predicate and applies it in a single pass that
// stops at the limit, as EtsStore's one :ets.select/3 match spec does; Cleanup and Sweep
// are one pass each with the store clock.
//
// Unlike EtsStore it has a row cap, MaxRows (WithMaxRows, default DefaultMaxRows): a
// Create that would exceed it fails with reference.ErrLimitReached and changes nothing,
// and a Delete, Cleanup or Sweep frees the slots it empties. Every row counts, terminal
// and expired-but-unswept ones included: the cap bounds memory, and those rows hold
// memory until they are removed. The store holds both eras in separate keyspaces (a legacy
// and a modern task may share an id) that share the one table and so the one cap. It also
// follows docs/spec.md where EtsStore does not: Create of an existing id fails with
// reference.ErrExists (ETS insert_new) instead of overwriting the row (L-CREATE-2). Ids
// are checked where a task is made (Create: reference.ErrInvalid, S-ID-2); any other
// call with an id no task can have answers reference.ErrNotFound (Delete: success).
//
// Versus reference/memstore: memstore spreads tasks over many shards, each with its own
// lock, so parallel callers on different tasks rarely contend, and List, Cleanup and Sweep
// hold one shard at a time; it has no row cap. etslike serialises writers on its one lock
// and its scans hold that lock for the whole pass, which makes a List a consistent
// snapshot and the cap exact. Choose memstore for throughput under parallel load; choose
// etslike to reproduce EtsStore's behaviour (and its contention profile), or when a hard
// bound on the number of tasks matters more than write throughput.
package etslike
