package postgres_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/modern"
)

func TestDbgLatency(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	const n = 200
	start := time.Now()
	for i := range n {
		if _, err := f.modern.Create(ctx, modern.Task{TaskID: fmt.Sprint(i), Status: "working"}); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("create %s/op", time.Since(start)/n)
	start = time.Now()
	for i := range n {
		if _, err := f.modern.Get(ctx, fmt.Sprint(i), reference.System()); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("get %s/op", time.Since(start)/n)
	start = time.Now()
	for i := range n {
		if _, err := f.modern.Swap(ctx, reference.System(), 1, modern.Task{TaskID: fmt.Sprint(i), Status: "completed"}); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("swap %s/op", time.Since(start)/n)
	start = time.Now()
	for i := range n {
		if _, err := f.modern.Swap(ctx, reference.System(), 1, modern.Task{TaskID: fmt.Sprint(i), Status: "completed"}); err == nil {
			t.Fatal("no conflict")
		}
	}
	t.Logf("conflicting swap %s/op", time.Since(start)/n)
}
