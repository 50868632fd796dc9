package modernspecs

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/jsonvalue"
	"github.com/storecheck/storecheck/reference/modern"
)

// Helpers of the modern-era specs. They are prefixed "mod" so that they never clash with
// the legacy and shared fixtures of the same package.

// task is a fresh task for id: unowned, working, created now by the store's clock,
// no ttl, version 0 (the store stamps 1).
func task(e *battery.Env, id string) modern.Task {
	now := e.NowMillis()
	return modern.Task{TaskID: id, Status: reference.StatusWorking, CreatedAt: now, LastUpdatedAt: now}
}

// Owned is task with an owner.
func Owned(e *battery.Env, id, owner string) modern.Task {
	t := task(e, id)
	t.Owner = owner
	return t
}

// CreateTask creates t as setup and stops the spec if the store refuses it.
func CreateTask(e *battery.Env, st modern.Store, t modern.Task) modern.Task {
	got, err := st.Create(e.Ctx, t)
	e.RequireErr(err, nil, "setup: Create("+battery.Literal(t)+")")
	return got
}

// Next is the task a writer would swap in after cur: same identity, a new status
// message, version left as cur's (the store stamps the new one).
func Next(cur modern.Task, msg string) modern.Task {
	n := cur.Clone()
	n.StatusMessage = msg
	n.LastUpdatedAt = cur.LastUpdatedAt + 1
	return n
}

// Stored reads id as the system caller: the task and true, or false when the store
// answers ErrNotFound. Any other error stops the spec.
func Stored(e *battery.Env, st modern.Store, id string) (modern.Task, bool) {
	t, err := st.Get(e.Ctx, id, reference.System())
	// A read of an id that S-ID-2 refuses may answer ErrInvalid instead of ErrNotFound.
	if errors.Is(err, reference.ErrNotFound) || (errors.Is(err, reference.ErrInvalid) && reference.ValidateID(id) != nil) {
		return modern.Task{}, false
	}
	e.RequireErr(err, nil, fmt.Sprintf("Get(%s, system)", battery.Literal(id)))
	return t, true
}

// CheckStored checks that the store holds exactly want under want.TaskID. after names
// the call whose effect is being judged.
func CheckStored(e *battery.Env, st modern.Store, want modern.Task, after string) bool {
	got, ok := Stored(e, st, want.TaskID)
	input := fmt.Sprintf("after %s: Get(%s, system)", after, battery.Literal(want.TaskID))
	if !ok {
		return e.Check(false, input, want, "ErrNotFound: the task is gone")
	}
	return CheckTask(e, input, want, got)
}

// checkAbsent checks that the store answers ErrNotFound for id.
func checkAbsent(e *battery.Env, st modern.Store, id, after string) bool {
	got, ok := Stored(e, st, id)
	return e.Check(!ok, fmt.Sprintf("after %s: Get(%s, system)", after, battery.Literal(id)), "ErrNotFound", got)
}

// CheckTask compares two tasks with modern.Equal and names the fields that differ.
func CheckTask(e *battery.Env, input string, want, got modern.Task) bool {
	if modern.Equal(want, got) {
		return true
	}
	return e.Check(false, input, want, fmt.Sprintf("%s\n  (differs in: %s)", battery.Show(got), strings.Join(diff(want, got), ", ")))
}

// diff lists the fields in which a and b differ, judged as modern.Equal judges them.
func diff(a, b modern.Task) []string {
	var d []string
	add := func(differ bool, name string) {
		if differ {
			d = append(d, name)
		}
	}
	ptr := func(x, y *int64) bool { return (x == nil) != (y == nil) || (x != nil && *x != *y) }
	obj := func(x, y map[string]any) bool {
		return (x == nil) != (y == nil) || (x != nil && !jsonvalue.Equal(x, y))
	}
	mp := func(x, y map[string]any) bool { return !(len(x) == 0 && len(y) == 0) && !jsonvalue.Equal(x, y) }
	add(a.TaskID != b.TaskID, "task_id")
	add(a.Owner != b.Owner, "owner")
	add(a.Status != b.Status, "status")
	add(a.StatusMessage != b.StatusMessage, "status_message")
	add(a.CreatedAt != b.CreatedAt, "created_at")
	add(a.LastUpdatedAt != b.LastUpdatedAt, "last_updated_at")
	add(ptr(a.TTL, b.TTL), "ttl")
	add(ptr(a.PollInterval, b.PollInterval), "poll_interval")
	add(obj(a.Result, b.Result), "result")
	add(obj(a.Error, b.Error), "error")
	add(mp(a.InputRequests, b.InputRequests), "input_requests")
	add(mp(a.StagedResponses, b.StagedResponses), "staged_responses")
	add(mp(a.InputResponses, b.InputResponses), "input_responses")
	add(strings.Join(a.IssuedKeys, "\x00") != strings.Join(b.IssuedKeys, "\x00") || len(a.IssuedKeys) != len(b.IssuedKeys), "issued_keys")
	add(a.Version != b.Version, "version")
	return d
}

// WithVersion returns t as the store should hold it at version v.
func WithVersion(t modern.Task, v int64) modern.Task {
	c := t.Clone()
	c.Version = v
	return c
}

// SwapCall renders a Swap for failure messages.
func SwapCall(c reference.Caller, v int64, next modern.Task) string {
	return fmt.Sprintf("Swap(%s, %d, %s)", c, v, battery.Literal(next))
}

// CheckNotFoundLike checks that err is the store's answer for a missing task: it wraps
// ErrNotFound and reads exactly like missingErr (the answer for missingID) with id in
// place of missingID (S-OWN-2, M-SWAP-2: no existence leak).
func CheckNotFoundLike(e *battery.Env, input string, err error, id string, missingErr error, missingID string) bool {
	if !e.Check(errors.Is(err, reference.ErrNotFound), input, "an error wrapping ErrNotFound, as for a missing task", err) {
		return false
	}
	if missingErr == nil {
		return true
	}
	want := strings.ReplaceAll(missingErr.Error(), missingID, id)
	return e.Check(err.Error() == want, input,
		fmt.Sprintf("the message of a missing task, %q (the answer for missing id %q, with the id substituted)", want, missingID),
		fmt.Sprintf("%q", err.Error()))
}

// TimeTo moves the store's time to at least ms: the battery's clock when the store
// obeys it, else the real clock by sleeping (with a margin, for short waits only).
func TimeTo(e *battery.Env, ms int64) {
	if e.HasClock() {
		e.ManualClock().SetMillis(ms)
		return
	}
	const margin = 30 * time.Millisecond
	wait := time.Until(time.UnixMilli(ms)) + margin
	if wait > 5*time.Second {
		e.Fatalf("spec error: real-clock wait of %v is too long", wait)
	}
	if wait > 0 {
		select {
		case <-time.After(wait):
		case <-e.Ctx.Done():
		}
	}
}

// ShortTTL is a ttl that expires quickly on the real clock and is still far from the
// spec's creation instant on the battery's clock.
const ShortTTL = int64(20)

// longTTL never runs out during a spec.
const longTTL = int64(24 * 3600 * 1000)

// Tricky is an object with every JSON value S-VAL-1 names.
func Tricky() map[string]any {
	return map[string]any{
		"nested":       map[string]any{"a": []any{json.Number("1"), map[string]any{"b": []any{[]any{}}}, nil, true, false}},
		"null":         nil,
		"true":         true,
		"false":        false,
		"maxInt":       json.Number("9223372036854775807"),
		"minInt":       json.Number("-9223372036854775808"),
		"bigNegative":  json.Number("-9007199254740993"),
		"pointOne":     json.Number("0.1"),
		"tiny":         json.Number("1e-7"),
		"maxFloat":     json.Number("1.7976931348623157e308"),
		"zero":         json.Number("0"),
		"emptyString":  "",
		"emptyObject":  map[string]any{},
		"emptyArray":   []any{},
		"":             "empty key",
		"a.b":          "dotted key",
		"$x":           "dollar key",
		"_id":          "underscore key",
		"astral":       "𝄞 🎉 𐍈 🏳️‍🌈",
		"rtl":          "שלום مرحبا",
		"combining":    "e\u0301 a\u0308 ñ",
		"spaces":       "  leading and trailing  ",
		"whitespace":   "\t\r\n \u00a0",
		"escapes":      "quote\" backslash\\ newline\n tab\t sep\u2028 ctl\u001f",
		"ключ 鍵 🔑":     "unicode key",
		"arrayOfMixed": []any{"", json.Number("-0.5"), map[string]any{"": nil}, []any{json.Number("9223372036854775807")}},
	}
}

// Goid returns the current goroutine's id (from its stack header), used to check that the
// notifier runs in the writer's goroutine (M-F-NOTIFY-1).
func Goid() uint64 {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	f := strings.Fields(string(buf[:n]))
	if len(f) < 2 {
		return 0
	}
	id, _ := strconv.ParseUint(f[1], 10, 64)
	return id
}

// MS renders a duration in ms as the pointer the task fields use.
func MS(v int64) *int64 { return &v }

// createOrRefused judges a Create the store may refuse with refusal: accepted, it
// returned and stored exactly in, at version 1; refused, it stored nothing. want says
// what was acceptable, for the failure message.
func createOrRefused(e *battery.Env, st modern.Store, in modern.Task, call string, refusal error, want string) {
	got, err := st.Create(e.Ctx, in)
	switch {
	case err == nil:
		stored := WithVersion(in, 1)
		CheckTask(e, call+" returned", stored, got)
		CheckStored(e, st, stored, call)
	case errors.Is(err, refusal):
		checkAbsent(e, st, in.TaskID, call+" refused")
	default:
		e.Check(false, call, want, err)
	}
}

// checkSwap makes Swap(c, cur.Version, next) and checks that it succeeds, answers next
// at version cur.Version+1 and stores that; it returns the task now stored, and false
// when the Swap failed.
func checkSwap(e *battery.Env, st modern.Store, c reference.Caller, cur, next modern.Task) (modern.Task, bool) {
	call := SwapCall(c, cur.Version, next)
	got, err := st.Swap(e.Ctx, c, cur.Version, next)
	if !e.CheckErr(err, nil, call) {
		return cur, false
	}
	want := WithVersion(next, cur.Version+1)
	CheckTask(e, call+" returned", want, got)
	CheckStored(e, st, want, call)
	return want, true
}

// swapOrRefused is createOrRefused for a Swap of cur to next as the system:
// accepted, next is stored at cur.Version+1; refused, cur is untouched.
func swapOrRefused(e *battery.Env, st modern.Store, cur, next modern.Task, call string, refusal error, want string) {
	got, err := st.Swap(e.Ctx, reference.System(), cur.Version, next)
	switch {
	case err == nil:
		stored := WithVersion(next, cur.Version+1)
		CheckTask(e, call+" returned", stored, got)
		CheckStored(e, st, stored, call)
	case errors.Is(err, refusal):
		CheckStored(e, st, cur, call+" refused")
	default:
		e.Check(false, call, want, err)
	}
}
