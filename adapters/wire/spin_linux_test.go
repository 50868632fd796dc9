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
// when it may not spin or when most of its last spins won nothing (then it tries one
// every probeEvery waits), and stops spinning when told to.
func TestSpinner(t *testing.T) {
	sp, w := spinPipe(t)
	buf := make([]byte, 64)

	if _, err := unix.Write(w, []byte("a\n")); err != nil {
		t.Fatal(err)
	}
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

	sp = &spinner{fd: sp.fd}
	calls := 0
	if _, err := sp.read(buf, true, func() bool { calls++; return calls > 3 }); err != unix.EAGAIN || sp.spun != 3 {
		t.Fatalf("stop true on its 4th call: err = %v after %d spins; want EAGAIN after 3", err, sp.spun)
	}
	if sp.losses != 0 {
		t.Fatalf("a spin stopped by stop counted as a loss (%d)", sp.losses)
	}

	sp.spun = 0
	if _, err := sp.read(buf, false, nil); err != unix.EAGAIN || sp.spun != 0 {
		t.Fatalf("spin false: err = %v after %d spins; want EAGAIN at once", err, sp.spun)
	}

	// Spins that run out: after a few in a row the reader blocks at once, and spins
	// again on every probeEvery-th wait only.
	spins := func() int {
		sp.spun = 0
		if _, err := sp.read(buf, true, nil); err != unix.EAGAIN {
			t.Fatalf("nothing to read: err = %v, want EAGAIN", err)
		}
		return sp.spun
	}
	lost := 0
	for spins() > 0 {
		if lost++; lost > 8 {
			t.Fatalf("%d spins in a row ran out and the reader still spins (losses %d/1024)", lost, sp.losses)
		}
	}
	if lost < 3 {
		t.Fatalf("the reader stopped spinning after %d spins ran out; one miss must not stop it", lost)
	}
	for i := 2; i < probeEvery; i++ { // the wait that found it not spinning was the first
		if n := spins(); n != 0 {
			t.Fatalf("wait %d after the reader stopped spinning: %d spins, want none before wait %d", i, n, probeEvery)
		}
	}
	if spins() == 0 {
		t.Fatalf("wait %d after the reader stopped spinning: no probe spin", probeEvery)
	}

	// Spins that get their data (written by stop, which the spin calls on every poll)
	// bring the spinning back.
	sp.losses, sp.waits = spinLosses, probeEvery-1
	for i := range 4 {
		wrote := false
		n, err := sp.read(buf, true, func() bool {
			if !wrote {
				wrote = true
				_, _ = unix.Write(w, []byte("c\n")) // a lost write fails the read's check below
			}
			return false
		})
		if n != 2 || err != nil {
			t.Fatalf("data during spin %d: read = %d, %v; want 2, nil", i+1, n, err)
		}
	}
	if !sp.worth() {
		t.Fatalf("after four spins that won, losses %d/1024: the reader does not spin", sp.losses)
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
	add := func(id int64) { c.addPendingLocked(id, &call{}) }
	done := c.dropPendingLocked
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
	for i := range quietMemory {
		add(10)
		if i < quietMemory-1 && c.solo() {
			t.Fatalf("call %d alone after calls overlapped: solo true, want false until %d calls alone", i+1, quietMemory)
		}
		done(10)
	}
	add(10)
	if !c.solo() {
		t.Fatalf("after %d calls alone: solo false", quietMemory)
	}

	s := &server{}
	if !s.spinOK() {
		t.Fatal("server, nothing read yet: spinOK false")
	}
	s.lines.note(true)
	for i := range quietMemory {
		if s.spinOK() {
			t.Fatalf("server, %d lines alone after lines read together: spinOK true", i)
		}
		s.lines.note(false)
	}
	if !s.spinOK() {
		t.Fatalf("server, %d lines alone: spinOK false", quietMemory)
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
