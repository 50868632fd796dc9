package version

import (
	"runtime/debug"
	"testing"

	"github.com/storecheck/storecheck/conformance/rules"
	"github.com/storecheck/storecheck/mcp/server"
)

// TestFromBuild: storecheck's version and VCS state are read from the build whether it is
// the main module, and only its version when it is a dependency of another main.
func TestFromBuild(t *testing.T) {
	settings := []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef"},
		{Key: "vcs.time", Value: "2026-12-01T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}
	for _, tc := range []struct {
		name string
		bi   debug.BuildInfo
		want Info
	}{
		{"main module", debug.BuildInfo{GoVersion: "go1.99", Main: debug.Module{Path: Module, Version: "v1.2.3"}, Settings: settings},
			Info{Version: "v1.2.3", Go: "go1.99", Revision: "0123456789abcdef", Time: "2026-12-01T10:00:00Z", Modified: true}},
		{"a dependency", debug.BuildInfo{GoVersion: "go1.99", Main: debug.Module{Path: "example.com/mystore"},
			Deps: []*debug.Module{{Path: "example.com/other", Version: "v9.0.0"}, {Path: Module, Version: "v1.4.0"}}, Settings: settings},
			Info{Version: "v1.4.0", Go: "go1.99"}},
		{"a checkout", debug.BuildInfo{GoVersion: "go1.99", Main: debug.Module{Path: Module, Version: "(devel)"}},
			Info{Version: "(devel)", Go: "go1.99"}},
	} {
		got := Info{Version: "(devel)"}
		fromBuild(&got, &tc.bi)
		if got.Version != tc.want.Version || got.Go != tc.want.Go || got.Revision != tc.want.Revision ||
			got.Time != tc.want.Time || got.Modified != tc.want.Modified {
			t.Errorf("%s: fromBuild(%+v) = %+v, want %+v", tc.name, tc.bi, got, tc.want)
		}
	}
}

// TestCatalogueDigest: the digest changes when a rule's level or ID changes, or a rule
// goes, and is the same for the same rules.
func TestCatalogueDigest(t *testing.T) {
	all := rules.All()
	base := catalogue(all)
	if base.Count != len(all) || base != catalogue(rules.All()) {
		t.Fatalf("catalogue(rules.All()) = %+v twice differs or miscounts %d rules", base, len(all))
	}
	level := rules.All()
	level[0].Level = map[rules.Level]rules.Level{rules.Must: rules.Should, rules.Should: rules.Must}[level[0].Level]
	id := rules.All()
	id[1].ID += "X"
	for name, rs := range map[string][]rules.Rule{"a level changed": level, "an ID changed": id, "a rule gone": all[1:]} {
		if got := catalogue(rs); got.Digest == base.Digest {
			t.Errorf("%s: digest %s, the same as the catalogue's", name, got.Digest)
		}
	}
}

// TestGetNamesEveryEra: the block names the protocol of every era and counts the rules.
func TestGetNamesEveryEra(t *testing.T) {
	info := Get()
	eras := map[string]string{}
	for _, p := range info.Protocols {
		eras[p.Era] = p.Version
	}
	// The protocols the MCP server speaks are the ones the version block names.
	want := map[string]string{"legacy": server.VersionLegacy, "modern": server.VersionModern, "sdk": server.VersionLegacy}
	for era, v := range want {
		if eras[era] != v {
			t.Errorf("Get().Protocols: era %s reads %q, want %q (all: %v)", era, eras[era], v, info.Protocols)
		}
	}
	if info.Rules.Count != len(rules.All()) || info.Go == "" || info.Module != Module {
		t.Errorf("Get() = %+v: want %d rules, a Go version and module %s", info, len(rules.All()), Module)
	}
}
