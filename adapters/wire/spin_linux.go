//go:build linux

package wire

import (
	"io"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// spinBudget is how long a reader busy-polls its pipe before it blocks. Why spin at
// all: waking a thread blocked in poll(2) or read(2) costs the sleeper's CPU a
// reschedule and, on a VM, an interrupt between vCPUs; on the 2-vCPU machine this was
// measured on, a Go echo of 600-byte lines through two pipes took 14–17 µs a round trip
// with both ends blocking and 3–4 µs with both polling for up to 20 µs
// (docs/performance.md, "Spinning before blocking"). An answer from a fast store is
// back within that budget, and so is a serial caller's next request.
const spinBudget = 50 * time.Microsecond

// spinner reads a non-blocking descriptor for a single reader, deciding whether to spin
// before the reader blocks: it keeps an average of how long the reader's last waits
// were (about the last eight), and spins only while that average is under spinBudget, so a reader whose data
// comes seldom (a slow store, an idle session, a machine too busy for the other end to
// run) blocks at once and burns no CPU.
type spinner struct {
	fd    int
	avg   time.Duration // moving average of the waits, about the last eight
	since time.Time     // when the wait in progress began (zero: none)
	spun  int           // reads that found nothing while spinning, for the tests
}

// read reads what fd holds. It returns unix.EAGAIN when there is nothing and the reader
// should block (in poll(2)) and try again: at once when spinning is not worth it (or
// spin is false), else after spinBudget, or as soon as stop reports true. io.EOF at
// the end of the pipe.
func (s *spinner) read(p []byte, spin bool, stop func() bool) (int, error) {
	var spinStart time.Time
	for {
		n, err := unix.Read(s.fd, p)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			now := time.Now()
			if s.since.IsZero() {
				s.since = now
			}
			if spinStart.IsZero() {
				spinStart = now
				if !spin || s.avg >= spinBudget {
					return 0, unix.EAGAIN
				}
			}
			if now.Sub(spinStart) >= spinBudget || (stop != nil && stop()) {
				return 0, unix.EAGAIN
			}
			s.spun++
			continue
		}
		var wait time.Duration
		if !s.since.IsZero() {
			// Capped, so that one long wait (an idle minute) counts like a few
			// too long to spin for: a handful of short waits in a row bring the
			// spin back, a handful of long ones end it.
			wait = min(time.Since(s.since), 2*spinBudget)
			s.since = time.Time{}
		}
		s.avg += (wait - s.avg) / 8
		switch {
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// spinInput is how Serve reads r with more than one P on Linux: a pipe or socket is
// read without the runtime's poller, spinning before it blocks when the last requests
// came close together and spin reports true (Serve's say: see server.spinOK). Anything
// else is returned as is: read(2) by the runtime, or the poller's when r is in it
// already.
func spinInput(r io.Reader, spin func() bool) io.Reader {
	f, ok := r.(*os.File)
	if !ok || f.SetReadDeadline(time.Time{}) == nil {
		return r // not a file, or one in the runtime's poller already (os.Pipe)
	}
	var st syscall.Stat_t
	if syscall.Fstat(int(f.Fd()), &st) != nil {
		return r
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFIFO && st.Mode&syscall.S_IFMT != syscall.S_IFSOCK {
		return r // a terminal must not be left non-blocking behind the shell's back
	}
	// A duplicate, so that closing ours never closes the caller's r; the non-blocking
	// flag is the pipe's, shared by both, which only this process reads.
	fd, err := unix.Dup(int(f.Fd()))
	if err != nil {
		return r
	}
	unix.CloseOnExec(fd)
	if err := unix.SetNonblock(fd, true); err != nil {
		_ = unix.Close(fd)
		return r
	}
	return &spinReader{sp: spinner{fd: fd}, spin: spin}
}

type spinReader struct {
	sp     spinner
	spin   func() bool
	fds    [1]unix.PollFd
	closed bool
}

func (r *spinReader) Read(p []byte) (int, error) {
	if r.closed {
		return 0, os.ErrClosed
	}
	for {
		n, err := r.sp.read(p, r.spin(), nil)
		if err != unix.EAGAIN {
			if err != nil && err != io.EOF {
				err = &os.PathError{Op: "read", Path: "stdin", Err: err}
			}
			return n, err
		}
		r.fds[0] = unix.PollFd{Fd: int32(r.sp.fd), Events: unix.POLLIN}
		if _, err := unix.Poll(r.fds[:], -1); err != nil && err != unix.EINTR {
			return 0, &os.PathError{Op: "poll", Path: "stdin", Err: err}
		}
	}
}

// Close closes the duplicate descriptor; Serve calls it once it has read its last line.
func (r *spinReader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	return unix.Close(r.sp.fd)
}
