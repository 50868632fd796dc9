// Package benchmarks measures task stores side by side, each against its backend's raw
// speed, in the same run so that the ratio holds on a noisy machine.
//
// A Target is one adapter (memstore, ets-like, postgres, redis, redis-cluster, wire) with
// its baseline: for the in-memory stores a plain mutex-and-map store that copies values
// (mapstore.go); for Postgres the equivalent raw pgx statements on the same tables; for
// Redis the equivalent raw commands; for the wire protocol the same store in process.
// Every Case (legacy create, get, update, list, cleanup; modern create, get, swap,
// lifecycle, contended CAS) runs against both, serially and under b.RunParallel.
//
// The Go benchmarks (`go test -bench . ./benchmarks/`) skip a target whose backend
// cannot be brought up (no Docker, outside CI). Run drives the same bodies through
// testing.Benchmark for `storecheck bench`, which prints a table, writes benchstat input
// and draws an SVG chart.
package benchmarks
