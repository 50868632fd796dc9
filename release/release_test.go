package release_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/storecheck/storecheck/release"
)

// The tests build one release for this machine's platform (Dist: its binary, archive,
// SHA256SUMS, image and npm tarballs) and use it the ways a user does, each compared with
// the binary run directly.

var (
	distOnce sync.Once
	distRes  release.Result
	distErr  error
	distDir  string
)

// testImage names the image the tests build (tagged with the version), removed after.
const testImage = "storecheck/storecheck-test"

func TestMain(m *testing.M) {
	code := m.Run()
	if distRes.Image != "" {
		_ = exec.Command("docker", "rmi", "--force", distRes.Image).Run()
	}
	if distDir != "" {
		_ = os.RemoveAll(distDir)
	}
	os.Exit(code)
}

// host is this machine's release target; a platform storecheck ships no release for
// skips the test.
func host(t *testing.T) release.Target {
	t.Helper()
	tg, err := release.ParseTarget(runtime.GOOS + "/" + runtime.GOARCH)
	if err != nil {
		t.Skipf("no release for this machine: %v", err)
	}
	return tg
}

// source is the checkout the tests run in.
func source(t *testing.T) release.Source {
	t.Helper()
	src, err := release.OpenSource(t.Context(), "..")
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// missing skips the test for a tool this machine lacks, or fails it under CI.
func missing(t *testing.T, what string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s (CI needs it)", what)
	}
	t.Skip(what)
}

func haveDocker() bool { return exec.Command("docker", "info").Run() == nil }

func haveNPM() bool {
	_, err := exec.LookPath("npm")
	return err == nil
}

// dist is the release of this machine's platform, built once for every test; the image
// and the npm tarballs when docker and npm are there.
func dist(t *testing.T) release.Result {
	t.Helper()
	tg := host(t)
	src := source(t)
	distOnce.Do(func() {
		start := time.Now()
		if distDir, distErr = os.MkdirTemp("", "storecheck-dist-"); distErr != nil {
			return
		}
		opts := release.Options{Out: distDir, Targets: []release.Target{tg}, NPM: haveNPM()}
		if runtime.GOOS == "linux" && haveDocker() {
			opts.Image = testImage
		}
		distRes, distErr = release.Dist(context.Background(), src, opts)
		t.Logf("dist for %s: %v", tg, time.Since(start).Round(time.Millisecond))
	})
	if distErr != nil {
		t.Fatal(distErr)
	}
	return distRes
}

// run runs name with args in dir (the test's temporary directory when empty) and returns
// its stdout and exit status; stderr goes to the test's log.
func run(t *testing.T, dir string, env []string, name string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), name, args...)
	cmd.Dir = dir
	if dir == "" {
		cmd.Dir = t.TempDir()
	}
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if stderr.Len() > 0 {
		t.Logf("%s %s: stderr:\n%s", name, strings.Join(args, " "), stderr.String())
	}
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
		}
		code = ee.ExitCode()
	}
	return string(out), code
}

// serve starts the reference MCP server (`storecheck serve --mcp`) of bin on a loopback
// port, as the README starts it, and returns its URL; it is stopped when the test ends.
// Each probe gets its own server: a probe fills its principals' task limit.
func serve(t *testing.T, bin string) string {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--mcp", "127.0.0.1:0", "--adapter", "memstore",
		"--principal", "ta=alice", "--principal", "tb=bob", "--max-tasks-per-principal", "16")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := bufio.NewScanner(stderr)
	for lines.Scan() {
		if _, rest, ok := strings.Cut(lines.Text(), "MCP on "); ok {
			go func() { // keep draining, or the server blocks on a full pipe
				for lines.Scan() {
				}
			}()
			return strings.Fields(rest)[0]
		}
	}
	t.Fatalf("storecheck serve --mcp printed no address")
	return ""
}

// probeArgs are the probe's arguments for a server started by serve.
func probeArgs(url string) []string {
	return []string{"--principal", "alice=ta", "--principal", "bob=tb", url}
}

// verdicts reads a JSON report's outcome per rule and era ("V-DENY-1 legacy").
func verdicts(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Rules []struct{ ID, Era, Outcome string }
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	v := map[string]string{}
	for _, r := range rep.Rules {
		v[r.ID+" "+r.Era] = r.Outcome
	}
	if len(v) == 0 {
		t.Fatalf("%s: no rule in the report", path)
	}
	return v
}

// sameVerdicts fails the test unless got, the verdicts of storecheck run one way, are
// want, the binary's own.
func sameVerdicts(t *testing.T, way string, want, got map[string]string) {
	t.Helper()
	var diff []string
	for k, w := range want {
		if g := got[k]; g != w {
			diff = append(diff, fmt.Sprintf("%s: binary %q, %s %q", k, w, way, g))
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			diff = append(diff, fmt.Sprintf("%s: binary none, %s %q", k, way, g))
		}
	}
	sort.Strings(diff)
	if len(diff) > 0 {
		t.Errorf("storecheck through %s: want the binary's verdicts, got %d different:\n%s", way, len(diff), strings.Join(diff, "\n"))
	}
}

var (
	probeMu       sync.Mutex
	probeVerdicts map[string]string
)

// binaryProbe is the verdicts of the binary's own probe of a fresh reference server,
// probed once for every test.
func binaryProbe(t *testing.T, bin string) map[string]string {
	t.Helper()
	probeMu.Lock()
	defer probeMu.Unlock()
	if probeVerdicts != nil {
		return probeVerdicts
	}
	out := filepath.Join(t.TempDir(), "binary.json")
	args := append([]string{"probe", "--json", out}, probeArgs(serve(t, bin))...)
	if _, code := run(t, "", nil, bin, args...); code != 0 {
		t.Fatalf("storecheck probe of the reference server: exit %d, want 0", code)
	}
	probeVerdicts = verdicts(t, out)
	return probeVerdicts
}

// releases serves dir the way GitHub serves releases: /download/VERSION/FILE, and
// /latest redirecting to /tag/VERSION.
func releases(t *testing.T, version, dir string) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/download/"+version+"/", http.StripPrefix("/download/"+version+"/", http.FileServer(http.Dir(dir))))
	mux.HandleFunc("/latest", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/tag/"+version, http.StatusFound)
	})
	mux.HandleFunc("/tag/"+version, func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, version) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}
