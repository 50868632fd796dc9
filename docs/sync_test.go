package docs_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/docs"
)

func catalogueIDs() []string {
	var ids []string
	for _, r := range conformance.Rules() {
		ids = append(ids, r.ID)
	}
	return ids
}

// wantNoneApart fails the test for every name (rules, ops) only the code or only the
// document has.
func wantNoneApart(t *testing.T, names, code, doc string, onlyCode, onlyDoc []string) {
	t.Helper()
	if len(onlyCode) > 0 {
		t.Errorf("%s in %s but not defined in %s: %v", names, code, doc, onlyCode)
	}
	if len(onlyDoc) > 0 {
		t.Errorf("%s defined in %s but not in %s: %v", names, doc, code, onlyDoc)
	}
}

// TestSpecMatchesCatalogue is the sync check: every rule the battery knows is defined in
// docs/spec.md, at the same level, and every rule docs/spec.md defines is in the catalogue.
func TestSpecMatchesCatalogue(t *testing.T) {
	onlyCat, onlySpec, err := docs.Diff(docs.Spec, catalogueIDs())
	if err != nil {
		t.Fatal(err)
	}
	wantNoneApart(t, "rules", "conformance/rules/rules.go", "docs/spec.md", onlyCat, onlySpec)
	for _, r := range conformance.Rules() {
		text, err := docs.Rule(r.ID)
		if err != nil {
			continue // reported above
		}
		if !strings.EqualFold(text.Level, string(r.Level)) {
			t.Errorf("%s: level %s in docs/spec.md, %s in conformance/rules/rules.go", r.ID, text.Level, r.Level)
		}
	}
}

// TestDiffCatchesRemovals proves the sync check can fail: it removes one ID from each
// side in turn and wants Diff to name it.
func TestDiffCatchesRemovals(t *testing.T) {
	ids := catalogueIDs()
	for _, victim := range []string{"L-LIST-4", "S-OWN-1", "M-F-INPUT-2", "B-ISO-1"} {
		if !slices.Contains(ids, victim) {
			t.Fatalf("%s is not in the catalogue", victim)
		}
		// Removed from the spec: the rule's item is gone, the catalogue still has it.
		item := "\n- **" + victim + "** "
		i := strings.Index(docs.Spec, item)
		if i < 0 {
			t.Fatalf("docs/spec.md has no item %q", item)
		}
		mutated := docs.Spec[:i] + "\n- a rule that lost its ID " + docs.Spec[i+len(item):]
		onlyCat, onlySpec, err := docs.Diff(mutated, ids)
		if err != nil || !slices.Equal(onlyCat, []string{victim}) || len(onlySpec) != 0 {
			t.Errorf("%s removed from the spec: Diff = %v, %v, %v; want [%s], [], nil", victim, onlyCat, onlySpec, err, victim)
		}
		// Removed from the catalogue: the spec still defines it.
		short := slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return id == victim })
		onlyCat, onlySpec, err = docs.Diff(docs.Spec, short)
		if err != nil || len(onlyCat) != 0 || !slices.Equal(onlySpec, []string{victim}) {
			t.Errorf("%s removed from the catalogue: Diff = %v, %v, %v; want [], [%s], nil", victim, onlyCat, onlySpec, err, victim)
		}
	}
	// A duplicate definition is refused rather than silently shadowed.
	dup := docs.Spec + "\n- **L-LIST-4** MUST: a second text.\n"
	if _, _, err := docs.Diff(dup, ids); err == nil {
		t.Error("Diff accepted a spec defining L-LIST-4 twice")
	}
}

func TestRuleFullText(t *testing.T) {
	r, err := docs.Rule("L-LIST-4")
	if err != nil {
		t.Fatal(err)
	}
	// The last words of the rule sit on its last continuation line: the whole item was read.
	if r.Level != "MUST" || !strings.HasPrefix(r.Text, "**L-LIST-4** MUST") || !strings.HasSuffix(r.Text, "starves the caller of its own rows and is a failure.") {
		t.Errorf("Rule(L-LIST-4) = %+v", r)
	}
	if _, err := docs.Rule("L-LIST-99"); !errors.Is(err, docs.ErrNoRule) {
		t.Errorf("Rule(L-LIST-99) error = %v, want ErrNoRule", err)
	}
}
