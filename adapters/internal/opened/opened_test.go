package opened

import (
	"errors"
	"slices"
	"testing"
)

func TestSetKeepsWhatItOpensUntilClosed(t *testing.T) {
	var s Set[int]
	errClosed := errors.New("closed")
	n := 0
	open := func() (int, error) { n++; return n, nil }
	for range 2 {
		if _, err := s.Add(open, errClosed); err != nil {
			t.Fatal(err)
		}
	}
	boom := errors.New("boom")
	if _, err := s.Add(func() (int, error) { return 0, boom }, errClosed); !errors.Is(err, boom) {
		t.Errorf("Add with a failing open: want its error, got %v", err)
	}
	if got := s.Close(); !slices.Equal(got, []int{1, 2}) {
		t.Errorf("Close = %v, want [1 2] (what was opened, not what failed)", got)
	}
	if _, err := s.Add(open, errClosed); !errors.Is(err, errClosed) || n != 2 {
		t.Errorf("Add after Close = %v with %d opens; want the closed error and no open", err, n)
	}
	if got := s.Close(); len(got) != 0 {
		t.Errorf("second Close = %v, want nothing", got)
	}
}
