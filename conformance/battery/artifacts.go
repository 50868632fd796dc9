package battery

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// ArtifactsEnv names the directory failing checks keep their evidence in
// (Options.Artifacts, -storecheck.artifacts).
const ArtifactsEnv = "STORECHECK_ARTIFACTS"

// keepArtifacts caps a kept artifacts directory: after a check writes its directory,
// only the newest keepArtifacts storecheck-* entries stay, so that an afternoon of
// failing runs does not fill the disk.
const keepArtifacts = 20

// artifacts is where this run's failing checks write. A run (Run, Execute) starts it;
// without a directory given, the evidence goes to a temporary directory that the end of
// the run removes, as t.TempDir does: a failing run leaves nothing behind unless asked.
var artifacts struct {
	mu      sync.Mutex
	started bool
	keep    string // the directory given; empty: temporary
	temp    string // the temporary directory, once made
}

// StartArtifacts begins a run's artifacts in dir (empty: temporary); end removes the
// temporary directory.
func StartArtifacts(dir string) (end func()) {
	artifacts.mu.Lock()
	artifacts.started, artifacts.keep, artifacts.temp = true, dir, ""
	artifacts.mu.Unlock()
	return func() {
		artifacts.mu.Lock()
		defer artifacts.mu.Unlock()
		if artifacts.temp != "" {
			_ = os.RemoveAll(artifacts.temp)
		}
		artifacts.started, artifacts.keep, artifacts.temp = false, "", ""
	}
}

// NewArtifactDir makes a directory for one piece of evidence and says where it is, in
// words for a failure message: whether it survives the run, and how to keep it.
func NewArtifactDir(name string) (dir, where string, err error) {
	artifacts.mu.Lock()
	defer artifacts.mu.Unlock()
	base, kept := artifacts.keep, true
	if !artifacts.started && base == "" {
		base = os.Getenv(ArtifactsEnv) // a check run outside Run/Execute (the battery's own tests)
	}
	if base == "" {
		if artifacts.temp == "" {
			if artifacts.temp, err = os.MkdirTemp("", "storecheck-artifacts-"); err != nil {
				return "", "", err
			}
		}
		base, kept = artifacts.temp, false
		if !artifacts.started {
			kept = true // nobody will remove it: say where it is
		}
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", "", err
	}
	if dir, err = os.MkdirTemp(base, "storecheck-"+name+"-"); err != nil {
		return "", "", err
	}
	if !kept {
		return dir, fmt.Sprintf("%s, which is removed when the run ends: set %s=DIR (or -storecheck.artifacts DIR, storecheck run --artifacts DIR) to keep it", dir, ArtifactsEnv), nil
	}
	PruneArtifacts(base, keepArtifacts)
	return dir, dir, nil
}

// PruneArtifacts removes all but the newest keep storecheck-* entries of base; it
// touches nothing else there.
func PruneArtifacts(base string, keep int) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	type aged struct {
		path string
		mod  int64
	}
	var ours []aged
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "storecheck-") {
			continue
		}
		if info, err := e.Info(); err == nil {
			ours = append(ours, aged{filepath.Join(base, e.Name()), info.ModTime().UnixNano()})
		}
	}
	if len(ours) <= keep {
		return
	}
	sort.Slice(ours, func(i, j int) bool { return ours[i].mod > ours[j].mod })
	for _, a := range ours[keep:] {
		_ = os.RemoveAll(a.path)
	}
}
