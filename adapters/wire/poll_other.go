//go:build !unix

package wire

import (
	"io"
	"syscall"
)

func pollable(r io.Reader) io.Reader { return r }

// tryWrite leaves every write to the writer goroutine where there is no non-blocking
// attempt.
func tryWrite(rc syscall.RawConn, b []byte) (int, error) { return 0, nil }
