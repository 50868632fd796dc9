// Package memstore is the embedded in-memory task store: one Store holds both eras in
// separate keyspaces, the legacy store (legacy.Store with every optional interface) on
// Store.Legacy and the modern one (modern.Store) on Store.Modern.
//
// It is the speed baseline of storecheck, so it is built for parallel use: tasks are
// spread over shards by a hash of their id, each shard with its own lock, so that callers
// working on different tasks rarely contend; List, Cleanup and Sweep hold one shard at a
// time, never the whole store. Stored rows are immutable values: a write builds a new row
// (sharing unchanged values with the old one), so a read deep-copies its row outside the
// lock and only what enters or leaves the store is deep-copied (S-VAL-4). Modern tasks
// are held by value and a Swap overwrites the map slot; what a stored task points to is
// never mutated, so a read copies the struct under the lock and the rest after Unlock.
//
// Ids are checked where a task is made: Create refuses an id that breaks S-ID-2 with
// reference.ErrInvalid. Every other call treats the id as a key no task can have, so a
// read or write of such an id answers reference.ErrNotFound (Delete: success), exactly
// as for any other missing task.
package memstore
