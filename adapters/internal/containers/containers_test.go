package containers

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
)

func TestInCI(t *testing.T) {
	for v, want := range map[string]bool{"true": true, "1": true, "TRUE": true, "false": false, "": false, "0": false, "yes": false} {
		t.Setenv("CI", v)
		if got := InCI(); got != want {
			t.Errorf("CI=%q: InCI() = %v, want %v", v, got, want)
		}
	}
}

// recorder is a testing.TB that records how SkipOrFail ended it.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper()                           {}
func (r *recorder) Skipf(format string, args ...any)  { r.skipped = fmt.Sprintf(format, args...) }
func (r *recorder) Fatalf(format string, args ...any) { r.failed = fmt.Sprintf(format, args...) }

func TestSkipOrFail(t *testing.T) {
	noDocker := fmt.Errorf("start: %w: dial unix /nope.sock", ErrNoDocker)
	other := errors.New("image not found")
	cases := []struct {
		ci       string
		err      error
		wantSkip bool
	}{
		{"", noDocker, true},
		{"true", noDocker, false},
		{"", other, false},
		{"true", other, false},
	}
	for _, c := range cases {
		t.Setenv("CI", c.ci)
		r := &recorder{TB: t}
		SkipOrFail(r, "postgres", c.err)
		if skipped := r.skipped != ""; skipped != c.wantSkip || (r.failed == "") != c.wantSkip {
			t.Errorf("CI=%q, err %v: skipped %q, failed %q; want skip=%v", c.ci, c.err, r.skipped, r.failed, c.wantSkip)
		}
		if msg := r.skipped + r.failed; !containsAll(msg, "postgres", c.err.Error()) {
			t.Errorf("CI=%q: message %q does not give the backend and the reason", c.ci, msg)
		}
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

func TestProcessStart(t *testing.T) {
	self := processStart(os.Getpid())
	if self == "" {
		t.Skip("no /proc here: orphan reaping is off")
	}
	if again := processStart(os.Getpid()); again != self {
		t.Errorf("processStart(self) changed: %q then %q", self, again)
	}
	if got := processStart(1 << 30); got != "" {
		t.Errorf("processStart of a pid that cannot exist = %q, want empty", got)
	}
	if l := Owned(); l[labelPID] != strconv.Itoa(os.Getpid()) || l[labelStart] != self {
		t.Errorf("Owned() = %v", l)
	}
}

// TestReapOrphans starts a container labelled as started by a process that is gone and
// one labelled as ours: the first is removed, the second kept.
func TestReapOrphans(t *testing.T) {
	ctx := t.Context()
	if err := DockerAvailable(ctx); err != nil {
		SkipOrFail(t, "docker", err)
	}
	if processStart(os.Getpid()) == "" {
		t.Skip("no /proc here: orphan reaping is off")
	}
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	if _, err := cli.ImageInspect(ctx, LocalImage); err != nil {
		t.Skipf("image %s absent (scripts/ready-machine builds it): %v", LocalImage, err)
	}
	orphan := Owned()
	orphan[labelStart] = "1" // the pid is ours, the start time is not: a dead process's
	start := func(labels map[string]string) string {
		c, err := testcontainers.Run(ctx, LocalImage, testcontainers.WithCmd("sleep", "60"),
			testcontainers.WithLabels(labels))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = testcontainers.TerminateContainer(c, testcontainers.StopTimeout(0)) })
		return c.GetContainerID()
	}
	dead, live := start(orphan), start(Owned())
	if _, err := ReapOrphans(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := cli.ContainerInspect(ctx, dead, client.ContainerInspectOptions{}); err == nil {
		t.Errorf("container of a dead process survived ReapOrphans")
	}
	if _, err := cli.ContainerInspect(ctx, live, client.ContainerInspectOptions{}); err != nil {
		t.Errorf("container of this live process was removed: %v", err)
	}
}
