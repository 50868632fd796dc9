package memstore

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonvalue"
	"github.com/storecheck/storecheck/reference/sdk"
)

// DefaultPageSize is the page size of an SDK store without WithPageSize.
const DefaultPageSize = 50

// SDK is memstore's store of the SDK task-store profile (docs/spec.md section 6):
// sdk.Store with sdk.Deleter, sdk.Cleaner and sdk.Waiter. Sessionless callers are
// isolated (or refused, WithSessionless); ttl counts from creation (or completion,
// WithTTLFrom). Listing is keyset-paged over a per-session index in creation order, so
// a page costs O(log n + page) and a cursor does not depend on its task still existing.
type SDK struct {
	clock    reference.Clock
	policy   sdk.Policy
	pageSize int

	mu    sync.Mutex
	seq   uint64
	tasks map[string]*sdkEntry
	// index holds each session's tasks in creation order; entries removed since the
	// last compaction stay in place, marked gone.
	index map[string]*sdkIndex
}

type sdkEntry struct {
	task       sdk.Task // the stored copy; handed out only as a clone
	session    string
	seq        uint64
	createdMs  int64
	terminalMs int64
	result     sdk.Result // the stored copy, nil until StoreTaskResult
	gone       bool
	wake       chan struct{} // closed and replaced on every change
}

type sdkIndex struct {
	entries []*sdkEntry
	dead    int
}

// SDKOption configures NewSDK.
type SDKOption func(*SDK)

// WithSDKClock makes the store read time from c; nil reads the real time.
func WithSDKClock(c reference.Clock) SDKOption { return func(s *SDK) { s.clock = c } }

// WithSessionless sets the declared sessionless policy: sdk.SessionlessIsolated (the
// default) or sdk.SessionlessRefused. This store does not fail open.
func WithSessionless(p sdk.Sessionless) SDKOption {
	return func(s *SDK) {
		if p.FailsClosed() {
			s.policy.Sessionless = p
		}
	}
}

// WithTTLFrom sets the declared ttl counting (sdk.TTLFromCreation by default).
func WithTTLFrom(f sdk.TTLFrom) SDKOption {
	return func(s *SDK) {
		if f == sdk.TTLFromCreation || f == sdk.TTLFromCompletion {
			s.policy.TTLFrom = f
		}
	}
}

// WithPageSize sets the number of tasks per ListTasks page; n < 1 keeps the default.
func WithPageSize(n int) SDKOption {
	return func(s *SDK) {
		if n > 0 {
			s.pageSize = n
		}
	}
}

// NewSDK returns an empty SDK-profile store.
func NewSDK(opts ...SDKOption) *SDK {
	s := &SDK{
		clock:    reference.SystemClock{},
		policy:   sdk.Policy{Sessionless: sdk.SessionlessIsolated, TTLFrom: sdk.TTLFromCreation},
		pageSize: DefaultPageSize,
		tasks:    make(map[string]*sdkEntry),
		index:    make(map[string]*sdkIndex),
	}
	for _, o := range opts {
		o(s)
	}
	if s.clock == nil {
		s.clock = reference.SystemClock{}
	}
	return s
}

var (
	_ sdk.Store   = (*SDK)(nil)
	_ sdk.Deleter = (*SDK)(nil)
	_ sdk.Cleaner = (*SDK)(nil)
	_ sdk.Waiter  = (*SDK)(nil)
)

// Policy is the store's declaration.
func (s *SDK) Policy() sdk.Policy { return s.policy }

func (s *SDK) now() int64 { return s.clock.Now().UnixMilli() }

// admit is a session's call's first step: a done context or a session the store does not
// take ends the call before anything is read.
func (s *SDK) admit(ctx context.Context, session string) error {
	if err := live(ctx); err != nil {
		return err
	}
	return s.checkSession(session)
}

// checkSession refuses a sessionless call under SessionlessRefused.
func (s *SDK) checkSession(session string) error {
	if session == sdk.NoSession && s.policy.Sessionless == sdk.SessionlessRefused {
		return fmt.Errorf("memstore: a call without a session: %w", reference.ErrInvalid)
	}
	return nil
}

// expired reports whether e's retention has ended at now. A task that is not terminal
// is never removed by its ttl (P-TTL-1).
func (s *SDK) expired(e *sdkEntry, now int64) bool {
	if e.task.TTL == nil || !e.task.Status.Terminal() {
		return false
	}
	from := e.createdMs
	if s.policy.TTLFrom == sdk.TTLFromCompletion {
		from = e.terminalMs
	}
	ttl := *e.task.TTL
	end := from + ttl
	if ttl > 0 && end < from { // overflow: never
		return false
	}
	return now >= end
}

// lookup returns the live entry of id visible to session; s.mu is held. An expired
// entry is removed on the way.
func (s *SDK) lookup(session, id string, now int64) (*sdkEntry, error) {
	e, ok := s.tasks[id]
	if !ok || !s.policy.Sessionless.Visible(e.session, session) {
		return nil, reference.NotFound(id)
	}
	if s.expired(e, now) {
		s.remove(e)
		return nil, reference.NotFound(id)
	}
	return e, nil
}

// remove drops e from the map and marks it gone in its index; s.mu is held.
func (s *SDK) remove(e *sdkEntry) {
	if e.gone {
		return
	}
	e.gone = true
	delete(s.tasks, e.task.TaskID)
	close(e.wake)
	ix := s.index[e.session]
	ix.dead++
	if ix.dead > 64 && ix.dead > len(ix.entries)/2 {
		live := ix.entries[:0]
		for _, x := range ix.entries {
			if !x.gone {
				live = append(live, x)
			}
		}
		clear(ix.entries[len(live):])
		ix.entries, ix.dead = live, 0
	}
	if len(ix.entries) == ix.dead {
		delete(s.index, e.session)
	}
}

// touch records a change of e at now and wakes its waiters; s.mu is held.
func (s *SDK) touch(e *sdkEntry, now int64) {
	e.task.LastUpdatedAt = sdk.FormatTime(now)
	if e.task.Status.Terminal() && e.terminalMs == 0 {
		e.terminalMs = now
	}
	close(e.wake)
	e.wake = make(chan struct{})
}

func (s *SDK) CreateTask(ctx context.Context, session string, params sdk.CreateParams) (sdk.Task, error) {
	if err := s.admit(ctx, session); err != nil {
		return sdk.Task{}, err
	}
	if params.TTL != nil && *params.TTL < 0 {
		return sdk.Task{}, fmt.Errorf("memstore: negative ttl %d: %w", *params.TTL, reference.ErrInvalid)
	}
	now := s.now()
	at := sdk.FormatTime(now)
	s.mu.Lock()
	defer s.mu.Unlock()
	id := reference.GenerateID()
	for s.tasks[id] != nil {
		id = reference.GenerateID()
	}
	s.seq++
	e := &sdkEntry{
		task: sdk.Task{
			TaskID: id, Status: reference.StatusWorking, CreatedAt: at, LastUpdatedAt: at,
			TTL: params.TTL, PollInterval: params.PollInterval,
		}.Clone(), // the task keeps no pointer of the caller's
		session: session, seq: s.seq, createdMs: now, wake: make(chan struct{}),
	}
	s.tasks[id] = e
	ix := s.index[session]
	if ix == nil {
		ix = &sdkIndex{}
		s.index[session] = ix
	}
	ix.entries = append(ix.entries, e)
	return e.task.Clone(), nil
}

func (s *SDK) GetTask(ctx context.Context, session, taskID string) (sdk.Task, error) {
	if err := s.admit(ctx, session); err != nil {
		return sdk.Task{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.lookup(session, taskID, s.now())
	if err != nil {
		return sdk.Task{}, err
	}
	return e.task.Clone(), nil
}

func (s *SDK) StoreTaskResult(ctx context.Context, session, taskID string, status reference.Status, result sdk.Result) error {
	if err := s.admit(ctx, session); err != nil {
		return err
	}
	if status != reference.StatusCompleted && status != reference.StatusFailed {
		return fmt.Errorf("memstore: a result is stored with status completed or failed, not %q: %w", status, reference.ErrInvalid)
	}
	if result == nil {
		return fmt.Errorf("memstore: a nil result: %w", reference.ErrInvalid)
	}
	norm, err := jsonvalue.Normalize(result)
	if err != nil {
		return fmt.Errorf("memstore: result: %w", err)
	}
	obj, ok := norm.(map[string]any)
	if !ok {
		return fmt.Errorf("memstore: a result is a JSON object: %w", reference.ErrInvalid)
	}
	return s.changeLive(session, taskID, func(e *sdkEntry) {
		e.result = obj // Normalize built a fresh value: the caller's is not aliased
		e.task.Status = status
	})
}

func (s *SDK) GetTaskResult(ctx context.Context, session, taskID string) (sdk.Result, error) {
	if err := s.admit(ctx, session); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.lookup(session, taskID, s.now())
	if err != nil {
		return nil, err
	}
	if e.result == nil || !e.task.Status.Terminal() {
		return nil, reference.ErrorFor(reference.ErrNoResult, taskID)
	}
	return jsonvalue.CloneObject(e.result), nil
}

func (s *SDK) UpdateTaskStatus(ctx context.Context, session, taskID string, status reference.Status, message string) error {
	if err := s.admit(ctx, session); err != nil {
		return err
	}
	switch {
	case !status.Known():
		return fmt.Errorf("memstore: unknown status %q: %w", status, reference.ErrInvalid)
	case status == reference.StatusCompleted || status == reference.StatusFailed:
		// A completed or failed task without a result could never answer
		// GetTaskResult (P-RESULT-4): those go through StoreTaskResult.
		return fmt.Errorf("memstore: status %q is set with its result by StoreTaskResult: %w", status, reference.ErrInvalid)
	}
	return s.changeLive(session, taskID, func(e *sdkEntry) {
		e.task.Status = status
		if message != "" {
			e.task.StatusMessage = message
		}
	})
}

// changeLive applies change to the session's task under the lock and stamps the change,
// unless the task is already terminal: a terminal task is never written again.
func (s *SDK) changeLive(session, taskID string, change func(e *sdkEntry)) error {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.lookup(session, taskID, now)
	if err != nil {
		return err
	}
	if e.task.Status.Terminal() {
		return reference.ErrorFor(reference.ErrTerminal, taskID)
	}
	change(e)
	s.touch(e, now)
	return nil
}

// cursorPrefix marks the store's cursors: "m" and the creation sequence number of the
// last task of the page, in base 36.
const cursorPrefix = "m"

func (s *SDK) ListTasks(ctx context.Context, session, cursor string) (sdk.Page, error) {
	if err := s.admit(ctx, session); err != nil {
		return sdk.Page{}, err
	}
	var after uint64
	if cursor != "" {
		n, err := strconv.ParseUint(strings.TrimPrefix(cursor, cursorPrefix), 36, 64)
		if err != nil || !strings.HasPrefix(cursor, cursorPrefix) {
			return sdk.Page{}, fmt.Errorf("memstore: cursor %q was not issued by this store: %w", cursor, reference.ErrInvalid)
		}
		after = n
	}
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	page := sdk.Page{Tasks: []sdk.Task{}}
	var ix *sdkIndex
	if s.policy.Sessionless.Visible(session, session) {
		ix = s.index[session]
	}
	if ix == nil {
		return page, nil
	}
	entries := ix.entries
	i := sort.Search(len(entries), func(i int) bool { return entries[i].seq > after })
	var expired []*sdkEntry
	var last *sdkEntry
	for ; i < len(entries); i++ {
		e := entries[i]
		if e.gone {
			continue
		}
		if s.expired(e, now) {
			expired = append(expired, e)
			continue
		}
		if len(page.Tasks) == s.pageSize {
			page.NextCursor = cursorPrefix + strconv.FormatUint(last.seq, 36)
			break
		}
		page.Tasks = append(page.Tasks, e.task.Clone())
		last = e
	}
	for _, e := range expired {
		s.remove(e)
	}
	return page, nil
}

func (s *SDK) DeleteTask(ctx context.Context, session, taskID string) error {
	if err := s.admit(ctx, session); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.lookup(session, taskID, s.now())
	if err != nil {
		return err
	}
	s.remove(e)
	return nil
}

func (s *SDK) Cleanup(ctx context.Context) (int, error) {
	if err := live(ctx); err != nil {
		return 0, err
	}
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	var doomed []*sdkEntry
	for _, e := range s.tasks {
		if s.expired(e, now) {
			doomed = append(doomed, e)
		}
	}
	for _, e := range doomed {
		s.remove(e)
	}
	return len(doomed), nil
}

func (s *SDK) WaitForUpdate(ctx context.Context, session, taskID string) error {
	if err := s.admit(ctx, session); err != nil {
		return err
	}
	s.mu.Lock()
	e, err := s.lookup(session, taskID, s.now())
	var wake chan struct{}
	if err == nil {
		wake = e.wake
	}
	s.mu.Unlock()
	if err != nil {
		return err
	}
	select {
	case <-wake:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("memstore: %w", ctx.Err())
	}
}
