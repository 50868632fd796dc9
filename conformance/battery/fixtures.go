package battery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

// Helpers of the shared-rule and legacy-era specs. Any spec package may use them; the
// modern-era helpers live in modernspecs/fixtures.go.

// TrickyOwners are owners that a sloppy comparison confuses with one another (S-OWN-3):
// case, whitespace, a homoglyph, numeric forms, prefixes, characters that are wildcards
// in LIKE, glob or regexp syntax, and NFC vs NFD forms of the same text. Every pair is
// distinct byte for byte, so each must see only its own tasks.
func TrickyOwners() []string {
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

// OwnerCorpus is every owner the list and owner specs try: TrickyOwners and longOwners.
func OwnerCorpus() []string { return append(TrickyOwners(), longOwners()...) }

// ownerRow is one row of the owner truth table (docs/spec.md section 0).
type ownerRow struct {
	Name         string
	Owned        bool // the task is owned by "owner-y"; else it has no owner
	Caller       reference.Caller
	Allow        bool // default setting
	allowRequire bool // with require_owner
}

// Principals of the truth table. Fixed strings are safe: specs use fresh task ids and
// judge only their own tasks.
const (
	OwnerX = "owner-x"
	OwnerY = "owner-y"
)

// OwnerTable is the owner truth table of docs/spec.md, written out rather than computed so
// that the battery does not share a bug with reference.CanSee. The system caller sees
// every task in both settings.
func OwnerTable() []ownerRow {
	return []ownerRow{
		{"unowned task, anonymous caller", false, reference.Anonymous(), true, false},
		{"unowned task, principal X", false, reference.Principal(OwnerX), true, false},
		{"unowned task, system", false, reference.System(), true, true},
		{"task of Y, anonymous caller", true, reference.Anonymous(), false, false},
		{"task of Y, principal Y", true, reference.Principal(OwnerY), true, true},
		{"task of Y, principal X", true, reference.Principal(OwnerX), false, false},
		{"task of Y, system", true, reference.System(), true, true},
	}
}

func (r ownerRow) Allowed(requireOwner bool) bool {
	if requireOwner {
		return r.allowRequire
	}
	return r.Allow
}

func (r ownerRow) Owner() string {
	if r.Owned {
		return OwnerY
	}
	return ""
}

// SettingName renders the require_owner setting for failure messages.
func SettingName(requireOwner bool) string {
	if requireOwner {
		return "require_owner"
	}
	return "default"
}

// MustCreate creates a task as setup and stops the spec if the store refuses it.
func MustCreate(e *Env, st legacy.Store, id string, meta legacy.Task) legacy.Task {
	t, err := st.Create(e.Ctx, id, meta)
	e.RequireErr(err, nil, fmt.Sprintf("setup: Create(%s, %s)", Literal(id), Literal(meta)))
	return t
}

// MustUpdate updates a task as setup and stops the spec if the store refuses it.
func MustUpdate(e *Env, st legacy.Store, id string, changes legacy.Task) legacy.Task {
	t, err := st.Update(e.Ctx, id, changes)
	e.RequireErr(err, nil, fmt.Sprintf("setup: Update(%s, %s)", Literal(id), Literal(changes)))
	return t
}

// MustStatus sets a task's status at the store (which does not check transitions).
func MustStatus(e *Env, st legacy.Store, id string, status string) legacy.Task {
	return MustUpdate(e, st, id, legacy.Task{legacy.KeyStatus: status})
}

// Stored reads id at the store: the task and true, or false for ErrNotFound. Any other
// error stops the spec.
func Stored(e *Env, st legacy.Store, id string) (legacy.Task, bool) {
	t, err := st.Get(e.Ctx, id)
	if errors.Is(err, reference.ErrNotFound) {
		return nil, false
	}
	e.RequireErr(err, nil, fmt.Sprintf("Get(%s)", Literal(id)))
	return t, true
}

// CheckStored checks that the store holds exactly want under id; after names the call
// whose effect is being judged.
func CheckStored(e *Env, st legacy.Store, id string, want legacy.Task, after string) bool {
	got, ok := Stored(e, st, id)
	input := fmt.Sprintf("after %s: Get(%s)", after, Literal(id))
	if !ok {
		return e.Check(false, input, want, "ErrNotFound: the task is gone")
	}
	return CheckTask(e, input, want, got)
}

// CheckGone checks that the store answers ErrNotFound for id.
func CheckGone(e *Env, st legacy.Store, id string, after string) bool {
	got, ok := Stored(e, st, id)
	return e.Check(!ok, fmt.Sprintf("after %s: Get(%s)", after, Literal(id)), "ErrNotFound", got)
}

// CheckTask compares two tasks as JSON objects and names the keys that differ.
func CheckTask(e *Env, input string, want, got legacy.Task) bool {
	if legacy.Equal(want, got) {
		return true
	}
	return e.Check(false, input, want, fmt.Sprintf("%s\n  (differs in keys: %s)", Show(got), strings.Join(taskDiff(want, got), ", ")))
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

// ListRows calls List and stops the spec on an error.
func ListRows(e *Env, st legacy.Store, opts legacy.ListOptions) []legacy.Task {
	rows, err := st.List(e.Ctx, opts)
	e.RequireErr(err, nil, "List("+ShowOpts(opts)+")")
	return rows
}

// ShowOpts renders list options for input lines.
func ShowOpts(o legacy.ListOptions) string { return showOpts(o, o.Owner.String()) }

// showOpts renders list options with owner for the scope.
func showOpts(o legacy.ListOptions, owner string) string {
	var parts []string
	if o.Status != nil {
		parts = append(parts, fmt.Sprintf("Status: %q", *o.Status))
	}
	if o.Limit != nil {
		parts = append(parts, fmt.Sprintf("Limit: %d", *o.Limit))
	}
	parts = append(parts, "Owner: "+owner)
	if o.RequireOwner {
		parts = append(parts, "RequireOwner: true")
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// IDSet is a set of task ids.
type IDSet map[string]bool

func SetOf(ids ...string) IDSet {
	s := IDSet{}
	for _, id := range ids {
		s[id] = true
	}
	return s
}

// Sorted lists the set's ids in order, for messages.
func (s IDSet) Sorted() []string {
	out := make([]string, 0, len(s))
	for id := range s {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

func (s IDSet) String() string { return fmt.Sprintf("%q", s.Sorted()) }

// Equal reports whether two sets hold the same ids.
func (s IDSet) Equal(o IDSet) bool {
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

// RowIDs is the set of task ids among rows that are in mine (all rows when mine is nil).
func RowIDs(rows []legacy.Task, mine IDSet) IDSet {
	s := IDSet{}
	for _, r := range rows {
		if id := r.ID(); mine == nil || mine[id] {
			s[id] = true
		}
	}
	return s
}

// DuplicateIDs lists the task ids that occur more than once among rows (L-LIST-1).
func DuplicateIDs(rows []legacy.Task) []string {
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

// StatusOf returns a row's status as stored: the string, or a description of what is
// there instead.
func StatusOf(t legacy.Task) string {
	switch s := t[legacy.KeyStatus].(type) {
	case string:
		return s
	case nil:
		return "<none>"
	default:
		return fmt.Sprintf("<%T>", s)
	}
}

// Finishes runs f and reports whether it returned within d. A call that does not return
// is left running: the spec goes on and reports the hang instead of hanging itself.
func Finishes(d time.Duration, f func()) bool {
	done := make(chan struct{})
	var cs Clients
	cs.Run(0, func() {
		defer close(done)
		f()
	})
	select {
	case <-done:
		cs.Wait() // re-raises a panic of f here
		return true
	case <-time.After(d):
		return false
	}
}

// CancelledCtx is a context that has already been cancelled.
func CancelledCtx() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// ExpiredCtx is a context whose deadline has already passed.
func ExpiredCtx() context.Context {
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	_ = cancel // the deadline has passed; cancel would only free the timer early
	return ctx
}

// PlainStore shows only the five required methods of the store it wraps, hiding
// Canceler, Cleaner and ConditionalUpdater: over it the facade takes its fallbacks.
type PlainStore struct{ legacy.Store }

// RequireCanceler, RequireCleaner and RequireConditional find an optional legacy
// interface on the store under test, and skip the spec, naming the interface, when the
// store does not implement it.
func RequireCanceler(st legacy.Store) legacy.Canceler {
	return RequireOptional[legacy.Canceler](st, "legacy.Canceler")
}

func RequireCleaner(st legacy.Store) legacy.Cleaner {
	return RequireOptional[legacy.Cleaner](st, "legacy.Cleaner")
}

func RequireConditional(st legacy.Store) legacy.ConditionalUpdater {
	return RequireOptional[legacy.ConditionalUpdater](st, "legacy.ConditionalUpdater")
}

// RequireOptional finds the optional interface T on st, a store under test of any era,
// and skips the spec (SkipOptional, naming the interface as iface) when st does not
// implement it.
func RequireOptional[T any](st any, iface string) T {
	o, ok := st.(T)
	if !ok {
		SkipOptional(iface)
	}
	return o
}

// SkipOptional skips a spec of an optional operation the store does not implement; the
// reason names the interface, so that the report shows which fallback the facade takes.
func SkipOptional(iface string) { skipActive("optional " + iface + " not implemented") }

// BulkRows is more than the common page and batch sizes (100, 1000): a store that
// lists, cleans or sweeps one page only falls short.
const BulkRows = 1100

// bulkClients is how many clients Each runs calls on at once.
const bulkClients = 8

// Bulk makes n fresh ids (e.ID(prefix), in order) and sets each up with Each.
func Bulk(e *Env, prefix string, n int, setup func(i int, id string)) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = e.ID(prefix)
	}
	Each(e, n, func(i int) { setup(i, ids[i]) })
	return ids
}

// Each runs call(0..n-1) on bulkClients clients at once, so that a spec of more rows
// than a page pays for them in round trips per client, not per row. A call that stops
// the spec (a Must* helper) stops the others and then the spec.
func Each(e *Env, n int, call func(i int)) {
	before := len(e.Faults())
	var next atomic.Int64
	var cs Clients
	for c := range bulkClients {
		cs.Run(c, func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n || e.Ctx.Err() != nil || len(e.Faults()) > before {
					return
				}
				call(i)
			}
		})
	}
	cs.Wait()
	if len(e.Faults()) > before {
		panic(ErrFatal)
	}
}

// JSONValues is an object holding every kind of JSON value S-VAL-1 names, in canonical
// form (numbers as json.Number).
func JSONValues() legacy.Task {
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
		// Strings that look like another type: a store that sniffs its text back into
		// numbers, booleans, null or JSON changes them.
		"digits":      "123",
		"bigDigits":   "9007199254740993",
		"trueString":  "true",
		"nullString":  "null",
		"floatString": "1.0",
		"jsonString":  `{"a":[1]}`,
		"123":         "digit key",
		"lookAlikes":  []any{"0", "-1", "false", "1e3", "[]"},
	}
}

func CreatedAtOf(t legacy.Task) (int64, bool) {
	n, ok := t[legacy.KeyCreatedAt].(json.Number)
	if !ok {
		return 0, false
	}
	v, err := n.Int64()
	return v, err == nil
}
