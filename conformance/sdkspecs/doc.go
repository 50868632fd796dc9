// Package sdkspecs holds the specs of the SDK task-store profile (docs/spec.md section
// 6, P-* rules), a file per area, run with the SDK era.
package sdkspecs
