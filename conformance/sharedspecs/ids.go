package sharedspecs

import (
	"encoding/base64"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
)

// S-ID-1 judges reference.GenerateID, which both eras' facades use: it is registered for
// both eras so that a store of either era reports it. S-ID-2 has a legacy body here; the
// modern body lives with the modern specs.
func GenerateID(s *battery.Suite) {
	s.It("S-ID-1", "GenerateID returns 22 base64url characters of 16 random bytes, distinct and without pattern", func(e *battery.Env) {
		const n = 100_000
		ids := make([]string, n)
		seen := make(map[string]struct{}, n)
		var ones [128]int
		increasing := 0
		for i := range ids {
			id := reference.GenerateID()
			ids[i] = id
			if len(id) != 22 || strings.Trim(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
				e.Fatalf("  input:    GenerateID() (call %d)\n  expected: 22 characters of [A-Za-z0-9_-]\n  got:      %q", i, id)
			}
			raw, err := base64.RawURLEncoding.Strict().DecodeString(id)
			if err != nil || len(raw) != 16 {
				e.Fatalf("  input:    GenerateID() (call %d)\n  expected: unpadded base64url of 16 bytes\n  got:      %q (%v)", i, id, err)
			}
			if _, dup := seen[id]; dup {
				e.Fatalf("  input:    %d calls of GenerateID()\n  expected: distinct ids\n  got:      %q twice", n, id)
			}
			seen[id] = struct{}{}
			for b := range 128 {
				if raw[b/8]&(1<<(b%8)) != 0 {
					ones[b]++
				}
			}
			if i > 0 && id > ids[i-1] {
				increasing++
			}
		}
		input := fmt.Sprintf("%d calls of GenerateID()", n)
		// Every bit is set about half the time (σ ≈ 158 for 100 000 draws: ±2 000 is
		// over 12σ, so an honest CSPRNG never trips it, a counter or a timestamp always).
		for b, c := range ones {
			if c < n/2-2000 || c > n/2+2000 {
				e.Check(false, input, "every one of the 128 bits set in about half of the ids", fmt.Sprintf("bit %d set in %d of %d", b, c, n))
				break
			}
		}
		// Consecutive ids go up as often as down.
		e.Check(increasing > n*45/100 && increasing < n*55/100, input, "consecutive ids ordered at random (about half increasing)", fmt.Sprintf("%d of %d increasing", increasing, n-1))
		// A byte that never changes betrays a fixed field.
		var first [16]map[byte]bool
		for i := range first {
			first[i] = map[byte]bool{}
		}
		for _, id := range ids[:4096] { // in the order generated
			raw, _ := base64.RawURLEncoding.DecodeString(id)
			for i, c := range raw {
				first[i][c] = true
			}
		}
		for i, vals := range first {
			e.Check(len(vals) > 200, input, fmt.Sprintf("byte %d taking many values over 4096 ids", i), fmt.Sprintf("%d values", len(vals)))
		}
		// Sorted neighbours share about log64(n²) ≈ 5.5 leading characters; a shared
		// prefix of 10 means a counter, a timestamp or a fixed node id.
		sort.Strings(ids)
		longest, at := 0, 0
		for i := 1; i < n; i++ {
			k := commonPrefix(ids[i-1], ids[i])
			if k > longest {
				longest, at = k, i
			}
		}
		e.Check(longest < 10, input, "no two ids sharing a prefix of 10 characters", fmt.Sprintf("%q and %q share %d", ids[at-1], ids[at], longest))
	})
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// idOfBytes pads prefix with multi-byte text to exactly n bytes (n - len(prefix) bytes of
// "é" and one "x" when the count is odd), so that a store that counts characters rather
// than bytes, or cuts in the middle of a character, is seen.
func idOfBytes(prefix string, n int) string {
	rest := n - len(prefix)
	var b strings.Builder
	b.WriteString(prefix)
	if rest%2 == 1 {
		b.WriteByte('x')
		rest--
	}
	b.WriteString(strings.Repeat("é", rest/2))
	return b.String()
}

// invalidID is an id every store must refuse (S-ID-2), with what a sloppy store might
// store instead of refusing it.
type invalidID struct {
	name   string
	id     string
	stands []string // ids a store might have stored instead (truncated, replaced)
}

func invalidIDs(tag string) []invalidID {
	long := idOfBytes(tag, 513)
	return []invalidID{
		{"the empty id", "", nil},
		{"an id of 513 bytes", long, []string{long[:512], long[:511]}},
		{"an id of invalid UTF-8", tag + "\xff\xfe", []string{tag, tag + "\uFFFD\uFFFD", tag + "\uFFFD"}},
		{"an id with a NUL", tag + "\x00suffix", []string{tag, tag + "suffix", tag + "\\u0000suffix"}},
		{"an id that is a lone NUL", "\x00", nil},
	}
}

func LegacyIDs(s *battery.Suite) {
	s.It("S-ID-2", "accepts any id of 1..512 bytes of UTF-8 without NUL and treats it as opaque", func(e *battery.Env) {
		st := e.Legacy()
		tag := e.ID("id")
		ids := []string{
			tag + "a:b", tag + "{a}", tag + "a%", tag + "a_", tag + "a*", tag + "a?", tag + "[ab]", tag + "a.*",
			tag + " spaced id ", " " + tag, tag + "\t\n", tag + "Case", tag + "case", tag + "CASE",
			tag + "/slash/", tag + "back\\slash", tag + "'quote\"", tag + "$1", tag + "#hash&amp;=",
			tag + "日本語🙂", tag + "e\u0301", tag + "\u00e9", tag + "\u200f\u202e", tag + "ȷ",
			idOfBytes(tag, reference.MaxIDBytes), idOfBytes(tag, reference.MaxIDBytes-1),
			"x", "%", "*", "_", " ", ":", // one-byte ids: valid, and wildcards in some query languages
		}
		// One-byte ids are fixed strings, so they may exist from another run on a shared
		// backend: clear them first (Delete succeeds on a missing id).
		for _, id := range ids {
			if len(id) == 1 {
				_ = st.Delete(e.Ctx, id)
			}
		}
		for i, id := range ids {
			meta := legacy.Task{"n": fmt.Sprint(i)}
			input := fmt.Sprintf("Create(%s, %s) (%d bytes)", battery.Literal(id), battery.Literal(meta), len(id))
			got, err := st.Create(e.Ctx, id, meta)
			if e.CheckErr(err, nil, input) {
				e.Check(got.ID() == id, input, "task_id "+battery.Literal(id), got[legacy.KeyTaskID])
			}
		}
		// Each id reads back its own task: no folding, trimming or pattern matching.
		for i, id := range ids {
			input := fmt.Sprintf("Get(%s)", battery.Literal(id))
			got, ok := battery.Stored(e, st, id)
			if e.Check(ok, input, "the task created under this id", "ErrNotFound") {
				e.Check(got.ID() == id && got["n"] == fmt.Sprint(i), input, fmt.Sprintf("task_id %s, n %q", battery.Literal(id), fmt.Sprint(i)), got)
			}
		}
		// Ids that a pattern, a fold or a trim would confuse with those above do not exist.
		for _, id := range []string{tag + "a", tag + "ab", tag + "a:", tag + "aXYZ", tag + "a.b", tag + "cAsE", tag + "spaced id", tag, tag + "e", tag + "日本語", idOfBytes(tag, reference.MaxIDBytes)[:reference.MaxIDBytes-2]} {
			_, ok := battery.Stored(e, st, id)
			e.Check(!ok, fmt.Sprintf("Get(%s) of an id never created", battery.Literal(id)), "ErrNotFound", "a task")
		}
		// Writes touch only their own id.
		changes := legacy.Task{"touched": true}
		target := tag + "a%"
		battery.MustUpdate(e, st, target, changes)
		for _, id := range []string{tag + "*", tag + "%", tag + "a*", tag + "_"} {
			e.CheckErr(st.Delete(e.Ctx, id), nil, fmt.Sprintf("Delete(%s)", battery.Literal(id)))
		}
		for i, id := range ids {
			got, ok := battery.Stored(e, st, id)
			input := fmt.Sprintf("Get(%s) after Update(%s, %s) and Delete of %q, %q, %q, %q", battery.Literal(id), battery.Literal(target), battery.Literal(changes), tag+"*", tag+"%", tag+"a*", tag+"_")
			switch {
			case id == tag+"a*":
				e.Check(!ok, input, "ErrNotFound (deleted)", got)
			case !e.Check(ok, input, "the task", "ErrNotFound"):
			case id == target:
				e.Check(got["touched"] == true, input, "the task with touched=true", got)
			default:
				e.Check(got["touched"] == nil && got["n"] == fmt.Sprint(i), input, fmt.Sprintf("the task untouched (n %q, no touched key)", fmt.Sprint(i)), got)
			}
		}
		for _, id := range ids {
			if len(id) == 1 {
				_ = st.Delete(e.Ctx, id)
			}
		}
	})

	s.It("S-ID-2", "refuses ids that are empty, longer than 512 bytes, not UTF-8 or hold a NUL with ErrInvalid, storing nothing", func(e *battery.Env) {
		st := e.Legacy()
		tag := e.ID("bad")
		for _, bad := range invalidIDs(tag) {
			input := fmt.Sprintf("Create(%s, {}) with %s", battery.Literal(bad.id), bad.name)
			var err error
			if !battery.Finishes(5*time.Second, func() { _, err = st.Create(e.Ctx, bad.id, legacy.Task{"bad": true}) }) {
				e.Check(false, input, "a prompt answer", "no answer within 5 s")
				continue
			}
			e.CheckErr(err, reference.ErrInvalid, input)
			for _, id := range append([]string{bad.id}, bad.stands...) {
				if id == "" || reference.ValidateID(id) != nil {
					continue
				}
				_, ok := battery.Stored(e, st, id)
				e.Check(!ok, fmt.Sprintf("after %s: Get(%s)", input, battery.Literal(id)), "ErrNotFound: nothing stored", "a task")
			}
		}
		rows := battery.ListRows(e, st, legacy.ListOptions{})
		for _, r := range rows {
			if strings.HasPrefix(r.ID(), tag) || r.ID() == "" || r["bad"] == true {
				e.Check(false, "List({}) after Create of invalid ids", "no task stored for any of them", r)
			}
		}
	})

	s.It("S-ID-2", "answers reads and writes of invalid ids with ErrNotFound or ErrInvalid only, promptly", func(e *battery.Env) {
		st := e.Legacy()
		tag := e.ID("bad")
		// A valid task whose id a truncating store might confuse with the invalid ones.
		battery.MustCreate(e, st, tag, legacy.Task{"valid": true})
		type call struct {
			name string
			do   func(id string) error
		}
		calls := []call{
			{"Get", func(id string) error { _, err := st.Get(e.Ctx, id); return err }},
			{"Update", func(id string) error { _, err := st.Update(e.Ctx, id, legacy.Task{"x": true}); return err }},
			{"Delete", func(id string) error { return st.Delete(e.Ctx, id) }},
		}
		if c, ok := st.(legacy.Canceler); ok {
			calls = append(calls, call{"Cancel", func(id string) error { _, err := c.Cancel(e.Ctx, id); return err }})
		}
		if cu, ok := st.(legacy.ConditionalUpdater); ok {
			calls = append(calls, call{"UpdateIf", func(id string) error {
				_, err := cu.UpdateIf(e.Ctx, id, []reference.Status{reference.StatusWorking}, legacy.Task{"x": true})
				return err
			}})
		}
		for _, bad := range invalidIDs(tag) {
			for _, c := range calls {
				input := fmt.Sprintf("%s(%s) with %s", c.name, battery.Literal(bad.id), bad.name)
				var err error
				if !battery.Finishes(5*time.Second, func() { err = c.do(bad.id) }) {
					e.Check(false, input, "a prompt answer", "no answer within 5 s")
					continue
				}
				ok := errors.Is(err, reference.ErrNotFound) || errors.Is(err, reference.ErrInvalid) || (c.name == "Delete" && err == nil)
				want := "an error wrapping ErrNotFound or ErrInvalid"
				if c.name == "Delete" {
					want += " (or success: Delete of a missing id succeeds)"
				}
				e.Check(ok, input, want, err)
			}
		}
		battery.CheckStored(e, st, tag, legacy.Stamp(tag, legacy.Task{"valid": true}, mustCreatedAt(e, st, tag)), "writes of invalid ids")
	})
}

// mustCreatedAt reads the created_at of a stored task.
func mustCreatedAt(e *battery.Env, st legacy.Store, id string) int64 {
	t, ok := battery.Stored(e, st, id)
	if !ok {
		e.Fatalf("Get(%q): the task is gone", id)
	}
	ms, _ := t.CreatedAt()
	return ms
}
