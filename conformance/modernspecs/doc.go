// Package modernspecs holds the specs of the modern store contract (docs/spec.md
// section 2, M-* rules other than the facade's), a file per area, and the modern-task
// fixtures (fixtures.go) that the facade and shared specs use as well.
package modernspecs
