//go:build linux

package wire

import (
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// spinBudget is how long a reader busy-polls its pipe before it blocks
// ($STORECHECK_WIRE_SPIN, a Go duration; 0 turns spinning off). Why spin at all: waking
// a thread blocked in poll(2) or read(2) costs the sleeper's CPU a reschedule and, on a
// VM, an interrupt between vCPUs, at both ends of every round trip; a reader that finds
// its data while still spinning pays none of it. The budget is meant to cover a fast
// store's answer and a serial caller's next request, so that a spin that pays ends
// before the budget runs out; docs/performance.md, "Spinning before blocking", has the
// figures and the benchmark that gives them.
var spinBudget, spinErr = spinSetting(os.Getenv(spinEnv))

// spinner reads a non-blocking descriptor for a single reader, deciding whether to spin
// before the reader blocks. It keeps a moving score of how often its last spins (about
// the last eight) won — the data came while spinning — and spins while most did; below
// that it blocks at once, trying a spin again every probeEvery waits. A spin wins
// nothing when it runs out (nothing came within spinBudget) or when the data came while
// the spinning thread was off the CPU (a gap longer than the budget between two polls:
// the machine is busy, and a spin there takes the CPU the other end needs). So a reader
// whose data comes seldom (a slow store, an idle session) or late stops spinning, and
// one whose data comes within the budget keeps on through the odd miss.
type spinner struct {
	fd     int
	losses int // spins that won nothing, out of about the last eight, in 1/1024ths (0: all won)
	waits  int // waits since the last spin, while not spinning
	spun   int // reads that found nothing while spinning, for the tests
}

// scoreLoss is the weight of one spin in spinner.losses, and spinLosses the share of
// losses (in 1/1024ths) from which the reader stops spinning.
const (
	scoreLoss  = 1024
	spinLosses = 512
	probeEvery = 32
)

// note scores a spin: lost says it won nothing.
func (s *spinner) note(lost bool) {
	target := 0
	if lost {
		target = scoreLoss
	}
	s.losses += (target - s.losses) / 8
}

// worth says whether the next wait spins: while most spins win, else every probeEvery
// waits.
func (s *spinner) worth() bool {
	if s.losses < spinLosses {
		return true
	}
	s.waits++
	if s.waits >= probeEvery {
		s.waits = 0
		return true
	}
	return false
}

// read reads what fd holds. It returns unix.EAGAIN when there is nothing and the reader
// should block (in poll(2)) and try again: at once when spin is false or spinning has
// not been worth it (worth), else after spinBudget, or as soon as stop reports true. io.EOF at the end
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
				if !s.worth() {
					return 0, unix.EAGAIN
				}
				spinStart = time.Now()
				last = spinStart
			} else if now := time.Now(); now.Sub(spinStart) >= spinBudget {
				s.note(true)
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
			// Off the CPU for longer than a spin between two polls, the data came
			// while this thread was not running: the spin won nothing, and on a busy
			// machine it takes the CPU the other end needs. (Shorter gaps are
			// interrupts, not the scheduler.)
			s.note(time.Since(last) >= spinBudget)
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
	fd, ok := nonblockingDup(f)
	if !ok {
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
