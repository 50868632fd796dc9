package conformance

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/modern"
)

// modDeep nests an array in an object depth times around a leaf.
func modDeep(depth int, leaf any) map[string]any {
	v := leaf
	for i := range depth {
		if i%2 == 0 {
			v = []any{v}
		} else {
			v = map[string]any{"d": v}
		}
	}
	return map[string]any{"deep": v}
}

// modScribble mutates every mutable part of t in place: what a careless caller does to
// a task it passed in or got back (S-VAL-4).
func modScribble(t *modern.Task) {
	if t.TTL != nil {
		*t.TTL = 7
	}
	if t.PollInterval != nil {
		*t.PollInterval = 7
	}
	for _, m := range []map[string]any{t.Result, t.Error, t.InputRequests, t.StagedResponses, t.InputResponses} {
		for k, v := range m {
			switch x := v.(type) {
			case map[string]any:
				x["scribbled"] = true
				for kk := range x {
					if kk != "scribbled" {
						x[kk] = "scribbled"
					}
				}
			case []any:
				for i := range x {
					if mm, ok := x[i].(map[string]any); ok {
						mm["text"] = "scribbled"
					} else {
						x[i] = "scribbled"
					}
				}
			default:
				m[k] = "scribbled"
			}
		}
		if m != nil {
			m["added"] = "scribbled"
		}
	}
	for i := range t.IssuedKeys {
		t.IssuedKeys[i] = "scribbled"
	}
}

// modRich is a task with every mutable part populated.
func modRich(e *Env, id string) modern.Task {
	t := modOwned(e, id, "alice")
	t.TTL = modMS(modLongTTL)
	t.PollInterval = modMS(500)
	t.Result = map[string]any{"content": []any{map[string]any{"type": "text", "text": "hello"}}, "meta": map[string]any{"n": json.Number("1")}}
	t.Error = modern.RPCError(-32000, "x", map[string]any{"why": []any{"a", "b"}})
	t.InputRequests = map[string]any{"q": map[string]any{"message": "?"}, "n": json.Number("3")}
	t.StagedResponses = map[string]any{"s": []any{json.Number("1"), "two"}}
	t.InputResponses = map[string]any{"r": map[string]any{"ok": true}}
	t.IssuedKeys = []string{"q", "n", "s", "r"}
	return t
}

func modernValueSpecs(s *suite) {
	s.It("S-VAL-1", "JSON values round-trip exactly in every JSON field of a modern task", func(e *Env) {
		st := e.Modern()
		in := modTask(e, e.ID("json"))
		in.Result = modTricky()
		in.Error = modern.RPCError(-32603, "ünïcödé 🎉", modTricky())
		in.InputRequests = modTricky()
		in.StagedResponses = modTricky()
		in.InputResponses = modTricky()
		cur, ok := modRoundTrip(e, st, in, 0)
		if !ok {
			return
		}
		next := cur.Clone()
		next.Result = modDeep(64, json.Number("-9223372036854775808"))
		next.InputRequests = map[string]any{"k": modTricky()}
		next.StagedResponses = map[string]any{"": []any{modTricky(), nil, json.Number("1e-7")}}
		modRoundTrip(e, st, next, cur.Version)
	})

	s.It("S-VAL-2", "a U+0000 in a modern task round-trips exactly or is refused with ErrInvalid", func(e *Env) {
		st := e.Modern()
		cases := []struct {
			what string
			set  func(*modern.Task)
		}{
			{"status_message", func(t *modern.Task) { t.StatusMessage = "before\x00after" }},
			{"a string in result", func(t *modern.Task) { t.Result = map[string]any{"text": "a\x00b", "n": "\x00"} }},
			{"an object key in input_requests", func(t *modern.Task) { t.InputRequests = map[string]any{"k\x00ey": "v"} }},
			{"a string in error.data", func(t *modern.Task) { t.Error = modern.RPCError(1, "m\x00", []any{"\x00\x00"}) }},
			{"an issued key", func(t *modern.Task) { t.IssuedKeys = []string{"a\x00", "b"} }},
		}
		for _, c := range cases {
			// Create.
			in := modTask(e, e.ID("nul"))
			c.set(&in)
			call := "Create(" + Q(in) + ") with U+0000 in " + c.what
			modCreateOrRefused(e, st, in, call, reference.ErrInvalid, "success with the value intact, or ErrInvalid")
			// Swap into a clean task.
			cur := modCreate(e, st, modTask(e, e.ID("nul-swap")))
			next := modNext(cur, "")
			c.set(&next)
			call = modSwapCall(reference.System(), cur.Version, next) + " with U+0000 in " + c.what
			modSwapOrRefused(e, st, cur, next, call, reference.ErrInvalid, "success with the value intact, or ErrInvalid")
		}
	})

	s.It("S-VAL-3", "a modern task of 1 MiB round-trips, or is refused with ErrTooLarge and changes nothing", func(e *Env) {
		st := e.Modern()
		big := map[string]any{"content": []any{map[string]any{"type": "text", "text": modLongText(1 << 20)}}}
		in := modTask(e, e.ID("big"))
		in.Result = big
		call := "Create(" + Q(in) + ") of 1 MiB"
		modCreateOrRefused(e, st, in, call, reference.ErrTooLarge, "success, or ErrTooLarge")
		cur := modCreate(e, st, modTask(e, e.ID("grow")))
		next := modNext(cur, "grown")
		next.Result = big
		call = modSwapCall(reference.System(), cur.Version, next) + " growing the task to 1 MiB"
		modSwapOrRefused(e, st, cur, next, call, reference.ErrTooLarge, "success, or ErrTooLarge")
	})

	s.It("S-VAL-4", "the modern store copies values in and out", func(e *Env) {
		e.notExercisedRemote(remoteCopies)
		st := e.Modern()
		in := modRich(e, e.ID("copy"))
		want := modWithVersion(in.Clone(), 1)
		got, err := st.Create(e.Ctx, in)
		e.RequireErr(err, nil, "setup: Create("+Q(in)+")")
		modScribble(&in)
		modCheckStored(e, st, want, "mutating the task passed to Create after it returned")
		modScribble(&got)
		modCheckStored(e, st, want, "mutating the task Create returned")
		for _, c := range []reference.Caller{reference.System(), reference.Principal("alice")} {
			r, err := st.Get(e.Ctx, want.TaskID, c)
			e.RequireErr(err, nil, fmt.Sprintf("Get(%s, %s)", Q(want.TaskID), c))
			modScribble(&r)
			modCheckStored(e, st, want, fmt.Sprintf("mutating the task Get(%s, %s) returned", Q(want.TaskID), c))
		}

		next := modRich(e, want.TaskID)
		next.CreatedAt = want.CreatedAt
		next.StatusMessage = "swapped"
		wantNext := modWithVersion(next.Clone(), 2)
		sw, err := st.Swap(e.Ctx, reference.System(), 1, next)
		e.RequireErr(err, nil, "setup: "+modSwapCall(reference.System(), 1, next))
		modScribble(&next)
		modCheckStored(e, st, wantNext, "mutating the task passed to Swap after it returned")
		modScribble(&sw)
		modCheckStored(e, st, wantNext, "mutating the task Swap returned")

		// Two reads never share values either.
		a, _ := modStored(e, st, want.TaskID)
		b, _ := modStored(e, st, want.TaskID)
		modScribble(&a)
		modCheckTask(e, "mutating one Get's answer, then comparing another's", wantNext, b)
	})

	s.It("S-VAL-4", "a task's maps are not shared with the caller's nested values", func(e *Env) {
		e.notExercisedRemote(remoteCopies)
		st := e.Modern()
		shared := map[string]any{"inner": map[string]any{"v": "original"}}
		in := modTask(e, e.ID("alias"))
		in.Result = map[string]any{"a": shared}
		in.InputRequests = map[string]any{"b": shared}
		want := modWithVersion(in.Clone(), 1)
		modCreate(e, st, in)
		shared["inner"].(map[string]any)["v"] = "changed"
		shared["new"] = strings.Repeat("x", 3)
		modCheckStored(e, st, want, "mutating a nested object the caller passed to Create")
	})
}
