package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"strings"
	"time"

	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/mcp/server"
	"github.com/storecheck/storecheck/reference"
)

// mcpFlags are serve's flags for the MCP server.
type mcpFlags struct {
	addr         string
	principals   principalFlag
	ttl, maxTTL  time.Duration
	requireOwner bool
	tokenEnv     string
	maxTasks     int
	pprof        string
	instance     instanceFlags // several instances over one store (serve_mcp_cluster.go)
}

// principalFlag collects --principal TOKEN=NAME.
type principalFlag map[string]string

func (p principalFlag) String() string { return fmt.Sprint(map[string]string(p)) }

func (p principalFlag) Set(v string) error {
	token, name, ok := strings.Cut(v, "=")
	if !ok || token == "" || name == "" {
		return fmt.Errorf("want TOKEN=NAME, got %q", v)
	}
	p[token] = name
	return nil
}

func (f *mcpFlags) register(fs *flag.FlagSet) {
	f.principals = principalFlag{}
	fs.StringVar(&f.addr, "mcp", "", "serve MCP with tasks instead of the wire protocol: on `ADDR` (a loopback host:port, e.g.\n127.0.0.1:8080; the endpoint is /mcp) over Streamable HTTP, or \"stdio\" on stdin/stdout")
	fs.Var(f.principals, "principal", "with --mcp: a bearer `TOKEN=NAME` mapped to principal NAME (repeat it); no token is anonymous")
	fs.DurationVar(&f.ttl, "ttl", 0, "with --mcp: the ttl of a task whose client asks none (0: none)")
	fs.DurationVar(&f.maxTTL, "max-ttl", 0, "with --mcp: the longest ttl a task gets (0: no cap)")
	fs.BoolVar(&f.requireOwner, "require-owner", false, "with --mcp: tasks without an owner (made anonymously) are denied to every caller")
	fs.IntVar(&f.maxTasks, "max-tasks-per-principal", 0, "with --mcp: the most tasks a principal has running at once; one more is refused\nwith -32603 (0: no bound; callers without credentials share one count)")
	fs.StringVar(&f.pprof, "pprof", "", "with --mcp: also serve Go's profiles (net/http/pprof, /debug/pprof/) on `ADDR`, a loopback\nhost:port, to profile the server under load")
	f.instance.register(fs)
	fs.StringVar(&f.tokenEnv, "token-env", "", "with --mcp stdio: the environment `VAR` holding the client's token, mapped by --principal\n(stdio carries no credentials; unset or empty: anonymous)")
}

// stdioPrincipal is the principal of a stdio connection: the name --principal gives the
// token in the environment variable --token-env names ("" when none is set). The MCP
// authorization text: "Implementations using an STDIO transport SHOULD NOT follow this
// specification, and instead retrieve credentials from the environment."
func (f mcpFlags) stdioPrincipal() (string, error) {
	if f.tokenEnv == "" {
		return "", nil
	}
	token := os.Getenv(f.tokenEnv)
	if token == "" {
		return "", nil
	}
	name, ok := f.principals[token]
	if !ok {
		return "", fmt.Errorf("--token-env %s: its token is not one --principal maps", f.tokenEnv)
	}
	return name, nil
}

// serveMCP serves the adapter's stores as an MCP server until the command is interrupted
// (HTTP) or stdin ends (stdio).
func (c *app) serveMCP(h harness.Harness, f mcpFlags) int {
	ns, err := f.instance.open(c.ctx, h)
	if err != nil {
		fmt.Fprintf(c.stderr, "storecheck serve: namespace bring-up failed: %v\n", err)
		return exitUsage
	}
	defer ns.Close(context.WithoutCancel(c.ctx))
	cfg := server.Config{Principals: f.principals, DefaultTTL: f.ttl, MaxTTL: f.maxTTL, RequireOwner: f.requireOwner,
		MaxTasksPerPrincipal: f.maxTasks}
	if err := f.instance.join(c.ctx, ns, &cfg); err != nil {
		fmt.Fprintf(c.stderr, "storecheck serve: %v\n", err)
		return exitUsage
	}
	if st, err := ns.Legacy(c.ctx); err == nil {
		cfg.Legacy = st
	} else if !errors.Is(err, reference.ErrUnsupported) {
		fmt.Fprintf(c.stderr, "storecheck serve: legacy store: %v\n", err)
		return exitUsage
	}
	if st, err := ns.Modern(c.ctx); err == nil {
		cfg.Modern = st
	} else if !errors.Is(err, reference.ErrUnsupported) {
		fmt.Fprintf(c.stderr, "storecheck serve: modern store: %v\n", err)
		return exitUsage
	}
	srv, err := server.New(cfg)
	if err != nil {
		fmt.Fprintf(c.stderr, "storecheck serve: %v\n", err)
		return exitUsage
	}
	defer srv.Close()
	if f.pprof != "" {
		stop, err := c.servePprof(f.pprof)
		if err != nil {
			fmt.Fprintf(c.stderr, "storecheck serve: --pprof: %v\n", err)
			return exitUsage
		}
		defer stop()
	}
	if f.addr == "stdio" {
		principal, err := f.stdioPrincipal()
		if err != nil {
			fmt.Fprintf(c.stderr, "storecheck serve: %v\n", err)
			return exitUsage
		}
		if err := srv.ServeStdio(c.ctx, os.Stdin, c.stdout, principal); err != nil {
			fmt.Fprintf(c.stderr, "storecheck serve: %v\n", err)
			return exitFailed
		}
		return exitOK
	}
	if !loopback(f.addr) {
		fmt.Fprintf(c.stderr, "storecheck serve: --mcp %q: give a loopback host:port (127.0.0.1:8080) or stdio\n", f.addr)
		return exitUsage
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		fmt.Fprintf(c.stderr, "storecheck serve: %v\n", err)
		return exitUsage
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(c.stderr, "storecheck serve: MCP on http://%s/mcp (eras: %s)\n", ln.Addr(), eras(cfg))
	go func() {
		<-c.ctx.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(ctx)
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(c.stderr, "storecheck serve: %v\n", err)
		return exitFailed
	}
	return exitOK
}

// loopback reports whether addr is a host:port on a loopback address.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	ip := net.ParseIP(host)
	return err == nil && (host == "localhost" || ip != nil && ip.IsLoopback())
}

// servePprof serves Go's runtime profiles on addr (loopback only: a profile shows the
// server's insides) until stop is called.
func (c *app) servePprof(addr string) (stop func(), err error) {
	if !loopback(addr) {
		return nil, fmt.Errorf("%q: give a loopback host:port (127.0.0.1:6060)", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	fmt.Fprintf(c.stderr, "storecheck serve: profiles on http://%s/debug/pprof/\n", ln.Addr())
	return func() { _ = hs.Close() }, nil
}

func eras(cfg server.Config) string {
	var e []string
	if cfg.Legacy != nil {
		e = append(e, server.VersionLegacy)
	}
	if cfg.Modern != nil {
		e = append(e, server.VersionModern+" (tasks extension)")
	}
	return strings.Join(e, ", ")
}
