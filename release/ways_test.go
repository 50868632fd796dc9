package release_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/storecheck/storecheck/adapters/postgres/pgcontainer"
	"github.com/storecheck/storecheck/release"
)

// pgRules are the battery's rules the image runs against Postgres: a few of each era,
// enough to show the image reaches the database and judges as the binary does, in
// seconds.
const pgRules = "S-OWN-2,L-CREATE-1,L-GET-1,L-UPDATE-1,L-LIST-2,M-CREATE-1,M-GET-1,M-SWAP-1,M-DELETE-1"

// TestImage runs the image the way its README line does (docker run --network host):
// it probes the reference server on the host and runs battery rules against a Postgres
// container by DSN, with the binary's verdicts both times.
func TestImage(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the image is a linux one")
	}
	if !haveDocker() {
		missing(t, "no docker engine answers")
	}
	d := dist(t)
	bin := d.Binaries[host(t)]
	out := t.TempDir()
	var mounts []string
	docker := func(args ...string) int {
		t.Helper()
		argv := append([]string{"run", "--rm", "--network", "host", "-v", out + ":/out"}, mounts...)
		_, code := run(t, "", nil, "docker", append(append(argv, d.Image), args...)...)
		return code
	}
	want := binaryProbe(t, bin)
	if code := docker(append([]string{"probe", "--json", "/out/probe.json"}, probeArgs(serve(t, bin))...)...); code != 0 {
		t.Errorf("docker run %s probe of the reference server: exit %d, want 0", d.Image, code)
	}
	sameVerdicts(t, "the image's probe", want, verdicts(t, filepath.Join(out, "probe.json")))

	dsn, battery, wantPG := postgresBattery(t, bin)
	// The local image's server is reached on a Unix socket in a host directory (the
	// DSN's host): the image reaches it at the same path.
	for _, kv := range strings.Fields(dsn) {
		if dir, ok := strings.CutPrefix(kv, "host=/"); ok {
			mounts = append(mounts, "-v", "/"+dir+":/"+dir)
		}
	}
	if code := docker(append(battery, "--json", "/out/image-pg.json")...); code != 0 {
		t.Errorf("docker run %s %s: exit %d, want 0", d.Image, strings.Join(battery, " "), code)
	}
	sameVerdicts(t, "the image's battery on Postgres", wantPG, verdicts(t, filepath.Join(out, "image-pg.json")))
}

// postgresBattery starts a Postgres container and runs pgRules against it by DSN with
// the binary: the DSN, the battery's arguments and the binary's verdicts, which every
// other way of running storecheck must give too.
func postgresBattery(t *testing.T, bin string) (dsn string, battery []string, want map[string]string) {
	t.Helper()
	dsn, stop, err := pgcontainer.Start(t.Context())
	if err != nil {
		missing(t, "no Postgres: "+err.Error())
	}
	t.Cleanup(func() { _ = stop(context.Background()) })
	battery = []string{"run", "--adapter", "postgres", "--dsn", dsn, "--rules", pgRules}
	report := filepath.Join(t.TempDir(), "binary-pg.json")
	if _, code := run(t, "", nil, bin, append(battery, "--json", report)...); code != 0 {
		t.Fatalf("storecheck %s: exit %d, want 0", strings.Join(battery, " "), code)
	}
	return dsn, battery, verdicts(t, report)
}

// TestNPX installs the npm tarballs offline in a fresh project, as a user's npm install
// would from the registry, and runs `npx storecheck`: its version, a probe of the
// reference server and battery rules against a Postgres container, with the binary's
// verdicts.
func TestNPX(t *testing.T) {
	t.Parallel()
	if !haveNPM() {
		missing(t, "npm is missing")
	}
	d := dist(t)
	if len(d.Tarballs) != 2 {
		t.Fatalf("npm tarballs: want the main package and this platform's, got %v", d.Tarballs)
	}
	project := t.TempDir()
	if err := os.WriteFile(filepath.Join(project, "package.json"), []byte(`{"name": "user", "private": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// A cache of the test's own: --offline must find nothing it could use instead.
	npmEnv := []string{"npm_config_cache=" + t.TempDir(), "npm_config_update_notifier=false"}
	install := append([]string{"install", "--offline", "--no-audit", "--no-fund"}, d.Tarballs...)
	if _, code := run(t, project, npmEnv, "npm", install...); code != 0 {
		t.Fatalf("npm install --offline of %v: exit %d, want 0", d.Tarballs, code)
	}
	line := strings.Fields(readmeLines(t, readmeInstall(t), "npx ", "npx ")[0])
	out, code := run(t, project, npmEnv, line[0], line[1:]...)
	if first := strings.SplitN(out, "\n", 2)[0]; code != 0 || first != "storecheck "+d.Version {
		t.Errorf("README's %q: want exit 0 and %q, got exit %d and %q", strings.Join(line, " "), "storecheck "+d.Version, code, out)
	}
	bin := d.Binaries[host(t)]
	want := binaryProbe(t, bin)
	report := filepath.Join(t.TempDir(), "npx.json")
	args := append([]string{"--no", "storecheck", "probe", "--json", report}, probeArgs(serve(t, bin))...)
	if _, code := run(t, project, npmEnv, "npx", args...); code != 0 {
		t.Errorf("npx storecheck probe of the reference server: exit %d, want 0", code)
	}
	sameVerdicts(t, "npx", want, verdicts(t, report))
	_, battery, wantPG := postgresBattery(t, bin)
	report = filepath.Join(t.TempDir(), "npx-pg.json")
	if _, code := run(t, project, npmEnv, "npx", append(append([]string{"--no", "storecheck"}, battery...), "--json", report)...); code != 0 {
		t.Errorf("npx storecheck %s: exit %d, want 0", strings.Join(battery, " "), code)
	}
	sameVerdicts(t, "npx's battery on Postgres", wantPG, verdicts(t, report))
	if _, code := run(t, project, npmEnv, "npx", "--no", "storecheck", "run", "--rules", "NO-SUCH-1"); code != 2 {
		t.Errorf("npx storecheck run --rules NO-SUCH-1: want the binary's usage exit 2 through the launcher, got %d", code)
	}
}

// TestNPMVersion: npm's version of a module version keeps a dirty build apart from its
// commit's.
func TestNPMVersion(t *testing.T) {
	for in, want := range map[string]string{
		"v1.2.0":       "1.2.0",
		"v1.2.0+dirty": "1.2.0-dirty",
		"v0.0.0-20261206114700-55654fe12345+dirty": "0.0.0-20261206114700-55654fe12345.dirty",
	} {
		if got := release.NPMVersion(in); got != want {
			t.Errorf("NPMVersion(%q): want %q, got %q", in, want, got)
		}
	}
}
