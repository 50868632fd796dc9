package release

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// The npm layout is esbuild's and Biome's: a main package whose bin is a launcher, with
// one optional dependency per platform; npm installs only the one whose os and cpu match
// the machine, so a user downloads one binary.
const (
	// NPMMain is the main package's name: `npx storecheck`.
	NPMMain  = "storecheck"
	npmScope = "@storecheck/"
)

//go:embed npm/storecheck.js
var launcher string

// NPMPackage is the platform package holding t's binary, in Node's names for platforms.
func NPMPackage(t Target) string {
	return npmScope + nodeOS(t) + "-" + nodeArch(t)
}

func nodeOS(t Target) string {
	if t.OS == "windows" {
		return "win32"
	}
	return t.OS
}

func nodeArch(t Target) string {
	if t.Arch == "amd64" {
		return "x64"
	}
	return t.Arch
}

// NPMVersion is version as npm reads it: no leading v, and "+dirty" (build metadata,
// which npm drops) as a prerelease part, so that a dirty build never passes for its
// commit's.
func NPMVersion(version string) string {
	v := strings.TrimPrefix(version, "v")
	if base, meta, ok := strings.Cut(v, "+"); ok {
		sep := "-"
		if strings.Contains(base, "-") {
			sep = "."
		}
		v = base + sep + meta
	}
	return v
}

type packageJSON struct {
	Name                 string            `json:"name"`
	Version              string            `json:"version"`
	Description          string            `json:"description"`
	License              string            `json:"license,omitempty"`
	Repository           string            `json:"repository"`
	Bin                  map[string]string `json:"bin,omitempty"`
	OS                   []string          `json:"os,omitempty"`
	CPU                  []string          `json:"cpu,omitempty"`
	PreferUnplugged      bool              `json:"preferUnplugged,omitempty"`
	Engines              map[string]string `json:"engines,omitempty"`
	OptionalDependencies map[string]string `json:"optionalDependencies,omitempty"`
}

const repository = "github:storecheck/storecheck"

// WriteNPM writes the main package and one package per binary (bins maps a target to
// its binary) under dir/NAME/, NAME being the package's name without its scope, and
// returns those directories, the main package's first.
func WriteNPM(dir, version string, bins map[Target]string) ([]string, error) {
	v := NPMVersion(version)
	targets := make([]Target, 0, len(bins))
	for t := range bins {
		targets = append(targets, t)
	}
	sort.Slice(targets, func(i, j int) bool { return targets[i].String() < targets[j].String() })
	platforms, optional := map[string]string{}, map[string]string{}
	dirs := []string{filepath.Join(dir, NPMMain)}
	for _, t := range targets {
		name := NPMPackage(t)
		platforms[nodeOS(t)+" "+nodeArch(t)] = name
		optional[name] = v
		pdir := filepath.Join(dir, strings.TrimPrefix(name, npmScope))
		pkg := packageJSON{Name: name, Version: v, Repository: repository,
			Description: "The storecheck binary for " + nodeOS(t) + " " + nodeArch(t) + " (installed by the storecheck package)",
			OS:          []string{nodeOS(t)}, CPU: []string{nodeArch(t)}, PreferUnplugged: true}
		data, err := os.ReadFile(bins[t])
		if err != nil {
			return nil, fmt.Errorf("release: %w", err)
		}
		if err := writePackage(pdir, pkg, map[string]File{"bin/" + t.Exe(): {Mode: 0o755, Data: data}}); err != nil {
			return nil, err
		}
		dirs = append(dirs, pdir)
	}
	table, err := json.MarshalIndent(platforms, "", "  ")
	if err != nil {
		return nil, err
	}
	main := packageJSON{Name: NPMMain, Version: v, Repository: repository,
		Description: "Conformance checks for MCP task stores and servers' tasks (the storecheck binary for this platform)",
		Bin:         map[string]string{"storecheck": "bin/storecheck.js"}, Engines: map[string]string{"node": ">=18"},
		OptionalDependencies: optional}
	js := strings.Replace(launcher, "__PLATFORMS__", string(table), 1)
	if err := writePackage(dirs[0], main, map[string]File{"bin/storecheck.js": {Mode: 0o755, Data: []byte(js)}}); err != nil {
		return nil, err
	}
	return dirs, nil
}

// writePackage writes package.json and files into a fresh dir.
func writePackage(dir string, pkg packageJSON, files map[string]File) error {
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("release: %w", err)
	}
	manifest, err := json.MarshalIndent(pkg, "", "  ")
	if err != nil {
		return err
	}
	files["package.json"] = File{Mode: 0o644, Data: append(manifest, '\n')}
	for name, f := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("release: %w", err)
		}
		if err := os.WriteFile(path, f.Data, f.Mode); err != nil {
			return fmt.Errorf("release: %w", err)
		}
	}
	return nil
}

// Pack runs `npm pack` in each package directory, writing the tarballs to out, and
// returns their paths.
func Pack(ctx context.Context, out string, dirs []string) ([]string, error) {
	abs, err := filepath.Abs(out)
	if err != nil {
		return nil, err
	}
	var tarballs []string
	for _, d := range dirs {
		cmd := exec.CommandContext(ctx, "npm", "pack", "--silent", "--pack-destination", abs)
		cmd.Dir = d
		msg, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("release: npm pack %s: %w", d, err)
		}
		lines := strings.Fields(string(msg))
		if len(lines) == 0 {
			return nil, fmt.Errorf("release: npm pack %s: %w", d, ErrPackSilent)
		}
		tarballs = append(tarballs, filepath.Join(abs, lines[len(lines)-1]))
	}
	return tarballs, nil
}

// ErrPackSilent is returned when npm pack names no tarball.
var ErrPackSilent = errors.New("npm pack named no tarball")
