package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/modern"
)

// TestCutOffSwapsAreAllOrNothing issues Swaps with deadlines of 0..975 µs (cut off
// before sending, while the server runs them, and not at all) and judges each by the
// next Get: an acknowledged Swap is visible (no reply taken for another command's, no
// success for a write that was not made); a cut-off one left the old task or the whole
// new one. A cut-off write the Get did not show may still land later (a command on its
// way to the server), whole, and only while the version it expects is current: the next
// Swap then finds it, or answers the conflict it causes.
func TestCutOffSwapsAreAllOrNothing(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	pad := strings.Repeat("x", 4<<10)
	cur, err := f.modern.Create(ctx, modern.Task{TaskID: "cutoff", Status: reference.StatusWorking})
	if err != nil {
		t.Fatal(err)
	}
	var acked, cutNothing, cutWhole, late int
	var pending []modern.Task // cut-off writes not visible at once: any may still land
	for i := range 400 {
		next := cur.Clone()
		next.StatusMessage = fmt.Sprintf("write %d", i)
		next.LastUpdatedAt = cur.LastUpdatedAt + 1
		next.Result = map[string]any{"i": fmt.Sprint(i), "pad": pad}
		d := time.Duration(i%40) * 25 * time.Microsecond
		cctx, cancel := context.WithTimeout(ctx, d)
		got, err := f.modern.Swap(cctx, reference.System(), cur.Version, next)
		cancel()
		want := next.Clone()
		want.Version = cur.Version + 1
		call := fmt.Sprintf("Swap(system, %d, write %d) with a %v deadline", cur.Version, i, d)
		stored, gerr := f.modern.Get(ctx, cur.TaskID, reference.System())
		if gerr != nil {
			t.Fatalf("after %s: Get: %v", call, gerr)
		}
		switch {
		case err == nil:
			acked++
			if !modern.Equal(got, want) {
				t.Fatalf("%s returned %+v, want %+v", call, got, want)
			}
			if !modern.Equal(stored, want) {
				t.Fatalf("after %s succeeded: Get returned %q v%d, want the write it acknowledged (v%d)", call, stored.StatusMessage, stored.Version, want.Version)
			}
			pending = nil
			cur = stored
			continue
		case errors.Is(err, context.DeadlineExceeded):
		case errors.Is(err, reference.ErrConflict) && len(pending) > 0:
		default:
			t.Fatalf("%s: %v, want success or an error wrapping the deadline's", call, err)
		}
		conflict := err != nil && !errors.Is(err, context.DeadlineExceeded)
		switch {
		case modern.Equal(stored, cur) && !conflict:
			cutNothing++
			pending = append(pending, want)
			continue
		case modern.Equal(stored, want) && !conflict:
			cutWhole++
		case slices.ContainsFunc(pending, func(p modern.Task) bool { return modern.Equal(p, stored) }):
			late++
			t.Logf("after %s (%v): Get returned the earlier cut-off %q v%d, landed late", call, err, stored.StatusMessage, stored.Version)
		default:
			t.Fatalf("after %s (%v): Get returned %q v%d: neither the old task, the new one nor an earlier cut-off write", call, err, stored.StatusMessage, stored.Version)
		}
		pending = nil
		cur = stored
	}
	t.Logf("acknowledged %d, cut off with nothing changed %d, cut off with the whole write %d, landed late %d", acked, cutNothing, cutWhole, late)
}
