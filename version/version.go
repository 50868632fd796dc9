// Package version says which storecheck this is: the module version and the revision it
// was built from (from the binary's build information), the Go that built it, the
// protocol versions it checks and a digest of its rule catalogue. `storecheck version`
// prints it and every JSON report carries it, so that two reports can be told apart when
// the storecheck that wrote them differs.
package version

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/storecheck/storecheck/conformance/rules"
)

// The MCP protocol versions of the eras checked. mcp/server and the probe speak the same
// (a test holds them equal); they are not imported from there so that a report, which
// carries them, does not link the MCP server.
const (
	ProtocolLegacy = "2025-11-25"
	ProtocolModern = "2026-07-28"
	// ProtocolSDK: the SDK task-store profile is the stores the SDKs ship for the
	// 2025-11-25 tasks utility.
	ProtocolSDK = "2025-11-25"
)

// Module is storecheck's module path: the build information is read for it whether
// storecheck is the main module or a dependency of a store author's own binary.
const Module = "github.com/storecheck/storecheck"

// Info is the version block of `storecheck version --json` and of every JSON report.
type Info struct {
	Module string `json:"module"`
	// Version is the module version: a tag, a pseudo-version, or "(devel)" for a build
	// from a checkout.
	Version string `json:"version"`
	// Revision, Time and Modified are the VCS state of the build, when Go recorded it
	// (a build of the main module from a checkout).
	Revision string `json:"revision,omitempty"`
	Time     string `json:"time,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
	// Protocols are the MCP protocol versions checked, one per era.
	Protocols []Protocol `json:"protocols"`
	Rules     Catalogue  `json:"rules"`
}

// Protocol is the MCP protocol version an era of the rules follows.
type Protocol struct {
	Era     string `json:"era"`
	Version string `json:"version"`
}

// Catalogue identifies the rules checked: two builds whose rules differ in an ID or a
// level have different digests.
type Catalogue struct {
	Count  int    `json:"count"`
	Digest string `json:"digest"`
}

// Get builds the version block of this binary.
func Get() Info {
	info := Info{Module: Module, Version: "(devel)", Go: runtime.Version(),
		Protocols: []Protocol{
			{Era: "legacy", Version: ProtocolLegacy},
			{Era: "modern", Version: ProtocolModern},
			{Era: "sdk", Version: ProtocolSDK},
		},
		Rules: catalogue(rules.All())}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return info
	}
	fromBuild(&info, bi)
	return info
}

// fromBuild fills info's module version and VCS state from bi.
func fromBuild(info *Info, bi *debug.BuildInfo) {
	if bi.GoVersion != "" {
		info.Go = bi.GoVersion
	}
	mod := &bi.Main
	for _, d := range bi.Deps {
		if mod.Path != Module && d.Path == Module {
			mod = d
		}
	}
	if mod.Path == Module && mod.Version != "" {
		info.Version = mod.Version
	}
	if bi.Main.Path != Module {
		return // the VCS settings are the main module's, not storecheck's
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Revision = s.Value
		case "vcs.time":
			info.Time = s.Value
		case "vcs.modified":
			info.Modified = s.Value == "true"
		}
	}
}

// catalogue counts rs and digests their IDs and levels, in catalogue order.
func catalogue(rs []rules.Rule) Catalogue {
	h := sha256.New()
	for _, r := range rs {
		fmt.Fprintf(h, "%s %s\n", r.ID, r.Level)
	}
	return Catalogue{Count: len(rs), Digest: "sha256:" + hex.EncodeToString(h.Sum(nil))[:16]}
}

// Write prints info for people, one fact a line.
func (info Info) Write(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "storecheck %s\n", info.Version)
	if info.Revision != "" {
		dirty := ""
		if info.Modified {
			dirty = " (modified)"
		}
		fmt.Fprintf(&b, "revision   %s%s %s\n", info.Revision, dirty, info.Time)
	}
	fmt.Fprintf(&b, "go         %s\n", info.Go)
	for _, p := range info.Protocols {
		fmt.Fprintf(&b, "protocol   %s %s\n", p.Era, p.Version)
	}
	fmt.Fprintf(&b, "rules      %d, %s\n", info.Rules.Count, info.Rules.Digest)
	_, err := io.WriteString(w, b.String())
	return err
}

// String is the version in one phrase, as a report's headline gives it:
// "(devel) 1a2b3c4d5e6f modified".
func (info Info) String() string {
	s := info.Version
	if info.Revision != "" {
		s += " " + info.Revision[:min(12, len(info.Revision))]
	}
	if info.Modified {
		s += " modified"
	}
	return s
}
