package report

import (
	"strings"
	"testing"
	"time"
)

func TestAreaTimesSumsSpecsByArea(t *testing.T) {
	r := &Report{Duration: 10 * time.Second, Specs: []SpecResult{
		{Name: "a1", Area: "create", Duration: 1 * time.Second},
		{Name: "b1", Area: "races", Duration: 4 * time.Second},
		{Name: "a2", Area: "create", Duration: 2 * time.Second},
		{Name: "n", Duration: 500 * time.Millisecond},
	}}
	got := r.AreaTimes()
	want := []AreaTime{{"races", 1, 4 * time.Second}, {"create", 2, 3 * time.Second}, {"(none)", 1, 500 * time.Millisecond}}
	if len(got) != len(want) {
		t.Fatalf("AreaTimes() = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("AreaTimes()[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
	var b strings.Builder
	if err := r.WriteAreaTimes(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "races") || !strings.Contains(b.String(), "40.0%") {
		t.Errorf("WriteAreaTimes wrote %q; want the races row with its 40.0%% share", b.String())
	}
}
