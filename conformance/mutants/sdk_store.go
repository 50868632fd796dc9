package mutants

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonvalue"
	"github.com/storecheck/storecheck/reference/sdk"
)

// The SDK task-store profile's mutants (docs/spec.md section 6) are variants of one
// small honest store of the profile: a mutex, a map and the tasks in creation order.
// Each defect is one the SDKs' own in-memory stores have, or one a store author could
// easily make, written beside it as a wrapper or a hook (the files by family:
// sdk_ids.go, sdk_sessions.go, sdk_ttl.go, sdk_results.go, sdk_list.go, sdk_delete.go).

// sdkMutants are the profile's defects. Those marked (TS) are the TypeScript SDK's
// InMemoryTaskStore's own defects, found by the profile.
var sdkMutants = slices.Concat(sdkIDMutants, sdkSessionMutants, sdkTTLMutants, sdkResultMutants, sdkListMutants, sdkDeleteMutants)

// pageSize is the honest store's page size (the TypeScript and Python SDKs' own).
const sdkPageSize = 10

type sdkBackend struct {
	mu    sync.Mutex
	clock reference.Clock
	seq   uint64
	tasks map[string]*sdkRow
	order []*sdkRow // creation order; rows removed since stay in place, marked gone
}

type sdkRow struct {
	task       sdk.Task
	session    string
	seq        uint64
	createdMs  int64
	terminalMs int64
	result     sdk.Result
	gone       bool
	wake       chan struct{}
}

func newSDKBackend(clock reference.Clock) *sdkBackend {
	return &sdkBackend{clock: clock, tasks: map[string]*sdkRow{}}
}

// sdkHooks are the honest SDK store's seams: each is nil (or false) in the honest store,
// and a mutant sets the one its defect needs. Only what a wrapper cannot reach from
// outside a call is a hook: how ids are drawn, how sessions compare, when a task
// expires, which statuses a write takes, how a listing pages, whether a stored value is
// handed out. Those called with b.mu held say so.
type sdkHooks struct {
	newID         func() string                                         // the id of a new task; b.mu held
	checkCreate   func(p sdk.CreateParams) error                        // the parameters CreateTask takes
	sameSession   func(row, caller string) bool                         // a task's session against the caller's
	expired       func(r *sdkRow, now int64) bool                       // a task's expiry; b.mu held
	keepExpired   bool                                                  // expired rows stay in place, and listed
	shareStored   bool                                                  // tasks and results are the stored values, not copies
	checkStatus   func(status reference.Status) error                   // the statuses UpdateTaskStatus takes
	checkResult   func(status reference.Status) error                   // the statuses StoreTaskResult takes
	writeTerminal bool                                                  // UpdateTaskStatus writes over a terminal status
	afterCheck    func()                                                // between a write's check and the write, b.mu released
	listRows      func(s sdkStore, session string, now int64) []*sdkRow // the rows a page is drawn from; b.mu held
	readCursor    func(rows []*sdkRow, cursor, session string) (start int, as string, err error)
	nextCursor    func(last *sdkRow, session string) string
	more          func(s sdkStore, rows []*sdkRow, r *sdkRow, session string, now int64) bool // whether a full page has a next one; b.mu held
	listed        func(r *sdkRow) sdk.Task                                                    // how a row is listed; b.mu held
	swept         func(r *sdkRow, now int64) bool                                             // what Cleanup removes; b.mu held
}

// sdkStore is the profile's store over a backend, with the mutant's hooks.
type sdkStore struct {
	b *sdkBackend
	h sdkHooks
}

var (
	_ sdk.Store   = sdkStore{}
	_ sdk.Deleter = sdkStore{}
	_ sdk.Cleaner = sdkStore{}
	_ sdk.Waiter  = sdkStore{}
)

func (s sdkStore) now() int64 { return reference.NowMillis(s.b.clock) }

func (s sdkStore) Policy() sdk.Policy {
	return sdk.Policy{Sessionless: sdk.SessionlessIsolated, TTLFrom: sdk.TTLFromCreation}
}

func (s sdkStore) live(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("mutant: %w", err)
	}
	return nil
}

// visible: a task is its session's; having no session is a session of its own.
func (s sdkStore) visible(r *sdkRow, caller string) bool {
	if s.h.sameSession != nil {
		return s.h.sameSession(r.session, caller)
	}
	return r.session == caller
}

func (s sdkStore) expired(r *sdkRow, now int64) bool {
	if s.h.expired != nil {
		return s.h.expired(r, now)
	}
	return sdkExpired(r, now)
}

// sdkExpired: a terminal task whose ttl, counted from creation, has passed.
func sdkExpired(r *sdkRow, now int64) bool {
	return r.task.TTL != nil && r.task.Status.Terminal() && now >= r.createdMs+*r.task.TTL
}

// lookup finds the live row of id visible to caller; b.mu is held.
func (s sdkStore) lookup(caller, id string, now int64) (*sdkRow, error) {
	r, ok := s.b.tasks[id]
	if !ok || !s.visible(r, caller) {
		return nil, reference.NotFound(id)
	}
	if s.expired(r, now) {
		if !s.h.keepExpired {
			s.remove(r)
		}
		return nil, reference.NotFound(id)
	}
	return r, nil
}

func (s sdkStore) remove(r *sdkRow) {
	if r.gone {
		return
	}
	r.gone = true
	delete(s.b.tasks, r.task.TaskID)
	close(r.wake)
}

func (s sdkStore) touch(r *sdkRow, now int64) {
	r.task.LastUpdatedAt = sdk.FormatTime(now)
	if r.task.Status.Terminal() && r.terminalMs == 0 {
		r.terminalMs = now
	}
	close(r.wake)
	r.wake = make(chan struct{})
}

func (s sdkStore) out(t sdk.Task) sdk.Task {
	if s.h.shareStored {
		return t
	}
	return t.Clone()
}

func (s sdkStore) checkCreate(p sdk.CreateParams) error {
	if s.h.checkCreate != nil {
		return s.h.checkCreate(p)
	}
	return sdkCheckCreate(p)
}

// sdkCheckCreate refuses a negative ttl.
func sdkCheckCreate(p sdk.CreateParams) error {
	if p.TTL != nil && *p.TTL < 0 {
		return fmt.Errorf("mutant: negative ttl %d: %w", *p.TTL, reference.ErrInvalid)
	}
	return nil
}

func (s sdkStore) CreateTask(ctx context.Context, session string, p sdk.CreateParams) (sdk.Task, error) {
	if err := s.live(ctx); err != nil {
		return sdk.Task{}, err
	}
	now := s.now()
	at := sdk.FormatTime(now)
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	var id string
	if s.h.newID != nil {
		id = s.h.newID()
	} else {
		id = reference.GenerateID()
	}
	if err := s.checkCreate(p); err != nil {
		return sdk.Task{}, err
	}
	s.b.seq++
	t := sdk.Task{TaskID: id, Status: reference.StatusWorking, CreatedAt: at, LastUpdatedAt: at}
	if p.TTL != nil {
		t.TTL = i64(*p.TTL)
	}
	if p.PollInterval != nil {
		t.PollInterval = i64(*p.PollInterval)
	}
	r := &sdkRow{task: t, session: session, seq: s.b.seq, createdMs: now, wake: make(chan struct{})}
	s.b.tasks[id] = r
	s.b.order = append(s.b.order, r)
	return s.out(r.task), nil
}

func i64(v int64) *int64 { return &v }

func (s sdkStore) GetTask(ctx context.Context, session, id string) (sdk.Task, error) {
	if err := s.live(ctx); err != nil {
		return sdk.Task{}, err
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	r, err := s.lookup(session, id, s.now())
	if err != nil {
		return sdk.Task{}, err
	}
	return s.out(r.task), nil
}

// finish is the terminal check and the write of StoreTaskResult and UpdateTaskStatus,
// under the lock.
func (s sdkStore) finish(session, id string, update bool, write func(r *sdkRow, now int64)) error {
	now := s.now()
	s.b.mu.Lock()
	r, err := s.lookup(session, id, now)
	if err == nil && r.task.Status.Terminal() && !(update && s.h.writeTerminal) {
		err = reference.ErrorFor(reference.ErrTerminal, id)
	}
	if err != nil {
		s.b.mu.Unlock()
		return err
	}
	if s.h.afterCheck != nil {
		s.b.mu.Unlock()
		s.h.afterCheck()
		s.b.mu.Lock()
	}
	defer s.b.mu.Unlock()
	write(r, now)
	s.touch(r, now)
	return nil
}

// resultArgs checks StoreTaskResult's arguments and returns the result to store.
func (s sdkStore) resultArgs(status reference.Status, result sdk.Result) (sdk.Result, error) {
	check := sdkCheckResult
	if s.h.checkResult != nil {
		check = s.h.checkResult
	}
	if err := check(status); err != nil {
		return nil, err
	}
	norm, err := jsonvalue.Normalize(result)
	obj, ok := norm.(map[string]any)
	if err != nil || !ok {
		return nil, fmt.Errorf("mutant: the result is not a JSON object: %w", reference.ErrInvalid)
	}
	if s.h.shareStored {
		return result, nil // the caller's own map
	}
	return obj, nil
}

// sdkCheckResult takes a result with status completed or failed only.
func sdkCheckResult(status reference.Status) error {
	if status != reference.StatusCompleted && status != reference.StatusFailed {
		return fmt.Errorf("mutant: a result is stored with status completed or failed, not %q: %w", status, reference.ErrInvalid)
	}
	return nil
}

func (s sdkStore) StoreTaskResult(ctx context.Context, session, id string, status reference.Status, result sdk.Result) error {
	if err := s.live(ctx); err != nil {
		return err
	}
	obj, err := s.resultArgs(status, result)
	if err != nil {
		return err
	}
	return s.finish(session, id, false, func(r *sdkRow, now int64) {
		r.result = obj
		r.task.Status = status
	})
}

func (s sdkStore) GetTaskResult(ctx context.Context, session, id string) (sdk.Result, error) {
	if err := s.live(ctx); err != nil {
		return nil, err
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	r, err := s.lookup(session, id, s.now())
	if err != nil {
		return nil, err
	}
	if r.result == nil {
		return nil, reference.ErrorFor(reference.ErrNoResult, id)
	}
	if s.h.shareStored {
		return r.result, nil
	}
	return jsonvalue.CloneObject(r.result), nil
}

// sdkCheckStatus: UpdateTaskStatus takes a known status that is not set with a result.
func sdkCheckStatus(status reference.Status) error {
	switch {
	case !status.Known():
		return fmt.Errorf("mutant: unknown status %q: %w", status, reference.ErrInvalid)
	case status == reference.StatusCompleted || status == reference.StatusFailed:
		return fmt.Errorf("mutant: %s is set with its result by StoreTaskResult: %w", status, reference.ErrInvalid)
	}
	return nil
}

func (s sdkStore) UpdateTaskStatus(ctx context.Context, session, id string, status reference.Status, message string) error {
	if err := s.live(ctx); err != nil {
		return err
	}
	check := sdkCheckStatus
	if s.h.checkStatus != nil {
		check = s.h.checkStatus
	}
	if err := check(status); err != nil {
		return err
	}
	return s.finish(session, id, true, func(r *sdkRow, now int64) {
		r.task.Status = status
		if message != "" {
			r.task.StatusMessage = message
		}
	})
}

// readCursor is where a listing resumes in rows, and as which session.
func (s sdkStore) readCursor(rows []*sdkRow, cursor, session string) (int, string, error) {
	if cursor == "" {
		return 0, session, nil
	}
	if s.h.readCursor != nil {
		return s.h.readCursor(rows, cursor, session)
	}
	return sdkReadCursor(rows, cursor, session)
}

// sdkReadCursor reads a cursor "s<seq>": the listing resumes after the task of that seq.
func sdkReadCursor(rows []*sdkRow, cursor, session string) (int, string, error) {
	after, err := strconv.ParseUint(strings.TrimPrefix(cursor, "s"), 10, 64)
	if err != nil || !strings.HasPrefix(cursor, "s") {
		return 0, session, fmt.Errorf("mutant: invalid cursor %s: %w", cursor, reference.ErrInvalid)
	}
	return sort.Search(len(rows), func(i int) bool { return rows[i].seq > after }), session, nil
}

func sdkNextCursor(last *sdkRow, _ string) string { return "s" + strconv.FormatUint(last.seq, 10) }

func (s sdkStore) ListTasks(ctx context.Context, session, cursor string) (sdk.Page, error) {
	if err := s.live(ctx); err != nil {
		return sdk.Page{}, err
	}
	now := s.now()
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	rows := s.b.order
	if s.h.listRows != nil {
		rows = s.h.listRows(s, session, now)
	}
	start, session, err := s.readCursor(rows, cursor, session)
	if err != nil {
		return sdk.Page{}, err
	}
	next := sdkNextCursor
	if s.h.nextCursor != nil {
		next = s.h.nextCursor
	}
	page := sdk.Page{Tasks: []sdk.Task{}}
	var last *sdkRow
	var expired []*sdkRow
	for _, r := range rows[start:] {
		if r.gone || !s.visible(r, session) {
			continue
		}
		if s.expired(r, now) && !s.h.keepExpired {
			expired = append(expired, r)
			continue
		}
		if len(page.Tasks) == sdkPageSize {
			if s.h.more == nil || s.h.more(s, rows, r, session, now) {
				page.NextCursor = next(last, session)
			}
			break
		}
		t := r.task
		if s.h.listed != nil {
			t = s.h.listed(r)
		}
		page.Tasks = append(page.Tasks, t.Clone())
		last = r
	}
	for _, r := range expired {
		s.remove(r)
	}
	return page, nil
}

func (s sdkStore) DeleteTask(ctx context.Context, session, id string) error {
	if err := s.live(ctx); err != nil {
		return err
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	r, err := s.lookup(session, id, s.now())
	if err != nil {
		return err
	}
	s.remove(r)
	return nil
}

func (s sdkStore) Cleanup(ctx context.Context) (int, error) {
	if err := s.live(ctx); err != nil {
		return 0, err
	}
	now := s.now()
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	swept := s.expired
	if s.h.swept != nil {
		swept = s.h.swept
	}
	var doomed []*sdkRow
	for _, r := range s.b.tasks {
		if swept(r, now) {
			doomed = append(doomed, r)
		}
	}
	for _, r := range doomed {
		s.remove(r)
	}
	return len(doomed), nil
}

func (s sdkStore) WaitForUpdate(ctx context.Context, session, id string) error {
	if err := s.live(ctx); err != nil {
		return err
	}
	s.b.mu.Lock()
	r, err := s.lookup(session, id, s.now())
	var wake chan struct{}
	if err == nil {
		wake = r.wake
	}
	s.b.mu.Unlock()
	if err != nil {
		return err
	}
	select {
	case <-wake:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("mutant: %w", ctx.Err())
	}
}
