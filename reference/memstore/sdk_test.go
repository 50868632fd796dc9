package memstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/sdk"
)

func ptr(v int64) *int64 { return &v }

// TestSDKListSurvivesCursorTaskLeaving pages through 25 tasks 10 at a time, deleting the
// cursor's task between pages: every other task comes back exactly once (P-LIST-2).
func TestSDKListSurvivesCursorTaskLeaving(t *testing.T) {
	ctx := context.Background()
	s := NewSDK(WithPageSize(10))
	want := map[string]bool{}
	for range 25 {
		task, err := s.CreateTask(ctx, "a", sdk.CreateParams{})
		if err != nil {
			t.Fatal(err)
		}
		want[task.TaskID] = true
	}
	if _, err := s.CreateTask(ctx, "b", sdk.CreateParams{}); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	cursor, pages := "", 0
	for {
		page, err := s.ListTasks(ctx, "a", cursor)
		if err != nil {
			t.Fatalf("ListTasks(a, %q): %v", cursor, err)
		}
		pages++
		for _, task := range page.Tasks {
			seen[task.TaskID]++
		}
		if page.NextCursor == "" {
			break
		}
		last := page.Tasks[len(page.Tasks)-1].TaskID
		if err := s.DeleteTask(ctx, "a", last); err != nil {
			t.Fatal(err)
		}
		delete(want, last)
		seen[last] = 1 // listed before it left
		want[last] = true
		cursor = page.NextCursor
	}
	if pages != 3 {
		t.Errorf("25 tasks at 10 a page: want 3 pages, got %d", pages)
	}
	for id := range want {
		if seen[id] != 1 {
			t.Errorf("task %s listed %d times, want once", id, seen[id])
		}
	}
	if len(seen) != len(want) {
		t.Errorf("listed %d tasks, want %d (session b's task must not show)", len(seen), len(want))
	}
	if _, err := s.ListTasks(ctx, "a", "bogus"); !errors.Is(err, reference.ErrInvalid) {
		t.Errorf("ListTasks with a cursor never issued: want ErrInvalid, got %v", err)
	}
}

// TestSDKTTLFromCreation: a working task outlives its ttl; once terminal it is gone when
// created_at + ttl has passed; ttl 0 is gone once terminal (P-TTL-1..3).
func TestSDKTTLFromCreation(t *testing.T) {
	ctx := context.Background()
	clock := reference.NewManualClock(time.UnixMilli(1_764_400_000_000))
	s := NewSDK(WithSDKClock(clock))
	task, err := s.CreateTask(ctx, "", sdk.CreateParams{TTL: ptr(1000)})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(5 * time.Second)
	if _, err := s.GetTask(ctx, "", task.TaskID); err != nil {
		t.Fatalf("working task past its ttl: want found, got %v", err)
	}
	if err := s.StoreTaskResult(ctx, "", task.TaskID, reference.StatusCompleted, sdk.Result{"x": 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetTask(ctx, "", task.TaskID); !errors.Is(err, reference.ErrNotFound) {
		t.Errorf("terminal task past created_at + ttl: want ErrNotFound, got %v", err)
	}
	zero, _ := s.CreateTask(ctx, "", sdk.CreateParams{TTL: ptr(0)})
	if err := s.UpdateTaskStatus(ctx, "", zero.TaskID, reference.StatusCancelled, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetTask(ctx, "", zero.TaskID); !errors.Is(err, reference.ErrNotFound) {
		t.Errorf("ttl 0 task once terminal: want ErrNotFound, got %v", err)
	}
	if err := s.UpdateTaskStatus(ctx, "", task.TaskID, "bogus", ""); !errors.Is(err, reference.ErrInvalid) {
		t.Errorf("unknown status: want ErrInvalid, got %v", err)
	}
}

// TestSDKResultIsACopy: the stored result is neither the caller's map nor the one
// handed out (P-RESULT-3).
func TestSDKResultIsACopy(t *testing.T) {
	ctx := context.Background()
	s := NewSDK()
	task, _ := s.CreateTask(ctx, "a", sdk.CreateParams{})
	in := sdk.Result{"content": []any{map[string]any{"type": "text", "text": "hi"}}}
	if err := s.StoreTaskResult(ctx, "a", task.TaskID, reference.StatusCompleted, in); err != nil {
		t.Fatal(err)
	}
	in["content"].([]any)[0].(map[string]any)["text"] = "changed"
	out, err := s.GetTaskResult(ctx, "a", task.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	out["extra"] = true
	again, _ := s.GetTaskResult(ctx, "a", task.TaskID)
	if got := again["content"].([]any)[0].(map[string]any)["text"]; got != "hi" || again["extra"] != nil {
		t.Errorf("stored result changed through an alias: %v", again)
	}
	if _, err := s.GetTaskResult(ctx, "b", task.TaskID); !errors.Is(err, reference.ErrNotFound) {
		t.Errorf("another session's result: want ErrNotFound, got %v", err)
	}
}
