// Package facadespecs holds the specs of the facades (L-F-* and M-F-* rules): legacy.go
// for the legacy facade, modern_*.go for the modern one, a file per area. They run
// against the store's own facade when its harness has one, otherwise the reference
// facade over the store.
package facadespecs
