package conformance

import (
	"fmt"

	"github.com/onsi/ginkgo/v2"
	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/conformance/rules"
)

// DescribeLegacy registers the legacy-era battery (and the shared rules as they apply to
// it) against h inside the current Ginkgo container, without calling RunSpecs: use it
// from an existing Ginkgo suite. Its options are read as Run reads them: at most one
// Options (more panics with ErrOptions), overridden by the STORECHECK_* variables and
// -storecheck.* flags when Ginkgo builds the tree (after the flags are parsed): strict,
// rules (only those specs are registered), seed and artifacts, whose temporary
// directory is removed at the end of each spec. The report files are Run's and
// Execute's: with Describe* use Ginkgo's own --junit-report and --json-report
// (Options.JSON or JUnit given here panics with ErrOptions; the variables and flags are
// left to the runs that write them).
func DescribeLegacy(h harness.Harness, opts ...battery.Options) bool {
	return describeOwn(h, EraLegacy, opts)
}

// DescribeModern is DescribeLegacy for the modern era.
func DescribeModern(h harness.Harness, opts ...battery.Options) bool {
	return describeOwn(h, EraModern, opts)
}

// DescribeSDK is DescribeLegacy for the SDK task-store profile (docs/spec.md section 6).
func DescribeSDK(h harness.Harness, opts ...battery.Options) bool {
	return describeOwn(h, EraSDK, opts)
}

// describeOwn is describe for a suite that is not Run's: it reads the options itself,
// filters the specs by rule and owns the artifacts of each spec.
func describeOwn(h harness.Harness, era Era, opts []battery.Options) bool {
	name := map[Era]string{EraLegacy: "DescribeLegacy", EraModern: "DescribeModern", EraSDK: "DescribeSDK"}[era]
	if len(opts) > 1 {
		panic(fmt.Errorf("conformance.%s: %w: at most one Options, got %d (merge them into one)", name, ErrOptions, len(opts)))
	}
	if len(opts) == 1 && (opts[0].JSON != "" || opts[0].JUnit != "") {
		panic(fmt.Errorf("conformance.%s: %w: Options.JSON and JUnit are written by Run and Execute; in a Ginkgo suite use ginkgo --json-report / --junit-report", name, ErrOptions))
	}
	s := &battery.Suite{Harness: h, Era: era, Caps: h.Capabilities(), OwnArtifacts: true}
	return ginkgo.Describe(fmt.Sprintf("%s [%s era]", h.Name(), era), ginkgo.Label(string(era)), func() {
		o, err := goTestOptions(opts)
		if err != nil {
			panic(fmt.Errorf("conformance.%s: %w", name, err))
		}
		if len(o.Rules) > 0 {
			s.Only = map[string]bool{}
			for _, id := range o.Rules {
				if _, ok := rules.ByID(id); !ok {
					panic(fmt.Errorf("conformance.%s: %w: unknown rule %q (storecheck list prints the rules)", name, ErrSelection, id))
				}
				s.Only[id] = true
			}
		}
		s.Opts = o.WithDefaults()
		for _, register := range areas[era] {
			register(s)
		}
	})
}

func describe(h harness.Harness, era Era, opts []battery.Options) bool {
	var o battery.Options
	if len(opts) > 0 {
		o = opts[0]
	}
	s := &battery.Suite{Harness: h, Era: era, Opts: o.WithDefaults(), Caps: h.Capabilities()}
	return ginkgo.Describe(fmt.Sprintf("%s [%s era]", h.Name(), era), ginkgo.Label(string(era)), func() {
		for _, register := range areas[era] {
			register(s)
		}
	})
}
