package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

// Helpers of the shared-rule and legacy-era specs. Any spec file may use them; the
// modern-era helpers live in modern_fixtures.go with a "mod" prefix.

// trickyOwners are owners that a sloppy comparison confuses with one another (S-OWN-3):
// case, whitespace, a homoglyph, numeric forms, prefixes, characters that are wildcards
// in LIKE, glob or regexp syntax, and NFC vs NFD forms of the same text. Every pair is
// distinct byte for byte, so each must see only its own tasks.
func trickyOwners() []string {
	return []string{
		"alice", "Alice", "ALICE", "alice ", " alice", "alic\u0435", // Cyrillic е
		"alice2", "al", "a%", "al_ce", "al*",
		"1", "1.0", "01",
		"%", "_", "*", "?", "$1", ":", "{", "}", ".*", "[a]",
		"\u00e9t\u00e9", "e\u0301te\u0301", // "été" NFC, then NFD
	}
}

// longOwners are owners that share a long prefix and differ only at its end, in pairs:
// a store that compares a fixed-width prefix of the owner (a CHAR(12) or VARCHAR(255)
// index column, a truncated hash key) merges each pair. Lengths 18, 64, 255/256 and
// 1 KiB bytes, and multi-byte UTF-8 text cut where a byte-wise prefix splits a character.
func longOwners() []string {
	p64 := strings.Repeat("t", 63)
	p255 := strings.Repeat("v", 255)
	kib := strings.Repeat("k", 1023)
	eAcute := strings.Repeat("\u00e9", 40)                // 80 bytes of two-byte characters
	kana := strings.Repeat("\u30c6\u30ca\u30f3\u30c8", 4) // 48 bytes of three-byte characters
	return []string{
		"tenant-acme-corp-1", "tenant-acme-corp-2",
		p64 + "1", p64 + "2",
		p255, p255 + "1",
		strings.Repeat("w", 254) + "1", strings.Repeat("w", 254) + "2",
		kib + "1", kib + "2",
		eAcute + "1", eAcute + "2", eAcute[:len(eAcute)-2] + "e\u0301",
		kana + "-1", kana + "-2",
	}
}

// ownerCorpus is every owner the list and owner specs try: trickyOwners and longOwners.
func ownerCorpus() []string { return append(trickyOwners(), longOwners()...) }

// ownerRow is one row of the owner truth table (docs/spec.md section 0).
type ownerRow struct {
	name         string
	owned        bool // the task is owned by "owner-y"; else it has no owner
	caller       reference.Caller
	allow        bool // default setting
	allowRequire bool // with require_owner
}

// Principals of the truth table. Fixed strings are safe: specs use fresh task ids and
// judge only their own tasks.
const (
	ownerX = "owner-x"
	ownerY = "owner-y"
)

// ownerTable is the owner truth table of docs/spec.md, written out rather than computed so
// that the battery does not share a bug with reference.CanSee. The system caller sees
// every task in both settings.
func ownerTable() []ownerRow {
	return []ownerRow{
		{"unowned task, anonymous caller", false, reference.Anonymous(), true, false},
		{"unowned task, principal X", false, reference.Principal(ownerX), true, false},
		{"unowned task, system", false, reference.System(), true, true},
		{"task of Y, anonymous caller", true, reference.Anonymous(), false, false},
		{"task of Y, principal Y", true, reference.Principal(ownerY), true, true},
		{"task of Y, principal X", true, reference.Principal(ownerX), false, false},
		{"task of Y, system", true, reference.System(), true, true},
	}
}

func (r ownerRow) allowed(requireOwner bool) bool {
	if requireOwner {
		return r.allowRequire
	}
	return r.allow
}

func (r ownerRow) owner() string {
	if r.owned {
		return ownerY
	}
	return ""
}

// settingName renders the require_owner setting for failure messages.
func settingName(requireOwner bool) string {
	if requireOwner {
		return "require_owner"
	}
	return "default"
}

// mustCreate creates a task as setup and stops the spec if the store refuses it.
func mustCreate(e *Env, st legacy.Store, id string, meta legacy.Task) legacy.Task {
	t, err := st.Create(e.Ctx, id, meta)
	e.RequireErr(err, nil, fmt.Sprintf("setup: Create(%s, %s)", Q(id), Q(meta)))
	return t
}

// mustUpdate updates a task as setup and stops the spec if the store refuses it.
func mustUpdate(e *Env, st legacy.Store, id string, changes legacy.Task) legacy.Task {
	t, err := st.Update(e.Ctx, id, changes)
	e.RequireErr(err, nil, fmt.Sprintf("setup: Update(%s, %s)", Q(id), Q(changes)))
	return t
}

// mustStatus sets a task's status at the store (which does not check transitions).
func mustStatus(e *Env, st legacy.Store, id string, status string) legacy.Task {
	return mustUpdate(e, st, id, legacy.Task{legacy.KeyStatus: status})
}

// stored reads id at the store: the task and true, or false for ErrNotFound. Any other
// error stops the spec.
func stored(e *Env, st legacy.Store, id string) (legacy.Task, bool) {
	t, err := st.Get(e.Ctx, id)
	if errors.Is(err, reference.ErrNotFound) {
		return nil, false
	}
	e.RequireErr(err, nil, fmt.Sprintf("Get(%s)", Q(id)))
	return t, true
}

// checkStored checks that the store holds exactly want under id; after names the call
// whose effect is being judged.
func checkStored(e *Env, st legacy.Store, id string, want legacy.Task, after string) bool {
	got, ok := stored(e, st, id)
	input := fmt.Sprintf("after %s: Get(%s)", after, Q(id))
	if !ok {
		return e.Check(false, input, want, "ErrNotFound: the task is gone")
	}
	return checkTask(e, input, want, got)
}

// checkGone checks that the store answers ErrNotFound for id.
func checkGone(e *Env, st legacy.Store, id string, after string) bool {
	got, ok := stored(e, st, id)
	return e.Check(!ok, fmt.Sprintf("after %s: Get(%s)", after, Q(id)), "ErrNotFound", got)
}

// checkTask compares two tasks as JSON objects and names the keys that differ.
func checkTask(e *Env, input string, want, got legacy.Task) bool {
	if legacy.Equal(want, got) {
		return true
	}
	return e.Check(false, input, want, fmt.Sprintf("%s\n  (differs in keys: %s)", show(got), strings.Join(taskDiff(want, got), ", ")))
}

// taskDiff lists the top-level keys in which two tasks differ.
func taskDiff(a, b legacy.Task) []string {
	var d []string
	for k, av := range a {
		bv, ok := b[k]
		switch {
		case !ok:
			d = append(d, fmt.Sprintf("%q missing", k))
		case !legacy.Equal(legacy.Task{"v": av}, legacy.Task{"v": bv}):
			d = append(d, fmt.Sprintf("%q", k))
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			d = append(d, fmt.Sprintf("%q unexpected", k))
		}
	}
	sort.Strings(d)
	return d
}

// listRows calls List and stops the spec on an error.
func listRows(e *Env, st legacy.Store, opts legacy.ListOptions) []legacy.Task {
	rows, err := st.List(e.Ctx, opts)
	e.RequireErr(err, nil, "List("+showOpts(opts)+")")
	return rows
}

// showOpts renders list options for input lines.
func showOpts(o legacy.ListOptions) string {
	var parts []string
	if o.Status != nil {
		parts = append(parts, fmt.Sprintf("Status: %q", *o.Status))
	}
	if o.Limit != nil {
		parts = append(parts, fmt.Sprintf("Limit: %d", *o.Limit))
	}
	parts = append(parts, "Owner: "+o.Owner.String())
	if o.RequireOwner {
		parts = append(parts, "RequireOwner: true")
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// idSet is a set of task ids.
type idSet map[string]bool

func setOf(ids ...string) idSet {
	s := idSet{}
	for _, id := range ids {
		s[id] = true
	}
	return s
}

// sorted lists the set's ids in order, for messages.
func (s idSet) sorted() []string {
	out := make([]string, 0, len(s))
	for id := range s {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

func (s idSet) String() string { return fmt.Sprintf("%q", s.sorted()) }

// equal reports whether two sets hold the same ids.
func (s idSet) equal(o idSet) bool {
	if len(s) != len(o) {
		return false
	}
	for id := range s {
		if !o[id] {
			return false
		}
	}
	return true
}

// rowIDs is the set of task ids among rows that are in mine (all rows when mine is nil).
func rowIDs(rows []legacy.Task, mine idSet) idSet {
	s := idSet{}
	for _, r := range rows {
		if id := r.ID(); mine == nil || mine[id] {
			s[id] = true
		}
	}
	return s
}

// duplicateIDs lists the task ids that occur more than once among rows (L-LIST-1).
func duplicateIDs(rows []legacy.Task) []string {
	seen := map[string]int{}
	var dup []string
	for _, r := range rows {
		seen[r.ID()]++
		if seen[r.ID()] == 2 {
			dup = append(dup, r.ID())
		}
	}
	return dup
}

// statusOf returns a row's status as stored: the string, or a description of what is
// there instead.
func statusOf(t legacy.Task) string {
	switch s := t[legacy.KeyStatus].(type) {
	case string:
		return s
	case nil:
		return "<none>"
	default:
		return fmt.Sprintf("<%T>", s)
	}
}

// finishes runs f and reports whether it returned within d. A call that does not return
// is left running: the spec goes on and reports the hang instead of hanging itself.
func finishes(d time.Duration, f func()) bool {
	done := make(chan struct{})
	var cs clients
	cs.run(0, func() {
		defer close(done)
		f()
	})
	select {
	case <-done:
		cs.wait() // re-raises a panic of f here
		return true
	case <-time.After(d):
		return false
	}
}

// cancelledCtx is a context that has already been cancelled.
func cancelledCtx() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// expiredCtx is a context whose deadline has already passed.
func expiredCtx() context.Context {
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	_ = cancel // the deadline has passed; cancel would only free the timer early
	return ctx
}

// plainStore shows only the five required methods of the store it wraps, hiding
// Canceler, Cleaner and ConditionalUpdater: over it the facade takes its fallbacks.
type plainStore struct{ legacy.Store }

// callLog records the calls a wrapper saw, for specs that check which store method the
// facade used.
type callLog struct {
	mu    sync.Mutex
	calls []string
}

func (l *callLog) add(format string, args ...any) {
	l.mu.Lock()
	l.calls = append(l.calls, fmt.Sprintf(format, args...))
	l.mu.Unlock()
}

func (l *callLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.calls...)
}

// has reports whether a call starting with prefix was made.
func (l *callLog) has(prefix string) bool {
	for _, c := range l.all() {
		if strings.HasPrefix(c, prefix) {
			return true
		}
	}
	return false
}

// recordingStore forwards the five required methods and logs the writes. It hides the
// optional interfaces; cancelRecorder and cleanRecorder add them back one at a time.
type recordingStore struct {
	legacy.Store
	log *callLog
}

func (r recordingStore) Update(ctx context.Context, id string, changes legacy.Task) (legacy.Task, error) {
	r.log.add("Update(%q, %s)", id, show(changes))
	return r.Store.Update(ctx, id, changes)
}

// cancelRecorder is a recordingStore with the inner store's Cancel.
type cancelRecorder struct {
	recordingStore
	c legacy.Canceler
}

func (r cancelRecorder) Cancel(ctx context.Context, id string) (legacy.Task, error) {
	r.log.add("Cancel(%q)", id)
	return r.c.Cancel(ctx, id)
}

// cancelCondRecorder is a cancelRecorder with the inner store's UpdateIf as well: the
// facade then claims the task with UpdateIf and calls Cancel for its side effects.
type cancelCondRecorder struct {
	cancelRecorder
	cu legacy.ConditionalUpdater
}

func (r cancelCondRecorder) UpdateIf(ctx context.Context, id string, allowed []reference.Status, changes legacy.Task) (legacy.Task, error) {
	r.log.add("UpdateIf(%q, %v, %s)", id, allowed, show(changes))
	return r.cu.UpdateIf(ctx, id, allowed, changes)
}

// cleanRecorder is a recordingStore with the inner store's Cleanup; it logs the count
// the store returned, so that a spec can compare it with the facade's.
type cleanRecorder struct {
	recordingStore
	c legacy.Cleaner
}

func (r cleanRecorder) Cleanup(ctx context.Context, ttl time.Duration) (int, error) {
	n, err := r.c.Cleanup(ctx, ttl)
	r.log.add("Cleanup(%v) = %d, %v", ttl, n, err)
	return n, err
}

// requireCanceler, requireCleaner and requireConditional find an optional legacy
// interface on the store under test, and skip the spec, naming the interface, when the
// store does not implement it.
func requireCanceler(st legacy.Store) legacy.Canceler {
	c, ok := st.(legacy.Canceler)
	if !ok {
		skipOptional("legacy.Canceler")
	}
	return c
}

func requireCleaner(st legacy.Store) legacy.Cleaner {
	c, ok := st.(legacy.Cleaner)
	if !ok {
		skipOptional("legacy.Cleaner")
	}
	return c
}

func requireConditional(st legacy.Store) legacy.ConditionalUpdater {
	c, ok := st.(legacy.ConditionalUpdater)
	if !ok {
		skipOptional("legacy.ConditionalUpdater")
	}
	return c
}

// skipOptional skips a spec of an optional operation the store does not implement; the
// reason names the interface, so that the report shows which fallback the facade takes.
func skipOptional(iface string) { skipActive("optional " + iface + " not implemented") }

// bulkRows is more than the common page and batch sizes (100, 1000): a store that
// lists, cleans or sweeps one page only falls short.
const bulkRows = 1100

// jsonValues is an object holding every kind of JSON value S-VAL-1 names, in canonical
// form (numbers as json.Number).
func jsonValues() legacy.Task {
	return legacy.Task{
		"maxInt":      json.Number("9223372036854775807"),
		"minInt":      json.Number("-9223372036854775807"),
		"beyondFloat": json.Number("9007199254740993"), // 2^53+1: lost by float64
		"negBeyond":   json.Number("-9007199254740993"),
		"zero":        json.Number("0"),
		"pointOne":    json.Number("0.1"),
		"tiny":        json.Number("1e-7"),
		"maxFloat":    json.Number("1.7976931348623157e308"),
		"negFloat":    json.Number("-2.5"),
		"null":        nil,
		"true":        true,
		"false":       false,
		"emptyString": "",
		"emptyObject": map[string]any{},
		"emptyArray":  []any{},
		"nested": map[string]any{
			"a": []any{json.Number("1"), map[string]any{"b": []any{[]any{}, nil}}, nil, true, "x"},
			"o": map[string]any{"": map[string]any{"": ""}},
		},
		"":             "empty key",
		"a.b":          "dotted key",
		"$x":           "dollar key",
		"_id":          "underscore key",
		"$where":       "operator key",
		"a[0]":         "bracket key",
		"astral":       "𝄞 🎉 𐍈 🏳️‍🌈 👩🏽‍💻",
		"rtl":          "שלום مرحبا \u202eevil\u202c",
		"combining":    "e\u0301 a\u0308 Z\u0351\u0364\u036b",
		"spaces":       "  leading and trailing  ",
		"whitespace":   "\t\r\n \u00a0",
		"escapes":      "quote\" backslash\\ slash/ newline\n tab\t cr\r ctl\u001f del\u007f sep\u2028\u2029 <b>&amp;</b>",
		"bom":          "\ufeffbom",
		"ключ 鍵 🔑":     "unicode key",
		"arrayOfMixed": []any{"", json.Number("-0.5"), map[string]any{"": nil}, []any{json.Number("9223372036854775807")}},
	}
}

func createdAtOf(t legacy.Task) (int64, bool) {
	n, ok := t[legacy.KeyCreatedAt].(json.Number)
	if !ok {
		return 0, false
	}
	v, err := n.Int64()
	return v, err == nil
}
