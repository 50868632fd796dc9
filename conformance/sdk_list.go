package conformance

import (
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/sdk"
)

// sdkMaxListed is how many tasks the listing specs create at most to see a second page
// (the SDKs' page sizes are 10, 10 and 100).
const sdkMaxListed = 260

// sdkPaged creates tasks in session until a listing has at least three pages (or
// sdkMaxListed tasks), and returns their ids in creation order and the page size the
// first page showed, and whether there is a second page at all. A store that lists them
// all on one page leaves the rule partly verified (there is no cursor to follow): never
// skipped on the store's own answer. ttl is the ttl of every task.
func sdkPaged(e *Env, st sdk.Store, session string, ttl *int64) ([]string, int, bool) {
	var ids []string
	for _, target := range []int{25, 80, sdkMaxListed} {
		for len(ids) < target {
			ids = append(ids, sdkCreate(e, st, session, sdkParams(ttl)).TaskID)
		}
		page, err := st.ListTasks(e.Ctx, session, "")
		e.RequireErr(err, nil, fmt.Sprintf("ListTasks(%s) of %d tasks", sdkWho(session), len(ids)))
		if page.NextCursor != "" && len(page.Tasks) > 0 && len(ids) >= 3*len(page.Tasks) {
			return ids, len(page.Tasks), true
		}
		if page.NextCursor != "" && len(page.Tasks) == 0 {
			e.Fatalf("ListTasks(%s) of %d tasks: an empty first page with a nextCursor %s", sdkWho(session), len(ids), Q(page.NextCursor))
		}
	}
	page, err := st.ListTasks(e.Ctx, session, "")
	e.RequireErr(err, nil, fmt.Sprintf("ListTasks(%s) of %d tasks", sdkWho(session), len(ids)))
	if page.NextCursor == "" {
		e.PartlyVerified(fmt.Sprintf("the store lists %d tasks on one page: no cursor to follow", len(ids)))
		return ids, len(page.Tasks), false
	}
	return ids, len(page.Tasks), true
}

// sdkCheckExactlyOnce checks that listed holds each id of want once and nothing of
// theirs (ids the caller must not see).
func sdkCheckExactlyOnce(e *Env, in string, listed []sdk.Task, want, theirs []string) {
	n := sdkCount(listed)
	var missing, twice, leaked []string
	for _, id := range want {
		switch {
		case n[id] == 0:
			missing = append(missing, id)
		case n[id] > 1:
			twice = append(twice, fmt.Sprintf("%s ×%d", id, n[id]))
		}
	}
	for _, id := range theirs {
		if n[id] > 0 {
			leaked = append(leaked, id)
		}
	}
	e.Check(len(missing)+len(twice)+len(leaked) == 0, in, fmt.Sprintf("each of the %d tasks exactly once and none of the other session's", len(want)),
		fmt.Sprintf("missing %d %q, listed more than once %q, another session's %q", len(missing), first(missing, 5), first(twice, 5), leaked))
}

func first(s []string, n int) []string { return s[:min(n, len(s))] }

func sdkListSpecs(s *suite) {
	s.It("P-LIST-1", "following nextCursor returns every visible task exactly once, as GetTask returns it, and nothing invisible", func(e *Env) {
		st := e.SDK()
		mine, theirs := sdkSession(e, "lister"), sdkSession(e, "other")
		var other []string
		for range 7 {
			other = append(other, sdkCreate(e, st, theirs, sdkParams(nil)).TaskID)
		}
		ids, size, _ := sdkPaged(e, st, mine, nil) // one page is still listed exactly once
		// Tasks in every status, so that no status is left out of the listing.
		sdkComplete(e, st, mine, ids[1], sdkResult("listed"))
		sdkTerminate(e, st, mine, ids[2], reference.StatusCancelled)
		e.RequireErr(st.UpdateTaskStatus(e.Ctx, mine, ids[3], reference.StatusInputRequired, "listed"), nil, "setup: UpdateTaskStatus(input_required)")
		listed, pages := sdkListAll(e, st, mine, len(ids)+2)
		sdkCheckExactlyOnce(e, fmt.Sprintf("ListTasks(%s) from the first page to the last (%d pages of up to %d)", sdkWho(mine), pages, size), listed, ids, other)
		for _, l := range listed {
			if !slices.Contains(ids, l.TaskID) {
				continue
			}
			got, err := st.GetTask(e.Ctx, mine, l.TaskID)
			in := fmt.Sprintf("the listed task %s against GetTask(%s, %s)", Q(l.TaskID), sdkWho(mine), Q(l.TaskID))
			if e.CheckErr(err, nil, in) && !sdkCheckTask(e, in, got, l) {
				return
			}
		}
	})

	s.It("P-LIST-2", "a cursor survives its task being deleted between pages", func(e *Env) {
		st := e.SDK()
		del, ok := st.(sdk.Deleter)
		if !ok {
			skipOptional("sdk.Deleter (the cursor's task cannot be deleted; the expiry spec covers the rule)")
		}
		session := sdkSession(e, "cursor-del")
		ids, _, paged := sdkPaged(e, st, session, nil)
		if !paged {
			sdkPartlyStop(e, "no cursor whose task could be deleted")
		}
		sdkCursorLeaves(e, st, session, ids, "deleted", func(id string) {
			e.RequireErr(del.DeleteTask(e.Ctx, session, id), nil, fmt.Sprintf("DeleteTask(%s, %s)", sdkWho(session), Q(id)))
		})
	})

	s.It("P-LIST-2", "a cursor survives its task expiring between pages", func(e *Env) {
		st := e.SDK()
		session := sdkSession(e, "cursor-exp")
		ttl := sdkTTL(e)
		ids, _, paged := sdkPaged(e, st, session, i64(ttl))
		if !paged {
			sdkPartlyStop(e, "no cursor whose task could expire")
		}
		policy := st.Policy()
		sdkCursorLeaves(e, st, session, ids, "expired", func(id string) {
			// Only a terminal task expires (P-TTL-1): finish it, then let its ttl pass
			// as the store counts it.
			// The ttl counted is the one the store keeps (P-CREATE-1 lets it keep
			// another than the one asked for).
			t, found := sdkStored(e, st, session, id)
			if !found {
				return // it has left already, while working (P-TTL-1 judges that)
			}
			switch {
			case t.TTL == nil || *t.TTL <= 0:
				sdkPartlyStop(e, fmt.Sprintf("the store keeps ttl %s when %d ms is requested: the cursor's task cannot expire", showSDK(t.TTL), ttl))
			case *t.TTL != ttl && !e.HasClock() && *t.TTL > sdkMaxRealTTL:
				sdkPartlyStop(e, fmt.Sprintf("no clock control: the store keeps ttl %d ms when %d ms is requested, too long to wait for the cursor's task to expire", *t.TTL, ttl))
			}
			ttl = *t.TTL
			sdkComplete(e, st, session, id, sdkResult("cursor"))
			if policy.TTLFrom == sdk.TTLFromCompletion {
				sdkPass(e, ttl)
			} else {
				created, _ := sdk.ParseTime(t.CreatedAt)
				sdkPass(e, max(created+ttl-e.NowMillis(), 0))
			}
			sdkPass(e, 1)
			// A store that counts otherwise than it declares (P-TTL-2 judges that) lets
			// the task go later: wait for it, up to three ttls more.
			for waited := int64(0); ; waited += ttl / 10 {
				if _, found := sdkStored(e, st, session, id); !found {
					return
				}
				if waited >= 3*ttl || e.Ctx.Err() != nil {
					e.Inconclusive(fmt.Sprintf("the cursor's task %s, completed with ttl %d, was still found 3 ttls after its ttl had passed: the cursor's task did not leave (P-TTL-2 judges that)", Q(id), ttl))
					return
				}
				sdkPass(e, ttl/10)
			}
		})
	})

	s.It("P-LIST-3", "a page costs O(page): pages at 32 000 tasks take at most 4 times as long as at 1 000", func(e *Env) {
		if raceEnabled {
			e.Skip("not applicable under -race: the race detector's cost per memory access makes page times meaningless")
		}
		st := e.SDK()
		session := sdkSession(e, "cost")
		const small, large = 1_000, 32_000
		for range small {
			sdkCreate(e, st, session, sdk.CreateParams{})
		}
		t1 := sdkPageTime(e, st, session)
		for range large - small {
			if e.Ctx.Err() != nil {
				return
			}
			sdkCreate(e, st, session, sdk.CreateParams{})
		}
		t2 := sdkPageTime(e, st, session)
		if t1 <= 0 {
			t1 = time.Nanosecond
		}
		ratio := float64(t2) / float64(t1)
		e.NoteSDK(fmt.Sprintf("page time %v at %d tasks, %v at %d: %.1f times", t1, small, t2, large, ratio))
		e.Check(ratio <= 4, fmt.Sprintf("time of a page of ListTasks(%s) (the first ten pages, fastest of seven rounds): %d vs %d tasks", sdkWho(session), small, large),
			"at most 4 times as long at 32 000 (O(page); O(tasks) per page is 32 times)",
			fmt.Sprintf("%v vs %v: %.1f times", t1, t2, ratio))
	})
}

// sdkPageTime is the time of one page of ListTasks in session: the first ten pages are
// walked once for their cursors, then fetched again seven times over, and the fastest
// round counts (warm caches, no pause of the collector). A store whose page costs
// O(page) answers the same ten pages as fast among 32 000 tasks as among 1 000.
func sdkPageTime(e *Env, st sdk.Store, session string) time.Duration {
	cursors := []string{""}
	for len(cursors) < 10 {
		c := cursors[len(cursors)-1]
		page, err := st.ListTasks(e.Ctx, session, c)
		e.RequireErr(err, nil, fmt.Sprintf("ListTasks(%s, cursor %s)", sdkWho(session), Q(c)))
		if page.NextCursor == "" {
			break
		}
		cursors = append(cursors, page.NextCursor)
	}
	// The creates before left garbage: collect it now rather than let the collector's
	// assists slow the rounds (a Go store in this process would otherwise pay for the
	// battery's garbage), and leave the rounds a moment apart.
	runtime.GC()
	best := time.Duration(-1)
	for range 7 {
		time.Sleep(2 * time.Millisecond)
		start := time.Now()
		for _, c := range cursors {
			_, err := st.ListTasks(e.Ctx, session, c)
			e.RequireErr(err, nil, fmt.Sprintf("ListTasks(%s, cursor %s) again", sdkWho(session), Q(c)))
		}
		if d := time.Since(start); best < 0 || d < best {
			best = d
		}
	}
	return best / time.Duration(len(cursors))
}

// sdkCursorLeaves takes the first page, makes its last task leave (leave deletes or
// expires it), and follows the cursor to the end: the call must succeed and the listing
// must hold every task still there exactly once.
func sdkCursorLeaves(e *Env, st sdk.Store, session string, ids []string, how string, leave func(id string)) {
	page, err := st.ListTasks(e.Ctx, session, "")
	e.RequireErr(err, nil, fmt.Sprintf("ListTasks(%s) (first page)", sdkWho(session)))
	e.Require(page.NextCursor != "" && len(page.Tasks) > 0, fmt.Sprintf("ListTasks(%s) of %d tasks", sdkWho(session), len(ids)), "a first page and a nextCursor", showSDK(page))
	last := page.Tasks[len(page.Tasks)-1].TaskID
	leave(last)
	listed := append([]sdk.Task(nil), page.Tasks...)
	cursor := page.NextCursor
	for pages := 2; ; pages++ {
		in := fmt.Sprintf("ListTasks(%s, cursor %s) (page %d) after the first page's last task %s was %s", sdkWho(session), Q(cursor), pages, Q(last), how)
		page, err := st.ListTasks(e.Ctx, session, cursor)
		if !e.CheckErr(err, nil, in) {
			return
		}
		listed = append(listed, page.Tasks...)
		if page.NextCursor == "" {
			break
		}
		if pages > len(ids)+2 {
			e.Fatalf("%s: still a nextCursor after %d pages for %d tasks", in, pages, len(ids))
		}
		cursor = page.NextCursor
	}
	// Every task still there, exactly once (the one that left was listed before it left).
	var remaining []string
	for _, id := range ids {
		if id == last {
			continue
		}
		if _, ok := sdkStored(e, st, session, id); ok {
			remaining = append(remaining, id)
		}
	}
	sdkCheckExactlyOnce(e, fmt.Sprintf("ListTasks(%s) to the last page, the first page's last task %s %s before page 2", sdkWho(session), Q(last), how), listed, remaining, nil)
}
