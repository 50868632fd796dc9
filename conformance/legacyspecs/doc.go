// Package legacyspecs holds the specs of the legacy store contract (docs/spec.md
// section 1.1, L-* rules other than the facade's): a file per area, each area a function
// that package conformance lists for the legacy era.
package legacyspecs
