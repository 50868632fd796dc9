// Package sdkedge runs the SDK profile's battery in process against a store built to
// reach two paths no real store here takes: a store that keeps another ttl than the one
// asked for (the specs count the kept one: P-TTL-1, P-TTL-2, P-CLEAN-1 and P-LIST-2
// still pass), and a store whose WaitForUpdate panics (P-WAIT-1 fails with the panic;
// the run goes on to its report). Its own package: Ginkgo runs specs once per process.
package sdkedge_test

import (
	"context"
	"strings"
	"testing"

	"github.com/storecheck/storecheck/adapters/memharness"
	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/memstore"
	"github.com/storecheck/storecheck/reference/sdk"
)

// doublingSDK keeps (and reports) twice every positive ttl asked for, and panics in
// WaitForUpdate.
type doublingSDK struct{ *memstore.SDK }

func (s doublingSDK) CreateTask(ctx context.Context, session string, p sdk.CreateParams) (sdk.Task, error) {
	if p.TTL != nil && *p.TTL > 0 {
		v := 2 * *p.TTL
		p.TTL = &v
	}
	return s.SDK.CreateTask(ctx, session, p)
}

func (s doublingSDK) WaitForUpdate(context.Context, string, string) error {
	panic("doublingSDK: WaitForUpdate panics")
}

func TestKeptTTLCountedAndWaitPanicRecovered(t *testing.T) {
	h := harness.WithSDK(memharness.Harness(), func(clock reference.Clock) sdk.Store {
		return doublingSDK{memstore.NewSDK(memstore.WithSDKClock(clock))}
	})
	rep, err := conformance.Execute(h, conformance.ExecConfig{
		Eras:    []conformance.Era{conformance.EraSDK},
		Rules:   []string{"P-TTL-1", "P-TTL-2", "P-CLEAN-1", "P-LIST-2", "P-WAIT-1"},
		Options: conformance.Options{Strict: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]conformance.Outcome{
		"P-TTL-1": conformance.Passed, "P-TTL-2": conformance.Passed, "P-CLEAN-1": conformance.Passed,
		"P-LIST-2": conformance.Passed, "P-WAIT-1": conformance.Failed,
	} {
		r, ok := rep.Rule(id, conformance.EraSDK)
		if !ok {
			t.Errorf("%s: not in the report", id)
			continue
		}
		t.Logf("%s %s %v", id, r.Outcome, r.Notes)
		if r.Outcome != want {
			t.Errorf("%s: %s, want %s: %v", id, r.Outcome, want, r.Reasons)
		}
		if strings.HasPrefix(id, "P-TTL-") && !strings.Contains(strings.Join(r.Notes, "\n"), "the spec counts the kept one") {
			t.Errorf("%s: no note of the kept ttl (the kept-ttl path did not run): %v", id, r.Notes)
		}
		if id == "P-WAIT-1" && !strings.Contains(strings.Join(r.Reasons, "\n"), "WaitForUpdate panics") {
			t.Errorf("P-WAIT-1 failed without the store's panic: %v", r.Reasons)
		}
	}
}
