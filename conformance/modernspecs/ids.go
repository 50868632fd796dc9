package modernspecs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/modern"
)

// padID pads prefix with a multi-byte filler to exactly n bytes of valid UTF-8.
func padID(prefix string, n int) string {
	var b strings.Builder
	b.WriteString(prefix)
	for b.Len()+2 <= n {
		b.WriteString("é")
	}
	for b.Len() < n {
		b.WriteByte('x')
	}
	return b.String()
}

// bounded runs f with a 5 s deadline and reports a hang instead of hanging the spec.
func bounded(e *battery.Env, input string, f func(ctx context.Context)) bool {
	ctx, cancel := context.WithTimeout(e.Ctx, 5*time.Second)
	defer cancel()
	return e.Check(battery.Finishes(6*time.Second, func() { f(ctx) }), input, "an answer within 5 s", "no answer: the call hangs")
}

func IDs(s *battery.Suite) {
	s.It("S-ID-2", "the modern store accepts any id of 1..512 bytes of UTF-8 without NUL, as given", func(e *battery.Env) {
		st := e.Modern()
		p := e.ID("id")
		ids := []string{
			p + "a:b", p + "{a}", p + "a%", p + "a_", p + "a*", p + "a?", p + "$1", p + ".*",
			p + " padded ", p + "\ttab\n", p + "UPPER", p + "/slash/../x", p + "back\\slash",
			p + "'quote\"", p + "ключ 鍵 🔑", p + "e\u0301", p + "\u200bzero-width",
			padID(p, reference.MaxIDBytes),
			"%", // one byte, and a LIKE wildcard
		}
		for _, id := range ids {
			// Fixed ids could exist from an earlier run on a reused backend; clear them.
			// (Whether Delete of a missing id succeeds is M-DELETE-1's business.)
			if err := st.Delete(e.Ctx, id); !errors.Is(err, reference.ErrNotFound) {
				e.RequireErr(err, nil, "setup: Delete("+battery.Literal(id)+")")
			}
		}
		for i, id := range ids {
			in := task(e, id)
			in.StatusMessage = fmt.Sprintf("task %d", i)
			call := "Create(" + battery.Literal(in) + ")"
			got, err := st.Create(e.Ctx, in)
			if !e.CheckErr(err, nil, call+fmt.Sprintf(" (a valid id of %d bytes)", len(id))) {
				continue
			}
			CheckTask(e, call+" returned", WithVersion(in, 1), got)
		}
		// Read back after all are created: no two ids may share a task.
		for i, id := range ids {
			got, ok := Stored(e, st, id)
			input := fmt.Sprintf("Get(%s, system)", battery.Literal(id))
			if !e.Check(ok, input, fmt.Sprintf("task %d", i), "ErrNotFound") {
				continue
			}
			e.Check(got.TaskID == id && got.StatusMessage == fmt.Sprintf("task %d", i), input,
				fmt.Sprintf("task_id %q, status_message %q", id, fmt.Sprintf("task %d", i)),
				fmt.Sprintf("task_id %q, status_message %q", got.TaskID, got.StatusMessage))
			next := Next(got, "swapped")
			call := SwapCall(reference.System(), got.Version, next)
			if _, err := st.Swap(e.Ctx, reference.System(), got.Version, next); e.CheckErr(err, nil, call) {
				CheckStored(e, st, WithVersion(next, got.Version+1), call)
			}
		}
		for _, id := range ids {
			call := "Delete(" + battery.Literal(id) + ")"
			if e.CheckErr(st.Delete(e.Ctx, id), nil, call) {
				checkAbsent(e, st, id, call)
			}
		}
	})

	s.It("S-ID-2", "the modern store treats ids as opaque: no case folding, trimming or wildcards", func(e *battery.Env) {
		st := e.Modern()
		p := e.ID("opaque")
		mine := []string{p + "Case", p + "case", p + "ab", p + "a b"}
		tasks := map[string]modern.Task{}
		for _, id := range mine {
			in := task(e, id)
			in.StatusMessage = "I am " + id
			tasks[id] = CreateTask(e, st, in)
		}
		for _, id := range mine {
			CheckStored(e, st, tasks[id], "creating ids that differ only in case or spacing")
		}
		lookalikes := []string{p + "CASE", p + "case ", " " + p + "case", p + "a%", p + "a_", p + "a*", p + "a?", p + "a.", p + ".*", p + "%", p + "ab ", p + "a  b", strings.ToUpper(p + "ab")}
		for _, id := range lookalikes {
			for _, c := range []reference.Caller{reference.System(), reference.Anonymous()} {
				got, err := st.Get(e.Ctx, id, c)
				e.Check(errors.Is(err, reference.ErrNotFound), fmt.Sprintf("Get(%s, %s): no task has this id", battery.Literal(id), c), "ErrNotFound", outcome(got, err))
			}
			probe := Next(tasks[p+"ab"], "via "+id)
			probe.TaskID = id
			call := SwapCall(reference.System(), 1, probe)
			_, err := st.Swap(e.Ctx, reference.System(), 1, probe)
			e.Check(errors.Is(err, reference.ErrNotFound), call+": no task has this id", "ErrNotFound", err)
			if err := st.Delete(e.Ctx, id); !errors.Is(err, reference.ErrNotFound) {
				e.CheckErr(err, nil, "Delete("+battery.Literal(id)+"): no task has this id")
			}
		}
		for _, id := range mine {
			CheckStored(e, st, tasks[id], "Get, Swap and Delete of look-alike ids")
		}
	})

	s.It("S-ID-2", "the modern store refuses other ids with ErrInvalid, stores nothing, and answers reads of them", func(e *battery.Env) {
		st := e.Modern()
		p := e.ID("bad")
		long := padID(p, reference.MaxIDBytes) + "x"
		bad := []struct {
			name, id string
			near     []string // ids a sloppy store might have stored instead
		}{
			{"the empty id", "", nil},
			{"513 bytes", long, []string{long[:reference.MaxIDBytes]}},
			{"invalid UTF-8", p + "\xff\xfe", []string{p, p + "\ufffd\ufffd", p + "\ufffd"}},
			{"a NUL inside", p + "\x00tail", []string{p, p + "tail"}},
			{"only a NUL", "\x00", nil},
		}
		for _, b := range bad {
			in := task(e, b.id)
			call := fmt.Sprintf("Create(%s) with %s", battery.Literal(in), b.name)
			bounded(e, call, func(ctx context.Context) {
				got, err := st.Create(ctx, in)
				if !e.CheckErr(err, reference.ErrInvalid, call) && err == nil {
					e.Errorf("  the store accepted it and returned %s", battery.Show(got))
				}
			})
			for _, near := range b.near {
				checkAbsent(e, st, near, call)
			}
			okErr := func(err error) bool {
				return errors.Is(err, reference.ErrNotFound) || errors.Is(err, reference.ErrInvalid)
			}
			for _, c := range []reference.Caller{reference.System(), reference.Anonymous()} {
				input := fmt.Sprintf("Get(%s, %s) of %s", battery.Literal(b.id), c, b.name)
				bounded(e, input, func(ctx context.Context) {
					got, err := st.Get(ctx, b.id, c)
					e.Check(okErr(err), input, "ErrNotFound or ErrInvalid", outcome(got, err))
				})
			}
			input := fmt.Sprintf("%s with %s", SwapCall(reference.System(), 1, in), b.name)
			bounded(e, input, func(ctx context.Context) {
				_, err := st.Swap(ctx, reference.System(), 1, in)
				e.Check(okErr(err), input, "ErrNotFound or ErrInvalid", err)
			})
			input = fmt.Sprintf("Delete(%s) of %s", battery.Literal(b.id), b.name)
			bounded(e, input, func(ctx context.Context) {
				err := st.Delete(ctx, b.id)
				// Delete is idempotent (M-DELETE-1), so success is a fine answer too.
				e.Check(err == nil || okErr(err), input, "success, ErrNotFound or ErrInvalid", err)
			})
		}
	})
}
