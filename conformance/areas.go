package conformance

import (
	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/conformance/facadespecs"
	"github.com/storecheck/storecheck/conformance/legacyspecs"
	"github.com/storecheck/storecheck/conformance/modernspecs"
	"github.com/storecheck/storecheck/conformance/property"
	"github.com/storecheck/storecheck/conformance/sdkspecs"
	"github.com/storecheck/storecheck/conformance/sharedspecs"
)

// areas is the battery's table of contents: the areas of each era, in the order their
// specs run. A rule shared by the eras is written once and listed under each.
var areas = map[Era][]func(*battery.Suite){
	EraLegacy: {
		legacyspecs.Cancel,
		legacyspecs.Cleanup,
		legacyspecs.Concurrency,
		legacyspecs.Create,
		facadespecs.Legacy,
		legacyspecs.List,
		legacyspecs.Owner,
		legacyspecs.Page,
		legacyspecs.Update,
		property.LegacyStateMachine,
		property.LegacyLinearizable,
		property.LegacyRaceRounds,
		property.LegacyReplay,
		legacyspecs.Reach,
		sharedspecs.LegacyBlocked,
		sharedspecs.LegacyConcurrency,
		sharedspecs.LegacyContext,
		sharedspecs.GenerateID,
		sharedspecs.LegacyIDs,
		sharedspecs.LegacyOwner,
		sharedspecs.LegacySharing,
		sharedspecs.Transitions,
		sharedspecs.LegacyValues,
	},
	EraModern: {
		modernspecs.Concurrency,
		modernspecs.Context,
		modernspecs.Create,
		modernspecs.Delete,
		facadespecs.ModernCreate,
		facadespecs.ModernFin,
		facadespecs.ModernInput,
		facadespecs.ModernListen,
		facadespecs.ModernNotify,
		facadespecs.ModernScope,
		facadespecs.ModernTTL,
		modernspecs.Fields,
		modernspecs.Get,
		modernspecs.IDs,
		modernspecs.Owner,
		modernspecs.Share,
		modernspecs.Swap,
		modernspecs.Sweep,
		modernspecs.Values,
		property.ModernLinearizable,
		property.ModernStateMachine,
		property.ModernRaceRounds,
		property.ModernReplay,
		modernspecs.Reach,
		sharedspecs.ModernBlocked,
		sharedspecs.GenerateID,
		sharedspecs.Transitions,
	},
	EraSDK: {
		sdkspecs.Create,
		sdkspecs.Edges,
		sdkspecs.IDs,
		sdkspecs.List,
		sdkspecs.Optional,
		sdkspecs.Results,
		sdkspecs.Sessions,
		sdkspecs.Status,
		sdkspecs.TTL,
	},
}

// SpecSites lists where the battery's specs are written, in the order they run: every
// spec of every era, or only rule id's when id is not empty. Fault rules (F-*), server
// rules (V-*) and most battery rules (B-*) have no site here: conformance/faults,
// storecheck probe and the battery's own tests check them.
func SpecSites(id string) []battery.SpecSite {
	var sites []battery.SpecSite
	for _, era := range allEras {
		s := &battery.Suite{Era: era, Listing: func(site battery.SpecSite) {
			if id == "" || site.Rule == id {
				sites = append(sites, site)
			}
		}}
		for _, area := range areas[era] {
			area(s)
		}
	}
	return sites
}
