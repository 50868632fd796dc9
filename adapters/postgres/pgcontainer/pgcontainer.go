// Package pgcontainer brings up a PostgreSQL server for tests and the CLI: an existing
// server named by STORECHECK_POSTGRES_URL, or a container started with testcontainers-go
// from the official image (postgres:16-alpine) or from the local Debian image built by
// scripts/ready-machine (STORECHECK_POSTGRES_IMAGE=local). Either way the server runs
// with fsync on and a real data directory, so durability claims are tested for real.
package pgcontainer

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/moby/moby/api/types/container"
	"github.com/testcontainers/testcontainers-go"
	tcpostgres "github.com/testcontainers/testcontainers-go/modules/postgres"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/storecheck/storecheck/adapters/internal/containers"
)

const (
	// EnvURL names an existing server to use instead of a container (a pgx DSN).
	EnvURL = "STORECHECK_POSTGRES_URL"
	// EnvImage selects the image: unset for the default, "local" for
	// containers.LocalImage, or an image name.
	EnvImage = "STORECHECK_POSTGRES_IMAGE"
	// DefaultImage is the official image.
	DefaultImage = "postgres:16-alpine"
)

// maxConnections leaves room for the battery's pools (two per spec, plus the harness's).
const maxConnections = "200"

// Start returns the DSN of a ready Postgres server and a function that stops it (a no-op
// for a server named by STORECHECK_POSTGRES_URL). Errors wrap containers.ErrNoDocker when
// no Docker engine answers. The caller must call stop: nothing else reaps the container.
func Start(ctx context.Context) (dsn string, stop func(context.Context) error, err error) {
	srv, err := start(ctx, false)
	if err != nil {
		return "", nil, err
	}
	return srv.DSN, srv.Stop, nil
}

// Server is a Postgres server in a container that faults can be injected into.
type Server struct {
	DSN string
	// Faults pauses, kills and restarts the container; after a restart the server
	// answers at DSN again (its port is pinned, its data directory kept).
	Faults *containers.Faults
	// Stop removes the container; the caller must call it.
	Stop func(context.Context) error
}

// StartFaultable is Start for the fault checks: always a container (never
// STORECHECK_POSTGRES_URL, a server that is not ours to kill), with its port pinned so
// that it comes back at the same address.
func StartFaultable(ctx context.Context) (*Server, error) { return start(ctx, true) }

func start(ctx context.Context, faultable bool) (*Server, error) {
	if u := strings.TrimSpace(os.Getenv(EnvURL)); u != "" && !faultable {
		if err := ping(ctx, u, 10*time.Second); err != nil {
			return nil, fmt.Errorf("pgcontainer: %s: %w", EnvURL, err)
		}
		return &Server{DSN: u, Stop: func(context.Context) error { return nil }}, nil
	}
	if err := containers.DockerAvailable(ctx); err != nil {
		return nil, fmt.Errorf("pgcontainer: %w", err)
	}
	// Containers of test binaries killed by their timeout (nothing reaps them with Ryuk
	// off) would pile up run after run.
	_, _ = containers.ReapOrphans(ctx)
	img, err := containers.ResolveImage(ctx, EnvImage, DefaultImage)
	if err != nil {
		return nil, fmt.Errorf("pgcontainer: %w", err)
	}
	var extra []testcontainers.ContainerCustomizer
	if faultable {
		extra = append(extra, containers.PinPorts("5432/tcp"))
	} else if img.Local {
		// The battery's server keeps its data in memory: every commit still waits for
		// its flush (fsync and synchronous_commit stay on, as the store relies on), and
		// the flush costs no disk. Only the fault checks, which kill the server and
		// restart it on what it flushed, need a disk.
		extra = append(extra, testcontainers.WithTmpfs(map[string]string{localDataDir: "rw"}))
	}
	var (
		ctr testcontainers.Container
		dsn string
	)
	if img.Local {
		ctr, dsn, err = runLocal(ctx, img.Name, extra...)
	} else {
		ctr, dsn, err = runOfficial(ctx, img.Name, extra...)
	}
	stop := func(ctx context.Context) error {
		if ctr == nil {
			return nil
		}
		return testcontainers.TerminateContainer(ctr, testcontainers.StopContext(ctx))
	}
	if err == nil {
		err = ping(ctx, dsn, 60*time.Second)
	}
	if err != nil {
		_ = stop(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("pgcontainer: image %s: %w", img, err)
	}
	srv := &Server{DSN: dsn, Stop: stop}
	if faultable {
		srv.Faults = &containers.Faults{
			ID:    ctr.GetContainerID(),
			Ready: func(ctx context.Context) error { return ping(ctx, dsn, 5*time.Second) },
		}
	}
	return srv, nil
}

func runOfficial(ctx context.Context, image string, extra ...testcontainers.ContainerCustomizer) (testcontainers.Container, string, error) {
	ctr, err := tcpostgres.Run(ctx, image, append([]testcontainers.ContainerCustomizer{
		tcpostgres.WithDatabase("storecheck"),
		tcpostgres.WithUsername("storecheck"),
		tcpostgres.WithPassword(password()),
		tcpostgres.BasicWaitStrategies(),
		testcontainers.WithLabels(containers.Owned()),
		// The module turns fsync off for speed; durability is part of what is tested.
		testcontainers.WithCmd("postgres", "-c", "fsync=on", "-c", "max_connections="+maxConnections),
	}, extra...)...)
	if ctr == nil {
		return nil, "", err
	}
	if err != nil {
		return ctr, "", err
	}
	dsn, err := ctr.ConnectionString(ctx, "sslmode=disable")
	return ctr, dsn, err
}

// localScript starts Postgres in the local image, which has no entrypoint: initdb into a
// real data directory as the postgres user, allow password logins from any address and
// on the Unix socket, and run the server in the foreground with fsync on. A container
// started again after a kill (the fault checks) finds its data directory initialised
// and runs crash recovery on it instead.
const localScript = `set -eu
D=` + localDataDir + `
if [ ! -s "$D/PG_VERSION" ]; then
mkdir -p "$D"
chown postgres:postgres "$D"
chmod 700 "$D"
printf '%s\n' "$STORECHECK_PGPASSWORD" > /tmp/pwfile
chown postgres /tmp/pwfile
setpriv --reuid=postgres --regid=postgres --init-groups \
  initdb -D "$D" -U postgres --pwfile=/tmp/pwfile --auth=scram-sha-256 \
  -E UTF8 --locale=C.UTF-8 >/dev/null
rm -f /tmp/pwfile
echo "host all all all scram-sha-256" >> "$D/pg_hba.conf"
fi
exec setpriv --reuid=postgres --regid=postgres --init-groups \
  postgres -D "$D" -c listen_addresses='*' -c port=5432 -c fsync=on -c synchronous_commit=on \
  -c max_connections=` + maxConnections + ` -c unix_socket_directories=` + socketDir + `,/tmp
`

// localDataDir is the local image's data directory.
const localDataDir = "/var/lib/postgresql/storecheck"

// socketDir is where the local image's server also puts its Unix socket: a host
// directory bind-mounted into the container.
const socketDir = "/run/storecheck-pg"

func runLocal(ctx context.Context, image string, extra ...testcontainers.ContainerCustomizer) (testcontainers.Container, string, error) {
	pw := password()
	// A Unix socket in a bind-mounted directory spares every query the trip through
	// Docker's port proxy (a Get costs a third of its time over it). It works with a
	// local engine only; the TCP port is the fallback.
	sockHost, err := os.MkdirTemp("", "storecheck-pg-")
	if err == nil {
		err = os.Chmod(sockHost, 0o777) // the server runs as the image's postgres user
	}
	if err != nil {
		return nil, "", err
	}
	var ctr testcontainers.Container
	dc, err := testcontainers.Run(ctx, image, append([]testcontainers.ContainerCustomizer{
		testcontainers.WithCmd("sh", "-c", localScript),
		testcontainers.WithEnv(map[string]string{"STORECHECK_PGPASSWORD": pw}),
		testcontainers.WithExposedPorts("5432/tcp"),
		testcontainers.WithLabels(containers.Owned()),
		testcontainers.WithHostConfigModifier(func(hc *container.HostConfig) {
			hc.Binds = append(hc.Binds, sockHost+":"+socketDir)
		}),
		// One "ready" line: unlike the official image, no temporary server runs first.
		// The port check of wait.ForListeningPort needs tools the image lacks; ping
		// connects for real instead.
		testcontainers.WithWaitStrategy(wait.ForLog("database system is ready to accept connections").
			WithStartupTimeout(2 * time.Minute)),
	}, extra...)...)
	if dc != nil {
		// Remove the socket directory with the container, whatever happens below.
		ctr = &withCleanup{Container: dc, cleanup: func() { _ = os.RemoveAll(sockHost) }}
	} else {
		_ = os.RemoveAll(sockHost)
	}
	if err != nil {
		return ctr, "", err
	}
	sockDSN := fmt.Sprintf("host=%s port=5432 user=postgres password=%s dbname=postgres sslmode=disable", sockHost, pw)
	if ping(ctx, sockDSN, 10*time.Second) == nil {
		return ctr, sockDSN, nil
	}
	host, err := ctr.Host(ctx)
	if err != nil {
		return ctr, "", err
	}
	port, err := ctr.MappedPort(ctx, "5432/tcp")
	if err != nil {
		return ctr, "", err
	}
	u := url.URL{
		Scheme:   "postgres",
		User:     url.UserPassword("postgres", pw),
		Host:     net.JoinHostPort(host, port.Port()),
		Path:     "/postgres",
		RawQuery: "sslmode=disable",
	}
	return ctr, u.String(), nil
}

// withCleanup is a container that runs cleanup once it is terminated.
type withCleanup struct {
	testcontainers.Container
	cleanup func()
}

func (c *withCleanup) Terminate(ctx context.Context, opts ...testcontainers.TerminateOption) error {
	err := c.Container.Terminate(ctx, opts...)
	c.cleanup()
	return err
}

// ping connects until the server answers or timeout passes.
func ping(ctx context.Context, dsn string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	for {
		conn, err := pgx.Connect(ctx, dsn)
		if err == nil {
			err = conn.Ping(ctx)
			conn.Close(context.WithoutCancel(ctx))
			if err == nil {
				return nil
			}
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("server did not answer within %s: %w", timeout, last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func password() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
