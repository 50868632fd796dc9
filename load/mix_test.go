package load_test

import (
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/load"
)

// TestParseMix: the kinds named get their weights, the rest none; the default mix reads
// back as itself; bad mixes are configuration errors naming the fault.
func TestParseMix(t *testing.T) {
	if m, err := load.ParseMix(load.DefaultMix.String()); err != nil || m != load.DefaultMix {
		t.Errorf("ParseMix(%q) = %+v, %v; want the default mix back", load.DefaultMix.String(), m, err)
	}
	if m, err := load.ParseMix("quick=3, list=1"); err != nil || m != (load.Mix{Quick: 3, List: 1}) {
		t.Errorf("ParseMix(\"quick=3, list=1\") = %+v, %v; want quick 3, list 1, the rest 0", m, err)
	}
	for _, bad := range []string{"", "quick", "fast=1", "quick=-1", "quick=x", "quick=0,list=0"} {
		if m, err := load.ParseMix(bad); !errors.Is(err, load.ErrConfig) {
			t.Errorf("ParseMix(%q) = %+v, %v; want ErrConfig", bad, m, err)
		}
	}
}

// TestMixDecidesTheRounds: a mix without list rounds makes no tasks/list call; one of
// list rounds only makes them (against the stub, which answers at once).
func TestMixDecidesTheRounds(t *testing.T) {
	stub := httptest.NewServer(load.Stub())
	defer stub.Close()
	lists := func(mix load.Mix) int64 {
		r, err := load.Run(t.Context(), load.Config{URLs: []string{stub.URL + "/mcp"}, Principals: principals, Unjudged: true,
			Eras: []conformance.Era{conformance.EraLegacy}, Clients: 4, Tasks: 40, Mix: mix, Wait: 3 * time.Second, Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range r.Ops {
			if op.Method == "tasks/list" {
				return op.Count
			}
		}
		return 0
	}
	if n := lists(load.Mix{Quick: 1}); n != 0 {
		t.Errorf("mix quick=1: %d tasks/list calls; want none", n)
	}
	if n := lists(load.Mix{List: 1}); n < 40 {
		t.Errorf("mix list=1, 40 tasks: %d tasks/list calls; want one a task, 40 or more", n)
	}
	if _, err := load.Run(t.Context(), load.Config{URLs: []string{stub.URL + "/mcp"}, Principals: principals, Tasks: 1,
		Mix: load.Mix{Quick: -1, List: 2}}); !errors.Is(err, load.ErrConfig) {
		t.Errorf("load.Run with a negative weight: %v; want ErrConfig", err)
	}
}
