// Package dbtargets holds the benchmark targets on database backends (PostgreSQL,
// Redis, River on SQLite and PostgreSQL): each adapter against the equivalent raw
// statements on the same backend. They register with package benchmarks when this
// package is linked, which keeps the drivers out of a binary that benchmarks only
// in-process stores.
package dbtargets
