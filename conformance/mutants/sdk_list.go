package mutants

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/sdk"
)

// The SDK profile's listing defects: how a cursor is written and read, what a page is
// drawn from, when a full page has a next one, and how a task is listed (hooks: each is
// inside ListTasks's lock).

// sdkListMutants are the SDK profile's listing defects.
var sdkListMutants = []mutant.Mutant[Build]{
	{Name: "sdk-cursor-by-id", Breaks: []string{"P-LIST-2"}, Defect: "(TS) the cursor is the last task's id: once that task is deleted or expired, ListTasks fails with invalid cursor", Build: Build{sdkOnly, sdkHooked(sdkHooks{readCursor: cursorByID, nextCursor: func(last *sdkRow, _ string) string { return last.task.TaskID }})}},
	{Name: "sdk-quadratic-paging", Breaks: []string{"P-LIST-3"}, Defect: "(TS) every page copies all of the caller's tasks first: O(tasks) per page, O(tasks²) per listing", Build: Build{sdkOnly, &wrapper{sdk: withSDKHooks(sdkHooks{listRows: callersRows}), measured: true}}},
	{Name: "sdk-list-stale", Breaks: []string{"P-LIST-1"}, Defect: "ListTasks shows each task as it was created, not as it is", Build: Build{sdkOnly, &wrapper{sdk: staleListing}}},
	{Name: "sdk-lists-expired", Breaks: []string{"P-LIST-1"}, Defect: "ListTasks keeps listing a task whose ttl ended, which GetTask no longer finds", Build: Build{sdkOnly, sdkHooked(sdkHooks{keepExpired: true})}},
	{Name: "sdk-cursor-carries-session", Breaks: []string{"P-SESS-1"}, Defect: "a cursor names the session it was issued to, and ListTasks goes on as that session: another session holding it reads the first one's tasks", Build: Build{sdkOnly, sdkHooked(sdkHooks{readCursor: cursorAsSession, nextCursor: func(last *sdkRow, session string) string { return sdkNextCursor(last, session) + ":" + session }})}},
	{Name: "sdk-list-loses-boundary", Breaks: []string{"P-LIST-1"}, Defect: "has-more off by one: a full page gets a nextCursor only when more than one task is left, so a listing of page+1 tasks loses the last", Build: Build{sdkOnly, sdkHooked(sdkHooks{more: moreThanOneLeft})}},
	{Name: "sdk-cursor-garbage-restarts", Breaks: []string{"P-LIST-1"}, Defect: "a cursor it cannot read lists from the first page again instead of failing with ErrInvalid", Build: Build{sdkOnly, sdkHooked(sdkHooks{readCursor: garbageRestarts})}},
}

// cursorByID reads a cursor that is the last task's id, among the tasks still there.
func cursorByID(rows []*sdkRow, cursor, session string) (int, string, error) {
	for i, r := range rows {
		if !r.gone && r.task.TaskID == cursor {
			return i + 1, session, nil
		}
	}
	return 0, session, fmt.Errorf("mutant: invalid cursor %s: %w", cursor, reference.ErrInvalid)
}

// cursorAsSession goes on listing as the session the cursor names, not the caller.
func cursorAsSession(rows []*sdkRow, cursor, _ string) (int, string, error) {
	cursor, owner, _ := strings.Cut(cursor, ":")
	return sdkReadCursor(rows, cursor, owner)
}

// garbageRestarts lists from the first page again for a cursor it cannot read.
func garbageRestarts(rows []*sdkRow, cursor, session string) (int, string, error) {
	start, as, err := sdkReadCursor(rows, cursor, session)
	if err != nil {
		return 0, session, nil
	}
	return start, as, nil
}

// callersRows copies all of the caller's tasks for every page.
func callersRows(s sdkStore, session string, now int64) []*sdkRow {
	var mine []*sdkRow
	for _, r := range s.b.order {
		if !r.gone && s.visible(r, session) && !s.expired(r, now) {
			mine = append(mine, r)
		}
	}
	return mine
}

// moreThanOneLeft is has-more off by one: a full page is followed only when more than
// one task is left.
func moreThanOneLeft(s sdkStore, rows []*sdkRow, r *sdkRow, session string, now int64) bool {
	n := 0
	for i := slices.Index(rows, r); i < len(rows) && n < 2; i++ {
		if x := rows[i]; !x.gone && s.visible(x, session) && !s.expired(x, now) {
			n++
		}
	}
	return n != 1
}

// staleListing lists each task as it was created: CreateTask keeps a copy beside the
// store, and the listing shows it.
func staleListing(st sdkStore, x *wrapState) sdk.Store {
	st.h.listed = func(r *sdkRow) sdk.Task { return x.sdk.created[r.task.TaskID] }
	return createdKept{st, x}
}

type createdKept struct {
	sdkStore
	x *wrapState
}

func (s createdKept) CreateTask(ctx context.Context, session string, p sdk.CreateParams) (sdk.Task, error) {
	t, err := s.sdkStore.CreateTask(ctx, session, p)
	if err != nil {
		return t, err
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if s.x.sdk.created == nil {
		s.x.sdk.created = map[string]sdk.Task{}
	}
	s.x.sdk.created[t.TaskID] = t.Clone()
	return t, nil
}
