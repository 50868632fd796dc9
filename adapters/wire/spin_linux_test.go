//go:build linux

package wire

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func spinPipe(t *testing.T) (r *spinner, w int) {
	t.Helper()
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(p[0]); unix.Close(p[1]) })
	return &spinner{fd: p[0]}, p[1]
}

// TestSpinner: a reader spins for spinBudget while its waits have been short, blocks at
// once (EAGAIN without a spin) when they have been long or it may not spin, and stops
// spinning when told to.
func TestSpinner(t *testing.T) {
	sp, w := spinPipe(t)
	buf := make([]byte, 64)

	unix.Write(w, []byte("a\n"))
	if n, err := sp.read(buf, true, nil); n != 2 || err != nil || sp.spun != 0 {
		t.Fatalf("data waiting: read = %d, %v after %d spins; want 2, nil, no spin", n, err, sp.spun)
	}

	start := time.Now()
	if _, err := sp.read(buf, true, nil); err != unix.EAGAIN {
		t.Fatalf("nothing to read: err = %v, want EAGAIN", err)
	}
	if took := time.Since(start); took < spinBudget || sp.spun == 0 {
		t.Fatalf("nothing to read, short waits so far: returned after %v and %d spins; want a spin of %v", took, sp.spun, spinBudget)
	}

	sp.spun = 0
	calls := 0
	if _, err := sp.read(buf, true, func() bool { calls++; return calls > 3 }); err != unix.EAGAIN || sp.spun != 3 {
		t.Fatalf("stop true on its 4th call: err = %v after %d spins; want EAGAIN after 3", err, sp.spun)
	}

	sp.spun = 0
	if _, err := sp.read(buf, false, nil); err != unix.EAGAIN || sp.spun != 0 {
		t.Fatalf("spin false: err = %v after %d spins; want EAGAIN at once", err, sp.spun)
	}

	// Long waits (the data came 5 ms after the reader began waiting, eight times over)
	// raise the average past the budget: the reader stops spinning.
	for range 8 {
		sp.read(buf, false, nil)
		time.Sleep(5 * time.Millisecond)
		unix.Write(w, []byte("b\n"))
		if n, err := sp.read(buf, false, nil); n != 2 || err != nil {
			t.Fatalf("after a wait: read = %d, %v; want 2, nil", n, err)
		}
	}
	if sp.avg < spinBudget {
		t.Fatalf("after eight 5 ms waits the average wait is %v; want at least %v", sp.avg, spinBudget)
	}
	sp.spun = 0
	if _, err := sp.read(buf, true, nil); err != unix.EAGAIN || sp.spun != 0 {
		t.Fatalf("long waits: err = %v after %d spins; want EAGAIN without a spin", err, sp.spun)
	}

	unix.Close(w)
	if _, err := sp.read(buf, true, nil); err == nil || err.Error() != "EOF" {
		t.Fatalf("writer closed: err = %v, want EOF", err)
	}
}

// TestSpinOnlyWhenSerial: the client spins for an answer only while its calls come one
// at a time, and Serve's reader for a request only while the requests do and none is
// running: the race checks' concurrent calls must reach the store together.
func TestSpinOnlyWhenSerial(t *testing.T) {
	c := &Client{pending: map[int64]*call{}}
	add := func(id int64) {
		c.pending[id] = &call{}
		c.nPending.Store(int32(len(c.pending)))
		c.countCrowdLocked()
	}
	done := func(id int64) {
		delete(c.pending, id)
		c.nPending.Store(int32(len(c.pending)))
	}
	add(1)
	if !c.solo() {
		t.Fatal("a first call alone: solo false")
	}
	add(2)
	if c.solo() {
		t.Fatal("two calls in flight: solo true")
	}
	done(1)
	done(2)
	for i := range crowdMemory {
		add(10)
		if i < crowdMemory-1 && c.solo() {
			t.Fatalf("call %d alone after calls overlapped: solo true, want false until %d calls alone", i+1, crowdMemory)
		}
		done(10)
	}
	add(10)
	if !c.solo() {
		t.Fatalf("after %d calls alone: solo false", crowdMemory)
	}

	s := &server{}
	if !s.spinOK() {
		t.Fatal("server, nothing read yet: spinOK false")
	}
	s.notice(false)
	for i := range togetherMemory {
		if s.spinOK() {
			t.Fatalf("server, %d lines alone after lines read together: spinOK true", i)
		}
		s.notice(true)
	}
	if !s.spinOK() {
		t.Fatalf("server, %d lines alone: spinOK false", togetherMemory)
	}
	s.running.Add(1)
	if s.spinOK() {
		t.Fatal("server, a request running in its goroutine: spinOK true")
	}
}
