// Package mutants is the battery's proof of power (B-POWER-1): a catalogue of task
// stores, each with one deliberate defect drawn from real failures, and the honest store
// they are all variants of. The battery must fail every mutant on the rule it breaks and
// pass the honest store.
//
// Every mutant is the same small store (a mutex and two maps, store.go) with one defect
// switched on, so that a mutant differs from an obviously correct store in exactly one
// place.
package mutants

import (
	"slices"
	"sort"

	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/modern"
	"github.com/storecheck/storecheck/reference/sdk"
)

// Build is how a store mutant is built: the eras its defect lives in and the wrapper
// that adds it to the honest store. A store mutant (mutant.Mutant[Build]) is killed when
// the battery fails at least one spec labelled with one of its Breaks (Judge); an honest
// variant breaks nothing and must pass.
type Build struct {
	// Eras are the eras the defect lives in; the battery need only run those.
	Eras []harness.Era

	// w builds the mutant from the honest store; nil is the honest store.
	w *wrapper
}

var (
	both       = []harness.Era{harness.EraLegacy, harness.EraModern}
	legacyOnly = []harness.Era{harness.EraLegacy}
	modernOnly = []harness.Era{harness.EraModern}
	sdkOnly    = []harness.Era{harness.EraSDK}
)

// catalogue is every mutant, listed here once by family, each family in its own file:
// the store's defects, the SDK profile's, the facade's and the Oban guide's.
var catalogue = slices.Concat(idMutants, ownerMutants, valueMutants, listMutants, pageMutants, cleanupMutants, writeMutants,
	swapMutants, raceMutants, contextMutants, outsideMutants, wrappedMutants, sdkMutants, facadeMutants, obanGuideMutants)

// DiesMidRunName names a store outside the catalogue: the honest store whose process
// exits (status 3) on its diesAfter-th operation. It breaks no rule; it proves that a
// store process dying mid-run is reported as aborted, never as killed (B-POWER-1). Run
// it over the wire: in process it ends the run's own process. Lookup finds it;
// Catalogue does not list it.
const DiesMidRunName = "dies-mid-run"

// diesAfter is the operation on which dies-mid-run exits: past the first few specs of
// the legacy era, well before its end.
const diesAfter = 3000

// diesMidRun is declared to break every legacy store rule, so that any failure blamed
// on a rule after its death would count as a kill if the judge let it.
var diesMidRun = mutant.Mutant[Build]{Name: DiesMidRunName, Breaks: []string{"L-CREATE-1", "L-CREATE-3", "L-GET-1", "L-UPDATE-1", "L-UPDATE-2",
	"L-DELETE-1", "L-OWNER-1", "L-LIST-1", "L-LIST-2", "L-LIST-3", "L-LIST-4", "L-CANCEL-1", "L-CLEAN-1", "L-CONC-1",
	"S-OWN-1", "S-OWN-2", "S-OWN-3", "S-ID-2", "S-VAL-1", "S-VAL-2", "S-CONC-1"},
	Defect: "the store process exits (status 3) in the middle of the run; not a catalogue mutant: it must be reported aborted", Build: Build{legacyOnly, diesMidRunWrapper}}

// RefusesUpdateName names a store outside the catalogue: the honest store whose legacy
// Update answers ErrUnsupported. It breaks no rule the battery can judge without
// Update: the report shows "setup refused" with one cause line (the store refused
// Update) and the run exits 1. Lookup finds it; Catalogue and Variants do not list it.
const RefusesUpdateName = "refuses-update"

var refusesUpdate = mutant.Mutant[Build]{Name: RefusesUpdateName, Defect: "legacy Update answers ErrUnsupported (not a catalogue mutant: its rules read setup refused)", Build: Build{legacyOnly, legacyLayer(func(st legacyStore) legacy.Store { return refusingUpdate{st} })}}

// PanicsInRaceName names a store outside the catalogue: the honest store whose legacy
// Update panics when another Update is in flight, that is inside a race spec's client
// goroutines. The run must still end with its summary, JSON and JUnit, the spec failed
// with the panic. Lookup finds it; Catalogue and Variants do not list it.
const PanicsInRaceName = "panics-in-race"

var panicsInRace = mutant.Mutant[Build]{Name: PanicsInRaceName, Breaks: []string{"L-CONC-1"}, Defect: "legacy Update panics when another Update is in flight (not a catalogue mutant: it proves a panicking store is reported, not fatal)", Build: Build{legacyOnly, panicsInRaceWrapper}}

// variants are honest stores that use a freedom of the specification a careless
// battery mistakes for a fault: they must pass.
var variants = []mutant.Mutant[Build]{
	{Name: "list-ignores-owner-and-limit", Breaks: nil, Defect: "none: List ignores Owner and Limit for every caller and returns every row matching Status (allowed by L-LIST-4)", Build: Build{legacyOnly, listed(anyOwnerNoLimit, nil)}},
	{Name: "swap-own-not-found", Breaks: nil, Defect: "none: Swap answers 'swap: task not found: X' for a missing, expired or foreign task alike (Get's message differs)", Build: Build{modernOnly, swapping(swapRule{ownNotFound: true})}},
}

// Variants returns the honest variants, sorted by name: stores without a defect that
// take a freedom the specification gives. The battery must pass each.
func Variants() []mutant.Mutant[Build] {
	out := append([]mutant.Mutant[Build](nil), variants...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// spec is the mutant's wrapper; the honest store's for the honest one.
func (b Build) spec() *wrapper {
	if b.w == nil {
		return &wrapper{}
	}
	return b.w
}

// Measured reports whether the defect is shown only by a timing measurement, which a
// run may miss: like a natural race, one survival is not yet a verdict; k of N runs is.
// P-LIST-3's ratio of page costs is one: a loaded machine, or a round trip across a
// process boundary, can bring it under its bound in one run.
func (b Build) Measured() bool { return b.spec().measured }

// NaturalRace reports whether the defect is a natural race: ordinary code with no sleep
// or yield widening its window, so a run kills it only when the battery's racers happen
// to land in it, and one survival is not yet a verdict on the battery's power; k of N
// runs is. `make mutants` measures how often (--runs 20).
func (b Build) NaturalRace() bool { return b.spec().race }

// InProcessOnly, when not empty, says why the defect cannot show through a process
// boundary (the wire protocol): such a mutant is not judged over the wire.
func (b Build) InProcessOnly() string { return b.spec().inProcessOnly }

// Catalogue returns every mutant, sorted by name.
func Catalogue() []mutant.Mutant[Build] {
	out := append([]mutant.Mutant[Build](nil), catalogue...)

	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// HonestName names the catalogue's store without a defect in Lookup.
const HonestName = "honest"

// Lookup finds a mutant by name; HonestName finds the honest store.
func Lookup(name string) (mutant.Mutant[Build], bool) {
	if name == HonestName {
		return mutant.Mutant[Build]{Name: HonestName, Defect: "none: the honest store every mutant is a variant of", Build: Build{Eras: both}}, true
	}
	switch name {
	case DiesMidRunName:
		return diesMidRun, true
	case RefusesUpdateName:
		return refusesUpdate, true
	case PanicsInRaceName:
		return panicsInRace, true
	}
	for _, m := range append(catalogue[:len(catalogue):len(catalogue)], variants...) {
		if m.Name == name {
			return m, true
		}
	}
	return mutant.Mutant[Build]{}, false
}

// Harness puts the mutant m under the battery.
func Harness(m mutant.Mutant[Build]) harness.Harness {
	if o, ok := ownStores[m.Name]; ok {
		return o.harness()
	}
	w := m.Build.w
	if w == nil {
		return Honest()
	}
	if w.slow {
		return &unheldHarness{storeHarness{name: "mutant " + m.Name, w: w}}
	}
	return &storeHarness{name: "mutant " + m.Name, w: w}
}

// Stores returns a fresh pair of the stores of the mutant m reading clock, for serving it
// over the wire protocol.
func Stores(m mutant.Mutant[Build], clock reference.Clock) (legacy.Store, modern.Store) {
	if o, ok := ownStores[m.Name]; ok {
		return o.stores(clock)
	}
	return m.Build.spec().stores(clock)
}

// SDKStore returns a fresh SDK-profile store of the mutant reading clock: its defect
// when it is one of the profile's, the honest store of the profile otherwise.
func (b Build) SDKStore(clock reference.Clock) sdk.Store {
	return b.spec().wrapSDK(sdkStore{b: newSDKBackend(clock)}, newWrapState())
}

// Honest is the catalogue's store without a defect: it must pass the battery.
func Honest() harness.Harness { return &storeHarness{name: "mutants' honest store", w: &wrapper{}} }

// HonestStores is Stores for the honest store.
func HonestStores(clock reference.Clock) (legacy.Store, modern.Store) {
	return Stores(mutant.Mutant[Build]{}, clock)
}
