package wire

import (
	"errors"
	"os"
)

// errInterrupted is what a source's Read returns after interrupt: the reader role's
// holder is asked to look at why (its context ended, the session failed) and to give
// the role up or read on.
var errInterrupted = errors.New("wire: read interrupted")

// source is the child's stdout as the reader role reads it (see Client.role). Only the
// role's holder calls Read and Close; interrupt and shutdown may be called by anyone.
type source interface {
	// Read reads like io.Reader, and returns errInterrupted, having read nothing, when
	// interrupt was called since the last errInterrupted.
	Read(p []byte) (int, error)
	// interrupt makes the Read in progress, or else the next one, return
	// errInterrupted. A source that cannot (leads reports false) ignores it.
	interrupt()
	// shutdown makes every Read from now on fail, the one in progress included: for a
	// pipe a grandchild still holds open after the child exited.
	shutdown()
	Close() error
	// allowSpin says whether the Reads that follow may busy-poll before they block
	// (see spinner): while solo reports true (nil: never). The role's holder allows it
	// while its call is the only one in flight, so that no goroutine of ours waits for
	// the CPU it spins on.
	allowSpin(solo func() bool)
	// backlog is how many bytes wait unread in the pipe (0 when it cannot tell); anyone
	// may call it.
	backlog() int
	// leads says whether callers may hold the reader role: only a source whose blocked
	// Read can be interrupted lets a caller read its own answer, since a caller whose
	// context ends must be able to stop reading.
	leads() bool
}

// fileSource reads an *os.File: the portable source. Its reads cannot be interrupted, so
// the background reader holds the reader role for the whole session (the callers wait
// for it to hand them their answers); closing the file unblocks it.
type fileSource struct{ f *os.File }

func (s fileSource) Read(p []byte) (int, error) { return s.f.Read(p) }
func (s fileSource) interrupt()                 {}
func (s fileSource) shutdown()                  { _ = s.f.Close() }
func (s fileSource) Close() error               { return s.f.Close() }
func (s fileSource) leads() bool                { return false }
func (s fileSource) backlog() int               { return 0 }
func (s fileSource) allowSpin(func() bool)      {}
