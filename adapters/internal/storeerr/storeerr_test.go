package storeerr

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/storecheck/storecheck/reference"
)

func TestWrap(t *testing.T) {
	live := context.Background()
	ended, cancel := context.WithCancel(live)
	cancel()
	boom := errors.New("connection reset")
	for _, tc := range []struct {
		name string
		ctx  context.Context
		err  error
		is   []error
		not  []error
	}{
		{"a sentinel passes through", live, fmt.Errorf("x: %w", reference.ErrConflict), []error{reference.ErrConflict}, []error{reference.ErrInternal}},
		{"the context's error in err", live, fmt.Errorf("read: %w", context.DeadlineExceeded), []error{context.DeadlineExceeded}, []error{reference.ErrInternal}},
		{"an ended context", ended, boom, []error{context.Canceled}, []error{reference.ErrInternal}},
		{"anything else is internal", live, boom, []error{reference.ErrInternal}, []error{context.Canceled}},
	} {
		got := Wrap(tc.ctx, "db", "get", tc.err)
		for _, want := range tc.is {
			if !errors.Is(got, want) {
				t.Errorf("%s: Wrap = %v, want errors.Is %v", tc.name, got, want)
			}
		}
		for _, not := range tc.not {
			if errors.Is(got, not) {
				t.Errorf("%s: Wrap = %v, must not be %v", tc.name, got, not)
			}
		}
		if !IsSentinel(tc.err) && !strings.HasPrefix(got.Error(), "db: get: ") {
			t.Errorf("%s: Wrap = %q, want the backend and the operation first", tc.name, got)
		}
	}
	if Known(live, "db", "get", boom) != nil {
		t.Error("Known(a plain error, live context) is not nil")
	}
}
