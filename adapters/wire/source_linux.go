//go:build linux

package wire

import (
	"encoding/binary"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// newStdout makes the pipe for the child's stdout: the child's end to give exec, and the
// source the client reads. On Linux with more than one P it is fdSource: a pipe read
// without the runtime's poller, spinning before it blocks in poll(2) beside an eventfd.
// Why not the runtime's poller: a goroutine parked in it is woken through epoll and the
// scheduler, a longer path to the answer than a thread blocked in poll(2) returning;
// and a caller can read its own answer (no hand-off from a reader goroutine, which
// costs a wake-up of its own) only if its blocked read can be interrupted, which the
// eventfd does (docs/performance.md, "What keeps the round trip short"). With one P a
// thread blocked in a system call holds the only P until sysmon takes it back (sysmon
// sleeps up to 10 ms when idle), so the poller is kept there.
func newStdout() (child *os.File, src source, err error) {
	if runtime.GOMAXPROCS(0) > 1 {
		if child, src, err := newFDSource(); err == nil {
			return child, src, nil
		}
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	return w, fileSource{r}, nil
}

func newFDSource() (*os.File, source, error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return nil, nil, err
	}
	// Our end only: the child's stays blocking, as a child's stdout is expected to be.
	if err := unix.SetNonblock(p[0], true); err != nil {
		unix.Close(p[0])
		unix.Close(p[1])
		return nil, nil, err
	}
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		unix.Close(p[0])
		unix.Close(p[1])
		return nil, nil, err
	}
	s := &fdSource{sp: spinner{fd: p[0]}, efd: efd}
	s.stop = s.stopped
	s.fds = [2]unix.PollFd{{Fd: int32(p[0]), Events: unix.POLLIN}, {Fd: int32(efd), Events: unix.POLLIN}}
	return os.NewFile(uintptr(p[1]), "|1"), s, nil
}

// fdSource is a non-blocking pipe read end, read with a spin (spinner) and then poll(2)
// beside an eventfd that interrupts it.
type fdSource struct {
	sp     spinner
	efd    int
	solo   func() bool    // allowSpin's; the role's holder's alone
	stop   func() bool    // stopped, made once: a method value per Read would allocate
	fds    [2]unix.PollFd // the reader's, kept here so that no Read allocates
	intr   atomic.Bool
	closed atomic.Bool
	// mu guards gone: a wake must not write to a descriptor number Close gave back to
	// the process (it may be reused by then).
	mu   sync.Mutex
	gone bool
}

func (s *fdSource) leads() bool                { return true }
func (s *fdSource) allowSpin(solo func() bool) { s.solo = solo }

// stopped ends a spin: the source closed or interrupted, or no longer solo.
func (s *fdSource) stopped() bool {
	return s.closed.Load() || s.intr.Load() || s.solo == nil || !s.solo()
}

func (s *fdSource) Read(p []byte) (int, error) {
	for {
		if s.closed.Load() {
			return 0, os.ErrClosed
		}
		if s.intr.Swap(false) {
			return 0, errInterrupted
		}
		n, err := s.sp.read(p, s.solo != nil && s.solo(), s.stop)
		if err != unix.EAGAIN {
			return n, err
		}
		s.fds[0].Revents, s.fds[1].Revents = 0, 0
		if _, err := unix.Poll(s.fds[:], -1); err != nil {
			if err == unix.EINTR {
				continue
			}
			return 0, err
		}
		if s.fds[1].Revents != 0 {
			var b [8]byte
			_, _ = unix.Read(s.efd, b[:]) // resets the counter; intr says what it was for
		}
	}
}

func (s *fdSource) interrupt() {
	s.intr.Store(true)
	s.wake()
}

func (s *fdSource) shutdown() {
	s.closed.Store(true)
	s.wake()
}

func (s *fdSource) wake() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gone {
		return
	}
	var b [8]byte
	binary.NativeEndian.PutUint64(b[:], 1)
	_, _ = unix.Write(s.efd, b[:]) // EAGAIN only when the counter is already huge: awake anyway
}

func (s *fdSource) backlog() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gone {
		return 0
	}
	return max(pipeUnread(s.sp.fd), 0)
}

// pipeUnread is how many bytes wait unread in the pipe fd is an end of, or -1 when the
// kernel does not say.
func pipeUnread(fd int) int {
	n, err := unix.IoctlGetInt(fd, unix.TIOCINQ)
	if err != nil {
		return -1
	}
	return n
}

// Close closes both descriptors; only the reader role's holder calls it, after its last
// Read, so no poll(2) is left on a closed descriptor.
func (s *fdSource) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.gone {
		s.gone = true
		s.closed.Store(true)
		unix.Close(s.sp.fd)
		unix.Close(s.efd)
	}
	return nil
}
