package release_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// readmeInstall is the README's install block (the sh block under "## Installing"), one
// command a line, comments dropped.
func readmeInstall(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## Installing\n")
	if !ok {
		t.Fatal("README.md: no ## Installing section")
	}
	_, block, ok := strings.Cut(section, "```sh\n")
	if !ok {
		t.Fatal("README.md ## Installing: no sh block")
	}
	block, _, _ = strings.Cut(block, "```")
	var lines []string
	for _, l := range strings.Split(block, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	return lines
}

// readmeLines returns the README's install lines that start with prefix, failing the
// test when there is none: a way the README stops showing must leave this test too.
func readmeLines(t *testing.T, lines []string, from, through string) []string {
	t.Helper()
	for i, l := range lines {
		if !strings.HasPrefix(l, from) {
			continue
		}
		for j := i; j < len(lines); j++ {
			if strings.HasPrefix(lines[j], through) {
				return lines[i : j+1]
			}
		}
	}
	t.Fatalf("README.md's install block: no lines from %q through %q in:\n%s", from, through, strings.Join(lines, "\n"))
	return nil
}

// TestInstallRelease runs the README's lines for a release's binary in a clean
// directory, the release served from loopback: download, check against SHA256SUMS,
// unpack, and the binary prints its version. A tampered archive fails the check.
func TestInstallRelease(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the lines are a Linux shell's (sha256sum)")
	}
	d := dist(t)
	tg := host(t)
	lines := readmeLines(t, readmeInstall(t), "v=", "tar ")
	script := strings.Join(lines, "\n")
	script = strings.NewReplacer("v=v1.0.0", "v="+d.Version, "p=linux_amd64", "p="+tg.OS+"_"+tg.Arch,
		"https://github.com/storecheck/storecheck/releases", releases(t, d.Version, filepath.Dir(d.Sums))).Replace(script)
	out, code := run(t, "", nil, "bash", "-euo", "pipefail", "-c", script)
	if first := strings.SplitN(out, "\n", 2)[0]; code != 0 || !strings.Contains(out, ": OK\n") || first == "" {
		t.Errorf("README's release lines:\n%s\nwant exit 0, the sum OK and the version, got exit %d:\n%s", script, code, out)
	}
	if !strings.Contains(out, "storecheck "+d.Version+"\n") {
		t.Errorf("README's release lines: want the binary to print %q, got:\n%s", "storecheck "+d.Version, out)
	}

	tampered := t.TempDir()
	archive := filepath.Base(d.Archives[0])
	sums, err := os.ReadFile(d.Sums)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tampered, "SHA256SUMS"), sums, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tampered, archive), []byte("not the archive"), 0o644); err != nil {
		t.Fatal(err)
	}
	script = strings.Join(lines, "\n")
	script = strings.NewReplacer("v=v1.0.0", "v="+d.Version, "p=linux_amd64", "p="+tg.OS+"_"+tg.Arch,
		"https://github.com/storecheck/storecheck/releases", releases(t, d.Version, tampered)).Replace(script)
	if out, code := run(t, "", nil, "bash", "-euo", "pipefail", "-c", script); code == 0 {
		t.Errorf("README's release lines with a tampered archive: want the sum check to fail them, got exit 0:\n%s", out)
	}
}

// TestInstallImage runs the README's image line with the image make dist builds.
func TestInstallImage(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the image is a linux one")
	}
	if !haveDocker() {
		missing(t, "no docker engine answers")
	}
	d := dist(t)
	line := readmeLines(t, readmeInstall(t), "docker run", "docker run")[0]
	args := strings.Fields(strings.Replace(line, "storecheck/storecheck:v1.0.0", d.Image, 1))
	out, code := run(t, "", nil, args[0], args[1:]...)
	if code != 0 || !strings.HasPrefix(out, "storecheck "+d.Version+"\n") {
		t.Errorf("README's image line %q: want exit 0 and %q, got exit %d:\n%s", line, "storecheck "+d.Version, code, out)
	}
}

// TestInstallGo runs the README's go install line in a clean directory against a module
// proxy on disk: the committed tree as the module's one version, its dependencies from
// the module cache. The build flags are the release's, so that it links what the
// release built; the module's extracted copy is removed after.
func TestInstallGo(t *testing.T) {
	t.Parallel()
	line := readmeLines(t, readmeInstall(t), "go install", "go install")[0]
	root := repoRoot(t)
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", root}, args...)...)
		cmd.Env = append(os.Environ(), "TZ=UTC") // a pseudo-version's time is UTC
		out, err := cmd.Output()
		if err != nil {
			t.Skipf("not a git checkout: git %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	version := "v0.0.0-" + git("-c", "log.showSignature=false", "log", "-1", "--date=format-local:%Y%m%d%H%M%S", "--format=%cd") +
		"-" + git("rev-parse", "--short=12", "HEAD")
	proxy := t.TempDir()
	at := filepath.Join(proxy, "github.com", "storecheck", "storecheck", "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	// The module's zip leaves out the nested tools module, as go mod's zips do.
	git("archive", "--format=zip", "--prefix=github.com/storecheck/storecheck@"+version+"/",
		"-o", filepath.Join(at, version+".zip"), "HEAD", "--", ".", ":(exclude)tools")
	files := map[string]string{"list": version + "\n", version + ".mod": git("show", "HEAD:go.mod") + "\n",
		version + ".info": fmt.Sprintf(`{"Version":%q}`, version)}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(at, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	modcache := strings.TrimSpace(goEnv(t, "GOMODCACHE"))
	t.Cleanup(func() {
		_ = os.RemoveAll(filepath.Join(modcache, "github.com", "storecheck", "storecheck@"+version))
		got, _ := filepath.Glob(filepath.Join(modcache, "cache", "download", "github.com", "storecheck", "storecheck", "@v", version+".*"))
		for _, f := range got {
			_ = os.Remove(f)
		}
	})
	bin := t.TempDir()
	env := []string{"GOBIN=" + bin, "GOPROXY=file://" + proxy + ",file://" + filepath.Join(modcache, "cache", "download"),
		"GOSUMDB=off", "GOFLAGS=-trimpath -modcacherw", "CGO_ENABLED=0", "GOTOOLCHAIN=local"}
	args := strings.Fields(line)
	if _, code := run(t, "", env, args[0], args[1:]...); code != 0 {
		t.Fatalf("README's %q against a module proxy on disk: exit %d", line, code)
	}
	out, code := run(t, "", nil, filepath.Join(bin, "storecheck"), "version")
	if code != 0 || !strings.HasPrefix(out, "storecheck "+version+"\n") {
		t.Errorf("storecheck version after %q: want exit 0 and %q, got exit %d:\n%s", line, "storecheck "+version, code, out)
	}
}

func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
