package benchmarks

import (
	"slices"
	"testing"
)

func BenchmarkRiverSQLite(b *testing.B)   { benchTarget(b, "river-sqlite") }
func BenchmarkRiverPostgres(b *testing.B) { benchTarget(b, "river-postgres") }

// TestRiverSQLiteCasesRunOnce runs the row+job inserts and the plain updates once against
// the River store on SQLite and its baseline (no Docker needed), so the River benchmark
// code cannot rot unseen. (Every case takes 95 s on a loaded 2-core machine.)
func TestRiverSQLiteCasesRunOnce(t *testing.T) {
	target, err := Lookup("river-sqlite")
	if err != nil {
		t.Fatal(err)
	}
	results, err := Run(t.Context(), target, Options{Env: testEnv(), Benchtime: "1x", CleanupBenchtime: "1x", Ops: riverOps})
	if err != nil {
		t.Fatalf("Run(river-sqlite, 1x): %v", err)
	}
	want := 0
	for _, k := range Cases() {
		if slices.Contains(riverOps, k.Op) {
			want += 2 * len(k.Modes)
		}
	}
	if len(results) != want {
		t.Errorf("Run(river-sqlite) gave %d results, want %d", len(results), want)
	}
	for _, r := range results {
		if r.Failed != "" || r.N != 1 || r.NsPerOp <= 0 {
			t.Errorf("%s: N = %d, %.0f ns/op, failure %q", r.Name(), r.N, r.NsPerOp, r.Failed)
		}
	}
}

var riverOps = []string{"legacy-create", "legacy-update", "modern-create", "modern-swap"}
