package containers

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
)

// PinPorts publishes each container port (such as "5432/tcp") on a fixed host port
// picked now, instead of one Docker picks at every start: a container killed and
// started again (Faults.Restart) answers at the address its clients already have, so
// they can reconnect without being told a new one.
func PinPorts(ports ...string) testcontainers.CustomizeRequestOption {
	return func(req *testcontainers.GenericContainerRequest) error {
		pins := network.PortMap{}
		for _, p := range ports {
			port, err := network.ParsePort(p)
			if err != nil {
				return fmt.Errorf("pin port %s: %w", p, err)
			}
			host, err := freePort()
			if err != nil {
				return fmt.Errorf("pin port %s: %w", p, err)
			}
			pins[port] = []network.PortBinding{{HostPort: strconv.Itoa(host)}}
		}
		return testcontainers.WithHostConfigModifier(func(hc *container.HostConfig) {
			if hc.PortBindings == nil {
				hc.PortBindings = network.PortMap{}
			}
			for p, b := range pins {
				hc.PortBindings[p] = b
			}
		})(req)
	}
}

// freePort is a TCP port free on the host right now. Another process may take it
// before Docker binds it; the bring-up then fails and says so.
func freePort() (int, error) {
	l, err := net.Listen("tcp", ":0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Faults takes one container away and brings it back through the Docker API (no
// shell): pause, unpause, SIGKILL, start. Ready says when the restarted backend serves.
type Faults struct {
	ID string
	// Ready returns nil once the backend accepts connections again; Restart polls it.
	Ready func(ctx context.Context) error
}

// ErrNotReady is wrapped when a restarted backend does not answer in time.
var ErrNotReady = errors.New("backend not ready after restart")

func (f *Faults) client(ctx context.Context) (*testcontainers.DockerClient, error) {
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoDocker, err)
	}
	return cli, nil
}

// Pause freezes the container's processes (cgroup freezer).
func (f *Faults) Pause(ctx context.Context) error {
	cli, err := f.client(ctx)
	if err != nil {
		return err
	}
	defer cli.Close()
	// The cgroup freezer gives up when a process will not freeze in time (seen on a
	// loaded machine: "unable to freeze"); the container is left running, so try again.
	for attempt := 0; ; attempt++ {
		_, err = cli.ContainerPause(ctx, f.ID, client.ContainerPauseOptions{})
		if err == nil || attempt == 4 || ctx.Err() != nil {
			return err
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// Unpause thaws what Pause froze.
func (f *Faults) Unpause(ctx context.Context) error {
	cli, err := f.client(ctx)
	if err != nil {
		return err
	}
	defer cli.Close()
	_, err = cli.ContainerUnpause(ctx, f.ID, client.ContainerUnpauseOptions{})
	return err
}

// Kill sends SIGKILL to the container and returns once it has stopped.
func (f *Faults) Kill(ctx context.Context) error {
	cli, err := f.client(ctx)
	if err != nil {
		return err
	}
	defer cli.Close()
	// Wait for "not running" is registered before the kill, so the exit is not missed.
	wait := cli.ContainerWait(ctx, f.ID, client.ContainerWaitOptions{Condition: container.WaitConditionNotRunning})
	if _, err := cli.ContainerKill(ctx, f.ID, client.ContainerKillOptions{Signal: "KILL"}); err != nil {
		return err
	}
	select {
	case <-wait.Result:
		return nil
	case err := <-wait.Error:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Restart starts the killed container again (same file system, same pinned ports) and
// returns once Ready answers, within a minute.
func (f *Faults) Restart(ctx context.Context) error {
	cli, err := f.client(ctx)
	if err != nil {
		return err
	}
	defer cli.Close()
	if _, err := cli.ContainerStart(ctx, f.ID, client.ContainerStartOptions{}); err != nil {
		return err
	}
	return f.WaitReady(ctx, time.Minute)
}

// WaitReady polls Ready until it answers nil or timeout passes.
func (f *Faults) WaitReady(ctx context.Context, timeout time.Duration) error {
	if f.Ready == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		err := f.Ready(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w within %s: %v", ErrNotReady, timeout, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
