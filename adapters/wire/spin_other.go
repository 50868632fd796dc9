//go:build !linux

package wire

import (
	"io"
	"os"
)

// spinErr: elsewhere than Linux the readers never spin, but a bad $STORECHECK_WIRE_SPIN
// is refused all the same.
var _, spinErr = spinSetting(os.Getenv(spinEnv))

// spinInput: elsewhere than Linux, Serve reads r as it is (see the Linux spinInput).
func spinInput(r io.Reader, spin func() bool) io.Reader { return r }
