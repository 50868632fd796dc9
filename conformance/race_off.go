//go:build !race

package conformance

// raceEnabled is true in a binary built with -race: timing checks skip themselves.
const raceEnabled = false
