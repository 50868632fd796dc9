package conformance

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/storecheck/storecheck/conformance/ginkgoreport"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference"
)

func TestRuleFilter(t *testing.T) {
	both := []Era{EraLegacy, EraModern}
	got, err := ruleFilter([]string{"S-OWN-1", " L-LIST-2"}, "must", both)
	if err != nil || got != "(S-OWN-1 || L-LIST-2) && (must)" {
		t.Errorf("ruleFilter = %q, %v; want %q", got, err, "(S-OWN-1 || L-LIST-2) && (must)")
	}
	for _, c := range []struct {
		ids  []string
		eras []Era
		want string
	}{
		{[]string{"X-NOPE-1"}, both, "unknown rule"},
		{[]string{"B-POWER-1"}, both, "battery"},
		{[]string{"M-GET-1"}, []Era{EraLegacy}, "modern era"},
	} {
		_, err := ruleFilter(c.ids, "", c.eras)
		if !errors.Is(err, ErrSelection) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ruleFilter(%q, eras %v) error = %v; want ErrSelection mentioning %q", c.ids, c.eras, err, c.want)
		}
	}
	if _, err := ginkgoreport.NewSelection(both, "((must", nil); err == nil || strings.Contains(err.Error(), "\x1b") {
		t.Errorf("newSelection with a bad filter: error %q, want one without terminal colours", err)
	}
	if _, err := ginkgoreport.NewSelection(both, "", []string{"("}); err == nil {
		t.Errorf("newSelection with a bad focus regexp: no error")
	}
}

type erasHarness struct{ caps harness.Capabilities }

func (h erasHarness) Name() string { return "eras" }

func (h erasHarness) Capabilities() harness.Capabilities { return h.caps }

func (h erasHarness) Open(context.Context, reference.Clock) (harness.Namespace, error) {
	return nil, errors.New("not openable")
}

func TestSelectEras(t *testing.T) {
	legacyOnly := erasHarness{harness.Capabilities{Legacy: true}}
	if got, err := selectEras(legacyOnly, nil); err != nil || len(got) != 1 || got[0] != EraLegacy {
		t.Errorf("selectEras(legacy-only, nil) = %v, %v; want [legacy]", got, err)
	}
	if _, err := selectEras(legacyOnly, []Era{EraModern}); !errors.Is(err, ErrSelection) {
		t.Errorf("selectEras(legacy-only, [modern]) error = %v, want ErrSelection", err)
	}
	if _, err := selectEras(erasHarness{}, nil); !errors.Is(err, ErrSelection) {
		t.Errorf("selectEras(no eras) error = %v, want ErrSelection", err)
	}
	both := erasHarness{harness.Capabilities{Legacy: true, Modern: true}}
	if got, err := selectEras(both, []Era{EraModern, EraLegacy, EraModern}); err != nil || len(got) != 2 || got[0] != EraLegacy {
		t.Errorf("selectEras(both, [modern legacy modern]) = %v, %v; want [legacy modern]", got, err)
	}
	if err := bringUp(context.Background(), legacyOnly, []Era{EraLegacy}); !errors.Is(err, ErrBringUp) || !strings.Contains(err.Error(), "not openable") {
		t.Errorf("bringUp of a harness that cannot open: %v, want ErrBringUp with the cause", err)
	}
}
