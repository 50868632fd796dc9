// Package release builds what storecheck ships: static binaries for every platform,
// their archives and a SHA256SUMS file, the container image and the npm packages
// (`make dist`, which runs release/cmd/dist). Every artifact is a function of the commit
// alone: the same commit gives the same bytes, so that anyone can check a release by
// building it again.
package release

import (
	"context"
	"debug/buildinfo"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// MainPackage is the command every artifact ships.
const MainPackage = "github.com/storecheck/storecheck/cmd/storecheck"

// Target is one platform a binary is built for, in Go's names.
type Target struct{ OS, Arch string }

func (t Target) String() string { return t.OS + "/" + t.Arch }

// Exe is the binary's file name on the target.
func (t Target) Exe() string {
	if t.OS == "windows" {
		return "storecheck.exe"
	}
	return "storecheck"
}

// Targets are the platforms a release covers.
var Targets = []Target{
	{"linux", "amd64"}, {"linux", "arm64"},
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

// ErrTarget is returned for a platform not in Targets.
var ErrTarget = errors.New("release: unknown target")

// ParseTarget reads "os/arch" and checks it is one of Targets.
func ParseTarget(s string) (Target, error) {
	for _, t := range Targets {
		if t.String() == s {
			return t, nil
		}
	}
	return Target{}, fmt.Errorf("%w %q (want one of %v)", ErrTarget, s, Targets)
}

// Source is the checkout a release is built from.
type Source struct {
	// Dir is the module's root.
	Dir string
	// Epoch is the time stamped on every archived file: SOURCE_DATE_EPOCH when set, else
	// the commit's time, so that a rebuild of the commit stamps the same.
	Epoch time.Time
}

// OpenSource reads the release inputs of the checkout at dir.
func OpenSource(ctx context.Context, dir string) (Source, error) {
	src := Source{Dir: dir}
	s := strings.TrimSpace(os.Getenv("SOURCE_DATE_EPOCH"))
	if s == "" {
		out, err := exec.CommandContext(ctx, "git", "-C", dir, "log", "-1", "--format=%ct").Output()
		if err != nil {
			return src, fmt.Errorf("release: the commit's time (set SOURCE_DATE_EPOCH outside a git checkout): %w", err)
		}
		s = strings.TrimSpace(string(out))
	}
	sec, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return src, fmt.Errorf("release: SOURCE_DATE_EPOCH %q: %w", s, err)
	}
	src.Epoch = time.Unix(sec, 0).UTC()
	return src, nil
}

// Build compiles the command for t into dir/t.OS_t.Arch/ and returns the binary's path.
// The build is static (no cgo), keeps no local paths (-trimpath) and no build ID, and
// stamps the module version Go derives from the commit (and its tag, if any), which
// `storecheck version` prints. The environment's GOFLAGS are replaced: a -buildvcs=false
// there would drop the version.
func Build(ctx context.Context, src Source, t Target, dir string) (string, error) {
	out := filepath.Join(dir, t.OS+"_"+t.Arch, t.Exe())
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=auto",
		"-ldflags=-s -w -buildid=", "-o", out, MainPackage)
	cmd.Dir = src.Dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+t.OS, "GOARCH="+t.Arch, "GOFLAGS=",
		// The toolchain is the one installed: a go line asking for a newer one must
		// fail the build, not download a toolchain.
		"GOTOOLCHAIN=local")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("release: go build for %s: %w\n%s", t, err, msg)
	}
	return out, nil
}

// Version is the module version stamped in the binary at path (built for any
// platform): a tag such as v1.2.0, or a pseudo-version of the commit, "+dirty" when the
// checkout had changes.
func Version(path string) (string, error) {
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("release: %s: %w", path, err)
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v, nil
	}
	return "", fmt.Errorf("release: %s: %w", path, ErrNoVersion)
}

// ErrNoVersion is returned for a binary built without version control information (a
// source tree that is not a git checkout).
var ErrNoVersion = errors.New("no module version stamped (built outside a git checkout?)")
