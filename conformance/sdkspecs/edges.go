package sdkspecs

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/sdk"
)

// The SDK profile's rules at their edges: listings of every size around the page size,
// cursors the store never issued, ttls a store cannot hold (negative, past 32 bits).

// hugeTTLs are ttls past what a 32-bit integer or a JavaScript timer holds: 2^31 ms
// (a signed 32-bit column's first overflow; Node's setTimeout runs a longer delay at
// once) and 2^32+1 ms (an unsigned one's).
var hugeTTLs = []int64{1 << 31, 1<<32 + 1}

// unissuedCursors are cursors no store issues: not one of its own encodings.
var unissuedCursors = []string{"storecheck-never-issued", "0", "-1", "\x00", "%", "{\"after\":\"x\"}"}

func Edges(s *battery.Suite) {
	s.It("P-LIST-1", "listings of 0, 1, page−1, page, page+1, 2·page−1, 2·page and 2·page+1 tasks each return every task exactly once", func(e *battery.Env) {
		st := e.SDK()
		_, size, paged := paged(e, st, newSession(e, "page-size"), nil)
		if !paged || size < 1 {
			return // paged said partly verified: no page to be at the edge of
		}
		other := newSession(e, "other")
		theirs := []string{create(e, st, other, params(nil)).TaskID}
		for _, n := range []int{0, 1, size - 1, size, size + 1, 2*size - 1, 2 * size, 2*size + 1} {
			session := newSession(e, fmt.Sprintf("n%d-", n))
			var ids []string
			for range n {
				ids = append(ids, create(e, st, session, params(nil)).TaskID)
			}
			listed, pages := listAll(e, st, session, n+2)
			checkExactlyOnce(e, fmt.Sprintf("ListTasks(%s) of %d tasks from the first page to the last (%d pages; the store's page holds %d)", whoOf(session), n, pages, size), listed, ids, theirs)
		}
	})

	s.It("P-LIST-1", "a cursor the store never issued fails with ErrInvalid", func(e *battery.Env) {
		st := e.SDK()
		session := newSession(e, "unissued")
		for range 3 {
			create(e, st, session, params(nil))
		}
		for _, c := range unissuedCursors {
			page, err := st.ListTasks(e.Ctx, session, c)
			in := fmt.Sprintf("ListTasks(%s, cursor %s), a cursor the store never issued", whoOf(session), battery.Literal(c))
			if err == nil {
				e.Check(false, in, "ErrInvalid", fmt.Sprintf("a page of %d tasks, nextCursor %s", len(page.Tasks), battery.Literal(page.NextCursor)))
				continue
			}
			e.CheckErr(err, reference.ErrInvalid, in)
		}
	})

	s.It("P-LIST-1", "a cursor derived from an issued one, each part corrupted in turn, fails with ErrInvalid or lists only the caller's tasks; never another error", func(e *battery.Env) {
		st := e.SDK()
		session := newSession(e, "derived")
		ids, size, paged := paged(e, st, session, nil)
		if !paged || size < 1 {
			return // paged said partly verified: no cursor was issued
		}
		first, err := st.ListTasks(e.Ctx, session, "")
		e.RequireErr(err, nil, fmt.Sprintf("setup: ListTasks(%s, first page)", whoOf(session)))
		if first.NextCursor == "" {
			e.Fatalf("ListTasks(%s) of %d tasks, pages of %d: no nextCursor on the first page", whoOf(session), len(ids), size)
		}
		forged := deriveCursors(first.NextCursor)
		e.Note("%d cursors derived from the issued %s", len(forged), battery.Literal(first.NextCursor))
		for _, f := range forged {
			page, err := st.ListTasks(e.Ctx, session, f.cursor)
			in := fmt.Sprintf("ListTasks(%s, cursor %s): the issued cursor %s with %s", whoOf(session), battery.Literal(f.cursor), battery.Literal(first.NextCursor), f.what)
			if err != nil {
				// A cursor the store cannot read is invalid params (-32602), never an
				// internal error: the store's parser meets what a client sent.
				e.CheckErr(err, reference.ErrInvalid, in)
				continue
			}
			// A forged position that parses cannot be told from an issued one without
			// signing: the page may be served, with the caller's tasks only.
			for _, t := range page.Tasks {
				if !slices.Contains(ids, t.TaskID) {
					e.Check(false, in, "ErrInvalid, or a page of the caller's tasks", "a task the caller never created: "+show(t))
					break
				}
			}
		}
	})

	s.It("P-CREATE-1", "a ttl of -1 ms is refused with ErrInvalid or kept as a ttl that is not negative; ttls of 2^31 and 2^32+1 ms are kept or replaced, never negative", func(e *battery.Env) {
		st := e.SDK()
		session := newSession(e, "ttl-edge")
		for _, ttl := range append([]int64{-1}, hugeTTLs...) {
			p := params(i64(ttl))
			in := createCall(session, p)
			t, err := st.CreateTask(e.Ctx, session, p)
			if ttl < 0 && errors.Is(err, reference.ErrInvalid) {
				continue
			}
			if !e.CheckErr(err, nil, in) {
				continue
			}
			if t.TTL != nil && *t.TTL < 0 {
				e.Check(false, in+": ttl", "the ttl requested, another the store keeps, or null; never a negative one", fmt.Sprint(*t.TTL))
				continue
			}
			if got, ok := stored(e, st, session, t.TaskID); e.Check(ok, "GetTask after "+in, "the task", "ErrNotFound") {
				checkTask(e, "GetTask after "+in, t, got)
			}
		}
	})

	s.It("P-CLEAN-1", "Cleanup keeps a completed task with a ttl of 2^31 or 2^32+1 ms", func(e *battery.Env) {
		st := e.SDK()
		cl := battery.RequireOptional[sdk.Cleaner](st, "sdk.Cleaner")
		session := newSession(e, "clean-huge")
		huge := completedHuge(e, st, session)
		pass(e, 5)
		_, err := cl.Cleanup(e.Ctx)
		in := "Cleanup() 5 ms after completing tasks kept 2^31 ms and more"
		if !e.CheckErr(err, nil, in) {
			return
		}
		for _, t := range huge {
			_, found := stored(e, st, session, t.TaskID)
			e.Check(found, fmt.Sprintf("GetTask(%s, %s) after %s (ttl %d ms)", whoOf(session), battery.Literal(t.TaskID), in, *t.TTL), "the task: its ttl has years to run", "ErrNotFound: Cleanup removed it")
		}
	})

	s.It("P-TTL-2", "a task completed with a ttl of 2^31 or 2^32+1 ms is found right after it became terminal", func(e *battery.Env) {
		st := e.SDK()
		session := newSession(e, "ttl-huge")
		huge := completedHuge(e, st, session)
		pass(e, 5)
		for _, t := range huge {
			_, ok := stored(e, st, session, t.TaskID)
			e.Check(ok, fmt.Sprintf("GetTask(%s, %s) 5 ms after completing the task kept %d ms", whoOf(session), battery.Literal(t.TaskID), *t.TTL),
				"the task: its ttl has years to run", "ErrNotFound")
		}
	})

	s.It("P-SESS-1", "sessions of 255, 256 and 1024 bytes that differ only in their last byte, and \"café\" composed and decomposed, are distinct sessions", func(e *battery.Env) {
		st := e.SDK()
		base := newSession(e, "edge")
		pad := func(n int, last string) string { return base + strings.Repeat("s", n-len(base)-len(last)) + last }
		pairs := [][2]string{
			{pad(255, "a"), pad(255, "b")},
			{pad(256, "a"), pad(256, "b")},
			{pad(1024, "a"), pad(1024, "b")},
			{base + "caf\u00e9", base + "cafe\u0301"},
		}
		for _, p := range pairs {
			t := create(e, st, p[0], params(nil))
			_, err := st.GetTask(e.Ctx, p[1], t.TaskID)
			in := fmt.Sprintf("GetTask(session of %d bytes %s, %s) of a task of session %s", len(p[1]), battery.Literal(p[1][max(0, len(p[1])-12):]), battery.Literal(t.TaskID), battery.Literal(p[0][max(0, len(p[0])-12):]))
			e.CheckErr(err, reference.ErrNotFound, in)
			listed, _ := listAll(e, st, p[1], 4)
			for _, l := range listed {
				if l.TaskID == t.TaskID {
					e.Check(false, fmt.Sprintf("ListTasks(session of %d bytes ending %s)", len(p[1]), battery.Literal(p[1][max(0, len(p[1])-12):])), "none of the other session's tasks", "its task "+battery.Literal(t.TaskID))
				}
			}
		}
	})

	s.It("P-RESULT-1", "a reader racing StoreTaskResult never sees the task completed without its result", func(e *battery.Env) {
		st := e.SDK()
		session := newSession(e, "apart")
		readers := max(e.RaceClients()-1, 3)
		m := e.Meter()
		defer m.Done()
		for r := range m.Rounds(64) {
			t := create(e, st, session, params(nil))
			want := sampleResult(fmt.Sprintf("round %d", r))
			tl := battery.NewTimeline()
			var stored error
			var torn []string
			var mu sync.Mutex
			battery.Together(readers+1, func(c int) {
				if c == 0 {
					tl.Do(c, t.TaskID, func() { stored = st.StoreTaskResult(e.Ctx, session, t.TaskID, reference.StatusCompleted, want) })
					return
				}
				for range 2000 {
					var got sdk.Task
					var err error
					tl.Do(c, t.TaskID, func() { got, err = st.GetTask(e.Ctx, session, t.TaskID) })
					if err != nil || got.Status != reference.StatusCompleted {
						continue
					}
					var res sdk.Result
					tl.Do(c, t.TaskID, func() { res, err = st.GetTaskResult(e.Ctx, session, t.TaskID) })
					if err != nil || res == nil {
						mu.Lock()
						torn = append(torn, fmt.Sprintf("client %d: GetTask said completed, then GetTaskResult answered %s", c, battery.DescribeErr(err)))
						mu.Unlock()
					}
					return
				}
			})
			m.Add(tl.Take())
			e.RequireErr(stored, nil, fmt.Sprintf("round %d: StoreTaskResult(completed) of %s", r, battery.Literal(t.TaskID)))
			if !e.Check(len(torn) == 0, fmt.Sprintf("round %d: StoreTaskResult(completed) of %s racing %d readers", r, battery.Literal(t.TaskID), readers),
				"every reader that saw it completed got its result (status and result in one step)", strings.Join(torn, "; ")) {
				return
			}
		}
	})
	deleteEdges(s)
}

// completedHuge creates and completes a task for each ttl of hugeTTLs and returns those
// the store keeps past 32 bits of milliseconds (noting the others); with none the spec
// stops, partly verified, or setup refused when the store refused a ttl: whether it
// may is P-CREATE-1's to judge, not the rule of the spec that needed the task.
func completedHuge(e *battery.Env, st sdk.Store, session string) []sdk.Task {
	var huge []sdk.Task
	var refused error
	for _, ttl := range hugeTTLs {
		p := params(i64(ttl))
		t, err := st.CreateTask(e.Ctx, session, p)
		if err != nil {
			e.Note("setup: %s: the store refused it: %s (P-CREATE-1 judges that)", createCall(session, p), battery.DescribeErr(err))
			refused = err
			continue
		}
		if t.TTL == nil || *t.TTL < 1<<31 {
			e.Note("%s: the store keeps ttl %s: not past 32 bits", createCall(session, p), show(t.TTL))
			continue
		}
		complete(e, st, session, t.TaskID, sampleResult("huge ttl"))
		huge = append(huge, t)
	}
	if len(huge) == 0 && refused != nil {
		e.SetupValueRefused("CreateTask with a ttl past 32 bits of milliseconds", "P-CREATE-1", refused)
	}
	if len(huge) == 0 {
		partlyStop(e, "the store keeps no ttl past 32 bits")
	}
	return huge
}
