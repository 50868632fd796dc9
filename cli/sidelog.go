package cli

import (
	"io"
	"sync/atomic"
)

// SideLog is where adapters send what their libraries print on the side of a command
// (the container library's lines as it creates, starts and stops a database): shown on
// stderr when the command is given -v, else dropped, so that what storecheck prints is
// its own. cli/builtin points the container library's logger here.
func SideLog() io.Writer { return sideLog{} }

// sideLogTo is where the side log goes now; nil drops it.
var sideLogTo atomic.Pointer[io.Writer]

type sideLog struct{}

func (sideLog) Write(p []byte) (int, error) {
	if w := sideLogTo.Load(); w != nil {
		return (*w).Write(p)
	}
	return len(p), nil
}

// showSideLog sends the side log to w until the returned function drops it again.
func showSideLog(w io.Writer) (drop func()) {
	sideLogTo.Store(&w)
	return func() { sideLogTo.Store(nil) }
}
