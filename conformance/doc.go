// Package conformance is storecheck's battery: one or more Ginkgo specs for every rule of
// docs/spec.md, run against any store a harness.Harness brings up.
//
// Every spec is labelled with its rule ID, its level (must, should), its era (legacy,
// modern) and its area (area:list, area:owner, ...), gets a fresh namespace and the
// battery's clock, and reports every fault it finds at once, quoting the rule, the call
// made, what was expected and what came back. SHOULD faults are warnings unless
// Options.Strict.
//
// Entry points:
//   - from go test: Run (every era the harness declares), RunLegacy, RunModern, RunSDK;
//   - inside an existing Ginkgo suite: DescribeLegacy, DescribeModern, DescribeSDK,
//     which read their options as Run does but write no report files;
//   - from a program (the storecheck CLI): Execute, which returns a Report (Summary,
//     JSON, JUnit).
//
// Ginkgo runs specs once per process: Execute may be called once, and a second Run* call
// in one test binary re-executes the binary for that test. Report files named by
// -storecheck.json/-storecheck.junit (or STORECHECK_JSON/STORECHECK_JUNIT) get the
// test's name before the extension when the binary runs several Runs (subtests,
// re-executed calls), one file per configuration.
//
// The battery has one file per area: shared_*.go and legacy_*.go (sections 0 and 1),
// modern_*.go (section 2), property_*.go (rapid state machines against the sequential
// models of package model, porcupine linearizability checks and facade races).
package conformance
