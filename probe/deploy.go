package probe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Shape is how a deployment of several instances is meant to be reached.
type Shape string

const (
	// ShapeAny: any instance serves any request, over a shared store.
	ShapeAny Shape = "any"
	// ShapeRouted: a load balancer routes each request to the instance that holds its
	// task (Mcp-Name) or session (Mcp-Session-Id); the probe runs that router itself.
	ShapeRouted Shape = "routed"
)

// Deployment is several instances of one server checked together (the V-X* rules).
type Deployment struct {
	// URLs are the instances' Streamable HTTP endpoints; or
	URLs []string
	// Command is a server's command line, started Copies times by the probe, each with
	// {port} in its words replaced by a free loopback port of its own; the endpoint is
	// http://127.0.0.1:{port}/mcp (Path, when set, replaces /mcp).
	Command []string
	Copies  int
	Path    string
	Shape   Shape // "" is ShapeAny
	// Lease is how long the deployment says a task of a killed instance may stay
	// working before it is taken up again or ended (V-XKILL-1; 0: 10 s).
	Lease time.Duration
}

// ErrDeploy is a deployment the probe could not start.
var ErrDeploy = errors.New("probe: deployment not started")

// placeholder is the word part replaced by each copy's port.
const placeholder = "{port}"

// deployment is a running deployment: its instances, and the router in front of them
// for ShapeRouted.
type deployment struct {
	shape     Shape
	lease     time.Duration
	instances []*instance
	router    *router
}

// instance is one server of a deployment; cmd is set when the probe started it.
type instance struct {
	url  string
	args []string // the command line, placeholder replaced
	mu   sync.Mutex
	cmd  *exec.Cmd
	gone chan struct{} // closed once cmd has exited
	errs *lockedWriter
}

// started reports whether the probe started the instances (and so may kill one).
func (d *deployment) started() bool {
	return d != nil && len(d.instances) > 0 && d.instances[0].args != nil
}

// entry is the URL the ordinary checks use: the router, or the first instance.
func (d *deployment) entry() string {
	if d.router != nil {
		return d.router.url
	}
	return d.instances[0].url
}

// startDeployment brings dep up: the copies started and listening, the router running.
// A deployment of one instance is still one: its cross-instance rules say why they are
// not exercised.
func startDeployment(ctx context.Context, dep Deployment) (*deployment, error) {
	d := &deployment{shape: dep.Shape, lease: dep.Lease}
	if d.shape == "" {
		d.shape = ShapeAny
	}
	if d.lease <= 0 {
		d.lease = 10 * time.Second
	}
	if d.shape != ShapeAny && d.shape != ShapeRouted {
		return nil, fmt.Errorf("%w: shape %q: want %s or %s", ErrConfig, d.shape, ShapeAny, ShapeRouted)
	}
	for _, u := range dep.URLs {
		d.instances = append(d.instances, &instance{url: u})
	}
	if len(dep.Command) > 0 {
		if err := d.spawn(ctx, dep); err != nil {
			d.stop()
			return nil, err
		}
	}
	if d.shape == ShapeRouted {
		var urls []string
		for _, in := range d.instances {
			urls = append(urls, in.url)
		}
		r, err := startRouter(urls)
		if err != nil {
			d.stop()
			return nil, fmt.Errorf("%w: the router: %w", ErrDeploy, err)
		}
		d.router = r
	}
	return d, nil
}

// spawn starts dep.Copies copies of dep.Command, each on a port of its own.
func (d *deployment) spawn(ctx context.Context, dep Deployment) error {
	if !strings.Contains(strings.Join(dep.Command, " "), placeholder) {
		return fmt.Errorf("%w: the server's command names no %s: each copy needs a port of its own", ErrConfig, placeholder)
	}
	path := dep.Path
	if path == "" {
		path = "/mcp"
	}
	for range max(dep.Copies, 1) {
		port, err := freePort()
		if err != nil {
			return fmt.Errorf("%w: %w", ErrDeploy, err)
		}
		in := &instance{url: fmt.Sprintf("http://127.0.0.1:%d%s", port, path)}
		for _, w := range dep.Command {
			in.args = append(in.args, strings.ReplaceAll(w, placeholder, fmt.Sprint(port)))
		}
		d.instances = append(d.instances, in)
		if err := in.start(ctx); err != nil {
			return err
		}
	}
	return nil
}

// freePort is a loopback port nobody listens on now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// startWait bounds how long a started copy may take to listen.
const startWait = 15 * time.Second

// start runs the instance's command and waits until its port takes connections.
func (in *instance) start(ctx context.Context) error {
	cmd := exec.Command(in.args[0], in.args[1:]...)
	errs := &lockedWriter{}
	cmd.Stderr = errs
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrDeploy, strings.Join(in.args, " "), err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	in.mu.Lock()
	in.cmd, in.errs, in.gone = cmd, errs, exited
	in.mu.Unlock()
	host := strings.TrimPrefix(in.url, "http://")
	host, _, _ = strings.Cut(host, "/")
	deadline := time.Now().Add(startWait)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", host, 200*time.Millisecond); err == nil {
			c.Close()
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("%w: %s exited before it listened on %s: %s", ErrDeploy, strings.Join(in.args, " "), host, clip(errs.String(), 400))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	_ = cmd.Process.Kill()
	return fmt.Errorf("%w: %s did not listen on %s within %v", ErrDeploy, strings.Join(in.args, " "), host, startWait)
}

// kill ends the instance with SIGKILL, as a crash would, and waits for it to be gone:
// its port is free for a copy started after.
func (in *instance) kill() {
	in.mu.Lock()
	cmd, gone := in.cmd, in.gone
	in.cmd = nil
	in.mu.Unlock()
	if cmd != nil && cmd.Process != nil {
		_ = cmd.Process.Kill()
		<-gone
	}
}

// stop ends every copy the probe started and the router.
func (d *deployment) stop() {
	if d == nil {
		return
	}
	if d.router != nil {
		d.router.close()
	}
	for _, in := range d.instances {
		in.kill()
	}
}

// lockedWriter lets a child's stderr be written while the probe reads it.
type lockedWriter struct {
	mu sync.Mutex
	w  bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.String()
}

// deployed reports whether cfg names a deployment's instances.
func (cfg Config) deployed() bool {
	return len(cfg.Deployment.URLs) > 0 || len(cfg.Deployment.Command) > 0
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// String names the deployment in the report: its shape and its instances.
func (d *deployment) String() string {
	var urls []string
	for _, in := range d.instances {
		urls = append(urls, in.url)
	}
	s := fmt.Sprintf("deployment of %d instances (shape %s): %s", len(d.instances), d.shape, strings.Join(urls, " "))
	if d.router != nil {
		s += "; through the probe's router " + d.router.url
	}
	return s
}
