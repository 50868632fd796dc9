//go:build linux

package wire

import (
	"io"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// spinBudget is how long a reader busy-polls its pipe before it blocks
// ($STORECHECK_WIRE_SPIN, a Go duration; 0 turns spinning off). Why spin at all: waking
// a thread blocked in poll(2) or read(2) costs the sleeper's CPU a reschedule and, on a
// VM, an interrupt between vCPUs. On the 2-vCPU machine this was measured on, a Go echo
// of one answer line through two pipes took 11–17 µs a round trip with both ends
// blocking and 3–4 µs with both spinning first (layer=echo and layer=echo-spin of
// BenchmarkLayers), and a serial Get over the wire 37–39 µs without spinning, 17–19 µs
// with it (docs/performance.md, "Spinning before blocking"). An answer from a fast store
// is back within the budget, and so is a serial caller's next request.
var spinBudget, spinErr = spinSetting(os.Getenv(spinEnv))

// spinner reads a non-blocking descriptor for a single reader, deciding whether to spin
// before the reader blocks. A spin that runs out (nothing came within spinBudget) makes
// the reader block at once on its next waits, twice as many after each spin that runs
// out in a row (up to maxSkip), and a spin that gets its data halves that: a reader
// whose data comes seldom (a slow store, an idle session) or late (a machine too busy to
// run the other end soon: spinning there takes the CPU the other end needs) stops
// spinning, one whose data comes within the budget keeps on.
type spinner struct {
	fd      int
	backoff int // waits to skip after the next spin that runs out, halved by a spin that gets its data
	skip    int // waits left to block at once
	spun    int // reads that found nothing while spinning, for the tests
}

// preempted is a gap between two polls of a spin that means the spinning thread was
// taken off the CPU (a poll is a system call of about 1 µs).
const preempted = 10 * time.Microsecond

// maxSkip bounds spinner.backoff: a reader that stopped spinning tries again at least
// every maxSkip waits.
const maxSkip = 1024

// read reads what fd holds. It returns unix.EAGAIN when there is nothing and the reader
// should block (in poll(2)) and try again: at once when spin is false or the reader is
// backing off, else after spinBudget, or as soon as stop reports true. io.EOF at the end
// of the pipe.
func (s *spinner) read(p []byte, spin bool, stop func() bool) (int, error) {
	var spinStart, last time.Time
	for {
		n, err := unix.Read(s.fd, p)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			if spinStart.IsZero() {
				if !spin || spinBudget == 0 {
					return 0, unix.EAGAIN
				}
				if s.skip > 0 {
					s.skip--
					return 0, unix.EAGAIN
				}
				spinStart = time.Now()
				last = spinStart
			} else if now := time.Now(); now.Sub(spinStart) >= spinBudget || now.Sub(last) >= preempted {
				// Run out, or taken off the CPU between two polls: the machine is
				// busy, and a spin would take the CPU the other end needs.
				s.backoff = min(max(2*s.backoff, 1), maxSkip)
				s.skip = s.backoff
				return 0, unix.EAGAIN
			} else {
				last = now
			}
			if stop != nil && stop() {
				return 0, unix.EAGAIN
			}
			s.spun++
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		if !spinStart.IsZero() {
			s.backoff /= 2
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
