//go:build linux

package wire

import (
	"strings"
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

// TestSpinner: a reader spins for spinBudget, blocks at once (EAGAIN without a spin)
// when it may not spin or is backing off after spins that ran out, and stops spinning
// when told to.
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
		t.Fatalf("nothing to read: returned after %v and %d spins; want a spin of %v", took, sp.spun, spinBudget)
	}

	sp.spun, sp.skip = 0, 0
	calls := 0
	if _, err := sp.read(buf, true, func() bool { calls++; return calls > 3 }); err != unix.EAGAIN || sp.spun != 3 {
		t.Fatalf("stop true on its 4th call: err = %v after %d spins; want EAGAIN after 3", err, sp.spun)
	}

	sp.spun = 0
	if _, err := sp.read(buf, false, nil); err != unix.EAGAIN || sp.spun != 0 {
		t.Fatalf("spin false: err = %v after %d spins; want EAGAIN at once", err, sp.spun)
	}

	// Spins that run out make the reader block at once on its next waits, 1, 2, 4, …
	// of them; a spin that gets its data halves the backoff.
	sp = &spinner{fd: sp.fd}
	for _, skips := range []int{1, 2, 4} {
		sp.spun = 0
		if _, err := sp.read(buf, true, nil); err != unix.EAGAIN || sp.spun == 0 {
			t.Fatalf("a spin due: err = %v after %d spins; want EAGAIN after a spin", err, sp.spun)
		}
		for i := range skips {
			sp.spun = 0
			if _, err := sp.read(buf, true, nil); err != unix.EAGAIN || sp.spun != 0 {
				t.Fatalf("wait %d of %d after a spin ran out: err = %v after %d spins; want EAGAIN without a spin", i+1, skips, err, sp.spun)
			}
		}
	}
	if sp.backoff != 4 {
		t.Fatalf("after three spins ran out the backoff is %d, want 4", sp.backoff)
	}
	// The data comes during the spin (written by stop, which the spin calls on every
	// poll): the backoff halves.
	sp.skip = 0
	wrote := false
	n, err := sp.read(buf, true, func() bool {
		if !wrote {
			wrote = true
			unix.Write(w, []byte("c\n"))
		}
		return false
	})
	if n != 2 || err != nil || sp.backoff != 2 {
		t.Fatalf("data during a spin: read = %d, %v, backoff %d; want 2, nil, backoff 4 halved to 2", n, err, sp.backoff)
	}
	sp.backoff, sp.skip = maxSkip, 0
	sp.read(buf, true, nil)
	if sp.backoff != maxSkip || sp.skip != maxSkip {
		t.Fatalf("a spin ran out at the largest backoff: backoff %d, skip %d; want both %d", sp.backoff, sp.skip, maxSkip)
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

func TestSpinSetting(t *testing.T) {
	for v, want := range map[string]time.Duration{"": defaultSpin, "0": 0, "50us": 50 * time.Microsecond, "1ms": time.Millisecond} {
		if d, err := spinSetting(v); d != want || err != nil {
			t.Errorf("spinSetting(%q) = %v, %v; want %v, nil", v, d, err, want)
		}
	}
	for _, v := range []string{"20", "-1us", "2ms", "fast"} {
		if _, err := spinSetting(v); err == nil || !strings.Contains(err.Error(), spinEnv) {
			t.Errorf("spinSetting(%q): err = %v, want one naming $%s", v, err, spinEnv)
		}
	}
}
