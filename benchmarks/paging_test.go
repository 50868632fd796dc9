package benchmarks

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/storecheck/storecheck/conformance/mutants"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/memstore"
	"github.com/storecheck/storecheck/reference/sdk"
)

// repeatingSDK lists its first task again on every page after the first.
type repeatingSDK struct{ *memstore.SDK }

func (s repeatingSDK) ListTasks(ctx context.Context, session, cursor string) (sdk.Page, error) {
	p, err := s.SDK.ListTasks(ctx, session, cursor)
	if err == nil && cursor != "" {
		first, _ := s.SDK.ListTasks(ctx, session, "")
		p.Tasks = append(p.Tasks, first.Tasks[0])
	}
	return p, err
}

// slowSDK sleeps on every page.
type slowSDK struct{ *memstore.SDK }

func (s slowSDK) ListTasks(ctx context.Context, session, cursor string) (sdk.Page, error) {
	time.Sleep(2 * time.Millisecond)
	return s.SDK.ListTasks(ctx, session, cursor)
}

func subject(name string, st sdk.Store) PagingSubject {
	return PagingSubject{Name: name, Open: func(context.Context) (sdk.Store, func(context.Context) error, error) {
		return st, func(context.Context) error { return nil }, nil
	}}
}

func TestPaging(t *testing.T) {
	ctx := context.Background()
	sizes := []int{64, 128, 256}
	res, err := Paging(ctx, []PagingSubject{subject("mem", memstore.NewSDK(memstore.WithPageSize(10)))}, PagingOptions{Sizes: sizes, Count: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != 3 || res.Points[2].N != 256 || res.Points[2].Pages != 26 || len(res.Notes) != 0 {
		t.Fatalf("points %+v notes %q; want 3 points, 256 tasks in 26 pages of 10, no cap", res.Points, res.Notes)
	}
	if g := res.Growth("mem", 256); g <= 0 {
		t.Errorf("Growth(256) = %v, want a ratio", g)
	}
	var table, svg bytes.Buffer
	if err := WritePagingTable(&table, res); err != nil || !strings.Contains(table.String(), "256") || !strings.Contains(table.String(), "(26 pages)") {
		t.Errorf("table (%v):\n%s", err, table.String())
	}
	if err := WritePagingSVG(&svg, "t", res); err != nil || strings.Count(svg.String(), "<circle") != 3 || !strings.Contains(svg.String(), "<polyline") {
		t.Errorf("svg (%v):\n%s", err, svg.String())
	}

	if _, err := Paging(ctx, []PagingSubject{subject("x", memstore.NewSDK()), subject("x", memstore.NewSDK())}, PagingOptions{Sizes: []int{10}}); err == nil {
		t.Error("two stores of one name: no error")
	}

	// A listing that repeats a task is no measurement: the run fails, naming the page.
	_, err = Paging(ctx, []PagingSubject{subject("rep", repeatingSDK{memstore.NewSDK(memstore.WithPageSize(10))})}, PagingOptions{Sizes: []int{30}})
	if err == nil || !strings.Contains(err.Error(), "page 2") {
		t.Errorf("a store repeating a task: err = %v, want one naming page 2", err)
	}

	// Over the budget, larger N are not listed and the cap is noted.
	res, err = Paging(ctx, []PagingSubject{subject("slow", slowSDK{memstore.NewSDK(memstore.WithPageSize(10))})}, PagingOptions{Sizes: []int{50, 100, 200}, Budget: 5 * time.Millisecond})
	if err != nil || len(res.Points) != 1 || len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "capped at N = 50") {
		t.Errorf("a slow store: %+v, %v; want one point and a cap note", res, err)
	}
}

// TestPagingTellsLinearFromQuadratic: the benchmark tells an O(page) store from an
// O(tasks)-per-page one. Listed at N and 16N, the reference store's cost per task grows
// at most 6 times (1 when linear), and the sdk-quadratic-paging mutant's (which copies
// every task of the caller on each page, as the TypeScript store does) at least 6 times
// (16 when quadratic). The gap is 16× and not 8× because a per-task cost the two share
// dilutes the quadratic term at small N: under -race, 500 → 4 000 measured only 5.86 in
// CI (stop 23). A busy machine only adds time, so each listing's time is the fastest of
// five rounds (fresh stores each, three listings a round).
func TestPagingTellsLinearFromQuadratic(t *testing.T) {
	if testing.Short() {
		t.Skip("lists 4 000 tasks fifteen times per store; skipped with -short")
	}
	quad, ok := mutants.Lookup("sdk-quadratic-paging")
	if !ok {
		t.Fatal("no mutant sdk-quadratic-paging")
	}
	const n, big = 250, 4_000
	fastest := map[string]map[int]time.Duration{"memstore": {}, "sdk-quadratic-paging": {}}
	for range 5 {
		res, err := Paging(context.Background(), []PagingSubject{
			subject("memstore", memstore.NewSDK()),
			subject("sdk-quadratic-paging", quad.Build.SDKStore(reference.SystemClock{})),
		}, PagingOptions{Sizes: []int{n, big}, Count: 3, Fastest: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range res.Points {
			if d, ok := fastest[p.Subject][p.N]; !ok || p.Listing < d {
				fastest[p.Subject][p.N] = p.Listing
			}
		}
	}
	perTask := func(name string) float64 {
		at := fastest[name]
		if at[n] <= 0 || at[big] <= 0 {
			t.Fatalf("%s: no listing time at %d and %d: %v", name, n, big, at)
		}
		return (float64(at[big]) / big) / (float64(at[n]) / n)
	}
	lin, sq := perTask("memstore"), perTask("sdk-quadratic-paging")
	t.Logf("cost per task at %d ÷ at %d (fastest listings %v): memstore %.2f, sdk-quadratic-paging %.2f", big, n, fastest, lin, sq)
	if lin > 6 {
		t.Errorf("memstore's SDK store: cost per task listed grows %.2f times from %d to %d tasks; want at most 6 (linear: 1)", lin, n, big)
	}
	if sq < 6 {
		t.Errorf("sdk-quadratic-paging: cost per task listed grows %.2f times from %d to %d tasks; want at least 6 (quadratic: 8): the benchmark does not see O(tasks) pages", sq, n, big)
	}
}
