package containers

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestInCI(t *testing.T) {
	for v, want := range map[string]bool{"true": true, "1": true, "TRUE": true, "false": false, "": false, "0": false, "yes": false} {
		t.Setenv("CI", v)
		if got := InCI(); got != want {
			t.Errorf("CI=%q: InCI() = %v, want %v", v, got, want)
		}
	}
}

// recorder is a testing.TB that records how SkipOrFail ended it.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper()                           {}
func (r *recorder) Skipf(format string, args ...any)  { r.skipped = fmt.Sprintf(format, args...) }
func (r *recorder) Fatalf(format string, args ...any) { r.failed = fmt.Sprintf(format, args...) }

func TestSkipOrFail(t *testing.T) {
	noDocker := fmt.Errorf("start: %w: dial unix /nope.sock", ErrNoDocker)
	other := errors.New("image not found")
	cases := []struct {
		ci       string
		err      error
		wantSkip bool
	}{
		{"", noDocker, true},
		{"true", noDocker, false},
		{"", other, false},
		{"true", other, false},
	}
	for _, c := range cases {
		t.Setenv("CI", c.ci)
		r := &recorder{TB: t}
		SkipOrFail(r, "postgres", c.err)
		if skipped := r.skipped != ""; skipped != c.wantSkip || (r.failed == "") != c.wantSkip {
			t.Errorf("CI=%q, err %v: skipped %q, failed %q; want skip=%v", c.ci, c.err, r.skipped, r.failed, c.wantSkip)
		}
		if msg := r.skipped + r.failed; !containsAll(msg, "postgres", c.err.Error()) {
			t.Errorf("CI=%q: message %q does not give the backend and the reason", c.ci, msg)
		}
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
