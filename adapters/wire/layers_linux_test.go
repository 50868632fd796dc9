//go:build linux

package wire_test

import (
	"io"
	"os"
	"syscall"

	"github.com/storecheck/storecheck/adapters/wire"
)

// spinReader reads the pipe f as the wire's readers do on Linux (wire.SpinReader),
// through a File of its own on a duplicate of f's descriptor: one the runtime's poller
// never had, as SpinReader wants, and no descriptor under two Files (closed twice).
// nil when f is no such pipe.
var spinReader = func(f *os.File) io.Reader {
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		return nil
	}
	raw := os.NewFile(uintptr(fd), f.Name())
	defer raw.Close() // SpinReader reads a duplicate of its own
	return wire.SpinReader(raw)
}
