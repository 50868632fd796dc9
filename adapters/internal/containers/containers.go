// Package containers is the Docker side shared by the adapters' bring-up packages
// (pgcontainer, and one per backend): is an engine there, which image to run, and whether
// a backend that cannot be brought up skips its tests or fails them.
//
// Two kinds of image run the same backends:
//
//   - official images (postgres:16-alpine, redis:7-alpine): they have an entrypoint and
//     are configured through environment variables; the default where a registry can be
//     reached;
//   - the local image built by scripts/ready-machine from Debian's packages with
//     debootstrap (LocalImage): no entrypoint, so the bring-up package gives the
//     container its command. Machines without a registry select it through an
//     environment variable (STORECHECK_POSTGRES_IMAGE=local, STORECHECK_REDIS_IMAGE=local);
//     with the variable unset it is used when the official image is absent and it is
//     present, so such a machine never tries to pull.
//
// With Ryuk disabled (TESTCONTAINERS_RYUK_DISABLED=true, as .ci/run sets it) nothing reaps
// a container whose stop function was not called: callers must call it.
package containers

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
)

// LocalImage is the image scripts/ready-machine builds: Debian bookworm with
// postgresql-15 and redis-server, PATH including /usr/lib/postgresql/15/bin.
const LocalImage = "storecheck/debian-db:bookworm"

// LocalAlias is the value of an image variable that selects LocalImage.
const LocalAlias = "local"

// ErrNoDocker is wrapped when no Docker engine answers: the one bring-up failure that a
// developer's run skips (outside CI) rather than fails.
var ErrNoDocker = errors.New("no Docker engine answers")

// Image is the image a bring-up package runs.
type Image struct {
	Name string
	// Local is true for an image without an entrypoint (LocalImage or another built the
	// same way): the bring-up package supplies the command.
	Local bool
}

func (i Image) String() string {
	if i.Local {
		return i.Name + " (local, command supplied)"
	}
	return i.Name
}

// DockerAvailable returns nil when a Docker engine answers, else an error wrapping
// ErrNoDocker that says why.
func DockerAvailable(ctx context.Context) (err error) {
	// testcontainers panics rather than erring on some broken setups.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", ErrNoDocker, r)
		}
	}()
	p, err := testcontainers.NewDockerProvider()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNoDocker, err)
	}
	if err := p.Health(ctx); err != nil { // Health closes p
		return fmt.Errorf("%w: %v", ErrNoDocker, err)
	}
	return nil
}

// ResolveImage picks the image named by the environment variable envVar:
//
//   - LocalAlias (or LocalImage's name) is LocalImage, which must be present (run
//     scripts/ready-machine): it is never pulled;
//   - another value is that image, local when it has neither entrypoint nor command (as
//     `docker import` leaves it), official-style otherwise (pulled when absent);
//   - unset or empty is the official image when it is present, else LocalImage when that
//     is present (a machine made ready by scripts/ready-machine has no registry: never
//     try one there), else the official image, pulled.
func ResolveImage(ctx context.Context, envVar, official string) (Image, error) {
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return Image{}, fmt.Errorf("%w: %v", ErrNoDocker, err)
	}
	defer cli.Close()
	// present reports whether the image is here, and whether it brings its own command.
	present := func(name string) (ok, hasCmd bool) {
		res, err := cli.ImageInspect(ctx, name)
		if err != nil {
			return false, false
		}
		return true, res.Config != nil && (len(res.Config.Entrypoint) > 0 || len(res.Config.Cmd) > 0)
	}
	name := strings.TrimSpace(os.Getenv(envVar))
	switch name {
	case "":
		if ok, _ := present(official); ok {
			return Image{Name: official}, nil
		}
		if ok, _ := present(LocalImage); ok {
			return Image{Name: LocalImage, Local: true}, nil
		}
		return Image{Name: official}, nil
	case LocalAlias, LocalImage:
		if ok, _ := present(LocalImage); !ok {
			return Image{}, fmt.Errorf("%s=%s: image %s is not present; build it with scripts/ready-machine", envVar, name, LocalImage)
		}
		return Image{Name: LocalImage, Local: true}, nil
	}
	ok, hasCmd := present(name)
	return Image{Name: name, Local: ok && !hasCmd}, nil
}

// InCI reports whether this run is CI's (CI set to a true value): there, a backend that
// cannot be brought up fails the run instead of skipping its tests.
func InCI() bool {
	on, err := strconv.ParseBool(os.Getenv("CI"))
	return err == nil && on
}

// SkipOrFail ends tb because the backend what could not be brought up: a skip with the
// reason on a developer's machine without Docker, a failure in CI or for any other cause.
func SkipOrFail(tb testing.TB, what string, err error) {
	tb.Helper()
	if errors.Is(err, ErrNoDocker) && !InCI() {
		tb.Skipf("%s: skipped, the backend cannot be brought up here: %v (set CI=true to make this a failure)", what, err)
		return
	}
	tb.Fatalf("%s: bring-up failed: %v", what, err)
}

// Labels that tie a container to the process that started it (see Owned, ReapOrphans).
const (
	labelHost  = "org.storecheck.host"
	labelPID   = "org.storecheck.pid"
	labelStart = "org.storecheck.pid-start"
)

// Owned returns the labels a bring-up package puts on its containers: this host, this
// process and the process's start time. With Ryuk disabled, a test binary killed by its
// timeout never calls stop; ReapOrphans removes what such a process left behind.
func Owned() map[string]string {
	host, _ := os.Hostname()
	return map[string]string{
		labelHost:  host,
		labelPID:   strconv.Itoa(os.Getpid()),
		labelStart: processStart(os.Getpid()),
	}
}

// ReapOrphans removes the containers labelled by Owned whose process, on this host, is
// gone (its pid is free or now names a process started at another time). It removes
// nothing where process start times cannot be read (no /proc) and never touches other
// hosts' or live processes' containers. It returns how many it removed.
func ReapOrphans(ctx context.Context) (int, error) {
	host, _ := os.Hostname()
	if processStart(os.Getpid()) == "" {
		return 0, nil
	}
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return 0, fmt.Errorf("%w: %v", ErrNoDocker, err)
	}
	defer cli.Close()
	list, err := cli.ContainerList(ctx, client.ContainerListOptions{
		All:     true,
		Filters: make(client.Filters).Add("label", labelHost+"="+host),
	})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, c := range list.Items {
		pid, err := strconv.Atoi(c.Labels[labelPID])
		if err != nil || c.Labels[labelStart] == "" || processStart(pid) == c.Labels[labelStart] {
			continue
		}
		if _, err := cli.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true}); err == nil {
			n++
		}
	}
	return n, nil
}

// processStart is the start time of process pid in clock ticks since boot (field 22 of
// /proc/PID/stat), or "" when it cannot be read.
func processStart(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	// The command name (field 2) may hold spaces and parentheses: fields after it are
	// counted from the last ')'.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return ""
	}
	fields := strings.Fields(string(b[i+1:]))
	const startField = 22 - 3 // fields[0] is field 3 (state)
	if len(fields) <= startField {
		return ""
	}
	return fields[startField]
}

// Shared is one backend for a whole test binary: started by the first test that needs
// it, stopped by TestMain through Stop. A bring-up failure is remembered, so every later
// test skips or fails the same way (SkipOrFail) without starting it again.
type Shared[T any] struct {
	what  string
	start func(context.Context) (T, func(context.Context) error, error)

	once sync.Once
	val  T
	stop func(context.Context) error
	err  error
}

// NewShared names the backend (for messages) and how to start it.
func NewShared[T any](what string, start func(context.Context) (T, func(context.Context) error, error)) *Shared[T] {
	return &Shared[T]{what: what, start: start}
}

// Get starts the backend on first use (within 5 minutes) and returns what start gave.
func (s *Shared[T]) Get(tb testing.TB) T {
	tb.Helper()
	s.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		began := time.Now()
		s.val, s.stop, s.err = s.start(ctx)
		if s.err == nil {
			tb.Logf("%s up in %s", s.what, time.Since(began).Round(time.Millisecond))
		}
	})
	if s.err != nil {
		SkipOrFail(tb, s.what, s.err)
	}
	return s.val
}

// Stop stops the backend if it was started; call it from TestMain after m.Run.
func (s *Shared[T]) Stop() {
	if s.stop == nil {
		return
	}
	stopWithin(s.stop)
}

// StopAtCleanup stops a backend of the test's own when the test ends.
func StopAtCleanup(tb testing.TB, stop func(context.Context) error) {
	tb.Cleanup(func() { stopWithin(stop) })
}

// stopWithin calls stop, giving it a minute: a backend that does not go in that time is
// left to ReapOrphans rather than holding up the test binary.
func stopWithin(stop func(context.Context) error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_ = stop(ctx)
}

// Main is a test binary's TestMain for a package whose tests share this backend: it runs
// the tests, stops the backend if they started it, and exits with the tests' code.
func (s *Shared[T]) Main(m *testing.M) {
	code := m.Run()
	s.Stop()
	os.Exit(code)
}

// CheckReuse is the check of a bring-up package's Start with its URL variable envURL:
// with the variable empty, start starts a container; with it set to url(server), start
// must answer the same server (same compares what key names) without starting one, and
// that answer's stop must leave the server running, which alive checks.
func CheckReuse[T any](t *testing.T, what, envURL string, start func(context.Context) (T, func(context.Context) error, error),
	url, key func(T) string, alive func(ctx context.Context, t *testing.T, server T)) {
	t.Helper()
	t.Setenv(envURL, "")
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	server, stop, err := start(ctx)
	if err != nil {
		SkipOrFail(t, what, err)
	}
	defer func() {
		if err := stop(context.Background()); err != nil {
			t.Errorf("stop: %v", err)
		}
	}()
	t.Setenv(envURL, url(server))
	again, noop, err := start(ctx)
	if err != nil || key(again) != key(server) {
		t.Fatalf("Start with %s set = %q, %v; want %q", envURL, key(again), err, key(server))
	}
	if err := noop(ctx); err != nil {
		t.Fatalf("stop of an existing server: %v", err)
	}
	alive(ctx, t, server)
}
