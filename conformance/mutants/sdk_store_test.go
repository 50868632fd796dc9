package mutants_test

import (
	"strings"
	"testing"

	"github.com/storecheck/storecheck/conformance/mutants"
	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/sdk"
)

// TestSDKStoreOfMutant: Mutant.SDKStore (what a server of the mutants over the wire
// uses) carries the mutant's defect, and the honest one's store behaves.
func TestSDKStoreOfMutant(t *testing.T) {
	ctx := t.Context()
	m, ok := mutants.Lookup("sdk-sessionless-sees-all")
	if !ok {
		t.Fatal("no mutant sdk-sessionless-sees-all")
	}
	honest, _ := mutants.Lookup(mutants.HonestName)
	for _, c := range []struct {
		m    mutant.Mutant[mutants.Build]
		want error
	}{{honest, reference.ErrNotFound}, {m, nil}} {
		st := c.m.Build.SDKStore(reference.SystemClock{})
		task, err := st.CreateTask(ctx, "alice", sdk.CreateParams{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = st.GetTask(ctx, sdk.NoSession, task.TaskID)
		if (c.want == nil) != (err == nil) || (c.want != nil && !strings.Contains(err.Error(), "not found")) {
			t.Errorf("%s: GetTask(no session) of alice's task: err %v, want %v", c.m.Name, err, c.want)
		}
	}
}
