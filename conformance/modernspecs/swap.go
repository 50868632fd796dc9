package modernspecs

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/modern"
)

func Swap(s *battery.Suite) {
	s.It("M-SWAP-1", "replaces the whole task and stores version expected+1", func(e *battery.Env) {
		st := e.Modern()
		in := Owned(e, e.ID("swap"), "alice")
		in.StatusMessage = "start"
		in.PollInterval = MS(1000)
		in.InputRequests = map[string]any{"a": map[string]any{"q": "A?"}, "b": map[string]any{"q": "B?"}}
		in.IssuedKeys = []string{"a", "b"}
		cur := CreateTask(e, st, in)

		// Every field but the immutable ones changes; maps lose keys (replaced, not merged).
		next := cur.Clone()
		next.Status = reference.StatusInputRequired
		next.StatusMessage = "waiting"
		next.LastUpdatedAt = cur.LastUpdatedAt + 5
		next.TTL = MS(longTTL)
		next.PollInterval = nil
		next.InputRequests = map[string]any{"b": map[string]any{"q": "B?"}}
		next.StagedResponses = map[string]any{"a": "yes"}
		next.IssuedKeys = []string{"a", "b"}
		steps := []modern.Task{next}

		n2 := next.Clone()
		n2.Status = reference.StatusCompleted
		n2.StatusMessage = ""
		n2.InputRequests = nil
		n2.StagedResponses = nil
		n2.InputResponses = map[string]any{"a": "yes", "b": json.Number("2")}
		n2.Result = map[string]any{"content": []any{map[string]any{"type": "text", "text": "done"}}}
		n2.TTL = nil
		n2.PollInterval = MS(250)
		steps = append(steps, n2)

		n3 := n2.Clone()
		n3.Result = nil
		n3.Error = modern.RPCError(-32603, "boom", nil)
		n3.InputResponses = nil
		n3.Status = reference.StatusFailed
		steps = append(steps, n3)

		for _, c := range []reference.Caller{reference.Principal("alice"), reference.System(), reference.Principal("alice")} {
			if len(steps) == 0 {
				break
			}
			n := steps[0]
			steps = steps[1:]
			call := SwapCall(c, cur.Version, n)
			got, err := st.Swap(e.Ctx, c, cur.Version, n)
			if !e.CheckErr(err, nil, call) {
				return
			}
			want := WithVersion(n, cur.Version+1)
			CheckTask(e, call+" returned", want, got)
			if !CheckStored(e, st, want, call) {
				return
			}
			cur = want
		}
	})

	s.It("M-SWAP-1", "lets every caller that can see the task swap it", func(e *battery.Env) {
		st := e.Modern()
		owned := CreateTask(e, st, Owned(e, e.ID("swap-own"), "alice"))
		unowned := CreateTask(e, st, task(e, e.ID("swap-free")))
		for _, tc := range []struct {
			cur     modern.Task
			callers []reference.Caller
		}{
			{owned, []reference.Caller{reference.Principal("alice"), reference.System()}},
			{unowned, callers},
		} {
			cur := tc.cur
			for _, c := range tc.callers {
				if stored, ok := checkSwap(e, st, c, cur, Next(cur, "by "+c.String())); ok {
					cur = stored
				}
			}
		}
	})

	s.It("M-SWAP-1", "stores expected+1 whatever version next carries", func(e *battery.Env) {
		st := e.Modern()
		cur := CreateTask(e, st, task(e, e.ID("swap-ver")))
		for _, v := range []int64{0, 99, 1} {
			next := Next(cur, fmt.Sprintf("next.Version=%d", v))
			next.Version = v
			stored, ok := checkSwap(e, st, reference.System(), cur, next)
			if !ok {
				return
			}
			cur = stored
		}
	})

	s.It("M-SWAP-2", "a version mismatch is ErrConflict and changes nothing", func(e *battery.Env) {
		st := e.Modern()
		cur := CreateTask(e, st, Owned(e, e.ID("conflict"), "alice"))
		next := Next(cur, "v2")
		got, err := st.Swap(e.Ctx, reference.System(), 1, next)
		e.RequireErr(err, nil, "setup: "+SwapCall(reference.System(), 1, next))
		cur = got // version 2
		for _, v := range []int64{1, 0, 3, 100} {
			for _, c := range []reference.Caller{reference.System(), reference.Principal("alice")} {
				n := Next(cur, fmt.Sprintf("stale %d", v))
				call := SwapCall(c, v, n) + " while the task is at version 2"
				_, err := st.Swap(e.Ctx, c, v, n)
				e.CheckErr(err, reference.ErrConflict, call)
				CheckStored(e, st, cur, call)
			}
		}
	})

	s.It("M-SWAP-2", "a missing task is ErrNotFound, not ErrConflict, and Swap creates nothing", func(e *battery.Env) {
		st := e.Modern()
		// The reference answer is Swap's own for a missing id (a store's Swap may word
		// not-found differently from its Get): every other missing id must get it too.
		ref := e.ID("ref-missing")
		_, refErr := st.Swap(e.Ctx, reference.System(), 1, task(e, ref))
		checkAbsent(e, st, ref, "Swap of a missing id")
		for _, v := range []int64{0, 1, 2} {
			for _, c := range callers {
				t := task(e, e.ID("nothere"))
				call := SwapCall(c, v, t) + " of an id never created"
				_, err := st.Swap(e.Ctx, c, v, t)
				CheckNotFoundLike(e, call, err, t.TaskID, refErr, ref)
				checkAbsent(e, st, t.TaskID, call)
			}
		}
		d := CreateTask(e, st, task(e, e.ID("deleted")))
		e.RequireErr(st.Delete(e.Ctx, d.TaskID), nil, "setup: Delete("+battery.Literal(d.TaskID)+")")
		n := Next(d, "resurrected?")
		call := SwapCall(reference.System(), 1, n) + " after Delete"
		_, err := st.Swap(e.Ctx, reference.System(), 1, n)
		e.CheckErr(err, reference.ErrNotFound, call)
		checkAbsent(e, st, d.TaskID, call)
	})

	s.It("M-SWAP-2", "an expired task is ErrNotFound, not ErrConflict, and stays unchanged", func(e *battery.Env) {
		st := e.Modern()
		in := task(e, e.ID("swap-exp"))
		in.TTL = MS(ShortTTL)
		cur := CreateTask(e, st, in)
		ref := e.ID("ref-missing")
		TimeTo(e, in.CreatedAt+*in.TTL)
		// Compared with Swap's answer for a missing id, not Get's.
		_, refErr := st.Swap(e.Ctx, reference.System(), 1, task(e, ref))
		for _, v := range []int64{1, 2, 0} {
			n := Next(cur, "after expiry")
			call := SwapCall(reference.System(), v, n) + " of an expired task"
			_, err := st.Swap(e.Ctx, reference.System(), v, n)
			CheckNotFoundLike(e, call, err, in.TaskID, refErr, ref)
		}
		e.NoClockDrops("the expired task left unchanged by the refused Swaps, seen 1 ms before expiry,")
		if e.HasClock() {
			e.ManualClock().SetMillis(in.CreatedAt + *in.TTL - 1)
			CheckStored(e, st, cur, "the refused Swaps of the expired task, with the clock moved back before expiry")
		}
	})

	s.It("M-SWAP-2", "a foreign task is ErrNotFound, like a missing one, whatever the version, and stays unchanged", func(e *battery.Env) {
		st := e.Modern()
		cur := CreateTask(e, st, Owned(e, e.ID("foreign"), "alice"))
		ref := e.ID("ref-missing")
		for _, c := range []reference.Caller{reference.Anonymous(), reference.Principal("bob"), reference.Principal("Alice")} {
			_, refErr := st.Swap(e.Ctx, c, 1, Owned(e, ref, "alice"))
			for _, v := range []int64{1, 2, 0} {
				n := Next(cur, "hijack")
				call := SwapCall(c, v, n) + " of a task owned by \"alice\""
				_, err := st.Swap(e.Ctx, c, v, n)
				CheckNotFoundLike(e, call, err, cur.TaskID, refErr, ref)
				CheckStored(e, st, cur, call)
			}
		}
	})

	s.It("M-SWAP-3", "refuses a change of owner or created_at with ErrInvalid and changes nothing", func(e *battery.Env) {
		st := e.Modern()
		// Each case gets a fresh task, so that a store that accepts one change does not
		// muddle the verdict on the next.
		owned := func() modern.Task { return CreateTask(e, st, Owned(e, e.ID("imm-own"), "alice")) }
		unowned := func() modern.Task { return CreateTask(e, st, task(e, e.ID("imm-free"))) }
		type tc struct {
			what   string
			cur    func() modern.Task
			caller reference.Caller
			change func(*modern.Task)
		}
		setOwner := func(o string) func(*modern.Task) { return func(t *modern.Task) { t.Owner = o } }
		shift := func(d int64) func(*modern.Task) { return func(t *modern.Task) { t.CreatedAt += d } }
		for _, c := range []tc{
			{"owner \"alice\" -> \"bob\"", owned, reference.System(), setOwner("bob")},
			{"owner \"alice\" -> \"bob\"", owned, reference.Principal("alice"), setOwner("bob")},
			{"owner \"alice\" -> none", owned, reference.Principal("alice"), setOwner("")},
			{"owner \"alice\" -> none", owned, reference.System(), setOwner("")},
			{"owner \"alice\" -> \"Alice\"", owned, reference.System(), setOwner("Alice")},
			{"owner \"alice\" -> \"alice \"", owned, reference.System(), setOwner("alice ")},
			{"owner none -> \"bob\"", unowned, reference.Principal("bob"), setOwner("bob")},
			{"owner none -> \"alice\"", unowned, reference.System(), setOwner("alice")},
			{"owner none -> \"alice\"", unowned, reference.Anonymous(), setOwner("alice")},
			{"created_at +1 ms", owned, reference.Principal("alice"), shift(1)},
			{"created_at -1 ms", owned, reference.System(), shift(-1)},
			{"created_at +1 s", unowned, reference.System(), shift(1000)},
			{"created_at -1 h", unowned, reference.Anonymous(), shift(-3_600_000)},
		} {
			cur := c.cur()
			next := Next(cur, "changes "+c.what)
			c.change(&next)
			call := SwapCall(c.caller, cur.Version, next) + ": " + c.what
			got, err := st.Swap(e.Ctx, c.caller, cur.Version, next)
			if !e.CheckErr(err, reference.ErrInvalid, call) && err == nil {
				e.Errorf("  the store accepted it and returned %s", battery.Show(got))
			}
			CheckStored(e, st, cur, call)
		}
	})

	s.It("M-SWAP-3", "a next task_id that differs only in case or spacing swaps nothing", func(e *battery.Env) {
		st := e.Modern()
		cur := CreateTask(e, st, task(e, e.ID("ImmId")))
		for _, other := range []string{strings.ToUpper(cur.TaskID), strings.ToLower(cur.TaskID), cur.TaskID + " ", " " + cur.TaskID} {
			next := Next(cur, "renamed")
			next.TaskID = other
			call := SwapCall(reference.System(), cur.Version, next)
			_, err := st.Swap(e.Ctx, reference.System(), cur.Version, next)
			e.Check(errors.Is(err, reference.ErrNotFound) || errors.Is(err, reference.ErrInvalid), call,
				"ErrNotFound (no task has that id) or ErrInvalid", err)
			CheckStored(e, st, cur, call)
			checkAbsent(e, st, other, call)
		}
	})

	s.It("M-SWAP-4", "of N concurrent Swaps with the same expected version exactly one succeeds", func(e *battery.Env) {
		st := e.Modern()
		n, rounds := max(2*e.RaceClients(), 2), e.RaceRounds()
		m := e.Meter()
		defer m.Done()
		cur := CreateTask(e, st, task(e, e.ID("race")))
		for round := range m.Rounds(rounds) {
			var (
				errs  = make([]error, n)
				gots  = make([]modern.Task, n)
				nexts = make([]modern.Task, n)
			)
			for i := range n {
				nexts[i] = Next(cur, fmt.Sprintf("round %d writer %d", round, i))
			}
			tl := battery.NewTimeline()
			battery.Together(n, func(i int) {
				tl.Do(i, cur.TaskID, func() { gots[i], errs[i] = st.Swap(e.Ctx, reference.System(), cur.Version, nexts[i]) })
			})
			m.Add(tl.Take())
			winner := -1
			var wins []int
			for i, err := range errs {
				switch {
				case err == nil:
					winner = i
					wins = append(wins, i)
				case !errors.Is(err, reference.ErrConflict):
					e.CheckErr(err, reference.ErrConflict, fmt.Sprintf("round %d: concurrent %s (one of %d)", round, SwapCall(reference.System(), cur.Version, nexts[i]), n))
				}
			}
			input := fmt.Sprintf("round %d: %d concurrent Swap(system, %d, …) of task %s", round, n, cur.Version, battery.Literal(cur.TaskID))
			if !e.Check(len(wins) == 1, input, "exactly one success, every other Swap ErrConflict", fmt.Sprintf("%d successes (writers %v)", len(wins), wins)) {
				return
			}
			want := WithVersion(nexts[winner], cur.Version+1)
			CheckTask(e, input+": the winner's result", want, gots[winner])
			if !CheckStored(e, st, want, input) {
				return
			}
			cur = want
		}
	})

	s.It("M-SWAP-4", "8 goroutines x 50 CAS increments end at exactly 400", func(e *battery.Env) {
		st := e.Modern()
		const workers, incs = 8, 50
		m := e.Meter()
		defer m.Done()
		// 8 × 50 is the rule's text (docs/spec.md) and stays. On a machine with 8
		// processors or more, 8 clients are not more than GOMAXPROCS: a counter of
		// RaceClients() workers runs too, so that clients are preempted mid-loop.
		// Again on a fresh counter while the runs have not overlapped enough.
		for range m.Rounds(1) {
			if !casCounter(e, st, m, workers, incs) {
				return
			}
			if n := e.RaceClients(); n > workers && !casCounter(e, st, m, n, incs) {
				return
			}
		}
	})
}

// casCounter is one run of M-SWAP-4's counter: workers goroutines each make incs CAS
// increments of a fresh task, one increment per round. It answers false once it has
// recorded a fault.
func casCounter(e *battery.Env, st modern.Store, m *battery.OverlapMeter, workers, incs int) bool {
	in := task(e, e.ID("counter"))
	in.StatusMessage = "0"
	CreateTask(e, st, in)
	var (
		mu       sync.Mutex
		versions []int64
	)
	tl := battery.NewTimeline()
	rounds := battery.NewBarrier(workers)
	battery.Together(workers, func(w int) {
		retries := 0
		defer rounds.Leave()
		for done := 0; done < incs; {
			if done > 0 && retries == 0 {
				rounds.Wait() // one increment per round: every round starts together
			}
			retries++
			if e.Ctx.Err() != nil {
				return
			}
			var cur modern.Task
			var err error
			tl.Do(w, in.TaskID, func() { cur, err = st.Get(e.Ctx, in.TaskID, reference.System()) })
			if !e.CheckErr(err, nil, fmt.Sprintf("worker %d: Get(%s, system)", w, battery.Literal(in.TaskID))) {
				return
			}
			n, err := strconv.Atoi(cur.StatusMessage)
			if !e.Check(err == nil, fmt.Sprintf("worker %d: Get(%s, system)", w, battery.Literal(in.TaskID)), "a counter in status_message", cur) {
				return
			}
			next := Next(cur, strconv.Itoa(n+1))
			var got modern.Task
			tl.Do(w, in.TaskID, func() { got, err = st.Swap(e.Ctx, reference.System(), cur.Version, next) })
			switch {
			case err == nil:
				done++
				retries = 0
				mu.Lock()
				versions = append(versions, got.Version)
				mu.Unlock()
			case errors.Is(err, reference.ErrConflict):
				// Lost the race: read again and retry.
			default:
				e.CheckErr(err, nil, fmt.Sprintf("worker %d: %s", w, SwapCall(reference.System(), cur.Version, next)))
				return
			}
		}
	})
	m.Add(tl.Take())
	final, ok := Stored(e, st, in.TaskID)
	input := fmt.Sprintf("%d goroutines × %d CAS increments (Get, Swap, retry on ErrConflict) of status_message", workers, incs)
	e.Require(ok, input, "the counter task", "ErrNotFound")
	e.Check(final.StatusMessage == strconv.Itoa(workers*incs) && final.Version == int64(workers*incs+1), input,
		fmt.Sprintf("counter %d at version %d", workers*incs, workers*incs+1),
		fmt.Sprintf("counter %s at version %d", final.StatusMessage, final.Version))
	slices.Sort(versions)
	distinct := len(slices.Compact(slices.Clone(versions))) == len(versions)
	e.Check(len(versions) == workers*incs && distinct && (len(versions) == 0 || versions[0] == 2 && versions[len(versions)-1] == int64(workers*incs+1)),
		input, fmt.Sprintf("the %d successful Swaps returned versions 2..%d, each once", workers*incs, workers*incs+1),
		fmt.Sprintf("%d successes, distinct=%v, versions %s", len(versions), distinct, span(versions)))
	return len(e.Faults()) == 0
}

// span summarises a sorted list of versions for a failure message.
func span(v []int64) string {
	if len(v) == 0 {
		return "none"
	}
	return fmt.Sprintf("%d..%d", v[0], v[len(v)-1])
}
