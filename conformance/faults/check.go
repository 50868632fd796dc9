package faults

import (
	"fmt"
	"time"
)

// verdict is what one task's final state says about its history.
type verdict struct {
	// checked is the number of acknowledged writes the final state vouches for or
	// contradicts (every acknowledged write of the task).
	checked int
	// lost is the number of acknowledged writes the final state has lost: those after
	// the state it shows (all of them when it shows a state older than the first).
	lost int
	// torn is set when the task shows a state no single write left (F-ATOMIC-1).
	torn bool
	// zombie is set when an errored write that had not taken effect when the store
	// served again took effect later (F-ATOMIC-1).
	zombie bool
	detail string
}

// judgeTask compares a task's final state with its history. The history's writes are
// sequential (one worker per task) and only the last may have failed, so the final
// state must be the one the last acknowledged write left, or the one the failed write
// after it would have left (a failed write may have taken effect entirely: S-CTX-1's
// "nothing or everything").
//
// A failed write that shows although a read had not seen it is late only when that read
// began after restart (a kill's undoing, restart non-zero) and the write had failed
// before it: no statement in flight survives a kill, so its effect must have been sent
// again. Otherwise a statement the server received before the client gave up may still
// commit after a read on another connection (Postgres does), which is not a retry.
func judgeTask(h *history, final observed, restart time.Time) verdict {
	var v verdict
	lastAck := -1
	for i, o := range h.ops {
		if o.acked {
			v.checked++
			lastAck = i
		}
	}
	if final.present && final.torn {
		v.torn = true
		v.detail = fmt.Sprintf("%s %s: %s, which no single write left (history %s)", h.era, h.id, final, h.describe())
		return v
	}
	// index of the write whose state the task shows; -1 is "before the first write"
	// (absent), len(ops) an unknown mark.
	shown := -1
	if final.present {
		shown = len(h.ops)
		for i, o := range h.ops {
			if o.kind != opDelete && o.mark == final.mark {
				shown = i
			}
		}
	} else {
		// Absent: the state of the latest delete, else of nothing written yet.
		for i, o := range h.ops {
			if o.kind == opDelete {
				shown = i
			}
		}
	}
	switch {
	case shown == len(h.ops):
		v.torn = true
		v.detail = fmt.Sprintf("%s %s: %s, which no write of its history left (history %s)", h.era, h.id, final, h.describe())
		return v
	case shown == lastAck:
		return v
	case shown > lastAck:
		// The failed write after the last acknowledged one took effect: allowed,
		// unless it was seen not to have when the store served again.
		if o := h.ops[shown]; o.seenApplied < 0 && !restart.IsZero() && o.end.Before(restart) && o.seenAt.After(restart) {
			v.zombie = true
			v.detail = fmt.Sprintf("%s %s: %s %d returned an error (%s), had not taken effect when the store answered again, and took effect later",
				h.era, h.id, h.ops[shown].kind, shown+1, h.ops[shown].err)
		}
		return v
	}
	// shown < lastAck: the acknowledged writes after the state shown are gone.
	for i := shown + 1; i < len(h.ops); i++ {
		if h.ops[i].acked {
			v.lost++
		}
	}
	v.detail = fmt.Sprintf("%s %s: shows %s after its acknowledged %s %d; %d acknowledged write(s) lost (history %s)",
		h.era, h.id, final, h.ops[lastAck].kind, lastAck+1, v.lost, h.describe())
	return v
}

func (h *history) describe() string {
	s := ""
	for i, o := range h.ops {
		if i > 0 {
			s += " "
		}
		outcome := "ok"
		if !o.acked {
			outcome = "err"
		}
		if o.kind == opDelete {
			s += fmt.Sprintf("delete:%s", outcome)
		} else {
			s += fmt.Sprintf("%s(%d):%s", o.kind, o.mark, outcome)
		}
	}
	return s
}
