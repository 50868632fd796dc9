package reference

import (
	"fmt"
	"testing"
)

// TestValidTransitionTable checks every cell of the docs/spec.md section 0 table (S-TRANS-1)
// against an independent transcription of it, plus unknown statuses on either side.
func TestValidTransitionTable(t *testing.T) {
	// want[from][to], transcribed from the table row by row.
	want := map[Status]map[Status]bool{
		StatusWorking:       {StatusWorking: true, StatusInputRequired: true, StatusCompleted: true, StatusFailed: true, StatusCancelled: true},
		StatusInputRequired: {StatusWorking: true, StatusInputRequired: true, StatusCompleted: true, StatusFailed: true, StatusCancelled: true},
		StatusCompleted:     {StatusWorking: false, StatusInputRequired: false, StatusCompleted: false, StatusFailed: false, StatusCancelled: false},
		StatusFailed:        {StatusWorking: false, StatusInputRequired: false, StatusCompleted: false, StatusFailed: false, StatusCancelled: false},
		StatusCancelled:     {StatusWorking: false, StatusInputRequired: false, StatusCompleted: false, StatusFailed: false, StatusCancelled: false},
	}
	cells := 0
	for from, row := range want {
		for to, ok := range row {
			cells++
			if got := ValidTransition(from, to); got != ok {
				t.Errorf("S-TRANS-1: ValidTransition(%q, %q): want %v, got %v", from, to, ok, got)
			}
		}
	}
	if cells != 25 {
		t.Fatalf("table transcription has %d cells, want 25", cells)
	}
	unknown := []Status{"", "Working", "WORKING", "done", "canceled", "working ", "completed\x00", "input-required"}
	for _, u := range unknown {
		for _, s := range append(Statuses(), unknown...) {
			for _, pair := range [][2]Status{{u, s}, {s, u}} {
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Errorf("S-TRANS-1: ValidTransition(%q, %q) panicked: %v", pair[0], pair[1], r)
						}
					}()
					if ValidTransition(pair[0], pair[1]) {
						t.Errorf("S-TRANS-1: ValidTransition(%q, %q) with an unknown status: want false, got true", pair[0], pair[1])
					}
				}()
			}
		}
	}
}

func TestStatusKnownTerminal(t *testing.T) {
	terminal := map[Status]bool{StatusWorking: false, StatusInputRequired: false, StatusCompleted: true, StatusFailed: true, StatusCancelled: true}
	if got := len(Statuses()); got != 5 {
		t.Fatalf("Statuses(): want 5 statuses, got %d", got)
	}
	for i, s := range Statuses() {
		if !s.Known() {
			t.Errorf("%q.Known(): want true, got false", s)
		}
		want, ok := terminal[s]
		if !ok {
			t.Errorf("Statuses()[%d] = %q is not a status of docs/spec.md section 0", i, s)
		}
		if s.Terminal() != want {
			t.Errorf("%q.Terminal(): want %v, got %v", s, want, s.Terminal())
		}
		if i < 2 && s.Terminal() {
			t.Errorf("Statuses(): non-terminal statuses come first, got %q at %d", s, i)
		}
	}
	for _, s := range []Status{"", "Completed", "done", "cancelled "} {
		if s.Known() || s.Terminal() {
			t.Errorf("%q: want unknown and not terminal, got Known=%v Terminal=%v", s, s.Known(), s.Terminal())
		}
	}
}

func ExampleValidTransition() {
	fmt.Println(ValidTransition(StatusInputRequired, StatusCompleted), ValidTransition(StatusCancelled, StatusWorking))
	// Output: true false
}
