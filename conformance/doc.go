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
// The packages below it, read as a table of contents (areas.go lists every area of
// every era in the order they run; `storecheck list --rule ID` prints where a rule's
// specs are written):
//   - harness: what a store author implements (Harness, Capabilities);
//   - battery: the core every spec runs on (Suite, Env, fixtures, race rounds, overlap);
//   - rules: the rule catalogue of docs/spec.md;
//   - sharedspecs, legacyspecs, modernspecs, facadespecs, sdkspecs: the specs, by
//     section of docs/spec.md, a file per area;
//   - property and model: the randomised checks and the sequential models they judge
//     against;
//   - report and ginkgoreport: a run's result as plain data, and its translation from
//     Ginkgo's report;
//   - faults: the fault rules (F-*), run against a backend storecheck started;
//   - mutants: the catalogue of broken stores that proves the battery's power.
package conformance
