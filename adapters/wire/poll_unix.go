//go:build unix

package wire

import (
	"io"
	"os"
	"syscall"
	"time"
)

// pollable returns r read through Go's network poller when r is a pipe or socket that
// the runtime reads with blocking system calls (os.Stdin is one). Why it matters: a
// goroutine blocked in read(2) keeps its P in a system call, so the goroutine it just
// started for the previous request waits for sysmon to take that P back (up to 10 ms
// when the process has been idle) or for another thread to be woken to steal it, and a
// loaded machine may have no thread to spare: the round trip then waits on the
// scheduler, not on the pipe. A goroutine parked in the poller gives its P up at once. Anything else (a file, a terminal,
// a reader that is not a file) is returned as is.
func pollable(r io.Reader) io.Reader {
	f, ok := r.(*os.File)
	if !ok || f.SetReadDeadline(time.Time{}) == nil {
		return r // not a file, or in the poller already (os.Pipe, a socket)
	}
	fd, ok := nonblockingDup(f)
	if !ok {
		return r
	}
	return os.NewFile(uintptr(fd), f.Name())
}

// nonblockingDup returns a non-blocking duplicate of f's descriptor when f is a pipe or
// a socket, for pollable and spinInput. A duplicate, so that closing it (or the new
// File's finalizer) never closes the caller's descriptor; the non-blocking flag is the
// pipe's, shared by both, which only this process reads. Not a terminal: it must not be
// left non-blocking behind the shell's back.
func nonblockingDup(f *os.File) (fd int, ok bool) {
	var st syscall.Stat_t
	if syscall.Fstat(int(f.Fd()), &st) != nil {
		return 0, false
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFIFO && st.Mode&syscall.S_IFMT != syscall.S_IFSOCK {
		return 0, false
	}
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		return 0, false
	}
	syscall.CloseOnExec(fd)
	if err := syscall.SetNonblock(fd, true); err != nil {
		_ = syscall.Close(fd)
		return 0, false
	}
	return fd, true
}

// tryWrite writes b with one non-blocking write(2) on rc's fd: n < len(b) with a nil
// error means the pipe is full (the caller finishes with blocking writes).
func tryWrite(rc syscall.RawConn, b []byte) (n int, err error) {
	cerr := rc.Write(func(fd uintptr) bool {
		for n < len(b) {
			m, e := syscall.Write(int(fd), b[n:])
			switch {
			case e == syscall.EINTR:
				continue
			case e == syscall.EAGAIN:
				return true
			case e != nil:
				err = e
				return true
			}
			n += m
		}
		return true
	})
	if err == nil {
		err = cerr
	}
	return n, err
}
