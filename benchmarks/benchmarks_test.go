package benchmarks

import (
	"context"
	"errors"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/storecheck/storecheck/adapters/wire/wiretest"
)

// wireChildEnv makes this test binary the wire target's child: it serves memstore over
// the wire protocol on stdin and stdout instead of running tests.
const wireChildEnv = "STORECHECK_BENCH_WIRE_CHILD"

func TestMain(m *testing.M) { wiretest.Main(m, wireChildEnv) }

// testEnv is the bring-up environment of the Go benchmarks: servers from the usual
// environment variables or containers, and this binary as the wire child.
func testEnv() Env {
	return Env{WireCommand: []string{os.Args[0]}, WireEnv: append(os.Environ(), wireChildEnv+"=memstore")}
}

func BenchmarkMemstore(b *testing.B) { benchTarget(b, "memstore") }
func BenchmarkEtsLike(b *testing.B)  { benchTarget(b, "ets-like") }
func BenchmarkWire(b *testing.B)     { benchTarget(b, "wire") }

// benchTarget runs every case of a target as sub-benchmarks named like Result.Name:
// op=…/mode=…/subject=store|baseline, the store and the baseline alternating.
func benchTarget(b *testing.B, name string) {
	benchTargetWith(b, name, func(b *testing.B, run func(*testing.B)) { run(b) })
}

// benchTargetWith is benchTarget with each subject's timed loop run through around.
func benchTargetWith(b *testing.B, name string, around func(b *testing.B, run func(*testing.B))) {
	t, err := Lookup(name)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	be, err := t.Start(ctx, testEnv())
	if errors.Is(err, ErrUnavailable) {
		b.Skipf("%s: skipped: %v (set CI=true to make this a failure)", name, err)
	}
	if err != nil {
		b.Fatalf("%s: bring-up: %v", name, err)
	}
	if be.Stop != nil {
		b.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := be.Stop(ctx); err != nil {
				b.Errorf("%s: stop: %v", name, err)
			}
		})
	}
	for _, c := range Cases() {
		b.Run("op="+c.Op, func(b *testing.B) {
			fixtures := []*fixture{newFixture(be.Store, c), newFixture(be.Baseline, c)}
			defer func() {
				for _, f := range fixtures {
					if err := f.close(context.Background()); err != nil {
						b.Errorf("closing %s: %v", f.subj.What, err)
					}
				}
			}()
			for _, mode := range c.Modes {
				b.Run("mode="+string(mode), func(b *testing.B) {
					for _, f := range fixtures {
						b.Run("subject="+f.subj.Label, func(b *testing.B) {
							if err := f.ensure(context.Background()); err != nil {
								b.Fatal(err) // seeded before around, so that it is not counted
							}
							around(b, f.bench(mode))
						})
					}
				})
			}
		})
	}
}

// TestEveryCaseRunsOnce runs every benchmark body once (b.N = 1), both subjects, so the
// benchmark code cannot rot unseen: every case checks what it gets (list sizes, cleanup
// counts, errors). memstore runs every case; ets-like and wire (this binary as the child)
// run a few, for their bring-up.
func TestEveryCaseRunsOnce(t *testing.T) {
	for _, c := range []struct {
		target string
		ops    []string
	}{
		{"memstore", nil},
		{"ets-like", []string{"legacy-create", "modern-cas"}},
		{"wire", []string{"legacy-get", "modern-swap"}},
	} {
		t.Run(c.target, func(t *testing.T) {
			target, err := Lookup(c.target)
			if err != nil {
				t.Fatal(err)
			}
			results, err := Run(t.Context(), target, Options{Env: testEnv(), Benchtime: "1x", CleanupBenchtime: "1x", Ops: c.ops})
			if err != nil {
				t.Fatalf("Run(%s, 1x): %v", c.target, err)
			}
			want := 0
			for _, k := range Cases() {
				if c.ops == nil || slices.Contains(c.ops, k.Op) {
					want += 2 * len(k.Modes)
				}
			}
			if len(results) != want {
				t.Errorf("Run(%s, ops %v) gave %d results, want %d (every case × mode × {store, baseline})", c.target, c.ops, len(results), want)
			}
			for _, r := range results {
				if r.Failed != "" || r.N != 1 || r.NsPerOp <= 0 {
					t.Errorf("%s: N = %d, %.0f ns/op, failure %q; want one timed op and no failure", r.Name(), r.N, r.NsPerOp, r.Failed)
				}
			}
		})
	}
}

// TestGrowthRotatesSpaces checks the memory cap of the create cases: every growCap ops
// a fresh Space replaces the current one, and close closes every Space it opened.
func TestGrowthRotatesSpaces(t *testing.T) {
	opened, closed := 0, 0
	open := func(context.Context) (*Space, error) {
		opened++
		return &Space{Close: func(context.Context) error { closed++; return nil }}, nil
	}
	first, _ := open(t.Context())
	g := &growth{open: open}
	g.cur.Store(first)
	seen := map[*Space]int{}
	for range 2*growCap + 1 {
		sp, err := g.space(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		seen[sp]++
	}
	if opened != 3 || len(seen) != 3 {
		t.Fatalf("after %d ops: %d spaces opened, %d used; want 3 and 3 (one per %d ops)", 2*growCap+1, opened, len(seen), growCap)
	}
	for sp, n := range seen {
		if n > growCap {
			t.Errorf("a space took %d ops, want at most %d", n, growCap)
		}
		_ = sp
	}
	if err := first.Close(t.Context()); err != nil { // the fixture closes the first one
		t.Fatal(err)
	}
	if err := g.close(t.Context()); err != nil {
		t.Fatal(err)
	}
	if closed != 3 {
		t.Errorf("closed %d spaces, want 3", closed)
	}
}
