// Package property holds the randomised checks: rapid state machines against the
// sequential models of package model (legacy.go, modern.go), porcupine linearizability
// of concurrent histories (lin.go), tiny races explained by enumerating orders
// (races.go), and the replay check of B-REPRO-1 (repro.go).
package property
