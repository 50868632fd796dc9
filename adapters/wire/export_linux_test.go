//go:build linux

package wire

import (
	"io"
	"os"
)

// SpinReader reads f, a blocking pipe outside the runtime's poller, as Client and Serve
// read theirs on Linux (spinner: spin, then poll(2)), for the layer=echo-spin benchmark.
// It returns nil when f is not such a pipe.
func SpinReader(f *os.File) io.Reader {
	r := spinInput(f, func() bool { return true })
	if r == io.Reader(f) {
		return nil
	}
	return r
}
