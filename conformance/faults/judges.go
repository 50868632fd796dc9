package faults

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/storecheck/storecheck/conformance/harness"
)

// The judges: pure functions of a record (record.go), one per fault rule, and
// judgeRun, which puts the fault's figures and verdicts together for the report.

// returnWindow is how long after the backend's return a call still meets the outage:
// calls begun within it find connections to re-establish.
const returnWindow = 5 * time.Second

// judgeRun is the fault's result: what the record shows, and every rule's verdict.
func judgeRun(r *record) FaultResult {
	t := tally(r)
	res := FaultResult{
		Fault: r.fault, Node: r.node, InFlight: r.inFlight,
		InjectedAfter: r.faultAt.Sub(r.began), Outage: r.backAt.Sub(r.faultAt),
		ErrorKinds: errorKinds(r.calls), Recovery: map[string]time.Duration{},
		Tasks: t.tasks, AckedChecked: t.checked, AckedLost: t.lost, TasksLost: t.tasksLost,
	}
	for _, c := range r.calls {
		res.Calls++
		if c.err == nil {
			res.Acked++
		} else {
			res.Errors++
		}
	}
	for _, era := range r.eras {
		res.Recovery[era] = recovery(r, era)
	}
	_, res.MaxLate = lateCalls(r)
	durable := judgeDurable(r)
	res.Rules = []RuleVerdict{judgeOutage(r), judgeRecover(r), durable, judgeAtomic(r), judgeDeclare(r.fault, r.durability, durable)}
	return res
}

// judgeOutage is F-OUTAGE-1: every call that met the outage ended by its deadline
// (and grace) with an error, none panicked, none never returned, and, in a
// whole-backend outage, none succeeded while the backend could store nothing. A run
// in which no call failed did not put the rule to the test.
func judgeOutage(r *record) RuleVerdict {
	v := RuleVerdict{ID: RuleOutage, Outcome: Passed}
	reasons, _ := lateCalls(r)
	errs := 0
	for _, c := range r.calls {
		if c.panicked != "" {
			reasons = append(reasons, fmt.Sprintf("%s %s panicked: %s", c.era, c.what, c.panicked))
		}
		if c.err != nil {
			errs++
		}
	}
	if r.stuck > 0 {
		reasons = append(reasons, fmt.Sprintf("%d worker(s) still inside a call %s after the run ended: a call that never returns",
			r.stuck, abandonAfter(r.callTimeout, r.grace)))
	}
	reasons = append(reasons, outageSuccesses(r)...)
	switch {
	case len(reasons) > 0:
		v.Outcome, v.Reasons = Failed, reasons
	case errs == 0:
		v.Outcome, v.Reasons = NotExercised, []string{"no call failed: no call met the outage"}
	}
	return v
}

// lateCalls returns the calls that met the outage or the return from it and returned
// more than the grace past their deadline, and the latest any of them returned past
// it. A call slowed down by a loaded machine long before the fault says nothing about
// outages, and one cut short by the run's own end nothing about the store.
func lateCalls(r *record) (late []string, maxLate time.Duration) {
	for _, c := range r.calls {
		over := c.end.Sub(c.start) - r.callTimeout
		if over <= 0 || c.cancelled || !c.end.After(r.faultAt) || !c.start.Before(r.backAt.Add(returnWindow)) {
			continue
		}
		maxLate = max(maxLate, over)
		if over > r.grace {
			late = append(late, fmt.Sprintf("%s %s returned %s after its %s deadline (err: %v)",
				c.era, c.what, over.Round(time.Millisecond), r.callTimeout, c.err))
		}
	}
	return late, maxLate
}

// outageSuccesses describes the calls (the first five, then a count) that began and
// ended while the whole backend was away: successes it could not have stored.
func outageSuccesses(r *record) []string {
	if r.downFrom.IsZero() {
		return nil
	}
	var out []string
	n := 0
	for _, c := range r.calls {
		if c.err != nil || !c.start.After(r.downFrom) || !c.end.Before(r.downTo) {
			continue
		}
		if n < 5 {
			out = append(out, fmt.Sprintf("%s %s succeeded at %s into a %s while the backend could store nothing",
				c.era, c.what, c.end.Sub(r.faultAt).Round(time.Millisecond), r.fault))
		}
		n++
	}
	if n > 5 {
		out = append(out, fmt.Sprintf("… %d calls in all succeeded during the outage", n))
	}
	return out
}

// recovery is the time from the backend's return to the end of the first call of era
// begun after it that succeeded, or -1 when none did.
func recovery(r *record, era string) time.Duration {
	var first time.Time
	for _, c := range r.calls {
		if c.era == era && c.err == nil && c.start.After(r.backAt) && (first.IsZero() || c.end.Before(first)) {
			first = c.end
		}
	}
	if first.IsZero() {
		return -1
	}
	return first.Sub(r.backAt)
}

// judgeRecover is F-RECOVER-1: the clients of every era opened before the fault
// succeeded again after the backend's return.
func judgeRecover(r *record) RuleVerdict {
	v := RuleVerdict{ID: RuleRecover, Outcome: Passed}
	for _, era := range r.eras {
		if recovery(r, era) < 0 {
			v.Outcome = Failed
			v.Reasons = append(v.Reasons, fmt.Sprintf("the %s clients opened before the fault did not succeed once within %s of the backend's return", era, r.recoveryTimeout))
		}
	}
	return v
}

// judgeDurable is F-DURABLE-1: every acknowledged write is in the final state. Losses
// after a crash the harness declared lossy are reported as declared, not failed.
func judgeDurable(r *record) RuleVerdict {
	v := RuleVerdict{ID: RuleDurable, Outcome: Passed}
	t := tally(r)
	declared := r.fault == Kill && r.durability.MayLoseOnCrash || r.fault == Failover && r.durability.MayLoseOnFailover
	switch {
	case t.checked == 0:
		v.Outcome, v.Reasons = NotExercised, []string{"no write was acknowledged"}
	case t.lost > 0 && declared:
		v.Outcome = Declared
		v.Reasons = append([]string{fmt.Sprintf("%d of %d acknowledged writes lost; acknowledged writes may be lost on crash: declared (%s)",
			t.lost, t.checked, r.durability.Setting)}, t.lostDetails...)
	case t.lost > 0:
		v.Outcome = Failed
		v.Reasons = append([]string{fmt.Sprintf("%d of %d acknowledged writes lost", t.lost, t.checked)}, t.lostDetails...)
	}
	return v
}

// judgeAtomic is F-ATOMIC-1: no task shows a write in part, or a failed write that
// took effect late. A run in which no write failed did not put the rule to the test.
func judgeAtomic(r *record) RuleVerdict {
	v := RuleVerdict{ID: RuleAtomic, Outcome: Passed}
	t := tally(r)
	switch {
	case len(t.tornDetails) > 0:
		v.Outcome, v.Reasons = Failed, t.tornDetails
	case t.errored == 0:
		v.Outcome, v.Reasons = NotExercised, []string{"no write failed"}
	}
	return v
}

// taskTally is every task's verdict (judgeTask) summed.
type taskTally struct {
	tasks, checked, lost, tasksLost int
	errored                         int // tasks whose last write failed
	lostDetails, tornDetails        []string
}

func tally(r *record) taskTally {
	var t taskTally
	for _, tr := range r.tasks {
		h := tr.h
		if len(h.ops) == 0 {
			continue
		}
		t.tasks++
		if !h.ops[len(h.ops)-1].acked {
			t.errored++
		}
		v := judgeTask(h, tr.final, r.restart)
		t.checked += v.checked
		t.lost += v.lost
		if v.lost > 0 {
			t.tasksLost++
			t.lostDetails = append(t.lostDetails, v.detail)
		}
		if v.torn || v.zombie {
			t.tornDetails = append(t.tornDetails, v.detail)
		}
	}
	sort.Strings(t.lostDetails)
	sort.Strings(t.tornDetails)
	return t
}

// judgeDeclare is F-DECLARE-1 in one fault (docs/spec.md 5.2): the rule judges the
// declaration, not the losses. It fails when the harness declares no durability (no
// setting the report could name); it passes after a kill or failover when the report
// names the declaration, and every loss under a lossy declaration is reported as
// declared (F-DURABLE-1 "declared", never "passed"). Losses under a durable
// declaration fail F-DURABLE-1 alone: one defect, one rule. A pause is not a crash: no
// declaration applies to it, so the rule is not exercised there.
func judgeDeclare(fault string, d harness.Durability, durable RuleVerdict) RuleVerdict {
	v := RuleVerdict{ID: RuleDeclare, Outcome: Passed}
	if strings.TrimSpace(d.Setting) == "" {
		v.Outcome, v.Reasons = Failed, []string{"the harness declares no durability setting (harness.Durability.Setting is empty): the report cannot say what a crash may lose"}
		return v
	}
	mayLose, what := d.MayLoseOnCrash, "crash"
	switch fault {
	case Pause:
		v.Outcome, v.Reasons = NotExercised, []string{"a pause is not a crash: no durability declaration applies (losses after a pause fail F-DURABLE-1)"}
		return v
	case Failover:
		mayLose, what = d.MayLoseOnFailover, "failover"
	}
	if mayLose {
		v.Reasons = []string{fmt.Sprintf("declared: acknowledged writes may be lost on %s (%s)", what, d.Setting)}
	} else {
		v.Reasons = []string{fmt.Sprintf("declared durable on %s: no acknowledged write may be lost (%s)", what, d.Setting)}
	}
	switch durable.Outcome {
	case Declared:
		v.Reasons = append(v.Reasons, "losses reported as declared: "+durable.Reasons[0])
	case Failed:
		v.Reasons = append(v.Reasons, "losses under a durable declaration fail F-DURABLE-1")
	}
	return v
}

// errorKinds is the commonest error messages of the calls (the first twenty distinct
// ones counted), with their counts, for the report.
func errorKinds(calls []callRecord) []string {
	m := map[string]int{}
	for _, c := range calls {
		if c.err == nil {
			continue
		}
		msg := c.err.Error()
		if len(msg) > 160 {
			msg = msg[:160] + "…"
		}
		if len(m) < 20 || m[msg] > 0 {
			m[msg]++
		}
	}
	type kv struct {
		k string
		n int
	}
	var all []kv
	for k, n := range m {
		all = append(all, kv{k, n})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].n > all[j].n })
	var out []string
	for i, e := range all {
		if i == 5 {
			break
		}
		out = append(out, fmt.Sprintf("%d× %s", e.n, strings.TrimSpace(e.k)))
	}
	return out
}
