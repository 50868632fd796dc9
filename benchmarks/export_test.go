package benchmarks

// For the external tests of the targets in package dbtargets (dbtargets_test.go), which
// register into this package's test binary.
var (
	BenchTarget     = benchTarget
	BenchTargetWith = benchTargetWith
	TestEnv         = testEnv
)
