package mutants

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/sdk"
)

// Defects found at the edges of the owner index, Cleanup's reading of created_at and the
// SDK profile's cursors and ttls, each a layer over the honest store.

// wrappedMutants are the edge defects, listed in the catalogue.
var wrappedMutants = []mutant.Mutant[Build]{
	{Name: "owner-index-survives-delete", Breaks: []string{"L-LIST-3"}, Defect: "List finds a principal's rows through a per-owner index that Delete does not clean: an id deleted and created again under another owner (or none) is still listed to the old owner", Build: Build{legacyOnly, &wrapper{legacy: func(st legacyStore, w *wrapState) legacy.Store { return ownerIndexed{st, w} }}}},
	{Name: "cleanup-ages-digit-strings", Breaks: []string{"L-CLEAN-1"}, Defect: `Cleanup reads a created_at that is text of a number ("1764392800000", " 1764392800000 ", "1764392800000.0", "1.7643928e+12") as that number and ages the task from it (section 4: a created_at that is not an integer has no age)`, Build: Build{legacyOnly, legacyLayer(func(st legacyStore) legacy.Store { return cleanupSniffsAge{st} })}},
	{Name: "sdk-cursor-date-internal", Breaks: []string{"P-LIST-1"}, Defect: "a cursor is base64url of JSON {\"at\": a date, \"after\": a position}; a date that does not parse is a plain error (an internal error, not invalid params)", Build: Build{sdkOnly, sdkLayer(func(st sdkStore) sdk.Store { return datedCursors{st} })}},
	{Name: "sdk-refuses-huge-ttl", Breaks: []string{"P-CREATE-1"}, Defect: "CreateTask refuses a ttl past 32 bits of milliseconds with ErrInvalid (an INT column guarded by a check): the specs that need such a task for their setup read setup refused, not failed", Build: Build{sdkOnly, sdkLayer(func(st sdkStore) sdk.Store { return refusesHugeTTL{st} })}},
}

// ownerIndexed keeps, beside the honest rows, an index owner → ids that Create fills and
// Delete never cleans, and lists a principal's rows through it: the index's ids read
// back by id, whoever owns them now.
type ownerIndexed struct {
	legacyStore
	w *wrapState
}

// Create adds the id under its owner, next to whatever the index still holds for it.
func (s ownerIndexed) Create(ctx context.Context, id string, meta legacy.Task) (legacy.Task, error) {
	t, err := s.legacyStore.Create(ctx, id, meta)
	if err == nil {
		s.index(id, meta, false)
	}
	return t, err
}

// Update and UpdateIf move the id to the owner the changes carry: the index is kept on
// every write but Delete.
func (s ownerIndexed) Update(ctx context.Context, id string, changes legacy.Task) (legacy.Task, error) {
	t, err := s.legacyStore.Update(ctx, id, changes)
	if err == nil {
		s.index(id, changes, true)
	}
	return t, err
}

func (s ownerIndexed) UpdateIf(ctx context.Context, id string, allowed []reference.Status, changes legacy.Task) (legacy.Task, error) {
	t, err := s.legacyStore.UpdateIf(ctx, id, allowed, changes)
	if err == nil {
		s.index(id, changes, true)
	}
	return t, err
}

// index files id under the owner in fields; move first takes it out from under every
// owner (a write that carries owner).
func (s ownerIndexed) index(id string, fields legacy.Task, move bool) {
	v, has := fields[legacy.KeyOwner]
	if move && !has {
		return
	}
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	if move {
		for _, ids := range s.w.byOwner {
			delete(ids, id)
		}
	}
	if owner, ok := v.(string); ok && owner != "" {
		if s.w.byOwner[owner] == nil {
			s.w.byOwner[owner] = map[string]bool{}
		}
		s.w.byOwner[owner][id] = true
	}
}

func (s ownerIndexed) List(ctx context.Context, opts legacy.ListOptions) ([]legacy.Task, error) {
	p, isPrincipal := opts.Owner.Principal()
	if !isPrincipal {
		return s.legacyStore.List(ctx, opts)
	}
	// The principal's rows come from the index; the unowned ones from the table.
	unowned := opts
	unowned.Owner, unowned.Limit = legacy.AnonymousOwner(), nil
	var rows []legacy.Task
	if !opts.RequireOwner {
		var err error
		if rows, err = s.legacyStore.List(ctx, unowned); err != nil {
			return nil, err
		}
	}
	s.w.mu.Lock()
	var ids []string
	for id := range s.w.byOwner[p] {
		ids = append(ids, id)
	}
	s.w.mu.Unlock()
	for _, id := range ids {
		t, err := s.legacyStore.Get(ctx, id)
		if err != nil {
			continue // deleted and not created again: the index's row finds nothing
		}
		if opts.Status != nil && t.Status() != reference.Status(*opts.Status) {
			continue
		}
		if o, _ := t[legacy.KeyOwner].(string); o == "" {
			continue // created again unowned: the table's query above lists it
		}
		rows = append(rows, t)
	}
	if opts.Limit != nil {
		rows = rows[:max(0, min(len(rows), *opts.Limit))]
	}
	return rows, nil
}

// cleanupSniffsAge removes, before the honest Cleanup, every terminal task whose
// created_at is text that reads as a number once parsed loosely (digits, padded, with a
// fraction or an exponent), aged from that number.
type cleanupSniffsAge struct{ legacyStore }

func (s cleanupSniffsAge) Cleanup(ctx context.Context, ttl time.Duration) (int, error) {
	rows, err := s.legacyStore.List(ctx, legacy.ListOptions{Owner: legacy.AnyOwner()})
	if err != nil {
		return 0, err
	}
	now := s.now()
	n := 0
	for _, t := range rows {
		if _, ok := t.CreatedAt(); ok || !t.Status().Terminal() {
			continue // an integer: the honest Cleanup ages it
		}
		born, ok := looseMillis(t[legacy.KeyCreatedAt])
		if !ok || now-born <= ttl.Milliseconds() {
			continue
		}
		id, _ := t[legacy.KeyTaskID].(string)
		if err := s.legacyStore.Delete(ctx, id); err != nil {
			return n, err
		}
		n++
	}
	m, err := s.legacyStore.Cleanup(ctx, ttl)
	return n + m, err
}

// looseMillis reads text as a number of milliseconds the way a store that casts a
// text column does: trimmed and parsed, a fraction cut off.
func looseMillis(v any) (int64, bool) {
	text, ok := v.(string)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return int64(f), true
}

// refusesHugeTTL refuses a ttl past 32 bits of milliseconds at CreateTask.
type refusesHugeTTL struct{ sdkStore }

func (s refusesHugeTTL) CreateTask(ctx context.Context, session string, p sdk.CreateParams) (sdk.Task, error) {
	if p.TTL != nil && *p.TTL > math.MaxInt32 {
		return sdk.Task{}, fmt.Errorf("mutant: ttl %d out of range for an INT column: %w", *p.TTL, reference.ErrInvalid)
	}
	return s.sdkStore.CreateTask(ctx, session, p)
}

// datedCursors wraps the honest store's cursor in base64url JSON with the instant it was
// issued, and parses it back: what is not base64 or JSON is invalid, as it should be,
// but a date that does not parse is reported as the parser's own error, wrapping no
// sentinel (a 500 in a server, -32603 to a client).
type datedCursors struct{ sdkStore }

type datedCursor struct {
	At    string `json:"at"`
	After string `json:"after"`
}

func (s datedCursors) ListTasks(ctx context.Context, session, cursor string) (sdk.Page, error) {
	if cursor != "" {
		raw, err := base64.RawURLEncoding.DecodeString(cursor)
		var c datedCursor
		if err == nil {
			err = json.Unmarshal(raw, &c)
		}
		if err != nil {
			return sdk.Page{}, fmt.Errorf("mutant: cursor %q: %w", cursor, reference.ErrInvalid)
		}
		if _, err := time.Parse(time.RFC3339Nano, c.At); err != nil {
			return sdk.Page{}, fmt.Errorf("mutant: cursor date: %v", err)
		}
		cursor = c.After
	}
	page, err := s.sdkStore.ListTasks(ctx, session, cursor)
	if err == nil && page.NextCursor != "" {
		b, _ := json.Marshal(datedCursor{At: sdk.FormatTime(s.now()), After: page.NextCursor})
		page.NextCursor = base64.RawURLEncoding.EncodeToString(b)
	}
	return page, err
}
