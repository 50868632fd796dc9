//go:build !linux

package wire

import "io"

// spinInput: elsewhere than Linux, Serve reads r as it is (see the Linux spinInput).
func spinInput(r io.Reader, spin func() bool) io.Reader { return r }
