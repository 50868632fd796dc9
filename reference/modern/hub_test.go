package modern_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/modern"
)

// drain returns what is buffered in s without waiting.
func drain(s *modern.Subscription) []modern.Task {
	var out []modern.Task
	for {
		select {
		case task, ok := <-s.C():
			if !ok {
				return out
			}
			out = append(out, task)
		default:
			return out
		}
	}
}

func TestHubTruthTable(t *testing.T) {
	for _, req := range []bool{false, true} {
		hub := modern.NewHub(modern.HubOptions{RequireOwner: req})
		for i, row := range truthTable {
			id := fmt.Sprintf("hub-%v-%d", req, i)
			named := hub.Subscribe(row.Caller, "other", id)
			unnamed := hub.Subscribe(row.Caller, "other")
			hub.TaskChanged(modern.Task{TaskID: id, Owner: row.Owner, Version: 1})
			got := drain(named)
			want := 0
			if row.Allowed(req) {
				want = 1
			}
			if len(got) != want || (want == 1 && got[0].TaskID != id) {
				t.Errorf("M-F-LISTEN-1: change of %s owned by %q to a subscription of %s naming it, require_owner=%v: want %d deliveries, got %d",
					id, row.Owner, row.Caller, req, want, len(got))
			}
			if n := len(drain(unnamed)); n != 0 {
				t.Errorf("M-F-LISTEN-1: a subscription of %s not naming %s got %d deliveries", row.Caller, id, n)
			}
			named.Close()
			unnamed.Close()
		}
	}
}

func TestHubDuplicateIDsAndClose(t *testing.T) {
	hub := modern.NewHub(modern.HubOptions{})
	s := hub.Subscribe(reference.Principal("o"), "a", "a", "b")
	hub.TaskChanged(modern.Task{TaskID: "a", Owner: "o"})
	hub.TaskChanged(modern.Task{TaskID: "b", Owner: "o"})
	if got := drain(s); len(got) != 2 || got[0].TaskID != "a" || got[1].TaskID != "b" {
		t.Errorf("M-F-LISTEN-1: a subscription naming a twice and b: want one delivery each in order, got %d", len(got))
	}
	s.Close()
	s.Close()                                             // idempotent
	hub.TaskChanged(modern.Task{TaskID: "a", Owner: "o"}) // must not send on a closed channel
	select {
	case _, open := <-s.C():
		if open {
			t.Errorf("M-F-LISTEN-1: a closed subscription received a change")
		}
	case <-time.After(time.Second):
		t.Errorf("Close must close C")
	}
}

func TestHubSlowSubscriber(t *testing.T) {
	hub := modern.NewHub(modern.HubOptions{Buffer: 2})
	slow := hub.Subscribe(reference.System(), "t")
	fast := hub.Subscribe(reference.System(), "t")
	received := make(chan int)
	go func() {
		n := 0
		for range fast.C() {
			n++
		}
		received <- n
	}()
	done := make(chan struct{})
	go func() {
		for v := range 5 {
			hub.TaskChanged(modern.Task{TaskID: "t", Version: int64(v + 1)})
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatalf("M-F-LISTEN-1: a subscriber that never reads blocked the writer")
	}
	got := drain(slow)
	if len(got) != 2 || got[0].Version != 1 || got[1].Version != 2 || slow.Dropped() != 3 {
		t.Errorf("M-F-LISTEN-1: buffer 2, 5 changes, no reader: want the first 2 kept and 3 dropped, got %d kept, %d dropped", len(got), slow.Dropped())
	}
	fast.Close()
	// The fast reader may itself lose some if it is descheduled, but every change is
	// either received or counted.
	select {
	case n := <-received:
		if uint64(n)+fast.Dropped() != 5 {
			t.Errorf("M-F-LISTEN-1: reader: %d received + %d dropped, want 5", n, fast.Dropped())
		}
	case <-time.After(5 * time.Second):
		t.Errorf("Close must close C (the reader never finished)")
	}
}

func TestHubDefaultBuffer(t *testing.T) {
	hub := modern.NewHub(modern.HubOptions{})
	s := hub.Subscribe(reference.System(), "t")
	for range modern.DefaultHubBuffer + 1 {
		hub.TaskChanged(modern.Task{TaskID: "t"})
	}
	if got := len(drain(s)); got != modern.DefaultHubBuffer || s.Dropped() != 1 {
		t.Errorf("HubOptions{}: want a buffer of %d (1 dropped of %d), got %d kept, %d dropped",
			modern.DefaultHubBuffer, modern.DefaultHubBuffer+1, got, s.Dropped())
	}
}

// TestHubAsNotifier wires the hub into the facade: the owner's stream hears every write.
func TestHubAsNotifier(t *testing.T) {
	ctx := context.Background()
	hub := modern.NewHub(modern.HubOptions{})
	f := newFixture(t, func(c *modern.Config) { c.Notifier = hub })
	task := f.create(t, modern.CreateOptions{Owner: "o"})
	mine := hub.Subscribe(reference.Principal("o"), task.TaskID)
	theirs := hub.Subscribe(reference.Principal("p"), task.TaskID)
	if _, err := f.tasks.Progress(ctx, task.TaskID, "half"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.tasks.Complete(ctx, task.TaskID, map[string]any{}); err != nil {
		t.Fatal(err)
	}
	got := drain(mine)
	if len(got) != 2 || got[0].StatusMessage != "half" || got[1].Status != reference.StatusCompleted {
		t.Errorf("M-F-LISTEN-1: owner's stream: want the progress and completion, got %d changes", len(got))
	}
	if n := len(drain(theirs)); n != 0 {
		t.Errorf("M-F-LISTEN-1: another principal's stream naming the task got %d changes", n)
	}
}
