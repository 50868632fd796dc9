package redisstore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/modern"
)

// Modern is the modern-era store (docs/spec.md 2.1).
type Modern struct{ s *Store }

var _ modern.Store = (*Modern)(nil)

// modernBody is the part of a task the store keeps verbatim without reading it. Nil and
// empty maps stay apart (null vs {}), so every field round-trips as written.
type modernBody struct {
	Status          reference.Status `json:"status"`
	StatusMessage   string           `json:"status_message"`
	LastUpdatedAt   int64            `json:"last_updated_at"`
	TTL             *int64           `json:"ttl"`
	PollInterval    *int64           `json:"poll_interval"`
	Result          map[string]any   `json:"result"`
	Error           map[string]any   `json:"error"`
	InputRequests   map[string]any   `json:"input_requests"`
	StagedResponses map[string]any   `json:"staged_responses"`
	InputResponses  map[string]any   `json:"input_responses"`
	IssuedKeys      []string         `json:"issued_keys"`
}

func (m *Modern) keys(id string) (task, exp string) {
	base := m.s.base(m.s.bucketOf(id))
	return base + ":m:" + id, base + ":m#exp"
}

// expiresAt is created_at + ttl as the store indexes it: absent for no ttl or an end past
// the int64 range (it never comes), math.MinInt64 for an end before it (it has come):
// the same answers as modern.Task.Expired.
func expiresAt(t modern.Task) (int64, bool) {
	if t.TTL == nil {
		return 0, false
	}
	end := t.CreatedAt + *t.TTL
	switch {
	case *t.TTL > 0 && end < t.CreatedAt:
		return 0, false
	case *t.TTL < 0 && end > t.CreatedAt:
		return math.MinInt64, true
	}
	return end, true
}

// encodeBody renders the verbatim part of t.
func encodeBody(t modern.Task) (string, error) {
	b := modernBody{
		Status: t.Status, StatusMessage: t.StatusMessage, LastUpdatedAt: t.LastUpdatedAt,
		TTL: t.TTL, PollInterval: t.PollInterval, Result: t.Result, Error: t.Error,
		InputRequests: t.InputRequests, StagedResponses: t.StagedResponses,
		InputResponses: t.InputResponses, IssuedKeys: t.IssuedKeys,
	}
	for _, v := range []any{string(b.Status), b.StatusMessage, b.Result, b.Error, b.InputRequests,
		b.StagedResponses, b.InputResponses, b.IssuedKeys} {
		if err := checkUTF8(v, "task"); err != nil {
			return "", err
		}
	}
	return encodeJSON(b)
}

// writeArgs are the script arguments every write shares: owner, expiry, body, backstop.
type writeArgs struct {
	hasOwner, owner, hasExp, exp, body, backstop string
}

func (m *Modern) writeArgs(t modern.Task) (writeArgs, error) {
	body, err := encodeBody(t)
	if err != nil {
		return writeArgs{}, err
	}
	w := writeArgs{hasOwner: "0", hasExp: "0", body: body}
	if t.Owner != "" {
		w.hasOwner, w.owner = "1", t.Owner
	}
	if e, ok := expiresAt(t); ok {
		w.hasExp, w.exp = "1", itoa(e)
		w.backstop = m.backstop(e)
	}
	return w, nil
}

// backstop is the native TTL in ms for a task expiring at e: the time left by the
// store's clock plus the margin, never less than the margin; "" for none (no margin
// configured, or an expiry too far away to bother).
func (m *Modern) backstop(e int64) string {
	margin := m.s.cfg.backstop.Milliseconds()
	if margin == 0 {
		return ""
	}
	now := m.s.now()
	left := int64(0)
	if e > now {
		left = e - now
	}
	const tooFar = int64(100 * 365 * 24 * time.Hour / time.Millisecond)
	if left < 0 || left > tooFar { // left < 0: the difference overflowed
		return ""
	}
	return itoa(left + margin)
}

// Create stores task with version 1 (M-CREATE-1); an existing id, expired or not until
// swept, fails with reference.ErrExists. One script; Redis has applied it when the reply
// arrives, so every client of the server or cluster finds the task (M-CREATE-2).
func (m *Modern) Create(ctx context.Context, task modern.Task) (modern.Task, error) {
	if err := m.s.beginOn(ctx, "create", task.TaskID); err != nil {
		return modern.Task{}, err
	}
	row, err := task.Normalize()
	if err != nil {
		return modern.Task{}, err
	}
	row.Version = 1
	w, err := m.writeArgs(row)
	if err != nil {
		return modern.Task{}, err
	}
	key, exp := m.keys(row.TaskID)
	v, err := m.s.run(ctx, modernCreate, []string{key, exp},
		row.TaskID, itoa(row.CreatedAt), w.body, w.hasOwner, w.owner, w.hasExp, w.exp, w.backstop)
	if err != nil {
		return modern.Task{}, writeError(ctx, "create", err)
	}
	if n, _ := v.(int64); n != 1 {
		return modern.Task{}, reference.ErrorFor(reference.ErrExists, row.TaskID)
	}
	return row, nil // Normalize's copy is private
}

// Get returns the task, or reference.NotFound when it is missing, expired by the store's
// clock, or not visible to caller (M-GET-1). One HGETALL.
func (m *Modern) Get(ctx context.Context, id string, caller reference.Caller) (modern.Task, error) {
	if err := m.s.beginOn(ctx, "get", id); err != nil {
		return modern.Task{}, err
	}
	key, _ := m.keys(id)
	h, err := m.s.hgetall(ctx, key)
	if err != nil {
		return modern.Task{}, dbError(ctx, "get", err)
	}
	if len(h) == 0 {
		return modern.Task{}, reference.NotFound(id)
	}
	t, err := decodeModern(id, h)
	if err != nil {
		return modern.Task{}, err
	}
	if !t.VisibleAt(caller, m.s.now()) {
		return modern.Task{}, reference.NotFound(id)
	}
	return t, nil
}

func decodeModern(id string, h map[string]string) (modern.Task, error) {
	bad := func(what string, err error) (modern.Task, error) {
		return modern.Task{}, fmt.Errorf("%w: redis: task %s: stored %s unreadable: %v", reference.ErrInternal, id, what, err)
	}
	t := modern.Task{TaskID: id, Owner: h["o"]}
	var err error
	if t.Version, err = strconv.ParseInt(h["v"], 10, 64); err != nil {
		return bad("version", err)
	}
	if t.CreatedAt, err = strconv.ParseInt(h["c"], 10, 64); err != nil {
		return bad("created_at", err)
	}
	var b modernBody
	dec := json.NewDecoder(bytes.NewReader([]byte(h["b"])))
	dec.UseNumber()
	if err := dec.Decode(&b); err != nil {
		return bad("body", err)
	}
	t.Status, t.StatusMessage, t.LastUpdatedAt = b.Status, b.StatusMessage, b.LastUpdatedAt
	t.TTL, t.PollInterval, t.Result, t.Error = b.TTL, b.PollInterval, b.Result, b.Error
	t.InputRequests, t.StagedResponses, t.InputResponses = b.InputRequests, b.StagedResponses, b.InputResponses
	t.IssuedKeys = b.IssuedKeys
	return t, nil
}

// Swap replaces the task iff it exists, is unexpired, visible to caller and at
// expectedVersion, with owner and created_at unchanged (M-SWAP-1..3). One script makes
// every check and the write; a refused Swap writes nothing.
func (m *Modern) Swap(ctx context.Context, caller reference.Caller, expectedVersion int64, next modern.Task) (modern.Task, error) {
	id := next.TaskID
	if err := m.s.beginOn(ctx, "swap", id); err != nil {
		return modern.Task{}, err
	}
	row, err := next.Normalize()
	if err != nil {
		return modern.Task{}, err
	}
	expected := itoa(expectedVersion)
	if expectedVersion == math.MaxInt64 {
		// No stored version can be incremented past it: let the script answer
		// not-found or invalid as it would, and a conflict otherwise.
		expected = "none"
	}
	row.Version = expectedVersion + 1
	w, err := m.writeArgs(row)
	if err != nil {
		return modern.Task{}, err
	}
	kind, cid := "s", ""
	switch p, ok := caller.PrincipalID(); {
	case ok:
		kind, cid = "p", p
	case caller.IsAnonymous():
		kind = "a"
	}
	key, exp := m.keys(id)
	v, err := m.s.run(ctx, modernSwap, []string{key, exp},
		id, kind, cid, expected, itoa(row.Version), w.hasOwner, w.owner,
		itoa(row.CreatedAt), itoa(m.s.now()), w.hasExp, w.exp, w.body, w.backstop)
	if err != nil {
		return modern.Task{}, writeError(ctx, "swap", err)
	}
	r, err := replyStrings(v)
	if err != nil || len(r) == 0 {
		return modern.Task{}, fmt.Errorf("%w: redis: swap: unexpected reply %v", reference.ErrInternal, v)
	}
	switch r[0] {
	case "ok":
		return row, nil
	case "nf":
		return modern.Task{}, reference.NotFound(id)
	case "owner":
		return modern.Task{}, fmt.Errorf("%w: swap of task %s would change owner from %q to %q", reference.ErrInvalid, id, r[1], row.Owner)
	case "created":
		return modern.Task{}, fmt.Errorf("%w: swap of task %s would change created_at from %s to %d", reference.ErrInvalid, id, r[1], row.CreatedAt)
	case "conflict":
		return modern.Task{}, fmt.Errorf("%w: task %s is at version %s, not %d", reference.ErrConflict, id, r[1], expectedVersion)
	}
	return modern.Task{}, fmt.Errorf("%w: redis: swap: unexpected reply %v", reference.ErrInternal, v)
}

// Delete removes the task; it is idempotent (M-DELETE-1). One script.
func (m *Modern) Delete(ctx context.Context, id string) error {
	if err := m.s.beginOn(ctx, "delete", id); err != nil {
		return err
	}
	key, exp := m.keys(id)
	if _, err := m.s.run(ctx, modernDelete, []string{key, exp}, id); err != nil {
		return writeError(ctx, "delete", err)
	}
	return nil
}

// Sweep deletes every task expired by the store's clock (now ≥ created_at + ttl) and
// returns the count (M-SWEEP-1). One script per bucket in one pipeline, repeated for a
// bucket with more than a batch of expired tasks.
func (m *Modern) Sweep(ctx context.Context) (int, error) {
	if err := m.s.begin(ctx, "sweep"); err != nil {
		return 0, err
	}
	return m.s.sweepBuckets(ctx, "sweep", modernSweep, ":m#exp", itoa(m.s.now()))
}
