package clustertest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"

	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/mcp/cluster"
	"github.com/storecheck/storecheck/reference"
)

// NamedHarness opens a namespace by name, shared by every instance that opens the name
// (the backends' OpenNamed); its namespaces have a Cluster (NamedCluster).
type NamedHarness interface {
	OpenNamed(ctx context.Context, clock reference.Clock, name string) (harness.Namespace, error)
}

// NamedCluster is a named namespace's cluster backend.
type NamedCluster interface {
	Cluster(ctx context.Context) (cluster.Backend, error)
}

// Named opens each instance as storecheck serve --mcp --namespace does, as a process of
// its own would: a harness of its own (newHarness, with what closes it), the namespace
// name, its stores and its cluster backend.
func Named(newHarness func() (NamedHarness, func()), name string) Open {
	return func(t testing.TB) Instance {
		ctx := context.Background()
		h, closeHarness := newHarness()
		ns, err := h.OpenNamed(ctx, reference.SystemClock{}, name)
		if err != nil {
			closeHarness()
			t.Fatalf("OpenNamed %s: %v", name, err)
		}
		t.Cleanup(func() { _ = ns.Close(ctx); closeHarness() })
		in := Instance{}
		if in.Legacy, err = ns.Legacy(ctx); err != nil {
			t.Fatalf("namespace %s: Legacy: %v", name, err)
		}
		if in.Modern, err = ns.Modern(ctx); err != nil {
			t.Fatalf("namespace %s: Modern: %v", name, err)
		}
		nc, ok := ns.(NamedCluster)
		if !ok {
			t.Fatalf("namespace %s (%T) has no Cluster", name, ns)
		}
		if in.Backend, err = nc.Cluster(ctx); err != nil {
			t.Fatalf("namespace %s: Cluster: %v", name, err)
		}
		return in
	}
}

// RunNamed runs the checks (Run) over a namespace of a fresh name that every instance
// opens by name (Named); drop removes what the namespace left in the backend.
func RunNamed(t *testing.T, newHarness func() (NamedHarness, func()), drop func(name string)) {
	var b [8]byte
	_, _ = rand.Read(b[:])
	name := "mcp_" + hex.EncodeToString(b[:])
	t.Cleanup(func() { drop(name) })
	Run(t, Named(newHarness, name))
}
