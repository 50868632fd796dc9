package battery

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"
)

// TestStallWatchSeesAStoppedProcess: a watch counts the time the process itself could
// not run. The test process is stopped (SIGSTOP) for 300 ms by a child and let go
// (SIGCONT); the watch must count most of it.
func TestStallWatchSeesAStoppedProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("stops its own process with kill -STOP: linux only")
	}
	w := WatchStalls()
	defer w.Stop()
	time.Sleep(20 * time.Millisecond)
	w.Stalled() // count from here
	cmd := exec.Command("sh", "-c", fmt.Sprintf("kill -STOP %d; sleep 0.3; kill -CONT %d", os.Getpid(), os.Getpid()))
	if err := cmd.Run(); err != nil {
		t.Fatalf("stopping the test process for 300 ms: %v", err)
	}
	time.Sleep(20 * time.Millisecond) // the watch's tick after the stop
	if got := w.Stalled(); got < 250*time.Millisecond {
		t.Errorf("the process was stopped for 300 ms: the watch counted a stall of %v; want 250 ms or more", got)
	}
}

// TestLateOnItsOwn: an answer is the store's lateness only when it stays late past what
// is allowed once the process's own stall is taken off.
func TestLateOnItsOwn(t *testing.T) {
	for _, c := range []struct {
		late, stalled time.Duration
		want          bool
	}{
		{1093 * time.Millisecond, 0, true},                                       // no stall: late
		{1093 * time.Millisecond, 400 * time.Millisecond, false},                 // the stall explains it
		{3 * time.Second, 400 * time.Millisecond, true},                          // late even without the stall
		{1500 * time.Millisecond, 500 * time.Millisecond, false},                 // exactly the allowance: not beyond it
		{1500*time.Millisecond + time.Microsecond, 500 * time.Millisecond, true}, // just beyond
	} {
		if got := LateOnItsOwn(c.late, c.stalled, time.Second); got != c.want {
			t.Errorf("LateOnItsOwn(late %v, stalled %v, allowed 1s) = %v; want %v", c.late, c.stalled, got, c.want)
		}
	}
}
