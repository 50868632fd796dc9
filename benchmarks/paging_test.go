package benchmarks

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

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
