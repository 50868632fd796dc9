// Package gotest holds, in example_test.go, the Go snippets of docs/go.md (and the
// README's "Checking a Go store"): they are compiled and run by go test, and a test keeps
// the documents' copies identical to them. reference/memstore stands in for a store author's own store
// (imported as mystore).
package gotest
