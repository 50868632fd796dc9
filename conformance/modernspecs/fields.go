package modernspecs

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/modern"
)

// roundTrip creates in (or, when in is already stored at version v, swaps it in) and
// checks that Create's or Swap's answer and a later Get both return exactly in at the new
// version. It returns what the store holds afterwards.
func roundTrip(e *battery.Env, st modern.Store, in modern.Task, swapFrom int64) (modern.Task, bool) {
	var (
		got  modern.Task
		err  error
		call string
	)
	if swapFrom == 0 {
		call = "Create(" + battery.Literal(in) + ")"
		got, err = st.Create(e.Ctx, in)
	} else {
		call = SwapCall(reference.System(), swapFrom, in)
		got, err = st.Swap(e.Ctx, reference.System(), swapFrom, in)
	}
	if !e.CheckErr(err, nil, call) {
		return modern.Task{}, false
	}
	want := WithVersion(in, swapFrom+1)
	ok := CheckTask(e, call+" returned", want, got)
	for _, c := range []reference.Caller{reference.System(), reference.Principal(in.Owner)} {
		r, err := st.Get(e.Ctx, in.TaskID, c)
		input := fmt.Sprintf("Get(%s, %s) after %s", battery.Literal(in.TaskID), c, call)
		if e.CheckErr(err, nil, input) {
			ok = CheckTask(e, input, want, r) && ok
		} else {
			ok = false
		}
	}
	return want, ok
}

// longText is n bytes of mixed-width UTF-8 with characters that need escaping.
func longText(n int) string {
	const unit = "long status é 🌍 \"q\" \\ \n\t ✓ "
	s := strings.Repeat(unit, n/len(unit)+1)
	for len(s) > n || !utf8Boundary(s, len(s)) || !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

func utf8Boundary(s string, i int) bool {
	return i == len(s) || (s[i]&0xC0) != 0x80
}

// manyKeys is an object with n keys that sort differently as text and as numbers.
func manyKeys(n int) map[string]any {
	m := make(map[string]any, n)
	for i := range n {
		m[fmt.Sprintf("k%d", i)] = map[string]any{"i": json.Number(fmt.Sprint(i)), "q": fmt.Sprintf("question %d?", i)}
	}
	return m
}

func Fields(s *battery.Suite) {
	s.It("M-FIELDS-1", "every field round-trips exactly through Create, Get and Swap", func(e *battery.Env) {
		st := e.Modern()
		now := e.NowMillis()
		in := modern.Task{
			TaskID:          e.ID("fields"),
			Owner:           "alice",
			Status:          reference.StatusInputRequired,
			StatusMessage:   "Waiting for you: «confirm» ✓",
			CreatedAt:       now - 1234, // not a whole second
			LastUpdatedAt:   now - 7,
			TTL:             MS(longTTL + 1),
			PollInterval:    MS(2500),
			Result:          map[string]any{"content": []any{map[string]any{"type": "text", "text": "partial"}}, "isError": false},
			Error:           modern.RPCError(-32000, "earlier failure", map[string]any{"retry": true}),
			InputRequests:   map[string]any{"confirm": map[string]any{"method": "elicitation/create", "params": map[string]any{"message": "OK?"}}},
			StagedResponses: map[string]any{"name": map[string]any{"action": "accept", "content": map[string]any{"name": "Zoë"}}},
			InputResponses:  map[string]any{"old": json.Number("42")},
			IssuedKeys:      []string{"zeta", "old", "name", "confirm", "alpha"},
		}
		cur, ok := roundTrip(e, st, in, 0)
		if !ok {
			return
		}
		next := cur.Clone()
		next.Status = reference.StatusCompleted
		next.StatusMessage = "done"
		next.LastUpdatedAt = now + 1001
		next.TTL = MS(longTTL + 999)
		next.PollInterval = MS(1)
		next.Result = Tricky()
		next.Error = nil
		next.InputRequests = nil
		next.StagedResponses = map[string]any{}
		next.InputResponses = map[string]any{"confirm": true, "name": "Zoë"}
		next.IssuedKeys = append(next.IssuedKeys, "b", "a", "c")
		roundTrip(e, st, next, cur.Version)
	})

	s.It("M-FIELDS-1", "timestamps round-trip to the millisecond", func(e *battery.Env) {
		st := e.Modern()
		now := e.NowMillis()
		// Values whose sub-second part a store keeping seconds, or rounding to 10 ms,
		// would change; and one far in the future.
		for _, ts := range [][2]int64{
			{now - 1, now - 1},
			{now - 999, now + 1},
			{now - 1001, now - 501},
			{now + 7, now + 13},
			{now - 86_400_123, 4_102_444_800_123}, // last_updated_at in 2100
		} {
			t := task(e, e.ID("ts"))
			t.CreatedAt, t.LastUpdatedAt = ts[0], ts[1]
			cur, ok := roundTrip(e, st, t, 0)
			if !ok {
				continue
			}
			next := cur.Clone()
			next.LastUpdatedAt = ts[1] + 333
			roundTrip(e, st, next, cur.Version)
		}
	})

	s.It("M-FIELDS-1", "ttl and poll interval: none and a number stay apart", func(e *battery.Env) {
		st := e.Modern()
		vals := []*int64{nil, MS(1), MS(longTTL), MS(3_600_000_007)}
		for i, ttl := range vals {
			for j, poll := range []*int64{nil, MS(0), MS(1), MS(2500), MS(longTTL)} {
				t := task(e, e.ID("ttlpoll"))
				if ttl != nil && *ttl == 1 {
					ttl = MS(longTTL - 1) // ttl 1 would expire under the real clock
				}
				t.TTL, t.PollInterval = ttl, poll
				cur, ok := roundTrip(e, st, t, 0)
				if !ok {
					continue
				}
				// Swap to the opposite presence of each.
				next := cur.Clone()
				next.TTL = vals[(i+1)%len(vals)]
				if next.TTL != nil && *next.TTL == 1 {
					next.TTL = MS(longTTL - 2)
				}
				next.PollInterval = vals[(j+1)%len(vals)] // 0 becomes a number, a number none, …
				roundTrip(e, st, next, cur.Version)
			}
		}
	})

	s.It("M-FIELDS-1", "maps with zero, one and many keys round-trip and are replaced, not merged", func(e *battery.Env) {
		st := e.Modern()
		shapes := []struct {
			name string
			m    func() map[string]any
		}{
			{"nil", func() map[string]any { return nil }},
			{"empty", func() map[string]any { return map[string]any{} }},
			{"one key", func() map[string]any { return map[string]any{"only": map[string]any{"q": "?"}} }},
			{"many keys", func() map[string]any { return manyKeys(100) }},
			{"other one key", func() map[string]any { return map[string]any{"k7": "x"} }},
			{"empty again", func() map[string]any { return map[string]any{} }},
		}
		t := task(e, e.ID("maps"))
		cur, ok := roundTrip(e, st, t, 0)
		if !ok {
			return
		}
		for _, sh := range shapes {
			next := cur.Clone()
			next.StatusMessage = "maps: " + sh.name
			next.InputRequests = sh.m()
			next.StagedResponses = sh.m()
			next.InputResponses = sh.m()
			if cur, ok = roundTrip(e, st, next, cur.Version); !ok {
				return
			}
		}
		// result and error: none, {} and an object are three different values.
		for _, v := range []map[string]any{nil, {}, {"content": []any{}}, nil, manyKeys(20), {}} {
			next := cur.Clone()
			next.Result = v
			next.Error = v
			if cur, ok = roundTrip(e, st, next, cur.Version); !ok {
				return
			}
		}
	})

	s.It("M-FIELDS-1", "every status, an empty and a 64 KiB status message round-trip", func(e *battery.Env) {
		st := e.Modern()
		for _, status := range reference.Statuses() {
			t := task(e, e.ID("status"))
			t.Status = status
			roundTrip(e, st, t, 0)
		}
		t := task(e, e.ID("msg"))
		cur, ok := roundTrip(e, st, t, 0)
		if !ok {
			return
		}
		// Messages that read as another type ("123", "null", JSON) stay the text they are.
		for _, msg := range []string{longText(64 << 10), "", " ", "x", "123", "9007199254740993", "true", "null", "1.0", `{"a":[1]}`, longText(64<<10 + 1), ""} {
			next := cur.Clone()
			next.StatusMessage = msg
			if cur, ok = roundTrip(e, st, next, cur.Version); !ok {
				return
			}
		}
		long := task(e, e.ID("msg-long"))
		long.StatusMessage = longText(64 << 10)
		roundTrip(e, st, long, 0)
	})

	s.It("M-FIELDS-1", "issued_keys keep their order and odd keys", func(e *battery.Env) {
		st := e.Modern()
		keys := []string{"zeta", "alpha", "10", "9", "Beta", "beta", "", "a.b", "$x", "ключ", "🔑", "mid"}
		t := task(e, e.ID("keys"))
		t.IssuedKeys = keys
		cur, ok := roundTrip(e, st, t, 0)
		if !ok {
			return
		}
		next := cur.Clone()
		next.IssuedKeys = append(append([]string{}, keys...), "0", "zeta2")
		cur, ok = roundTrip(e, st, next, cur.Version)
		if !ok {
			return
		}
		next = cur.Clone()
		next.IssuedKeys = []string{"only"}
		roundTrip(e, st, next, cur.Version)
	})
}
