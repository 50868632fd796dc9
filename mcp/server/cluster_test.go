package server_test

import (
	"testing"

	"github.com/storecheck/storecheck/mcp/cluster"
	"github.com/storecheck/storecheck/mcp/server/clustertest"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/memstore"
)

// unclosed is a backend the instances share in one process: the test closes it, not
// each instance.
type unclosed struct{ cluster.Backend }

func (unclosed) Close() error { return nil }

// TestScaledOut: three instances over one in-process store and cluster.Memory are one
// server to their clients (clustertest.Run).
func TestScaledOut(t *testing.T) {
	st := memstore.New(memstore.WithClock(reference.SystemClock{}))
	b := cluster.NewMemory()
	t.Cleanup(func() { b.Close() })
	clustertest.Run(t, func(testing.TB) clustertest.Instance {
		return clustertest.Instance{Legacy: st.Legacy(), Modern: st.Modern(), Backend: unclosed{b}}
	})
}
